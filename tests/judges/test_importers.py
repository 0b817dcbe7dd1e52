"""import_judge_scores: each format round-trips its fixture; bad input changes nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.importers import ImportFailed
from annotation.models import Question, Report, Rubric, RubricItem, System
from judges.importers import import_judge_scores
from judges.models import Judge, JudgeCoverage, JudgePairwise, JudgeScore
from judges.scoring import researchqa
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"


def counts():
    return (JudgeCoverage.objects.count(), JudgePairwise.objects.count(),
            JudgeScore.objects.count(), Judge.objects.count())  # fmt: skip


def test_researchqa_coverage_and_pairwise_make_the_ensemble():
    study = build_study("rqa")
    for system in ("alpha", "beta"):
        rep = import_judge_scores(DATA / f"researchqa_coverage_{system}.json", study="rqa",
                                  judge="gpt-4.1-mini", format="researchqa-coverage",
                                  system=system)  # fmt: skip
        assert rep.created == {"Judge": 1, "JudgeCoverage": 20} or rep.created == {
            "JudgeCoverage": 20
        }
    judge = Judge.objects.get(name="gpt-4.1-mini")
    alpha = Report.objects.get(question__external_id="q1", system__name="alpha")
    data = json.loads((DATA / "researchqa_coverage_alpha.json").read_text())["q1"]
    labels = [researchqa.label_value(e["score"]) for e in data]
    assert sorted(
        JudgeCoverage.objects.filter(judge=judge, report=alpha).values_list("label", flat=True)
    ) == sorted(labels)
    assert JudgeScore.objects.get(judge=judge, report=alpha, metric="rubric_coverage").value == (
        pytest.approx(sum(labels) / len(labels) / 4)
    )

    rep = import_judge_scores(DATA / "researchqa_pairwise.json", study=study, judge="gpt-4.1-mini",
                              format="researchqa-pairwise")  # fmt: skip
    assert rep.records == 3 and rep.created["JudgePairwise"] == 5  # one null decision
    direct = JudgePairwise.objects.filter(judge=judge, protocol="direct")
    beta = Report.objects.get(question__external_id="q1", system__name="beta")
    assert direct.get(left=alpha, right=beta).choice == "left"  # judge "A", A first
    assert direct.get(left=beta, right=alpha).choice == "right"  # judge_swapped "A", B first
    assert direct.get(left=beta, right=alpha).rationale == "Response A covers more."
    # the ensemble of q1 alpha-beta: alpha wins both orders: 8 + Σ labels vs Σ labels
    e = JudgePairwise.objects.get(judge=judge, protocol="ensemble", left=alpha, right=beta)
    beta_labels = list(
        JudgeCoverage.objects.filter(judge=judge, report=beta).values_list("label", flat=True)
    )
    assert e.score_left == 8 + sum(labels) and e.score_right == sum(beta_labels)

    again = import_judge_scores(DATA / "researchqa_pairwise.json", study=study,
                                judge="gpt-4.1-mini", format="researchqa-pairwise")  # fmt: skip
    assert again.unchanged["JudgePairwise"] == 5 and direct.count() == 5  # no duplicates
    assert "JudgePairwise" not in again.updated and "JudgePairwise" not in again.created


def test_researchqa_released_judge_file_list_shape():
    """The released judge files are ``[{corpusid_sectionid, rubric_judges_gpt: [{rubric,
    score}]}]`` (what ResearchQA's leaderboard notebook reads): the same labels and scores
    as ``compute_coverage.py``'s mapping of the same judgments (issue 25)."""
    stored = {}
    for study, name in (("map", "researchqa_coverage_alpha.json"),
                        ("list", "researchqa_judge_listed_alpha.json")):  # fmt: skip
        build_study(study)
        rep = import_judge_scores(DATA / name, study=study, judge=f"g-{study}",
                                  format="researchqa-coverage", system="alpha")  # fmt: skip
        assert rep.records == 2 and rep.created["JudgeCoverage"] == 20
        stored[study] = sorted(
            JudgeCoverage.objects.filter(judge__name=f"g-{study}").values_list(
                "report__question__external_id", "item__text", "label"
            )
        ) + sorted(JudgeScore.objects.filter(judge__name=f"g-{study}").values_list(
            "report__question__external_id", "metric", "value"))  # fmt: skip
    assert stored["list"] == stored["map"] and len(stored["list"]) > 20


def test_researcherbench_results_reproduce_their_recall():
    from annotation.models import Study

    study = Study.objects.create(name="rb")
    alpha = System.objects.create(study=study, name="alpha")
    q = Question.objects.create(study=study, external_id="7", text="Why do students beat teachers?")
    Report.objects.create(question=q, system=alpha)
    rubric = Rubric.objects.create(question=q, kind="researcherbench")
    for i in range(1, 14):
        RubricItem.objects.create(rubric=rubric, position=i, text=f"Criterion {i} of question 7",
                                  weight=2)  # fmt: skip
    rep = import_judge_scores(DATA / "researcherbench_results.json", study="rb", judge="o3-mini",
                              format="researcherbench")  # fmt: skip
    assert rep.created["JudgeCoverage"] == 13
    score = JudgeScore.objects.get(judge__name="o3-mini", metric="rubric_coverage")
    assert round(score.value, 4) == 0.3846  # the released m_weighted 10 / total_weight 26
    covered = JudgeCoverage.objects.filter(covered=True)
    assert covered.count() == 5 and covered.first().rationale.startswith("Covered")

    bad = json.loads((DATA / "researcherbench_results.json").read_text())
    bad[0]["result"]["recall"] = 0.5
    with pytest.raises(ImportFailed, match=r"record 1, field 'result.recall'.*0\.3846"):
        import_judge_scores(json.dumps(bad).encode(), study="rb", judge="o3-mini",
                            format="researcherbench")  # fmt: skip


def test_generic_csv():
    build_study("csv")
    rep = import_judge_scores(DATA / "scores.csv", study="csv", judge="j", format="csv")
    assert rep.records == 4 and rep.created["JudgeScore"] == 4
    s = JudgeScore.objects.get(report__system__name="gamma", metric="answer_recall")
    assert (s.value, s.rationale) == (0.25, "misses most aspects")


#: A judge's rationale with the whitespace it was given: a leading tab, an indent, a
#: trailing space and line break.
AS_GIVEN = "\tIndented:\n  - misses aspect 2 \n"


def test_a_csv_rationale_is_stored_exactly_as_given_and_round_trips():
    """The CSV's ids and metric are trimmed; its rationale is kept as the judge gave it
    (the leading tab was stripped on import), also through export and re-import, where
    the export escaped the tab against formulas (:mod:`annotation.spreadsheets`)."""
    from judges.formats.judge_scores import dump_csv

    study = build_study("ws")
    text = f'question,system,metric,value,rationale\n q1 ,alpha, overall ,0.5,"{AS_GIVEN}"\n'
    import_judge_scores(text.encode(), study="ws", judge="j", format="csv")
    score = JudgeScore.objects.get(report__system__name="alpha", metric="overall")
    assert score.rationale == AS_GIVEN
    exported = dump_csv(study, judge="j")["judge_scores.csv"]
    assert "'\tIndented" in exported
    JudgeScore.objects.all().delete()
    import_judge_scores(exported.encode(), study="ws", judge="j", format="csv")
    assert JudgeScore.objects.get().rationale == AS_GIVEN


def test_json_rationales_are_stored_exactly_as_given():
    """The JSON formats keep a judge's justification and feedback as given too."""
    study = build_study("wsj")
    record = {"session_id": "q1", "implementation_A": "alpha", "implementation_B": "beta",
              "judge": "A", "judge_feedback": AS_GIVEN, "judge_swapped": None}  # fmt: skip
    import_judge_scores(json.dumps([record]).encode(), study=study, judge="j",
                        format="researchqa-pairwise")  # fmt: skip
    assert JudgePairwise.objects.get(protocol="direct").rationale == AS_GIVEN
    rubric = Rubric.objects.create(question=Question.objects.get(external_id="q1"), kind="rb")
    RubricItem.objects.create(rubric=rubric, position=1, text="Names the cause", weight=1)
    record = {"id": "q1", "model": "alpha", "result": {"coverage_results": [
        {"point": "Names the cause", "weight": 1, "covered": True, "justification": AS_GIVEN}
    ]}}  # fmt: skip
    import_judge_scores(json.dumps([record]).encode(), study=study, judge="j",
                        format="researcherbench", rubric_kind="rb")  # fmt: skip
    assert JudgeCoverage.objects.get(covered=True).rationale == AS_GIVEN


def test_the_api_stores_a_rationale_exactly_as_given(admin_user):
    from rest_framework.test import APIClient

    build_study("wsa", questions=1, systems=("alpha",))
    api = APIClient()
    api.force_authenticate(admin_user)
    body = {"judge": Judge.objects.create(name="j").pk, "report": Report.objects.get().public_id,
            "metric": "overall", "value": 0.5, "rationale": AS_GIVEN}  # fmt: skip
    r = api.post("/api/judge-scores/", body, format="json")
    assert r.status_code == 201, r.json()
    assert JudgeScore.objects.get().rationale == AS_GIVEN == r.json()["rationale"]


@pytest.mark.parametrize(
    "fmt, payload, message",
    [
        ("csv", b"question,system,metric,value\nq1,alpha,overall,high\nq9,alpha,overall,1\n",
         ["upload, record 1, field 'value': expected a number, found 'high'",
          "upload, record 2, field 'question': no question 'q9'"]),
        ("csv", b"question,system,value\n", ["missing column(s) metric"]),
        ("researchqa-coverage",
         json.dumps({"q1": [{"rubric": "Does the response discuss aspect 1 of topic 1?",
                             "score": "Somewhat"},
                            {"rubric": "Not an item", "score": "Mostly"}]}).encode(),
         ["record 1, field 'q1[0].score': 'Somewhat' is not one of Not at all",
          "record 1, field 'q1[1].rubric': 'Not an item' is not a rubric item of question 'q1'"]),
        ("researchqa-coverage",
         json.dumps([{"corpusid_sectionid": "q1", "rubric_judges_gpt": [
             {"rubric": "Does the response discuss aspect 1 of topic 1?", "score": "Somewhat"}]},
             {"corpusid_sectionid": "q2"}, {"rubric_judges_gpt": []}]).encode(),
         ["record 1, field 'rubric_judges_gpt[0].score': 'Somewhat' is not one of Not at all",
          "record 2, field 'rubric_judges_gpt': missing required field",
          "record 3, field 'corpusid_sectionid': missing required field"]),
        ("researchqa-coverage",  # a key given twice: json.loads would keep the last
         b'{"q1": [{"rubric": "Does the response discuss aspect 1 of topic 1?", "score": 4}],'
         b' "q2": [],'
         b' "q1": [{"rubric": "Does the response discuss aspect 1 of topic 1?", "score": 0}]}',
         ["record 3, field 'q1': 'q1' already given by record 1"]),
        ("researcherbench",  # the same report judged twice: the last was kept
         json.dumps([{"id": "q1", "model": "alpha", "result": {"coverage_results": [
             {"point": "Does the response discuss aspect 1 of topic 1?", "weight": 1,
              "covered": covered}]}} for covered in (True, False)]).encode(),
         ["record 2, field 'id': id 'q1' of model 'alpha' already given by record 1"]),
        ("researchqa-pairwise",
         json.dumps([{"session_id": "q1", "implementation_A": "alpha",
                      "implementation_B": "delta", "judge": "C"}]).encode(),
         ["record 1, field 'judge': expected \"A\", \"B\" or null, found 'C'",
          "record 1, field 'implementation_B': no system 'delta'"]),
    ],
)  # fmt: skip
def test_bad_input_names_record_and_field_and_changes_nothing(fmt, payload, message):
    build_study("bad")
    before = counts()
    with pytest.raises(ImportFailed) as info:
        import_judge_scores(payload, study="bad", judge="new-judge", format=fmt, system="alpha")
    text = str(info.value)
    for m in message:
        assert m in text
    assert counts() == before


def test_dry_run_counts_and_writes_nothing():
    build_study("dry")
    before = counts()
    rep = import_judge_scores(DATA / "scores.csv", study="dry", judge="j", format="csv",
                              dry_run=True)  # fmt: skip
    assert rep.dry_run and rep.created["JudgeScore"] == 4
    assert counts() == before


def test_the_command():
    build_study("cmd")
    out = io.StringIO()
    call_command("import_judge_scores", str(DATA / "researchqa_coverage_alpha.json"),
                 study="cmd", judge="g", format="researchqa-coverage", system="alpha",
                 stdout=out)  # fmt: skip
    assert "imported 2 records" in out.getvalue() and "20 JudgeCoverage" in out.getvalue()
    with pytest.raises(CommandError, match="a system name is required"):
        call_command("import_judge_scores", str(DATA / "researchqa_coverage_alpha.json"),
                     study="cmd", judge="g", format="researchqa-coverage")  # fmt: skip
    with pytest.raises(CommandError, match="no study named 'nope'"):
        call_command("import_judge_scores", str(DATA / "scores.csv"), study="nope", judge="g",
                     format="csv")  # fmt: skip


def test_a_coverage_import_keeps_the_judges_own_answer_recall():
    build_study("keep")
    import_judge_scores(b"question,system,metric,value\nq1,alpha,answer_recall,0.25\n",
                        study="keep", judge="g", format="csv")  # fmt: skip
    import_judge_scores(DATA / "researchqa_coverage_alpha.json", study="keep", judge="g",
                        format="researchqa-coverage", system="alpha")  # fmt: skip
    scores = JudgeScore.objects.filter(judge__name="g", report__question__external_id="q1")
    assert scores.get(metric="answer_recall").value == 0.25
    assert scores.filter(metric="rubric_coverage").exists()


@pytest.mark.parametrize(
    ("fmt", "name", "table", "n"),
    [("researcherbench", "researcherbench_results.json", "JudgeScore", 1),
     ("csv", "scores.csv", "JudgeScore", 4),
     ("researchqa-pairwise", "researchqa_pairwise.json", "JudgePairwise", 5),
     ("researchqa-coverage", "researchqa_coverage_alpha.json", "JudgeCoverage", 20)],
)  # fmt: skip
def test_an_identical_reimport_and_its_dry_run_say_unchanged(fmt, name, table, n):
    """Re-importing the same judge file (or its --dry-run) reported "updated: 65
    JudgeScore": what did not change is counted unchanged; a changed value is updated."""
    if fmt == "researcherbench":
        from annotation.models import Study

        study = Study.objects.create(name="again")
        q = Question.objects.create(study=study, external_id="7", text="Why?")
        Report.objects.create(question=q, system=System.objects.create(study=study, name="alpha"))
        rubric = Rubric.objects.create(question=q, kind="researcherbench")
        for i in range(1, 14):
            RubricItem.objects.create(rubric=rubric, position=i, text=f"Criterion {i} of question 7",
                                      weight=2)  # fmt: skip
    else:
        build_study("again")
    options = {"study": "again", "judge": "j", "format": fmt, "system": "alpha"}
    if fmt in ("csv", "researchqa-pairwise"):
        options.pop("system")
    first = import_judge_scores(DATA / name, **options)
    assert first.created[table] == n
    for dry_run in (True, False):
        again = import_judge_scores(DATA / name, dry_run=dry_run, **options)
        assert again.unchanged[table] == n, again.summary()
        assert table not in again.updated and table not in again.created, again.summary()
        assert "updated" not in again.summary()
    if fmt == "csv":
        changed = (DATA / name).read_text().replace("0.25", "0.5")
        rep = import_judge_scores(changed.encode(), **options)
        assert rep.updated == {"JudgeScore": 1} and rep.unchanged["JudgeScore"] == 3
        assert JudgeScore.objects.filter(value=0.5, metric="answer_recall").exists()
