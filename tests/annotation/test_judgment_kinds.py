"""Every judgment kind goes out and back: the export (json, jsonl, csv), its API list, the
JSON-lines import into another study, and the label IAA (issue 26, dead ends 3 and 4:
DeepScholar labels, expertise triage, question authoring and rubric comparison had no way
out). The test iterates over the one declaration (``annotation.judgment_kinds``) and over
every judgment model and task type, so a new kind cannot be left out."""

import csv
import io
import json

import pytest
from django.apps import apps
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import judgment_kinds
from annotation import models as m
from annotation.exporters import export_judgments, judgment_records
from annotation.importers import ImportFailed, run
from annotation.models import Annotator, ExpertiseRating, Question, Study
from annotation.protection import judgment_models
from tests.builders.content import make_study
from tests.builders.quality import PROBES, S0, label, qc_question

pytestmark = pytest.mark.django_db

#: Judgment models listed through a row model of theirs (one record per medal / assessment).
ROW_OF = {"MedalRanking": "Medal", "RubricComparison": "RubricAssessment"}


def test_every_judgment_model_and_task_type_has_a_kind():
    declared = {k.model.split(".")[1] for k in judgment_kinds.KINDS}
    for model in judgment_models():
        assert ROW_OF.get(model.__name__, model.__name__) in declared, model.__name__
    assert {"ExpertiseRating", "Question"} <= declared  # triage and authoring
    tasks = {t for k in judgment_kinds.KINDS for t in k.tasks}
    assert tasks == set(Study.Task.values)


def judged_study(name):
    """One question with everything; two annotators label every task type, one rates its
    expertise, one authored a question."""
    study = make_study(name)
    q, q2 = qc_question(study), qc_question(study)
    one, two = (Annotator.objects.get_or_create(pseudonym=p)[0] for p in ("Expert-1", "Expert-2"))
    for task in PROBES:
        on = q2 if task == "metric_wise" else q  # metric-wise has its own medal ranking
        label(task, one, on)
        label(task, two, on, second=True)
    ExpertiseRating.objects.create(annotator=one, question=q, level="near")
    report = q2.reports.order_by("system__name").first()
    para = report.paragraphs.get(number=1)
    base = {"study": study, "annotator": one, "question": q2, "setting": "assigned"}
    m.HumanMetricScore.objects.create(**base, report=report, metric="overall", value=0.75)
    m.ParagraphRelevance.objects.create(**base, paragraph=para, label="U")
    m.ClaimAssessment.objects.create(
        **base, report=report, paragraph=para, position=1, text="A claim", citation_count=1,
        citations=[{"key": "[1]", "support": "snippet"}], supporting_credit=1.0,
        coverage="fully", notes="",
    )  # fmt: skip
    Question.objects.create(
        study=study, external_id="authored-1", text="What limits memorization?", field="NLP",
        subdomain="Privacy",
        origin="expert_authored", authored_by=two, author_notes="Must mention dedup.",
    )  # fmt: skip
    return study


def comparable(study):
    drop = {"id", "ranking", "comparison", "report", "left_report", "right_report",
            "created_at", "updated_at", "task"}  # fmt: skip
    return sorted(
        (json.dumps({k: v for k, v in r.items() if k not in drop}, sort_keys=True)
         for r in judgment_records(study)),
    )  # fmt: skip


def with_judge_verdicts(study, judge="judge-x"):
    """The judge of the probe adjudications known in ``study``: its relevance verdicts
    imported (kind judge_scores, format relevance), as a study that re-imports
    adjudications needs."""
    verdict = {"question_id": "q1", "system": S0, "paragraph": 1, "relevant": True}
    run("judge_scores", json.dumps(verdict).encode(), study=study, format="relevance",
        judge=judge)  # fmt: skip
    return study


def test_every_kind_is_exported_imported_and_listed(admin_user):
    a = judged_study("A")
    b = make_study("B")
    qc_question(b), qc_question(b)
    with_judge_verdicts(b)
    records = judgment_records(a)
    exported = {r["kind"] for r in records}
    assert exported == {k.key for k in judgment_kinds.KINDS}
    # every file format holds every kind
    jsonl = export_judgments(a, "jsonl")
    assert {json.loads(line)["kind"] for line in jsonl.splitlines()} == exported
    assert {r["kind"] for r in json.loads(export_judgments(a, "json"))} == exported
    rows = list(csv.DictReader(io.StringIO(export_judgments(a, "csv"))))
    assert {r["kind"] for r in rows} == exported
    # the JSON lines re-import into another study with the same labels
    rep = run("judgments", jsonl.encode(), study=b)
    assert comparable(b) == comparable(a)
    again = run("judgments", jsonl.encode(), study=b)
    assert not again.created and sum(again.unchanged.values()) >= rep.records
    assert comparable(b) == comparable(a)
    # every kind with an API list answers its records for study B
    client = APIClient()
    client.force_login(admin_user)
    for kind in judgment_kinds.KINDS:
        if not kind.api:
            continue
        got = client.get(f"/api/judgments/{kind.api}/", {"study": b.pk})
        assert got.status_code == 200, kind.api
        model = apps.get_model(kind.api_model or kind.model)
        assert (
            got.json()["count"]
            == model.objects.filter(
                **{kind.study.removeprefix(kind.prefix) if kind.api_model else kind.study: b.pk}
            ).count()
            > 0
        ), kind.api


def test_deepscholar_labels_listed_blinded_for_their_annotator(annotator_user):
    study = make_study("DS")
    q = qc_question(study)
    label("organization", annotator_user.annotator, q)
    client = APIClient()
    client.force_login(annotator_user)
    got = client.get("/api/judgments/deepscholar-labels/").json()
    assert got["count"] == 1
    body = json.dumps(got)
    assert "SecretSystem" not in body and got["results"][0]["label"] == "win"


def test_an_unknown_kind_and_a_missing_unit_are_refused_naming_the_record():
    a = judged_study("A")
    b = make_study("B")
    qc_question(b), qc_question(b)
    bad = json.dumps({"kind": "deepscholar_lable", "annotator": "x", "setting": "assigned",
                      "question": "q1"})  # fmt: skip
    with pytest.raises(ImportFailed, match="unknown judgment kind 'deepscholar_lable'"):
        run("judgments", bad.encode(), study=b)
    lines = [json.loads(x) for x in export_judgments(a, "jsonl").splitlines()]
    claim = next(r for r in lines if r["kind"] == "claim_check")
    claim["claim"] = 99
    with pytest.raises(ImportFailed, match="no claim of question / system / position"):
        run("judgments", "\n".join(json.dumps(r) for r in lines).encode(), study=b)
    assert judgment_records(b) == []


def test_an_empty_judgments_download_is_a_404_and_deepscholar_labels_fill_it(client, admin_user):
    study = make_study("Empty")
    q = qc_question(study)
    client.force_login(admin_user)
    for fmt in ("json", "jsonl", "csv"):
        url = reverse("studies:export_judgments", args=[study.pk, fmt])
        got = client.get(url)
        assert got.status_code == 404 and "no human judgment" in got.content.decode()
    label("nugget_support", Annotator.objects.create(pseudonym="E"), q)
    got = client.get(reverse("studies:export_judgments", args=[study.pk, "jsonl"]))
    record = json.loads(got.content.decode().splitlines()[0])
    assert record["kind"] == "deepscholar_label" and record["label_kind"] == "nugget_support"
    assert record["label"] == "supported" and record["unit"] == "n1"


def test_deepscholar_labels_have_human_vs_human_iaa():
    from annotation.models import DeepScholarLabel
    from metaeval.analyses.iaa import analyse_iaa, deepscholar_sets

    a = judged_study("A")
    rows = DeepScholarLabel.objects.filter(study=a).values_list(
        "kind", "question_id", "report_id", "unit", "annotator_id", "label"
    )
    sets, levels = deepscholar_sets(rows)
    got = {k["kind"]: k for k in analyse_iaa(sets, levels)}
    assert set(got) == {f"deepscholar_{k}" for k in
                        ("organization", "nugget_importance", "nugget_support",
                         "retrieval_relevance", "reference_importance", "entailment")}  # fmt: skip
    # the two experts disagree on the one probe unit of each kind
    assert all(k["pairs"] == 1 and k["strict"] == 0.0 for k in got.values())
    assert got["deepscholar_organization"]["level"] == "ordinal"
    assert got["deepscholar_entailment"]["level"] == "nominal"


def test_a_deepscholar_label_outside_its_kind_is_refused():
    b = make_study("B")
    qc_question(b)
    record = {"kind": "deepscholar_label", "annotator": "x", "setting": "assigned",
              "question": "q1", "label_kind": "organization", "system": "SecretSystem0",
              "unit": "", "label": "vital"}  # fmt: skip
    with pytest.raises(ImportFailed, match="'vital' is not a organization label"):
        run("judgments", json.dumps(record).encode(), study=b)
    assert judgment_records(b) == []
