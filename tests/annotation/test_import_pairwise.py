"""ScholarQA-CS2 pairwise records: rankings, human and judge scores, contradictions, real files."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.importers import question_key, run
from annotation.models import (
    Assignment,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
    Question,
    Report,
)
from judges.models import Judge, JudgeScore

from .test_import_common import DATA, expect_failure, table_counts, write

ASSIGNED = DATA / "pairwise_dev_assigned_ann1.json"
CHOSEN = DATA / "pairwise_chosen.json"
AGREEMENT = DATA / "pairwise_dev_assigned_agreement_only.json"


def load(path):
    return json.loads(path.read_text())


@pytest.mark.django_db
def test_assigned_file():
    rep = run("pairwise", ASSIGNED, study="S", annotator="ann1", judge="gemini")
    assert rep.records == 6
    assert MedalRanking.objects.count() == 2 and Medal.objects.count() == 6
    assert set(Question.objects.values_list("split", flat=True)) == {"dev"}  # from the file name
    r = MedalRanking.objects.get(question__text__startswith="How do sparse")
    assert r.setting == "assigned" and r.annotator.pseudonym == "ann1" and r.annotator.user is None
    medals = {m.report.system.name: m.medal for m in r.medals.select_related("report__system")}
    assert medals == {"alpha": "gold", "beta": "silver", "gamma": "bronze"}
    a = r.assignment
    assert a.task == "medal_ranking" and a.status == Assignment.Status.SUBMITTED
    assert [Report.objects.get(pk=x).system.name for x in a.report_order] == [
        "beta",
        "alpha",
        "gamma",
    ]
    # rank-like human fields of assigned files are kept under rank_* names, never as scores
    metrics = set(HumanMetricScore.objects.values_list("metric", flat=True))
    assert metrics == {"rank_citation_precision", "rank_citation_recall", "rank_overall_citation"}
    assert JudgeScore.objects.count() == 6 * 6
    assert set(JudgeScore.objects.values_list("metric", flat=True)) == {
        "overall",
        "overall_citation",
        "answer_relevance",
        "answer_recall",
        "citation_precision",
        "citation_recall",
    }
    assert Judge.objects.get().name == "gemini"


@pytest.mark.django_db
def test_metric_wise_file_and_question_intent():
    run("pairwise", CHOSEN, study="S", annotator="exp1", judge="gemini")
    q = Question.objects.get()
    assert q.intent == "Methods & Techniques" and q.split == ""
    assert q.external_id == question_key(load(CHOSEN)[0]["question"])
    a = Assignment.objects.get()
    assert a.task == "metric_wise" and a.setting == "near_expert"  # inferred from "chosen"
    alpha = HumanMetricScore.objects.get(report__system__name="alpha", metric="answer_relevance")
    assert alpha.value == 0.9 and alpha.assignment == a
    assert HumanMetricScore.objects.count() == 3 * 6


@pytest.mark.django_db
def test_reports_and_pairwise_meet_on_one_question(tmp_path):
    q = load(CHOSEN)[0]["question"]
    reports = [
        {
            "question": "  " + q.upper() + " ",
            "response": {"sections": [{"title": "", "text": "x", "citations": []}]},
        }
    ]
    run(
        "reports", write(tmp_path, "r.json", reports), study="S", format="scholarqa", system="alpha"
    )
    run("pairwise", CHOSEN, study="S", annotator="exp1", judge="gemini")
    assert Question.objects.count() == 1
    assert Report.objects.filter(system__name="alpha").count() == 1
    assert Report.objects.get(system__name="alpha").paragraphs.count() == 1


@pytest.mark.django_db
def test_agreement_only_file_as_consensus_preferences():
    run("pairwise", ASSIGNED, study="S", annotator="ann1", judge="gemini")
    rep = run("pairwise", AGREEMENT, study="S", annotator="dev-agreement", judge="gemini")
    assert rep.created["PairwisePreference"] == 3
    assert not MedalRanking.objects.filter(annotator__pseudonym="dev-agreement").exists()
    p = PairwisePreference.objects.get(left__system__name="gamma")
    assert p.choice == "left" and p.right.system.name == "alpha"
    mean = HumanMetricScore.objects.get(
        annotator__pseudonym="dev-agreement", metric="consensus_medal_score", report=p.right
    )
    assert mean.value == 0.25
    assert (
        Assignment.objects.get(annotator__pseudonym="dev-agreement", question=p.question).task
        == "pairwise"
    )


@pytest.mark.django_db
def test_reimport_changes_nothing():
    run("pairwise", ASSIGNED, study="S", annotator="ann1", judge="gemini", split="dev")
    before = table_counts()
    stamps = list(MedalRanking.objects.values_list("updated_at", flat=True))
    rep = run("pairwise", ASSIGNED, study="S", annotator="ann1", judge="gemini")
    assert table_counts() == before and not rep.created and not rep.updated
    assert rep.unchanged["Medal"] == 6 and rep.unchanged["JudgeScore"] == 36
    assert list(MedalRanking.objects.values_list("updated_at", flat=True)) == stamps


@pytest.mark.django_db
def test_reimport_with_a_changed_medal_updates(tmp_path):
    run("pairwise", ASSIGNED, study="S", annotator="ann1", judge="gemini")
    data = load(ASSIGNED)
    q = data[0]["question"]
    for r in data:
        if r["question"] == q:
            r["preference_ranking_norm"] = [1.0, 1.0]
    rep = run(
        "pairwise",
        write(tmp_path, "pairwise_dev_assigned_x.json", data),
        study="S",
        annotator="ann1",
        judge="gemini",
    )
    assert rep.updated["Medal"] >= 1 and Medal.objects.count() == 6


@pytest.mark.django_db
@pytest.mark.parametrize(
    "mutate, record, field, text",
    [
        (lambda d: d[2].pop("models"), 3, "models", "missing"),
        (lambda d: d[0].update(models=["alpha"]), 1, "models", "two system names"),
        (lambda d: d[1].update(question=["q"]), 2, "question", "expected a string"),
        (
            lambda d: d[4].update(preference_ranking_norm=[0.7, 0.5]),
            5,
            "preference_ranking_norm",
            "not gold 1.0",
        ),
        (
            lambda d: d[3].update(preference_ranking_norm=["gold", "silver"]),
            4,
            "preference_ranking_norm",
            "expected a number",
        ),
        (lambda d: d[0].update(model_overall=[0.5]), 1, "model_overall", "two values"),
        (lambda d: d[0].update(model_overall="high"), 1, "model_overall", "expected a list"),
        (lambda d: d[5].update(model_fluency=[0.1, 0.2]), 6, "model_fluency", "unknown field"),
        # contradictions with an earlier record of the same question and report
        (
            lambda d: d[1].update(
                preference_ranking_norm=[0.0, d[1]["preference_ranking_norm"][1]]
            ),
            2,
            "preference_ranking_norm",
            "contradicts",
        ),
        (lambda d: d[2]["model_overall"].__setitem__(0, 0.123), 3, "model_overall", "record 1"),
        (
            lambda d: d[5].update(question=d[3]["question"], models=d[3]["models"][::-1]),
            6,
            "models",
            "same pair as record 4",
        ),
    ],
)
def test_bad_pairwise_files(tmp_path, mutate, record, field, text):
    run("pairwise", CHOSEN, study="S", annotator="someone", judge="gemini")
    data = load(ASSIGNED)
    mutate(data)
    path = write(tmp_path, "pairwise_dev_assigned_bad.json", data)
    expect_failure(
        "pairwise",
        path,
        file_part="bad.json",
        record=record,
        field=field,
        text=text,
        annotator="ann1",
        judge="gemini",
    )


@pytest.mark.django_db
def test_judge_scores_contradicting_the_database(tmp_path):
    run("pairwise", ASSIGNED, study="S", annotator="ann1", judge="gemini")

    def shifted(delta):
        data = load(ASSIGNED)
        q, system = data[3]["question"], data[3]["models"][1]
        for r in data:
            if r["question"] == q and system in r["models"]:
                r["model_answer_recall"][r["models"].index(system)] += delta
        return data

    path = write(tmp_path, "pairwise_dev_assigned_ann2.json", shifted(0.01))
    expect_failure(
        "pairwise",
        path,
        file_part="ann2.json",
        record=4,
        field="model_answer_recall",
        text="already stored for judge 'gemini'",
        annotator="ann2",
        judge="gemini",
    )
    # the same scores within 1e-9 are fine; so is another judge name
    run(
        "pairwise",
        write(tmp_path, "pairwise_dev_assigned_ann2.json", shifted(1e-12)),
        study="S",
        annotator="ann2",
        judge="gemini",
    )
    assert JudgeScore.objects.count() == 36
    run("pairwise", path, study="S", annotator="ann2", judge="other judge")
    assert JudgeScore.objects.count() == 72


@pytest.mark.django_db
def test_setting_and_names_required(tmp_path):
    path = write(tmp_path, "records.json", load(CHOSEN))
    expect_failure(
        "pairwise", path, file_part="records.json", text="no setting", annotator="a", judge="j"
    )
    expect_failure(
        "pairwise",
        CHOSEN,
        file_part="pairwise_chosen.json",
        text="annotator",
        annotator="",
        judge="j",
    )
    expect_failure(
        "pairwise",
        CHOSEN,
        file_part="pairwise_chosen.json",
        field="setting",
        text="setting 'x'",
        annotator="a",
        judge="j",
        setting="x",
    )
    expect_failure(
        "pairwise",
        DATA / "scholarqa_reports.json",
        file_part="scholarqa_reports.json",
        record=1,
        field="models",
        annotator="a",
        judge="j",
        setting="assigned",
    )


@pytest.mark.django_db
def test_import_pairwise_command(tmp_path):
    call_command(
        "import_pairwise",
        str(CHOSEN),
        study="S",
        annotator="e",
        judge="g",
        setting="deep_expert",
        split="test",
    )
    assert MedalRanking.objects.get().setting == "deep_expert"
    assert Question.objects.get().split == "test"
    with pytest.raises(CommandError, match="invalid JSON"):
        call_command(
            "import_pairwise",
            str(write(tmp_path, "x.json", "[{]")),
            study="S",
            annotator="e",
            judge="g",
            setting="assigned",
        )


# --- the released files ----------------------------------------------------------------------

REAL = [
    ("pairwise_dev_assigned_ann1.json", "dev-ann1", "assigned"),
    ("pairwise_dev_assigned_ann2.json", "dev-ann2", "assigned"),
    ("pairwise_test_assigned_ann1.json", "test-ann1", "assigned"),
    ("pairwise_test_assigned_ann2.json", "test-ann2", "assigned"),
    ("pairwise_chosen.json", "near-expert", "near_expert"),
    ("pairwise_authored.json", "deep-expert", "deep_expert"),
]


def import_real(scholarqa_dir, study="CS2"):
    out = {}
    for name, annotator, _ in REAL:
        out[name] = run(
            "pairwise",
            scholarqa_dir / "annotation" / name,
            study=study,
            annotator=annotator,
            judge="gemini-2.5-flash",
        )
    return out


@pytest.mark.django_db
def test_real_annotation_files(scholarqa_dir):
    reports = import_real(scholarqa_dir)
    for name, annotator, setting in REAL:
        records = json.loads((scholarqa_dir / "annotation" / name).read_text())
        questions = {r["question"] for r in records}
        assert reports[name].records == len(records) == 3 * len(questions)
        rankings = MedalRanking.objects.filter(annotator__pseudonym=annotator, setting=setting)
        assert rankings.count() == len(questions)
        assert Medal.objects.filter(ranking__in=rankings).count() == 3 * len(questions)
    # 100 + 100 assigned questions; the 20 chosen ones are test questions; 25 authored
    assert Question.objects.count() == 100 + 100 + 25
    assert Question.objects.filter(split="dev").count() == 100
    assert Question.objects.filter(split="test").count() == 100
    assert Question.objects.exclude(intent="").count() == 45
    assert HumanMetricScore.objects.filter(metric="overall", setting="near_expert").count() == 60
    assert HumanMetricScore.objects.filter(metric__startswith="rank_").count() == 4 * 300 * 3
    # the two annotations of the same comparison share judge scores: stored once
    assert JudgeScore.objects.filter(metric="overall").count() == Report.objects.count()
    before = table_counts()
    again = import_real(scholarqa_dir)
    assert table_counts() == before
    assert all(not r.created and not r.updated for r in again.values())


@pytest.mark.django_db
def test_real_agreement_only_files(scholarqa_dir):
    import_real(scholarqa_dir)
    folder = scholarqa_dir / "annotation"
    # dev agreement-only scores agree with the ann files: same judge, same study
    rep = run(
        "pairwise",
        folder / "pairwise_dev_assigned_agreement_only.json",
        study="CS2",
        annotator="dev-agreement",
        judge="gemini-2.5-flash",
    )
    assert rep.created["PairwisePreference"] == 157
    # the released test agreement-only file gives elicit other judge scores (citation
    # metrics null, overall re-averaged) than the ann files: named as a contradiction
    problems = expect_failure(
        "pairwise",
        folder / "pairwise_test_assigned_agreement_only.json",
        study="CS2",
        file_part="agreement_only.json",
        field="model_overall",
        text="already stored",
        annotator="test-agreement",
        judge="gemini-2.5-flash",
    )
    assert {p.record for p in problems} == {34, 48}
    # imported under its own judge name it goes in
    rep = run(
        "pairwise",
        folder / "pairwise_test_assigned_agreement_only.json",
        study="CS2",
        annotator="test-agreement",
        judge="gemini-2.5-flash (agreement files)",
    )
    assert rep.created["PairwisePreference"] == 178
