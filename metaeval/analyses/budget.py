"""The budget planner's answer for a study, JSON-ready (issue 17 part 3; docs/ANALYSES.md
§9): the pilot loaded from the database (``metaeval.loaders.planner``), the variance model
and both routes to the target (``metaeval.stats.planner``), and for a judge difference the
power of the paired permutation test. The command, and later the report page and the API,
return this dict."""

from __future__ import annotations

from metaeval.loaders.planner import load_pilot
from metaeval.stats import planner

ALPHA = 0.05


def _power(pilot, model, detect: float | None) -> dict:
    d, n = planner.difference_by_question(pilot)
    delta = detect if detect is not None else model.estimate
    delta = abs(delta) if delta is not None else None
    power = planner.permutation_power(d, n, delta, ALPHA) if delta else None
    return {
        "difference": delta,
        "alpha": ALPHA,
        "method": "normal approximation of the paired permutation test",
        "power": power,
        "questions_for_80": planner.questions_for_power(d, n, delta, 0.8, ALPHA)
        if power is not None
        else None,
        "note": None
        if power is not None
        else "Needs a nonzero difference and at least 2 questions with variance.",
    }


def analyse_budget(
    study_id: int,
    figure: str,
    target_half_width: float,
    *,
    judge: str | None = None,
    judge_b: str | None = None,
    settings: tuple[str, ...] | None = None,
    overlap: int | None = None,
    max_overlap: int | None = None,
    detect: float | None = None,
    rounds: int = 1000,
    seed: int = 0,
) -> dict:
    """{figure, target_half_width, pilot, reached, routes, cheapest, judge, judge_b, notes
    [, power]} (``planner.plan`` plus the pilot's judges, notes and power)."""
    data = load_pilot(study_id, figure, judge, judge_b, settings)
    model = planner.fit(data.pilot, n_rounds=rounds, seed=seed)
    out = planner.plan(model, target_half_width, overlap, max_overlap)
    out["judge"], out["judge_b"] = data.judge, data.judge_b
    if figure == "judge_difference":
        out["power"] = _power(data.pilot, model, detect)
    out["notes"] = [n for n in (data.note, model.note) if n]
    return out
