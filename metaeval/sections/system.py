"""System ranking: human vs judge win rates and their Kendall τ-b (METHODS §5)."""

from ..exports import report_tables
from ..formatting import system_context
from .base import Section, plotted, register, without_judged_comparisons


def _tables(result, entry):
    tables = report_tables(entry["report"])
    return {name: tables[name] for name in ("system", "system_tau")}


register(Section(
    absent=without_judged_comparisons,
    key="system", title="System ranking", template="metaeval/sections/system.html",
    compute=lambda analysis: analysis.report.get("system") or {},
    tables=_tables, context=lambda result, entry: system_context(result),
    figures=(plotted("system", lambda result: result),),
    in_report=True, order=30,
))  # fmt: skip
