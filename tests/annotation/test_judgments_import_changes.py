"""A dry run of the human judgments import lists what it would do, record by record, as a
judge-score import lists the verdicts it changes (``annotation.importers.base.Change``,
its ``detail``): each judgment it would create, update (old -> new) or leave unchanged,
named by question, system, annotator, setting and metric. Before, it gave counts only
("updated: 1 HumanMetricScore"), so a re-imported spreadsheet of expert scores told
neither whose score of which report changed nor from what to what. The list is the same
in the command's output, the API's answer and the study page's import result; a real run
lists what it applied, the same list; a dry run writes nothing."""

import html
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.importers import run
from annotation.importers.base import Change
from annotation.models import Annotator, HumanMetricScore
from tests.annotation.test_api_import import post, upload
from tests.builders.content import make_question, make_study

pytestmark = pytest.mark.django_db

OVERALL = (
    "question 'q1', system 'SecretSystem0', annotator 'ann-1', setting 'assigned', metric 'overall'"
)
RECALL = (
    "question 'q1', system 'SecretSystem0', annotator 'ann-1', setting 'assigned', "
    "metric 'answer_recall'"
)
NEW = (
    "question 'q1', system 'SecretSystem1', annotator 'ann-2', setting 'assigned', metric 'overall'"
)


def score(system: str, annotator: str, metric: str, value: float) -> dict:
    return {"kind": "human_metric_score", "annotator": annotator, "setting": "assigned",
            "question": "q1", "system": system, "metric": metric, "value": value}  # fmt: skip


def as_file(records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


#: The second file: one score changed, one as stored, one new (by a new annotator).
AGAIN = [
    score("SecretSystem0", "ann-1", "overall", 0.25),
    score("SecretSystem0", "ann-1", "answer_recall", 0.5),
    score("SecretSystem1", "ann-2", "overall", 1.0),
]


def expected(file: str, dry_run: bool = True) -> list[Change]:
    return [
        Change("Annotator", "'ann-2'", ("pseudonym",), file, 3, "", "created"),
        Change("HumanMetricScore", OVERALL, ("value",), file, 1, "value 0.75 -> 0.25"),
        Change("HumanMetricScore", RECALL, ("value",), file, 2, "value 0.5", "unchanged"),
        Change("HumanMetricScore", NEW, ("value",), file, 3, "value 1.0", "created"),
    ]


@pytest.fixture
def scored():
    """A study whose annotator ann-1 scored SecretSystem0's report (overall 0.75, answer
    recall 0.5), through the import."""
    study = make_study("Scores")
    make_question(study, n_reports=2, paragraphs=1, external_id="q1")
    first = [
        score("SecretSystem0", "ann-1", "overall", 0.75),
        score("SecretSystem0", "ann-1", "answer_recall", 0.5),
    ]
    run("judgments", as_file(first), study=study)
    return study


def snapshot(study) -> list[tuple]:
    """Every stored score with its times, and every annotator: what a dry run leaves."""
    return [
        *HumanMetricScore.objects.filter(study=study)
        .order_by("pk")
        .values_list(
            "annotator__pseudonym",
            "report__system__name",
            "metric",
            "value",
            "created_at",
            "updated_at",
        ),  # fmt: skip
        *Annotator.objects.order_by("pk").values_list("pseudonym"),
    ]


def test_a_dry_run_lists_each_score_created_updated_or_unchanged_and_writes_nothing(scored):
    before = snapshot(scored)
    rep = run("judgments", as_file(AGAIN), study=scored, dry_run=True)
    assert rep.changes == expected("upload")
    assert snapshot(scored) == before
    text = rep.summary()
    assert (
        "1 record(s) would change:\n"
        f"- upload, record 1: HumanMetricScore {OVERALL}: value (value 0.75 -> 0.25)"
    ) in text
    assert f"- upload, record 3: HumanMetricScore {NEW}: created (value 1.0)" in text
    assert "2 record(s) would be created:" in text
    assert (
        f"1 record(s) would be left unchanged:\n- upload, record 2: HumanMetricScore {RECALL}: "
        "unchanged (value 0.5)"
    ) in text
    assert rep.updated == {"HumanMetricScore": 1}  # the counts as before


def test_a_real_run_lists_what_it_applied_the_same_list(scored):
    dry = run("judgments", as_file(AGAIN), study=scored, dry_run=True)
    done = run("judgments", as_file(AGAIN), study=scored)
    assert done.changes == dry.changes == expected("upload")
    assert "1 record(s) changed:" in done.summary()
    values = dict(
        HumanMetricScore.objects.filter(study=scored).values_list("annotator__pseudonym", "value")
        .filter(metric="overall")
    )  # fmt: skip
    assert values == {"ann-1": 0.25, "ann-2": 1.0}
    again = run("judgments", as_file(AGAIN), study=scored, dry_run=True)
    assert {c.action for c in again.changes} == {"unchanged"} and len(again.changes) == 3


def test_the_command_prints_the_list(scored, tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_bytes(as_file(AGAIN))
    before = snapshot(scored)
    out = io.StringIO()
    call_command("import_judgments", str(path), "--study", str(scored.pk), "--dry-run", stdout=out)
    printed = out.getvalue()
    for change in expected(str(path)):
        assert f"- {change}" in printed, printed
    assert f"record 1: HumanMetricScore {OVERALL}: value (value 0.75 -> 0.25)" in printed
    assert snapshot(scored) == before


def test_the_api_answers_the_list(admin_user, scored):
    before = snapshot(scored)
    response = post(admin_user, scored, kind="judgments", format="jsonl", dry_run="true",
                    file=upload("scores.jsonl", as_file(AGAIN)))  # fmt: skip
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["dry_run"] is True
    assert body["changes"] == [
        {"table": c.table, "id": c.id, "fields": list(c.fields), "file": c.file,
         "record": c.record, "detail": c.detail, "action": c.action}
        for c in expected("scores.jsonl")
    ]  # fmt: skip
    assert snapshot(scored) == before


def test_the_study_pages_import_form_shows_the_list(admin_user, client, scored):
    client.force_login(admin_user)
    before = snapshot(scored)
    response = client.post(
        reverse("studies:import", args=[scored.pk]),
        {"kind": "judgments", "format": "jsonl", "dry_run": "on",
         "file": upload("scores.jsonl", as_file(AGAIN))},
        follow=True,
    )  # fmt: skip
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    for change in expected("scores.jsonl"):
        assert f"- {change}" in page
    assert "value 0.75 -> 0.25" in page
    assert snapshot(scored) == before
