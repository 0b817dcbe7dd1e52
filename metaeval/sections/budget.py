"""Budget planner (issue 17 part 3; docs/ANALYSES.md §9): when the report asks for a target
CI half-width (option ``target_half_width``), how many more questions — or more annotators
on the same questions — bring the agreement CI down to it, in assignments and expert
hours, from the study's own judgments as the pilot (``analyse_budget``, as ``plan_budget``
prints it). Without the option the section costs nothing and is not shown."""

from ..analyses.budget import analyse_budget
from ..analysis_schema import BudgetAnalysisSerializer
from . import _kit
from .base import FigureSpec, Section, register

ROUND_FLOOR = 200  # the variance model is calibrated on a bootstrap: never fewer rounds


def _compute(analysis):
    target = analysis.options.target_half_width
    if not target:
        return None
    try:
        out = analyse_budget(analysis.study_id, "agreement", target,
                             judge=analysis.options.judge, settings=_kit.settings(analysis),
                             rounds=max(_kit.rounds(analysis), ROUND_FLOOR),
                             seed=analysis.options.seed)  # fmt: skip
    except ValueError as exc:  # no pilot to plan from (no judgment, no judge score)
        return {"figure": "agreement", "target_half_width": float(target), "pilot": None,
                "reached": False, "routes": [], "cheapest": None, "judge": None,
                "notes": [str(exc)]}  # fmt: skip
    out["routes"] = list(out["routes"].values())
    return {k: out.get(k) for k in ("figure", "target_half_width", "pilot", "reached",
                                    "routes", "cheapest", "judge", "notes")}  # fmt: skip


def _tables(result, entry):
    if not result:
        return {}
    return {"budget_routes": (result["routes"], ["route", "new_questions", "extra_per_question",
                                                 "units", "comparisons", "hours", "half_width",
                                                 "note"])}  # fmt: skip


def _draw(result, entry):
    if not result or not result.get("pilot"):
        return None
    pilot = result["pilot"]
    rows = [("pilot", {"value": pilot.get("half_width")})]
    rows += [(r["route"], {"value": r["half_width"]}) for r in result["routes"]]
    rows.append(("target", {"value": result["target_half_width"]}))
    return _kit.intervals_figure(rows, "agreement CI half-width", xlim=None)


register(Section(
    key="budget", title="Budget planner: reaching a target CI half-width", compute=_compute,
    template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("budget", "Predicted CI half-width per route", _draw),),
    text=lambda r: f"budget: cheapest route {r['cheapest']}" if r else "budget: no target",
    serializer=BudgetAnalysisSerializer, order=70,
))  # fmt: skip
