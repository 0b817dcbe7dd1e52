"""The report's notes; in compatibility mode, each quirk of the released script that
changed a figure, with the figure without it and the default (METHODS §6)."""

from ..exports import report_tables
from ..formatting import note_cells
from .base import Section, register, without_comparisons


def _context(result, entry):
    compat_notes, notes = note_cells(result)
    if without_comparisons(result, entry):
        # the notes are about the agreement report's comparisons, and there is none: the
        # sections they would qualify are left out with their one line (issue 26)
        notes = []
    return {"compat_notes": compat_notes, "notes": notes}


register(Section(
    key="notes", title="Notes", template="metaeval/sections/notes.html",
    compute=lambda analysis: analysis.report.get("notes") or [],
    tables=lambda result, entry: {"notes": report_tables(entry["report"])["notes"]},
    context=_context, in_report=True, order=90,
))  # fmt: skip
