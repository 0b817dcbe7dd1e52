"""A judge's results are deleted one study at a time (judges.removal): ``DELETE
/api/judges/{id}/`` took the judge's results in every study with it, when a researcher of
one study meant to free a rubric the judge's verdicts protect there, or to judge it again.

Now ``DELETE /api/judges/{id}/results/?study=`` deletes the judge's results in that study
only (admins, as every write of the API), with a dry run, and records it in the study's
audit trail; deleting the judge whole is refused, naming the studies, while its results lie
in more than one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import QualityEvent, RelevanceDisagreement
from judges.models import Judge, JudgeCoverage, JudgeRun, JudgeScore
from tests.builders import world
from tests.builders.content import make_adjudication
from tests.builders.users import make_user, signed_in
from tests.judges.test_protect_judged import items_payload

pytestmark = pytest.mark.django_db

JUDGE = "o3-judge"


def judged_study(judge: Judge, name: str):
    """A study with one report the judge scored and whose rubric items it covered; a run of
    the judge on it, done. Returns (study, rubric)."""
    study = world.study(name)
    question = world.question(study)
    report = world.report(question, world.system(study, f"{name} system"))
    rubric = world.rubric(question, items=2)
    JudgeScore.objects.create(judge=judge, report=report, metric="coverage", value=0.5)
    for item in rubric.items.all():
        JudgeCoverage.objects.create(judge=judge, report=report, item=item, covered=True)
    JudgeRun.objects.create(judge=judge, study=study, tasks=["coverage"], status="done")
    return study, rubric


@pytest.fixture
def two():
    """One judge with results in two studies, A and B."""
    judge = Judge.objects.create(name=JUDGE)
    a, rubric_a = judged_study(judge, "A")
    b, rubric_b = judged_study(judge, "B")
    return {"judge": judge, "a": a, "b": b, "rubric_a": rubric_a, "rubric_b": rubric_b}


def rows_in(judge: Judge, study) -> dict:
    return {
        "scores": JudgeScore.objects.filter(judge=judge, report__question__study=study).count(),
        "coverage": JudgeCoverage.objects.filter(
            judge=judge, report__question__study=study
        ).count(),
        "runs": JudgeRun.objects.filter(judge=judge, study=study).count(),
    }


def results_url(judge: Judge, **params) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return reverse("judge-results", args=[judge.pk]) + (f"?{query}" if query else "")


def test_deleting_in_one_study_leaves_the_judge_and_the_other_study_untouched(two, admin_user):
    judge, a, b = two["judge"], two["a"], two["b"]
    kept = rows_in(judge, b)
    r = signed_in(admin_user, api=True).delete(results_url(judge, study=a.pk))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["judge"], body["study"], body["dry_run"]) == (judge.pk, a.pk, False)
    assert body["deleted"]["JudgeScore"] == 1 and body["deleted"]["JudgeCoverage"] == 2
    assert body["deleted"]["JudgeRun"] == 1
    assert rows_in(judge, a) == {"scores": 0, "coverage": 0, "runs": 0}
    assert rows_in(judge, b) == kept == {"scores": 1, "coverage": 2, "runs": 1}
    assert Judge.objects.filter(pk=judge.pk).exists()
    event = QualityEvent.objects.get(study=a, action="delete_judge_results")
    assert event.actor == admin_user and event.detail["judge_name"] == JUDGE
    assert event.detail["deleted"]["JudgeCoverage"] == 2
    assert not QualityEvent.objects.filter(study=b).exists()


def test_a_dry_run_counts_and_deletes_nothing(two, admin_user):
    judge, a = two["judge"], two["a"]
    before = rows_in(judge, a)
    r = signed_in(admin_user, api=True).delete(results_url(judge, study=a.pk, dry_run="true"))
    assert r.status_code == 200, r.content
    assert r.json()["dry_run"] is True and r.json()["deleted"]["JudgeCoverage"] == 2
    assert rows_in(judge, a) == before
    assert not QualityEvent.objects.exists()


@pytest.mark.parametrize(
    ("params", "status", "field"),
    [
        ({}, 400, "study"),
        ({"study": "x"}, 400, "study"),
        ({"study": 999999}, 404, None),
        ({"study": "A", "dryrun": "true"}, 400, "dryrun"),  # a typo never deletes
        ({"study": "A", "dry_run": "maybe"}, 400, "dry_run"),
    ],
)
def test_bad_parameters_are_refused_naming_them_and_delete_nothing(
    two, admin_user, params, status, field
):
    judge, a = two["judge"], two["a"]
    params = {k: (a.pk if v == "A" else v) for k, v in params.items()}
    before = rows_in(judge, a)
    r = signed_in(admin_user, api=True).delete(results_url(judge, **params))
    assert r.status_code == status, r.content
    assert r.json()["detail"]
    if field:
        assert field in {e["field"] for e in r.json()["errors"]}
    assert rows_in(judge, a) == before


def test_a_study_the_judge_has_no_result_in_is_a_404_naming_both(two, admin_user):
    other = world.study("Empty")
    r = signed_in(admin_user, api=True).delete(results_url(two["judge"], study=other.pk))
    assert r.status_code == 404
    assert JUDGE in r.json()["detail"] and "Empty" in r.json()["detail"]


@pytest.mark.parametrize("who", ["annotator", "researcher of the study", "researcher of another"])
def test_only_admins_delete_results(two, who):
    judge, a, b = two["judge"], two["a"], two["b"]
    if who == "annotator":
        user = make_user("ann", "annotator", annotator=True)
    else:
        user = make_user("res", "researcher")
        (a if who == "researcher of the study" else b).researchers.add(user)
    before = rows_in(judge, a)
    client = signed_in(user, api=True)
    r = client.delete(results_url(judge, study=a.pk))
    assert r.status_code == 403, r.content
    assert r.json()["detail"]
    r = client.delete(results_url(judge, study=a.pk, dry_run="true"))
    assert r.status_code == 403
    assert rows_in(judge, a) == before and not QualityEvent.objects.exists()


def test_a_run_still_writing_on_the_study_is_refused(two, admin_user):
    judge, a = two["judge"], two["a"]
    run = JudgeRun.objects.create(judge=judge, study=a, tasks=["coverage"], status="running")
    before = rows_in(judge, a)
    r = signed_in(admin_user, api=True).delete(results_url(judge, study=a.pk))
    assert r.status_code == 409, r.content
    assert f"run {run.pk}" in r.json()["detail"] and "cancel" in r.json()["detail"]
    assert rows_in(judge, a) == before


def test_the_judge_protected_rubric_is_editable_once_its_study_results_are_deleted(two, admin_user):
    client = signed_in(admin_user, api=True)

    def add_item(rubric):
        items = items_payload(rubric)
        extra = {**items[-1], "position": len(items) + 1, "text": "A criterion no judge saw."}
        url = reverse("rubric-detail", args=[rubric.public_id])
        return client.patch(url, {"items": [*items, extra]}, format="json")

    r = add_item(two["rubric_a"])
    assert r.status_code == 409, r.content
    assert "/api/judges/<id>/results/?study=<study id>" in str(r.json())
    r = client.delete(results_url(two["judge"], study=two["a"].pk))
    assert r.status_code == 200, r.content
    assert add_item(two["rubric_a"]).status_code == 200
    assert two["rubric_a"].items.count() == 3
    assert add_item(two["rubric_b"]).status_code == 409  # the other study's stays protected


# --- Deleting the judge whole ----------------------------------------------------------------


def test_deleting_a_judge_with_results_in_two_studies_is_refused_naming_them(two, admin_user):
    judge, a, b = two["judge"], two["a"], two["b"]
    before = (rows_in(judge, a), rows_in(judge, b))
    r = signed_in(admin_user, api=True).delete(reverse("judge-detail", args=[judge.pk]))
    assert r.status_code == 409, r.content
    body = r.json()
    assert "'A' (id" in body["detail"] and "'B' (id" in body["detail"]
    assert "/api/judges/<id>/results/?study=" in body["detail"]
    assert body["studies"] == [{"id": a.pk, "name": "A"}, {"id": b.pk, "name": "B"}]
    assert Judge.objects.filter(pk=judge.pk).exists()
    assert (rows_in(judge, a), rows_in(judge, b)) == before


def test_a_judge_left_with_one_study_is_deleted_whole_and_audited(two, admin_user):
    judge, a, b = two["judge"], two["a"], two["b"]
    client = signed_in(admin_user, api=True)
    assert client.delete(results_url(judge, study=a.pk)).status_code == 200
    r = client.delete(reverse("judge-detail", args=[judge.pk]))
    assert r.status_code == 204, r.content
    assert not Judge.objects.filter(pk=judge.pk).exists()
    assert not JudgeScore.objects.exists() and not JudgeCoverage.objects.exists()
    assert QualityEvent.objects.filter(study=b, action="delete_judge_results").exists()


def test_a_judge_whose_verdicts_annotators_adjudicate_is_kept_its_results_deletable(admin_user):
    annotator = make_user("ann", "annotator", annotator=True).annotator
    study = world.study("Adj")
    question = world.question(study)
    world.report(question, world.system(study, "S"))
    make_adjudication(annotator, question, judge_name=JUDGE)
    judge = Judge.objects.get(name=JUDGE)
    disagreements = RelevanceDisagreement.objects.filter(judge=judge).count()
    assert disagreements
    client = signed_in(admin_user, api=True)
    r = client.delete(reverse("judge-detail", args=[judge.pk]))
    assert r.status_code == 409, r.content
    assert "adjudicate" in r.json()["detail"] and "'Adj'" in r.json()["detail"]
    # The refusal is for good while the adjudications exist: it says so, and does not
    # suggest the judge could be deleted once its results are (reviewer, session 21).
    assert "the judge stays as long as they do" in r.json()["detail"]
    assert "then the judge" not in r.json()["detail"]
    r = client.delete(results_url(judge, study=study.pk))
    assert r.status_code == 200 and r.json()["deleted"]["JudgeRelevance"]
    assert RelevanceDisagreement.objects.filter(judge=judge).count() == disagreements
