"""The selection the report describes: judge, counts, settings, systems and options."""

from .base import Section, register

register(Section(
    key="selection", title="Selection", template="metaeval/sections/selection.html",
    compute=lambda analysis: analysis.report.get("selection") or {},
    in_report=True, order=0,
))  # fmt: skip
