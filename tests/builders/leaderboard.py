"""A study of 14 questions × 4 systems with three annotators' pairwise preferences on every
pair: the size at which issue 29 found ``analysis --kind leaderboard --bootstrap 500`` took
26 s. Bradley–Terry strengths s1 1.0, s2 0.4, s3 0.0, s4 −0.6; about 10 % ties. Used by the
leaderboard test and ``bench/leaderboard_bootstrap.py``."""

import math
import random
from itertools import combinations

from annotation.models import Annotator, PairwisePreference, Question, Report, Study, System

STRENGTH = {"s1": 1.0, "s2": 0.4, "s3": 0.0, "s4": -0.6}


def leaderboard_study(name: str = "lb14", n_questions: int = 14, seed: int = 0) -> Study:
    rng = random.Random(seed)
    study = Study.objects.create(name=name)
    systems = [System.objects.create(study=study, name=n) for n in STRENGTH]
    anns = [Annotator.objects.create(pseudonym=f"{name}-{k}") for k in range(3)]
    for q in range(n_questions):
        question = Question.objects.create(study=study, external_id=f"q{q}", text=f"Q{q}?")
        reports = {s.name: Report.objects.create(question=question, system=s) for s in systems}
        for a, b in combinations(sorted(reports), 2):
            p = 1 / (1 + math.exp(STRENGTH[b] - STRENGTH[a]))
            for ann in anns:
                r = rng.random()
                choice = "left" if r < p * 0.85 else "tie" if r < p * 0.85 + 0.1 else "right"
                PairwisePreference.objects.create(study=study, annotator=ann, question=question,
                                                  left=reports[a], right=reports[b],
                                                  choice=choice, reason="x")  # fmt: skip
    return study
