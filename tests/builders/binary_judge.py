"""A ResearcherBench study rated on the 0–4 scale (tester's study, issue 30): experts
label rubric coverage 0–4, the benchmark's own judge gives binary covered verdicts
(ResearcherBench results format) and a second judge 0–4 labels.

Systems alpha, beta; questions q1, q2 (field NLP) and q3 (field Vision, the only one of
its field); two items per rubric (weights 1, 3); every (report, item) labelled by ann1 and
ann2, ann3 labels alpha's reports too. Labels are fixed so tests know every figure:

* human (ann1, ann2, ann3) per unit: see ``HUMAN``;
* ``rb-binary`` (ResearcherBench file): covered per unit, ``COVERED``;
* ``cov-graded``: 0–4 per unit, ``GRADED``.
"""

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
from judges.models import Judge, JudgeCoverage

QUESTIONS = {"q1": "NLP", "q2": "NLP", "q3": "Vision"}
WEIGHTS = (1, 3)
#: (question, system, item position) -> labels of ann1, ann2 and ann3 (None: not labelled)
HUMAN = {
    ("q1", "alpha", 1): (4, 3, 1), ("q1", "alpha", 2): (1, 0, 0),
    ("q1", "beta", 1): (2, 2, None), ("q1", "beta", 2): (0, 3, None),
    ("q2", "alpha", 1): (3, 4, 4), ("q2", "alpha", 2): (0, 1, 2),
    ("q2", "beta", 1): (1, 1, None), ("q2", "beta", 2): (4, 2, None),
    ("q3", "alpha", 1): (2, 0, 3), ("q3", "alpha", 2): (3, 3, 1),
    ("q3", "beta", 1): (0, 0, None), ("q3", "beta", 2): (1, 4, None),
}  # fmt: skip
COVERED = {
    ("q1", "alpha", 1): True, ("q1", "alpha", 2): False,
    ("q1", "beta", 1): True, ("q1", "beta", 2): True,
    ("q2", "alpha", 1): True, ("q2", "alpha", 2): True,
    ("q2", "beta", 1): False, ("q2", "beta", 2): True,
    ("q3", "alpha", 1): False, ("q3", "alpha", 2): True,
    ("q3", "beta", 1): False, ("q3", "beta", 2): False,
}  # fmt: skip
GRADED = {
    ("q1", "alpha", 1): 4, ("q1", "alpha", 2): 0, ("q1", "beta", 1): 3, ("q1", "beta", 2): 1,
    ("q2", "alpha", 1): 2, ("q2", "alpha", 2): 2, ("q2", "beta", 1): 0, ("q2", "beta", 2): 4,
    ("q3", "alpha", 1): 1, ("q3", "alpha", 2): 3, ("q3", "beta", 1): 0, ("q3", "beta", 2): 2,
}  # fmt: skip


def _results_file(system: str, covered: dict, questions=QUESTIONS) -> bytes:
    """The judge's verdicts in the ResearcherBench results shape (``coverage_results``)."""
    records = []
    for qid in questions:
        flags = [covered[(qid, system, p)] for p in (1, 2)]
        records.append({"id": qid, "model": system, "result": {"coverage_results": [
            {"point": f"Point {p} of {qid}", "weight": w, "covered": b, "justification": "."}
            for p, w, b in zip((1, 2), WEIGHTS, flags, strict=True)]}})  # fmt: skip
    return json.dumps(records).encode()


def rb_world(name: str, questions: dict, human: dict, covered: dict, *, judge: str,
             graded: dict | None = None, covered_label: bool = False) -> Study:  # fmt: skip
    """Systems alpha and beta on ``questions`` (id -> field), two rubric items each
    (``WEIGHTS``); experts' 0–4 labels ``human`` ((question, system, position) -> one label
    per annotator, None: not labelled; ``covered_label``: each label's ``covered`` stored as
    label ≥ 2), ``judge``'s ResearcherBench verdicts ``covered``, and ``graded`` (0–4) as
    judge ``cov-graded`` if given."""
    study = Study.objects.create(name=name)
    systems = {s: System.objects.create(study=study, name=s) for s in ("alpha", "beta")}
    n = len(next(iter(human.values())))
    anns = [Annotator.objects.create(pseudonym=f"{name}-ann{k}") for k in range(1, n + 1)]
    graded_judge = Judge.objects.create(name="cov-graded") if graded else None
    for qid, field in questions.items():
        q = Question.objects.create(study=study, external_id=qid, text=f"{qid}?", field=field)
        rubric = Rubric.objects.create(question=q, kind="researcherbench")
        items = {p: RubricItem.objects.create(rubric=rubric, position=p, text=f"Point {p} of {qid}",
                                              weight=w)
                 for p, w in zip((1, 2), WEIGHTS, strict=True)}  # fmt: skip
        for sname, system in systems.items():
            report = Report.objects.create(question=q, system=system)
            for p, item in items.items():
                for ann, label in zip(anns, human[(qid, sname, p)], strict=True):
                    if label is not None:
                        extra = {"covered": label >= 2} if covered_label else {}
                        RubricCoverage.objects.create(study=study, question=q, annotator=ann,
                                                      report=report, item=item, label=label,
                                                      **extra)  # fmt: skip
                if graded_judge:
                    JudgeCoverage.objects.create(judge=graded_judge, report=report, item=item,
                                                 label=graded[(qid, sname, p)])  # fmt: skip
    for system in systems:
        import_judge_scores(_results_file(system, covered, questions), study=study.name,
                            judge=judge, format="researcherbench")  # fmt: skip
    return study


def binary_judge_study(name: str = "rb-expert") -> Study:
    return rb_world(name, QUESTIONS, HUMAN, COVERED, judge="rb-binary", graded=GRADED)
