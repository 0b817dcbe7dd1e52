"""An id read from text is ASCII digits, one rule for all (``concord.query.is_digits``).

``str.isdigit`` is true of "²" and "٣"; ``int("²")`` raises, so a forged id answered a 500
where every other bad id answers a clear 4xx: a study's history (``?annotator=²``), return
for revision (``assignment=²``), a study's export through the API, the per-study delete of
a judge's results (``?study=²``). Found by re-reading the last session's changes.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.quality.labels import parse_item, parse_paragraph
from concord.query import is_digits
from judges.models import Judge
from judges.prompts import MalformedAnswer, parse_relevance
from tests.builders.content import make_study
from tests.builders.users import signed_in

pytestmark = pytest.mark.django_db

SUPERSCRIPT_TWO = "\u00b2"


@pytest.mark.parametrize("text", [SUPERSCRIPT_TWO, "\u0663", "", "1.0", "-1", " 1"])
def test_only_ascii_digits_are_an_id(text):
    assert not is_digits(text)


def test_digits_are_an_id():
    assert is_digits("0") and is_digits("42")


def test_pages_refuse_a_superscript_id_with_a_4xx(admin_user):
    study = make_study("Ids", tasks=["pairwise"])
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    history = client.get(
        reverse("studies:history", args=[study.pk]), {"annotator": SUPERSCRIPT_TWO}
    )
    assert history.status_code == 404
    returned = client.post(
        reverse("studies:return_for_revision", args=[study.pk]), {"assignment": SUPERSCRIPT_TWO}
    )
    assert returned.status_code in (302, 400), returned.status_code


def test_the_api_refuses_a_superscript_study_with_a_4xx(admin_user):
    api = signed_in(admin_user, api=True)
    assert api.get("/api/studies/%C2%B2/export/").status_code == 404
    judge = Judge.objects.create(name="judge")
    r = api.delete(reverse("judge-results", args=[judge.pk]) + "?study=%C2%B2")
    assert r.status_code == 400 and "study" in r.json()["detail"], r.content


def test_a_judge_naming_a_superscript_paragraph_is_a_malformed_answer():
    with pytest.raises(MalformedAnswer, match="not in the report"):
        parse_relevance('{"irrelevant": [{"paragraph": "\u00b2"}]}', [1, 2])


def test_unit_names_with_a_superscript_position_are_not_units():
    assert parse_item(f"item coverage:{SUPERSCRIPT_TWO}") is None
    assert parse_item("item coverage:2") == ("coverage", 2)
    assert parse_paragraph(f"paragraph {SUPERSCRIPT_TWO}") is None
