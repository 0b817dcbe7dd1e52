"""A judge's credentials never reach a researcher through the judge card (a tester's
finding): the API masked ``api_key`` and ``extra_headers``, but the card copied the stored
parameters into report.json, the agreement API, the judge page, the offline HTML and
``manage.py analysis --kind judge_card``. One rule (:mod:`judges.secrets`) now masks both,
and the report cache's key covers what the card shows of the judges, so an admin's edit
of a judge reaches the next report instead of the cached one.

A second finding: credentials elsewhere in the configuration (the base URL's userinfo and
query, ``extra_query``, the extra request fields) were shown in clear; the rule masks any
entry whose name suggests a secret, and a URL's userinfo and secret query values."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from judges.models import Judge
from judges.secrets import MASK
from metaeval.cache import judges_signature, study_fingerprint
from tests.metaeval.test_views import _empty_cache, demo  # noqa: F401

pytestmark = pytest.mark.django_db
JUDGE = "sonnet-pairwise-sim"
KEY, HEADER = "sk-SECRET-123", "Bearer hdr-SECRET"
BASE_URL = (
    "https://user:pw-SECRET@api.openai.com/v1?api-version=2024-06-01&key=q-SECRET"
    "&api_key=k-SECRET&token=t-SECRET&sig=s-SECRET"
)
PARAMETERS = {"api_key": KEY, "base_url": BASE_URL, "temperature": 0.3,
              "extra_headers": {"Authorization": HEADER, "X-Team": "concord"},
              "extra_query": {"Api-Token": "eq-SECRET", "deployment": "gpt4"},
              "request": {"top_p": 0.9, "max_completion_tokens": 50,
                          "metadata": {"client_secret": "body-SECRET", "team": "concord"}}}  # fmt: skip
SHOWN = {"api_key": MASK, "temperature": 0.3, "extra_headers": MASK,
         "base_url": f"https://{MASK}@api.openai.com/v1?api-version=2024-06-01&key={MASK}"
                     f"&api_key={MASK}&token={MASK}&sig={MASK}",
         "extra_query": {"Api-Token": MASK, "deployment": "gpt4"},
         "request": {"top_p": 0.9, "max_completion_tokens": 50,
                     "metadata": {"client_secret": MASK, "team": "concord"}}}  # fmt: skip


@pytest.fixture
def researcher(client, researcher_user):
    client.force_login(researcher_user)
    return client


@pytest.fixture
def keyed(demo):  # noqa: F811
    """The demo with an admin's credentials on one judge of the card (set as stored; the
    API's PATCH stores the same, its endpoint check aside)."""
    Judge.objects.filter(name=JUDGE).update(parameters=PARAMETERS)
    return demo


def command(study) -> str:
    out = io.StringIO()
    call_command("analysis", "--study", str(study.pk), "--kind", "judge_card", "--json",
                 stdout=out)  # fmt: skip
    return out.getvalue()


def card_parameters(judge_card: dict, judge: str = JUDGE) -> dict:
    return next(j for j in judge_card["judges"] if j["judge"] == judge)["parameters"]


def assert_no_secret(text: str) -> None:
    assert KEY not in text and "hdr-SECRET" not in text and "SECRET" not in text


SURFACES = {
    "report.json": lambda c, s: c.get(reverse("metaeval:json", args=[s.pk])),
    "agreement API": lambda c, s: c.get(f"/api/studies/{s.pk}/agreement/"),
    "judge page": lambda c, s: c.get(reverse("metaeval:judge", args=[s.pk, JUDGE])),
}
#: Surfaces that render no parameter today (the report page's card section and its
#: tables, the offline HTML): kept free of credentials should they ever show them.
GUARDED = {
    "report page": lambda c, s: c.get(reverse("metaeval:report", args=[s.pk])),
    "offline HTML": lambda c, s: c.get(reverse("metaeval:offline", args=[s.pk])),
    **{f"{table}.{fmt}": (lambda c, s, t=table, f=fmt: c.get(
        reverse("metaeval:table", args=[s.pk, t, f])))
       for table in ("judge_card", "judge_operations", "judge_card_tests")
       for fmt in ("json", "csv")},
}  # fmt: skip


@pytest.mark.parametrize("surface", list(SURFACES))
def test_no_page_or_response_shows_the_judge_credentials(researcher, keyed, surface):
    response = SURFACES[surface](researcher, keyed)
    assert response.status_code == 200
    text = response.content.decode()
    assert_no_secret(text)
    if surface == "judge page":  # the parameters are shown, masked
        assert "api.openai.com" in text and MASK in text
    else:
        assert card_parameters(response.json()["judge_card"]) == SHOWN


def test_no_download_or_other_page_shows_them_either(researcher, keyed):
    for surface, get in GUARDED.items():
        response = get(researcher, keyed)
        assert response.status_code == 200, surface
        text = response.content.decode()
        assert "SECRET" not in text, surface


def test_the_command_output_holds_no_credential(keyed):
    out = command(keyed)
    assert_no_secret(out)
    assert card_parameters(json.loads(out)["judge_card"]) == SHOWN


def test_the_card_shows_what_the_judges_api_shows(researcher, keyed):
    """One rule: the card's parameters are the API's, masked the same way."""
    judge = Judge.objects.get(name=JUDGE)
    api = researcher.get(f"/api/judges/{judge.pk}/").json()["parameters"]
    card = researcher.get(reverse("metaeval:json", args=[keyed.pk])).json()["judge_card"]
    assert card_parameters(card) == api == SHOWN


def test_an_edit_of_the_judge_reaches_the_next_report(researcher, keyed):
    """The cached report is not served after the judge's parameters (or model) change:
    the cache key covers what the card shows of the judges."""
    path = reverse("metaeval:json", args=[keyed.pk])
    first = researcher.get(path).json()["judge_card"]
    assert card_parameters(first) == SHOWN
    Judge.objects.filter(name=JUDGE).update(parameters={"temperature": 0.7}, model="gpt-4.1")
    second = researcher.get(path).json()["judge_card"]
    assert card_parameters(second) == {"temperature": 0.7}
    assert next(j for j in second["judges"] if j["judge"] == JUDGE)["model"] == "gpt-4.1"


def test_the_fingerprint_follows_what_the_card_shows_of_a_judge(keyed):
    judge = Judge.objects.get(name=JUDGE)
    seen = {study_fingerprint(keyed.pk)}
    for change in ({"parameters": {**PARAMETERS, "temperature": 0.9}},
                   {"parameters": {k: v for k, v in PARAMETERS.items() if k != "api_key"}},
                   {"model": "gpt-4.1"}, {"prompt_version": "v9"}, {"provider": "azure"},
                   {"prompt_template": "Another prompt: {question}"}, {"name": "renamed"}):  # fmt: skip
        Judge.objects.filter(pk=judge.pk).update(**change)
        seen.add(study_fingerprint(keyed.pk))
    assert len(seen) == 8


@pytest.mark.parametrize("rotated", [
    {"api_key": "sk-other"},
    {"base_url": BASE_URL.replace("pw-SECRET", "pw-OTHER")},
    {"base_url": BASE_URL.replace("sig=s-SECRET", "sig=s-OTHER")},
    {"extra_query": {**PARAMETERS["extra_query"], "Api-Token": "eq-OTHER"}},
    {"request": {**PARAMETERS["request"], "metadata": {"client_secret": "body-OTHER"}}},
])  # fmt: skip
def test_a_changed_credential_changes_the_fingerprint_without_showing_in_it(keyed, rotated):
    """The card shows the same mask either way, but the report's key follows the stored
    credentials (a keyed digest of them), and nothing of them is readable in what is
    digested."""
    judge = Judge.objects.get(name=JUDGE)
    Judge.objects.filter(pk=judge.pk).update(parameters=PARAMETERS)
    before = study_fingerprint(keyed.pk)
    assert "SECRET" not in repr(judges_signature())
    Judge.objects.filter(pk=judge.pk).update(parameters={**PARAMETERS, **rotated})
    assert study_fingerprint(keyed.pk) != before
    assert "OTHER" not in repr(judges_signature())
