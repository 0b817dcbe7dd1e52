"""Database → :class:`metaeval.stats.planner.Pilot`: a study's medal-ranking judgments as
per-comparison decisions, with each unit's measured time (issue 17 part 3).

The decisions are the report's (METHODS §5): the human decision of a comparison is the
order of its two medals; the judge's is its ``overall`` scores decided at the match-rate
threshold calibrated on the same judgments (``metaeval.reports`` does the same for the
preference table); ``judge_difference`` aligns two judges on the comparisons both scored.
A *unit* is one annotator's ranking of one question in one setting (one assignment), and
its time is that assignment's ``seconds_on_task`` when it was submitted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.models import Assignment, MedalRanking
from metaeval.data import Selection, default_judge, load_frame
from metaeval.stats.calibration import calibrate
from metaeval.stats.decisions import score_decisions
from metaeval.stats.planner import Pilot, pilot_from_rows

from ._db import fetch


@dataclass(frozen=True)
class PilotData:
    pilot: Pilot
    judge: str | None
    judge_b: str | None
    #: question external ids in the order of the pilot's question codes
    questions: list[str]
    note: str | None = None


def _decided(frame, judge_scores: np.ndarray, rows: np.ndarray) -> np.ndarray:
    human = score_decisions(frame.preference[rows, 0], frame.preference[rows, 1])
    a, b = judge_scores[rows, 0], judge_scores[rows, 1]
    threshold = calibrate(human, a, b).threshold
    return score_decisions(a, b, 0.0 if np.isnan(threshold) else threshold)


def _seconds(study_id: int, frame, rows: np.ndarray) -> np.ndarray:
    """Per row: seconds on task of its ranking's submitted assignment (NaN unknown)."""
    key, setting, pseudonym, seconds, status = fetch(
        MedalRanking.objects.filter(study_id=study_id, assignment__isnull=False).values_list(
            "question__external_id",
            "setting",
            "annotator__pseudonym",
            "assignment__seconds_on_task",
            "assignment__status",
        ),  # fmt: skip
        5,
    )
    known = {
        (k, s, p): float(sec)
        for k, s, p, sec, st in zip(key, setting, pseudonym, seconds, status, strict=True)
        if st == Assignment.Status.SUBMITTED and sec
    }
    return np.array(
        [
            known.get(
                (
                    frame.questions[frame.question[i]],
                    frame.settings[frame.setting[i]],
                    frame.annotators[frame.annotator[i]],
                ),
                np.nan,
            )
            for i in rows
        ]
    )


def load_pilot(
    study_id: int,
    figure: str,
    judge: str | None = None,
    judge_b: str | None = None,
    settings: tuple[str, ...] | None = None,
) -> PilotData:
    """The study's judgments as the planner's pilot of ``figure`` (module docstring)."""
    judge = judge or default_judge(study_id)
    frame = load_frame(Selection(study_id, settings=settings, judge=judge))
    scores = frame.judge.get("overall")
    rows = np.ones(len(frame), bool) if scores is None else ~np.isnan(scores).any(axis=1)
    note = None
    other = None
    if figure == "judge_difference":
        if not judge_b:
            raise ValueError("judge_difference needs a second judge (judge_b)")
        frame_b = load_frame(Selection(study_id, settings=settings, judge=judge_b))
        other = frame_b.judge.get("overall")
        if other is None or len(frame_b) != len(frame):
            other = None
        else:
            rows &= ~np.isnan(other).any(axis=1)
    if scores is None or (figure == "judge_difference" and other is None):
        rows[:] = False
        note = "No overall judge score on these comparisons."
    idx = np.flatnonzero(rows)
    human = score_decisions(frame.preference[idx, 0], frame.preference[idx, 1])
    decided = _decided(frame, scores, idx) if idx.size else np.zeros(0)
    decided_b = _decided(frame, other, idx) if other is not None and idx.size else None
    unit = frame.annotator[idx] * max(len(frame.settings), 1) + frame.setting[idx]
    pilot = pilot_from_rows(figure, human, decided, frame.question[idx], unit,
                            judge_b=decided_b, seconds=_seconds(study_id, frame, idx))  # fmt: skip
    used = np.unique(frame.question[idx])
    return PilotData(pilot, judge, judge_b, [frame.questions[i] for i in used], note)


def question_seconds(study_id: int, task: str) -> dict[int, list[float]]:
    """Question id → measured seconds of its submitted assignments of ``task`` (the cost
    of one more unit there, :func:`metaeval.stats.planner.question_costs`)."""
    out: dict[int, list[float]] = {}
    for qid, sec in Assignment.objects.filter(
        study_id=study_id, task=task, status=Assignment.Status.SUBMITTED, seconds_on_task__gt=0
    ).values_list("question_id", "seconds_on_task"):
        out.setdefault(qid, []).append(float(sec))
    return out
