"""The judgments import checks what the tester found unchecked (admin API token, POST
/api/studies/{id}/import/ kind judgments): a human metric score's value on its metric's
scale (``overall`` 7, -5, 1.5, Infinity were stored; NaN was a 500), a record's ``report``
(ignored: any id matched on question and system), annotator names (a trailing space or an
account's username silently created an annotator), the ``task`` (dropped: exported back
as null) and the warnings (out of record order; "now theirs" for judgments already
theirs). Each refusal is a 400 naming the record and field and writes nothing."""

import json
import math

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.annotate import scores
from annotation.importers import ImportFailed, run
from annotation.models import Annotator, Assignment, HumanMetricScore, Study
from tests.annotation.test_api_import import post, upload
from tests.annotation.test_judgments_import_values import (
    as_file,
    exported_lines,
    of_kind,
    stored,
    two,
)
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db
__all__ = ["two"]  # the fixture, imported for the tests here


def refused(b, lines, n: int, field: str) -> str:
    """The import's refusal of ``lines``: names record ``n`` (0-based) and ``field``, and
    writes nothing (no judgment, no annotator, no assignment)."""
    people, assignments = Annotator.objects.count(), Assignment.objects.count()
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(lines), study=b)
    assert (n + 1, field) in [(p.record, p.field) for p in failed.value.problems], str(failed.value)
    assert stored(b) == 0
    assert (Annotator.objects.count(), Assignment.objects.count()) == (people, assignments)
    return str(failed.value)


# --- 1. a human metric score's value on its metric's scale ----------------------------------


def test_every_human_metric_declares_its_scale():
    assert set(scores.HUMAN_METRICS) >= {*scores.METRICS, "overall_citation",
                                          "consensus_medal_score", "rank_citation_recall"}  # fmt: skip
    assert scores.HUMAN_METRICS["overall"].scale() == "[0, 1]"
    assert scores.HUMAN_METRICS["rank_citation_precision"].scale() == "[1, 3]"


@pytest.mark.parametrize("value", [7, -5, 1.5, math.inf, -math.inf, math.nan])
def test_a_metric_score_off_its_scale_or_not_finite_is_refused(two, value):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    assert lines[n]["metric"] == "overall"
    lines[n]["value"] = value
    says = refused(b, lines, n, "value")
    if math.isfinite(value):
        assert "outside the scale of overall, [0, 1]" in says
    else:
        assert "is not a finite number" in says


def test_a_rank_like_metric_has_its_own_scale(two):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    lines[n].update(metric="rank_citation_recall", value=0.5)
    assert "[1, 3]" in refused(b, lines, n, "value")
    lines[n]["value"] = 2.5
    run("judgments", as_file(lines), study=b)
    assert HumanMetricScore.objects.get(study=b).value == 2.5


def test_a_nan_value_through_the_api_is_a_400_not_a_500(two, admin_user):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    lines[n]["value"] = math.nan
    body = as_file(lines)
    assert b"NaN" in body
    response = post(admin_user, b, kind="judgments", format="jsonl",
                    file=upload("judgments.jsonl", body))  # fmt: skip
    assert response.status_code == 400, response.content
    text = response.content.decode()
    assert f"record {n + 1}, value: nan is not a finite number" in text
    assert stored(b) == 0


def test_the_metric_score_api_refuses_a_value_off_the_scale(two, admin_user):
    _, b, _ = two
    q = b.questions.get()
    body = {"study": b.pk, "annotator": Annotator.objects.create(pseudonym="api-x").pk,
            "question": q.pk, "setting": "assigned", "metric": "overall",
            "report": q.reports.order_by("system__name").first().public_id}  # fmt: skip
    client = APIClient()
    client.force_authenticate(admin_user)
    url = reverse("human-metric-score-list")
    response = client.post(url, {**body, "value": 7}, format="json")
    assert response.status_code == 400, response.content
    assert "[0, 1]" in str(response.json()["value"])
    assert not HumanMetricScore.objects.filter(study=b).exists()
    assert client.post(url, {**body, "value": 1}, format="json").status_code == 201


# --- 2. the record's report ------------------------------------------------------------------


def test_a_report_id_naming_no_report_is_refused(two):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    lines[n]["report"] = "nosuchreport"
    assert "no report has the id 'nosuchreport'" in refused(b, lines, n, "report")


def test_another_systems_report_of_this_study_is_refused(two):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    other = b.questions.get().reports.exclude(system__name=lines[n]["system"]).first()
    lines[n]["report"] = other.public_id
    says = refused(b, lines, n, "report")
    assert f"is this study's report of question 'q1' / system '{other.system.name}'" in says


def test_another_studys_report_of_another_system_is_refused(two):
    a, b, lines = two
    n = of_kind(lines, "medal")
    other = a.questions.get().reports.exclude(system__name=lines[n]["system"]).first()
    lines[n]["report"] = other.public_id
    assert "is another study's report" in refused(b, lines, n, "report")


def test_a_pairwise_sides_report_is_checked_too(two):
    _, b, lines = two
    n = of_kind(lines, "pairwise_preference")
    lines[n]["left_report"] = lines[n]["right_report"]
    refused(b, lines, n, "left_report")


def test_a_record_without_report_matches_by_question_and_system(two):
    """The column is optional (a file from another Concord leaves it out); an export of a
    study with the same content (its reports' ids are the other study's, with the same
    question and system) imports as before."""
    a, b, lines = two
    for r in lines[:3]:
        r.pop("report", None)
    run("judgments", as_file(lines), study=b)
    assert stored(b) == stored(a) > 0


# --- 3. annotator names --------------------------------------------------------------------


def test_a_name_with_white_space_around_it_is_refused(two):
    _, b, lines = two
    lines[2]["annotator"] = "Pseudo-x "
    assert "white space" in refused(b, lines, 2, "annotator")


def test_an_accounts_username_is_refused_naming_its_pseudonym(two):
    _, b, lines = two
    person = make_user("annotator3", "annotator", annotator=True).annotator
    assert person.pseudonym != "annotator3"
    lines[1]["annotator"] = "annotator3"
    says = refused(b, lines, 1, "annotator")
    assert "username of an account, not a pseudonym" in says
    assert f"their pseudonym is {person.pseudonym!r}" in says


def test_a_new_name_is_created_and_listed_in_the_dry_run(two):
    _, b, lines = two
    for r in lines:
        r["annotator"] = "Outside-Expert-1"
    rep = run("judgments", as_file(lines), study=b, dry_run=True)
    created = [c for c in rep.changes if c.table == "Annotator"]
    assert [(c.id, c.action, c.record) for c in created] == [("'Outside-Expert-1'", "created", 1)]
    assert not Annotator.objects.filter(pseudonym="Outside-Expert-1").exists()
    run("judgments", as_file(lines), study=b)
    assert Annotator.objects.filter(pseudonym="Outside-Expert-1").exists()


def test_a_pseudonym_known_only_from_another_study_is_a_warning(two):
    _, b, lines = two  # Pseudo-x judged study A only
    rep = run("judgments", as_file(lines), study=b)
    [warning] = [w for w in rep.warnings if "other studies" in w.message]
    assert (warning.record, warning.field) == (1, "annotator") and "Pseudo-x" in warning.message
    again = run("judgments", as_file(lines), study=b)  # now known here
    assert not [w for w in again.warnings if "other studies" in w.message]


# --- 4. the task -----------------------------------------------------------------------------


def _without_study_ids(lines) -> list[dict]:
    """The records without what differs between two studies of the same content."""
    drop = {"id", "report", "left_report", "right_report", "ranking", "comparison"}
    return sorted(({k: v for k, v in r.items() if k not in drop} for r in lines),
                  key=lambda r: json.dumps(r, sort_keys=True))  # fmt: skip


def test_the_task_survives_export_import_export(two):
    from annotation.judgment_kinds import BY_KEY
    from tests.builders.content import make_question, make_study

    _, b, lines = two
    for r in lines:
        r["task"] = str(BY_KEY[r["kind"]].tasks[-1])  # medal: metric_wise, the second
    run("judgments", as_file(lines), study=b)
    first = exported_lines(b)
    assert {(r["kind"], r["task"]) for r in first} == {(r["kind"], r["task"]) for r in lines}
    assert _without_study_ids(first) == _without_study_ids(lines)
    assert set(Assignment.objects.filter(study=b).values_list("status", flat=True)) == {
        Assignment.Status.SUBMITTED
    }
    c = make_study("C")
    make_question(c, n_reports=3, paragraphs=3, rubric_items=3, external_id="q1")
    run("judgments", as_file(first), study=c)
    assert _without_study_ids(exported_lines(c)) == _without_study_ids(first)
    again = run("judgments", as_file(first), study=b)  # the same study: nothing changes
    assert not again.created and exported_lines(b) == first


def test_a_task_that_does_not_write_the_kind_is_refused(two):
    _, b, lines = two
    n = of_kind(lines, "query_quality")
    lines[n]["task"] = "pairwise"
    assert "not a task that writes query_quality" in refused(b, lines, n, "task")


# --- 5. warnings ---------------------------------------------------------------------------


def test_warnings_come_in_record_order(two):
    _, b, lines = two
    late = make_user("aaa_person", "annotator", annotator=True).annotator
    early = make_user("zzz_person", "annotator", annotator=True).annotator
    Annotator.objects.filter(pk=late.pk).update(pseudonym="A-late")
    Annotator.objects.filter(pk=early.pk).update(pseudonym="Z-early")
    lines[0]["annotator"] = "Z-early"
    lines[3]["annotator"] = "A-late"
    rep = run("judgments", as_file(lines), study=b)
    records = [w.record for w in rep.warnings]
    assert 1 in records and 4 in records
    assert records == sorted(records)


def test_now_theirs_only_when_the_owner_changes(two):
    _, b, lines = two
    person = make_user("real_person", "annotator", annotator=True).annotator
    for r in lines:
        r["annotator"] = person.pseudonym
    first = run("judgments", as_file(lines), study=b)
    assert [w.record for w in first.warnings if "now theirs" in w.message] == [1]
    again = run("judgments", as_file(lines), study=b)  # already theirs: no owner changes
    assert not [w for w in again.warnings if "now theirs" in w.message]
    assert Study.objects.filter(pk=b.pk).exists()
