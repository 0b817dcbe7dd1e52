"""Synthetic ScholarQA-CS2 pairwise files of any size (issue 29: the readiness step failed
above 332 questions × 3 systems on SQLite)."""

import json
from itertools import combinations

SYSTEMS = ("atlas", "beacon", "cedar")


def write_pairwise(path, n_questions: int, *, flip: bool = False):
    """One annotator's ScholarQA-CS2 pairwise file: three records per question (one per pair
    of its three reports), a judge score and the medals of each report."""
    medal = dict(zip(SYSTEMS, (0.0, 0.5, 1.0) if flip else (1.0, 0.5, 0.0), strict=True))
    score = dict(zip(SYSTEMS, (0.9, 0.6, 0.3), strict=True))  # the judge's, never changed
    records = [
        {
            "question": f"Question {q}: how does method {q} scale?",
            "models": [a, b],
            "model_overall": [score[a], score[b]],
            "preference_ranking_norm": [medal[a], medal[b]],
        }
        for q in range(n_questions)
        for a, b in combinations(SYSTEMS, 2)
    ]
    path.write_text(json.dumps(records))
    return path
