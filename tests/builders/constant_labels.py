"""A ResearcherBench-style study where every label is one category (tester's study): two
experts give every rubric item 4 on the 0–4 scale and the benchmark's own judge
(``o3-mini``, ResearcherBench results format) says every item is covered. Chance agreement
is 1 on every kind, so κ and α are undefined everywhere: each must be null with a note."""

import json

from annotation.models import (
    Annotator,
    Question,
    Report,
    Rubric,
    RubricCoverage,
    RubricItem,
    Study,
    System,
)
from judges.importers import import_judge_scores

QUESTIONS = ("q1", "q2", "q3")
SYSTEMS = ("alpha", "beta")
WEIGHTS = (1, 3)
JUDGE = "o3-mini"


def _results_file(system: str) -> bytes:
    records = [{"id": qid, "model": system, "result": {"coverage_results": [
        {"point": f"Point {p} of {qid}", "weight": w, "covered": True, "justification": "."}
        for p, w in zip((1, 2), WEIGHTS, strict=True)]}} for qid in QUESTIONS]  # fmt: skip
    return json.dumps(records).encode()


def constant_label_study(name: str = "rb-constant", label: int = 4) -> Study:
    study = Study.objects.create(name=name)
    systems = [System.objects.create(study=study, name=s) for s in SYSTEMS]
    anns = [Annotator.objects.create(pseudonym=f"{name}-ann{k}") for k in (1, 2)]
    for qid in QUESTIONS:
        q = Question.objects.create(study=study, external_id=qid, text=f"{qid}?")
        rubric = Rubric.objects.create(question=q, kind="researcherbench")
        items = [RubricItem.objects.create(rubric=rubric, position=p, text=f"Point {p} of {qid}",
                                           weight=w)
                 for p, w in zip((1, 2), WEIGHTS, strict=True)]  # fmt: skip
        for system in systems:
            report = Report.objects.create(question=q, system=system)
            for item in items:
                for ann in anns:
                    RubricCoverage.objects.create(study=study, question=q, annotator=ann,
                                                  report=report, item=item, label=label,
                                                  covered=label >= 2)  # fmt: skip
    for system in SYSTEMS:
        import_judge_scores(_results_file(system), study=study.name, judge=JUDGE,
                            format="researcherbench")  # fmt: skip
    return study
