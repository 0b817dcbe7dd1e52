"""The ResearchQA coverage import runs a fixed number of queries whatever the file's size
(issue 16, Scale: 2.9 million judge labels arrive as 18 such files)."""

from __future__ import annotations

import json

import pytest

from annotation import importers
from judges.models import JudgeCoverage

pytestmark = pytest.mark.django_db
#: Queries of one coverage import (study index, judge, stored rows, insert, derived scores,
#: ensembles): 22 measured on SQLite; the same bound holds at both sizes.
MAX_QUERIES = 24


def _study(name: str, n_questions: int, systems=("alpha", "beta")) -> dict:
    """Questions with 3-item rubrics and one short report per system, imported."""
    rubric = {f"q{q}": [f"aspect {i} of topic {q}" for i in range(3)] for q in range(n_questions)}
    questions = [{"id": qid, "query": f"question {qid}?", "field": "f",
                  "rubric": [{"rubric_item": t, "type": "information"} for t in items]}
                 for qid, items in rubric.items()]  # fmt: skip
    importers.run("questions", "\n".join(map(json.dumps, questions)).encode(), study=name,
                  format="researchqa")  # fmt: skip
    for system in systems:
        answers = {qid: {"answer": f"answer of {system} to {qid} [1]."} for qid in rubric}
        importers.run("reports", json.dumps(answers).encode(), study=name, format="researchqa",
                      system=system)  # fmt: skip
    return rubric


def _coverage(rubric: dict, label: str) -> bytes:
    return json.dumps(
        {qid: [{"rubric": t, "score": label} for t in items] for qid, items in rubric.items()}
    ).encode()


@pytest.mark.parametrize("n_questions", [2, 40])
def test_coverage_import_queries_do_not_grow_with_rows(n_questions, django_assert_max_num_queries):
    rubric = _study(f"s{n_questions}", n_questions)
    importers.run("judge_scores", _coverage(rubric, "Mostly"), study=f"s{n_questions}",
                  format="researchqa-coverage", judge="j", system="beta")  # fmt: skip
    with django_assert_max_num_queries(MAX_QUERIES):
        rep = importers.run("judge_scores", _coverage(rubric, "Barely"), study=f"s{n_questions}",
                            format="researchqa-coverage", judge="j", system="alpha")  # fmt: skip
    assert rep.created["JudgeCoverage"] == 3 * n_questions
    with django_assert_max_num_queries(MAX_QUERIES):  # a re-import that updates every row
        rep = importers.run("judge_scores", _coverage(rubric, "Completely"),
                            study=f"s{n_questions}", format="researchqa-coverage", judge="j",
                            system="alpha")  # fmt: skip
    assert rep.updated["JudgeCoverage"] == 3 * n_questions
    assert set(JudgeCoverage.objects.filter(report__system__name="alpha")
               .values_list("label", flat=True)) == {4}  # fmt: skip
