"""Pairwise preference page: every pair, a reason each, ties per study, forged posts refused."""

import pytest
from django.urls import reverse

from annotation.annotate.pairwise import preference_problems
from annotation.models import DraftVersion, PairwisePreference, Report
from annotation.rendering import forget_page_reports
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=2)
    assignment = make_assignment(annotator_user.annotator, question, "pairwise")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    left, right = (by_pk[pk] for pk in assignment.report_order)
    return study, assignment, client, f"{left}.{right}"


def post(
    client, assignment, key, version=0, choice="left", reason="Better evidence.", name="submit"
):
    return client.post(
        reverse(f"annotate:{name}", args=[assignment.pk]),
        {"version": str(version), f"choice-{key}": choice, f"reason-{key}": reason},
        HTTP_HX_REQUEST="true",
    )


def test_rules():
    pairs = {"a.b": "Report A vs Report B"}
    assert not preference_problems(
        {"a.b": {"choice": "tie", "reason": "r"}}, pairs, ties_allowed=True, final=True
    )
    assert preference_problems(
        {"a.b": {"choice": "tie", "reason": "r"}}, pairs, ties_allowed=False, final=True
    )
    assert preference_problems(
        {"a.b": {"choice": "left", "reason": " "}}, pairs, ties_allowed=True, final=True
    )
    draft = preference_problems(
        {"a.b": {"choice": "left", "reason": ""}}, pairs, ties_allowed=True, final=False
    )
    assert not draft.errors and draft.warnings
    assert preference_problems(
        {"a.c": {"choice": "left"}}, pairs, ties_allowed=True, final=False
    ).errors


def test_page_shows_both_reports_blinded(setup):
    study, assignment, client, key = setup
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert "Report A (left) vs Report B (right)" in html and f'name="choice-{key}"' in html
    assert "SecretSystem" not in html


def test_submit_writes_the_preference_once(setup):
    study, assignment, client, key = setup
    assert post(client, assignment, key, name="autosave", reason="").status_code == 200
    assert post(client, assignment, key, version=1).status_code == 204
    assert post(client, assignment, key, version=1).status_code == 204
    pref = PairwisePreference.objects.get()
    assert (pref.choice, pref.reason, pref.assignment) == ("left", "Better evidence.", assignment)
    assert [pref.left.public_id, pref.right.public_id] == key.split(".")


@pytest.mark.parametrize(
    ("choice", "reason", "config", "message"),
    [
        ("left", "", {}, "reason is required"),
        ("tie", "same", {"ties_allowed": False}, "ties are not allowed"),
        ("worse", "x", {}, "is not one of"),
        ("", "x", {}, "choose which report"),
    ],
)
def test_invalid_submissions_change_nothing(setup, choice, reason, config, message):
    study, assignment, client, key = setup
    study.config = config
    study.save()
    response = post(client, assignment, key, choice=choice, reason=reason)
    assert response.status_code == 422 and message in response.content.decode()
    assert not PairwisePreference.objects.exists() and not DraftVersion.objects.exists()


def test_forged_pair_is_refused(setup):
    study, assignment, client, key = setup
    response = post(client, assignment, "forged.pair", name="autosave")
    assert response.status_code == 422


def test_three_reports_make_three_pairs(annotator_user, client, django_assert_num_queries):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=60)
    assignment = make_assignment(annotator_user.annotator, question, "pairwise")
    client.force_login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    client.get(url)
    forget_page_reports()
    # +1: a never-saved draft reads the stored judgments (preferences; drafts.answers_of)
    with django_assert_num_queries(12):
        html = client.get(url).content.decode()
    assert html.count('class="choice-row pair-row"') == 3
    with django_assert_num_queries(9):  # the reports' renderings kept by the process
        html = client.get(url).content.decode()
    assert html.count('class="choice-row pair-row"') == 3
