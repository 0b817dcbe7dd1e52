"""A judge-results export gives back the file that was imported (issue 25, as report files
do): a ResearcherBench results record as released (its numeric id, m_weighted and
total_weight, its rounded recall, its integer weights, file order), and a ResearchQA
coverage file in the shape it came in."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from annotation.importers import run
from annotation.importers.registry import FORMATS
from annotation.models import Study
from judges.models import JudgeCoverage
from tests.builders.judged import build_study
from tests.builders.released import shared

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "annotation" / "importers" / "examples"
JUDGE_EXAMPLES = ROOT / "judges" / "formats" / "examples"
DATA = Path(__file__).parent / "data"


def dumped(fmt: str, study, **options):
    [text] = FORMATS[("judge_scores", fmt)].dump(study, **options).values()
    return json.loads(text)


def researcherbench_study(name: str) -> Study:
    run("questions", EXAMPLES / "researcherbench_questions.json", study=name,
        format="researcherbench", rubric=EXAMPLES / "researcherbench_rubric.json")  # fmt: skip
    run("reports", EXAMPLES / "researcherbench_responses.json", study=name,
        format="researcherbench", system="example-system")  # fmt: skip
    return Study.objects.get(name=name)


def test_researcherbench_results_come_back_as_released(client, admin_user):
    study = researcherbench_study("A")
    released = json.loads((JUDGE_EXAMPLES / "researcherbench_results.json").read_text())
    run("judge_scores", JUDGE_EXAMPLES / "researcherbench_results.json", study=study,
        format="researcherbench", judge="j")  # fmt: skip
    assert dumped("researcherbench", study, judge="j") == released
    client.force_login(admin_user)
    page = client.get(f"/studies/{study.pk}/export/judge_scores/researcherbench/?judge=j")
    assert page.status_code == 200 and json.loads(page.content) == released
    # re-imported unchanged, and again the same
    again = run("judge_scores", JUDGE_EXAMPLES / "researcherbench_results.json", study=study,
                format="researcherbench", judge="j")  # fmt: skip
    assert "JudgeScore" not in again.updated
    # a verdict changed since (a re-judged report): written from what is stored
    row = JudgeCoverage.objects.filter(judge__name="j", covered=True).first()
    row.covered = False
    row.save()
    [rebuilt] = dumped("researcherbench", study, judge="j")
    assert rebuilt != released[0] and rebuilt["id"] == 1
    assert not rebuilt["result"]["coverage_results"][0]["covered"]


def test_a_results_reimport_that_changes_only_types_or_key_order_is_an_update():
    """The results file again with ``m_weighted`` and ``total_weight`` written ``5.0`` and
    ``6.0`` and the result's keys in another order: equal as parsed dicts, not as the file.
    The score is counted updated (not unchanged) and the export writes the new record."""
    study = researcherbench_study("B")
    run("judge_scores", JUDGE_EXAMPLES / "researcherbench_results.json", study=study,
        format="researcherbench", judge="j")  # fmt: skip
    [record] = json.loads((JUDGE_EXAMPLES / "researcherbench_results.json").read_text())
    result = record["result"]
    changed = [{**record, "result": {"recall": result["recall"],
                                     "total_weight": float(result["total_weight"]),
                                     "m_weighted": float(result["m_weighted"]),
                                     "coverage_results": result["coverage_results"]}}]  # fmt: skip
    assert changed == [record]  # what a dict's == says: no change
    rep = run("judge_scores", json.dumps(changed).encode(), study=study,
              format="researcherbench", judge="j")  # fmt: skip
    assert rep.updated.get("JudgeScore") == 1, rep.summary()
    assert "JudgeScore" not in rep.unchanged
    assert as_written(dumped("researcherbench", study, judge="j")) == as_written(changed)
    again = run("judge_scores", json.dumps(changed).encode(), study=study,
                format="researcherbench", judge="j")  # fmt: skip
    assert "JudgeScore" not in again.updated


def as_written(data) -> str:
    """JSON text that tells ``1`` from ``"1"`` and ``3`` from ``3.0`` and keeps key order."""
    return json.dumps(data, ensure_ascii=False)


def results_on_released_rubric(path: Path, system: str, questions: int) -> list[dict]:
    """A results file of ResearcherBench's ``results/rubric_eval/`` shape on the released
    rubric (the judge's results themselves were not released): the first ``questions``
    questions' points with their integer weights, every other point covered, and the
    record's ``m_weighted``, ``total_weight`` and recall rounded to 4 decimals."""
    rubric = json.loads(shared("researcherbench", "rubric.json").read_text())[:questions]
    records = []
    for q in rubric:
        criteria = [{"point": p["point"], "weight": p["weight"], "covered": i % 2 == 0,
                     "justification": f"point {i} of question {q['id']}"}
                    for i, p in enumerate(q["rubric"])]  # fmt: skip
        covered = sum(c["weight"] for c in criteria if c["covered"])
        total = sum(c["weight"] for c in criteria)
        records.append({"id": q["id"], "model": system, "result": {
            "coverage_results": criteria, "m_weighted": covered, "total_weight": total,
            "recall": round(covered / total, 4)}})  # fmt: skip
    path.write_text(json.dumps(records, ensure_ascii=False, indent=2))
    return records


@pytest.mark.shared_data
def test_a_rejudged_researcherbench_record_keeps_its_released_types_and_place(tmp_path):
    """A verdict changed after import: the export rebuilds that record from what is stored,
    and it is the released record with that one verdict (and the sums it enters) changed:
    the id still the number 2, weights still integers, keys and records in released order."""
    run("questions", shared("researcherbench", "questions.json"), study="RB",
        format="researcherbench", rubric=shared("researcherbench", "rubric.json"))  # fmt: skip
    run("reports", shared("researcherbench", "user_data", "Claude.json"), study="RB",
        format="researcherbench", system="Claude")  # fmt: skip
    study = Study.objects.get(name="RB")
    source = tmp_path / "results.json"
    released = results_on_released_rubric(source, "Claude", questions=3)
    run("judge_scores", source, study=study, format="researcherbench", judge="o3-mini")
    assert as_written(dumped("researcherbench", study, judge="o3-mini")) == as_written(released)

    criterion = released[1]["result"]["coverage_results"][1]  # not covered as released
    row = JudgeCoverage.objects.get(judge__name="o3-mini", report__question__external_id="2",
                                    item__text=criterion["point"])  # fmt: skip
    row.covered = True
    row.save()
    expected = copy.deepcopy(released)
    result = expected[1]["result"]
    result["coverage_results"][1]["covered"] = True
    result["m_weighted"] += criterion["weight"]
    result["recall"] = round(result["m_weighted"] / result["total_weight"], 4)
    got = dumped("researcherbench", study, judge="o3-mini")
    assert as_written(got) == as_written(expected)
    assert type(got[1]["id"]) is int and type(got[1]["result"]["m_weighted"]) is int


@pytest.mark.parametrize("name", ["researchqa_judge_listed_alpha.json",
                                  "researchqa_coverage_alpha.json"])  # fmt: skip
def test_researchqa_coverage_comes_back_in_its_shape(name):
    study = build_study("A")
    run("judge_scores", DATA / name, study=study, format="researchqa-coverage", judge="g",
        system="alpha")  # fmt: skip
    released = json.loads((DATA / name).read_text())
    got = dumped("researchqa-coverage", study, judge="g", system="alpha")
    assert type(got) is type(released)
    assert as_written(got) == as_written(released)


def test_a_listed_coverage_record_keeps_its_extra_keys(tmp_path):
    """A released judge file's record carries more than its id and labels (the answer
    judged, its score, in their places among the keys): the export writes them back
    verbatim, with a label changed since import the only difference."""
    study = build_study("A")
    released = json.loads((DATA / "researchqa_judge_listed_alpha.json").read_text())
    released[0] = {"answer": "Topic 1 is known for ...", **released[0], "coverage": 0.55}
    released[1]["citations"] = [{"id": 7, "title": "Paper seven"}]
    source = tmp_path / "alpha_judge_gpt4.1mini.json"
    source.write_text(json.dumps(released))
    run("judge_scores", source, study=study, format="researchqa-coverage", judge="g",
        system="alpha")  # fmt: skip
    assert as_written(dumped("researchqa-coverage", study, judge="g", system="alpha")) == (
        as_written(released)
    )
    label = released[1]["rubric_judges_gpt"][0]
    row = JudgeCoverage.objects.get(judge__name="g", report__question__external_id="q2",
                                    item__text=label["rubric"])  # fmt: skip
    row.label = 4 if label["score"] != "Completely" else 0
    row.save()
    expected = copy.deepcopy(released)
    expected[1]["rubric_judges_gpt"][0]["score"] = "Completely" if row.label else "Not at all"
    got = dumped("researchqa-coverage", study, judge="g", system="alpha")
    assert as_written(got) == as_written(expected)


def test_a_coverage_reimport_that_changes_only_types_or_key_order_is_an_update(tmp_path):
    """A listed coverage file again with one record's extra ``coverage`` written ``1.0``
    (was ``1``) and the other's keys in another order, every label the same: equal as
    parsed dicts, not as the file. Both reports' kept records are replaced and counted
    updated, and the export writes the file imported last."""
    study = build_study("A")
    first = json.loads((DATA / "researchqa_judge_listed_alpha.json").read_text())
    first[0] = {**first[0], "coverage": 1}
    source = tmp_path / "alpha_judge.json"
    source.write_text(json.dumps(first))
    options = {"study": study, "format": "researchqa-coverage", "judge": "g", "system": "alpha"}
    run("judge_scores", source, **options)
    again = run("judge_scores", source, **options)
    assert "JudgeScore" not in again.updated
    changed = [{**first[0], "coverage": 1.0}, dict(reversed(list(first[1].items())))]
    assert changed == first  # what a dict's == says: no change
    source.write_text(json.dumps(changed))
    rep = run("judge_scores", source, **options)
    assert rep.updated.get("JudgeScore") == 2, rep.summary()
    assert "updated" in rep.summary()
    got = dumped("researchqa-coverage", study, judge="g", system="alpha")
    assert as_written(got) == as_written(changed) != as_written(first)
    assert "JudgeScore" not in run("judge_scores", source, **options).updated
