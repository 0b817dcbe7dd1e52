"""The report's notes; in compatibility mode, each quirk of the released script that
changed a figure, with the figure without it and the default (METHODS §6)."""

from ..exports import report_tables
from ..formatting import note_cells
from .base import Section, register


def _context(result, entry):
    compat_notes, notes = note_cells(result)
    return {"compat_notes": compat_notes, "notes": notes}


register(Section(
    key="notes", title="Notes", template="metaeval/sections/notes.html",
    compute=lambda analysis: analysis.report.get("notes") or [],
    tables=lambda result, entry: {"notes": report_tables(entry["report"])["notes"]},
    context=_context, in_report=True, order=90,
))  # fmt: skip
