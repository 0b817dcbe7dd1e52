"""Human vs judge per metric: expert preference (seed 003 Table 3) and metric-wise scores
(Table 4, bottom) against each judge metric (METHODS §5)."""

from ..exports import report_tables
from ..formatting import metric_rows, n_notes
from .base import Section, no_scores_reason, register, without_judged_comparisons


def _compute(analysis) -> dict:
    """The two tables; with neither a row, ``no_scores``: why (the section and the system
    ranking say it under "Not shown" instead of drawing empty tables)."""
    report = analysis.report
    out = {"preference": report.get("preference") or {},
           "metric_wise": report.get("metric_wise") or {}}  # fmt: skip
    if not (out["preference"] or out["metric_wise"]):
        judge = (report.get("selection") or {}).get("judge")
        out["no_scores"] = no_scores_reason(analysis.study_id, judge)
    return out


def _tables(result, entry):
    tables = report_tables(entry["report"])
    return {name: tables[name] for name in ("preference", "metric_wise")}


def _context(result, entry):
    out = {f"{t}_rows": metric_rows(result[t]) for t in ("preference", "metric_wise")}
    return out | {f"{t}_notes": n_notes(out[f"{t}_rows"]) for t in ("preference", "metric_wise")}


register(Section(
    absent=without_judged_comparisons,
    key="agreement", title="Human vs judge, per metric",
    template="metaeval/sections/agreement.html",
    compute=_compute,
    tables=_tables, context=_context, in_report=True, order=20,
))  # fmt: skip
