"""The selection the report describes: judge, counts, settings, systems and options. The
counts cover every judgment kind of the study (issue 26: a ResearchQA study read "0
judgments"), with the comparisons the agreement report analyses beside them."""

from ..loaders.selection import judgment_counts
from .base import Section, register


def _compute(analysis) -> dict:
    selection = analysis.report.get("selection") or {}
    settings = tuple(analysis.options.settings) or None
    return {**selection, "study": judgment_counts(analysis.study_id, settings)}


register(Section(
    key="selection", title="Selection", template="metaeval/sections/selection.html",
    compute=_compute, context=lambda result, entry: {"study_counts": (result or {}).get("study")},
    in_report=True, order=0,
))  # fmt: skip
