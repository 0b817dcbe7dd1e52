"""A ResearcherBench-style study where every label is one category (tester's study): two
experts give every rubric item 4 on the 0–4 scale and the benchmark's own judge
(``o3-mini``, ResearcherBench results format) says every item is covered. Chance agreement
is 1 on every kind, so κ and α are undefined everywhere: each must be null with a note.
The world of :func:`tests.builders.binary_judge.rb_world`, its tables constant."""

from annotation.models import Study

from .binary_judge import rb_world

QUESTIONS = {"q1": "", "q2": "", "q3": ""}
SYSTEMS = ("alpha", "beta")
JUDGE = "o3-mini"


def constant_label_study(name: str = "rb-constant", label: int = 4) -> Study:
    units = [(qid, system, p) for qid in QUESTIONS for system in SYSTEMS for p in (1, 2)]
    return rb_world(name, QUESTIONS, {u: (label, label) for u in units},
                    dict.fromkeys(units, True), judge=JUDGE, covered_label=True)  # fmt: skip
