"""Full backup and restore of one study (issue 8): ``export_study`` / ``import_study``.

A backup holds everything of a study, found from the foreign-key graph (``graph``): its
content, the people it references, assignments, judgments with drafts and history, judges
with their runs, units, cached answers and verdicts, and stored agreement reports. It is one
zip file (``archive``). Import validates the whole file before writing anything, and then
writes in one transaction under new primary keys (``restore``); restored into an empty
database it gives the same agreement reports and judge alignment as the original.
"""

from .dump import ExportError, ExportSummary, export_study
from .restore import RestoreSummary, import_study

__all__ = ["ExportError", "ExportSummary", "RestoreSummary", "export_study", "import_study"]
