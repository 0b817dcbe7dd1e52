"""Human vs judge per metric: expert preference (seed 003 Table 3) and metric-wise scores
(Table 4, bottom) against each judge metric (METHODS §5)."""

from ..exports import report_tables
from ..formatting import metric_rows
from .base import Section, register, without_comparisons


def _tables(result, entry):
    tables = report_tables(entry["report"])
    return {name: tables[name] for name in ("preference", "metric_wise")}


def _context(result, entry):
    return {"preference_rows": metric_rows(result["preference"]),
            "metric_wise_rows": metric_rows(result["metric_wise"])}  # fmt: skip


register(Section(
    absent=without_comparisons,
    key="agreement", title="Human vs judge, per metric",
    template="metaeval/sections/agreement.html",
    compute=lambda analysis: {"preference": analysis.report.get("preference") or {},
                              "metric_wise": analysis.report.get("metric_wise") or {}},
    tables=_tables, context=_context, in_report=True, order=20,
))  # fmt: skip
