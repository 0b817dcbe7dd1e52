"""Inter-annotator agreement over comparisons with two or more judgments (METHODS §5)."""

from ..exports import report_tables
from ..formatting import iaa_cells
from .base import Section, register, without_comparisons

register(Section(
    absent=without_comparisons,
    key="iaa", title="Inter-annotator agreement on comparisons", template="metaeval/sections/iaa.html",
    compute=lambda analysis: analysis.report.get("iaa") or {},
    tables=lambda result, entry: {"iaa": report_tables(entry["report"])["iaa"]},
    context=lambda result, entry: {"iaa": iaa_cells(result)},
    in_report=True, order=10,
))  # fmt: skip
