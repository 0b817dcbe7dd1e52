"""The quality page's disagreements, usable at 105 of them: a bulk send per task (each
unit checked as a single send is, the refused named with why), the sole eligible
adjudicator preselected, and a refused single send shown beside its own row."""

from __future__ import annotations

import re

from django.urls import reverse

from annotation.models import AdjudicationRequest
from tests.annotation.test_adjudicator_choice import world  # noqa: F401 (fixture)
from tests.annotation.test_quality_views import UNIT, judge


def keys_of(world):  # noqa: F811
    study, q1, people = world
    q2 = study.questions.exclude(pk=q1.pk).get()
    judge(people["left"], q2, "left")
    judge(people["right"], q2, "right")
    return f"pairwise|{q1.pk}|{UNIT}", f"pairwise|{q2.pk}|{UNIT}", q2


def row(page: str, key: str) -> str:
    """The row of ``key`` in the disagreements table."""
    return page.split('id="disagreements"')[1].split(f'data-unit="{key}"')[1].split("</tr>")[0]


def test_bulk_send_creates_each_eligible_request_and_names_each_refusal(client, world):  # noqa: F811
    study, q1, people = world
    k1, k2, q2 = keys_of(world)
    url = reverse("studies:quality", args=[study.pk])
    page = client.get(url).content.decode()
    # both are ticked for the bulk form of their task, which offers the union of adjudicators
    for key in (k1, k2):
        assert re.search(
            rf'name="units" value="{re.escape(key)}" form="bulk-pairwise"[^>]*checked', page
        )
    response = client.post(
        url, {"action": "adjudicate_many", "units": [k1, k2], "adjudicators": [people["free"].pk]},
        follow=True,
    )  # fmt: skip
    assert response.status_code == 200
    said = " ".join(str(m) for m in response.context["messages"])
    assert "1 disagreement(s) sent to adjudication (1 new request(s))" in said
    # free has an unfinished assignment on q2: that one is refused, with the single send's why
    assert (
        f"Refused: question {q2.external_id}, pairwise {UNIT}: adjudicators: "
        f"{people['free'].pseudonym} has unfinished work on this question" in said
    )
    sent = AdjudicationRequest.objects.get()
    assert (sent.question_id, sent.adjudicator) == (q1.pk, people["free"])


def test_bulk_send_refused_whole_says_why_beside_its_form(client, world):  # noqa: F811
    study, _, people = world
    k1, k2, _ = keys_of(world)
    url = reverse("studies:quality", args=[study.pk])
    response = client.post(url, {"action": "adjudicate_many", "units": [k1, k2]})
    assert response.status_code == 400
    assert 'data-testid="bulk-adjudication-error"><li>adjudicators: choose at least one' in (
        response.content.decode()
    )
    data = {"action": "adjudicate_many", "units": [k2], "adjudicators": [people["left"].pk]}
    response = client.post(url, data)
    assert response.status_code == 400 and "Nothing sent. Refused: question" in response.content.decode()  # fmt: skip
    assert not AdjudicationRequest.objects.exists()


def test_the_sole_eligible_adjudicator_is_preselected(client, world):  # noqa: F811
    study, q1, people = world
    key = f"pairwise|{q1.pk}|{UNIT}"
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert f'<option value="{people["free"].pk}" selected>' in row(page, key)


def test_a_refused_single_send_is_shown_beside_its_row(client, world):  # noqa: F811
    study, q1, _ = world
    key = f"pairwise|{q1.pk}|{UNIT}"
    url = reverse("studies:quality", args=[study.pk])
    anchor = re.search(r'id="(disagreement-\d+)"', row(client.get(url).content.decode(), key))[1]
    response = client.post(url, {"action": "adjudicate", "unit": key})
    assert response.status_code == 400
    mine = row(response.content.decode(), key)
    assert f'action="#{anchor}"' in mine  # the browser lands on the row it posted
    assert 'data-testid="row-adjudication-error"><li>adjudicators: choose at least one' in mine
