"""Judge outputs produced elsewhere: the ``judge_scores`` import kind (issue 14).

The formats are declared in :mod:`judges.formats.judge_scores` and imported through the one
entry point, ``annotation.importers.run("judge_scores", source, study=, format=, judge=,
system=, rubric_kind=, dry_run=)``. :func:`import_judge_scores` is that call under its
former name, for callers that still use it.
"""

from __future__ import annotations

from annotation.importers import run
from annotation.importers.registry import format_names
from judges import formats as _formats  # noqa: F401 - registers the judge-score formats

FORMATS = format_names("judge_scores")


def import_judge_scores(source, *, study, dry_run: bool = False, **options):
    """``run("judge_scores", ...)``: the study must exist (the scores need its reports)."""
    return run("judge_scores", source, study=study, dry_run=dry_run, **options)
