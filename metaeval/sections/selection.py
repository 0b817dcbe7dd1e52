"""The selection the report describes: judge, counts, settings, systems and options. The
counts cover every judgment kind of the study (issue 26: a ResearchQA study read "0
judgments"), with the comparisons the agreement report analyses beside them."""

from ..loaders.selection import judgment_counts, settings_present
from .base import Section, register


def _compute(analysis) -> dict:
    selection = analysis.report.get("selection") or {}
    settings = tuple(analysis.options.settings) or None
    study = judgment_counts(analysis.study_id, settings)
    # the settings of every judgment kind in the selection, by label (not only those of the
    # comparisons the agreement report analyses: ``selection.settings_present``)
    study["settings"] = [label for _, label in settings_present(analysis.study_id, settings)]
    return {**selection, "study": study}


register(Section(
    key="selection", title="Selection", template="metaeval/sections/selection.html",
    compute=_compute, context=lambda result, entry: {"study_counts": (result or {}).get("study")},
    in_report=True, order=0,
))  # fmt: skip
