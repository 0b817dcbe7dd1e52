"""One entry point for every import: management commands, the API and the admin page.

``run(kind, source, *, study, dry_run=False, **options) -> ImportReport``

kind        options
==========  ===========================================================================
reports     ``format`` scholarqa | researchqa | researcherbench | deepscholar;
            ``system`` (DeepScholar: defaults to the folder name)
questions   ``format`` researchqa | researcherbench | jsonl; ``rubric`` (ResearcherBench
            rubric.json: a path, an uploaded file or bytes)
pairwise    ``annotator``, ``judge``, ``setting`` (assigned | near_expert | deep_expert;
            inferred from "assigned" / "chosen" / "authored" in the file name when absent),
            ``split`` (inferred from ``pairwise_dev_*`` / ``pairwise_test_*``),
            ``consensus`` (agreement-only file; inferred from "agreement_only" in the name)
==========  ===========================================================================

``source`` is a filesystem path, an uploaded file (``request.FILES[...]``) or bytes. The
study is named by ``study`` (a name or a Study) and created when it does not exist. Every
record is validated before anything is written, and everything is written in one
transaction; on any problem :class:`ImportFailed` carries all of them and nothing changes.
With ``dry_run`` the import runs completely and is rolled back, so the report's counts are
exactly what a real import would do.
"""

from __future__ import annotations

import logging
import time

from django.db import transaction

from annotation.models import Study

from . import deepscholar, questions, researcherbench, researchqa, scholarqa
from .base import ImportFailed, ImportReport, Problem
from .common import question_key as question_key
from .common import read_source
from .structure import write_reports

logger = logging.getLogger("concord.imports")

KINDS = ("reports", "questions", "pairwise")
REPORT_FORMATS = ("scholarqa", "researchqa", "researcherbench", "deepscholar")
QUESTION_FORMATS = ("researchqa", "researcherbench", "jsonl")

__all__ = [
    "KINDS",
    "QUESTION_FORMATS",
    "REPORT_FORMATS",
    "ImportFailed",
    "ImportReport",
    "Problem",
    "question_key",
    "run",
]


class _DryRun(Exception):
    pass


def _name_of(source) -> str:
    if isinstance(source, (bytes, bytearray)):
        return "upload"
    return str(getattr(source, "name", source))


def _refuse(source, message: str):
    raise ImportFailed([Problem(_name_of(source), None, None, message)])


def run(kind: str, source, *, study, dry_run: bool = False, **options) -> ImportReport:
    """Validate ``source`` completely, then write it in one transaction (see module doc).

    Logged as structured records (``concord.imports``: kind, file, study, counts, seconds)."""
    fields = {"kind": kind, "file": _name_of(source), "study": str(study), "dry_run": dry_run}
    logger.info("import started", extra={"event": "import_started", **fields})
    start = time.perf_counter()
    try:
        rep = _run(kind, source, study=study, dry_run=dry_run, **options)
    except ImportFailed as failed:
        logger.warning("import refused", extra={"event": "import_refused", **fields,
                       "problems": len(failed.problems), "first_problem": str(failed.problems[0]) if failed.problems else None,
                       "seconds": round(time.perf_counter() - start, 3)})  # fmt: skip
        raise
    logger.info("import finished", extra={"event": "import_finished", **fields,
                "records": rep.records, "seconds": round(time.perf_counter() - start, 3)})  # fmt: skip
    return rep


def _run(kind: str, source, *, study, dry_run: bool = False, **options) -> ImportReport:
    if kind not in KINDS:
        _refuse(source, f"unknown import kind {kind!r}; use one of {', '.join(KINDS)}")
    if not study or (isinstance(study, str) and not study.strip()):
        _refuse(source, "a study name is required")
    rep = ImportReport(kind=kind, dry_run=dry_run)
    fmt = options.pop("format", None)
    if kind == "reports":
        if fmt not in REPORT_FORMATS:
            _refuse(
                source, f"unknown report format {fmt!r}; use one of {', '.join(REPORT_FORMATS)}"
            )
        src = read_source(source, allow_directory=fmt == "deepscholar")
        if fmt == "deepscholar" and src.directory is None:
            _refuse(
                source, "DeepScholar reports are read from a folder <system>/<paper_id>/output.md"
            )
        system = options.pop("system", None) or (src.directory.name if src.directory else None)
        if not system:
            _refuse(source, "a system name is required")
        parse = {
            "scholarqa": scholarqa.parse_reports,
            "researchqa": researchqa.parse_responses,
            "researcherbench": researcherbench.parse_responses,
            "deepscholar": deepscholar.parse_folder,
        }[fmt]
        if fmt == "scholarqa":  # counts the file's records and reports its oddities
            inputs = scholarqa.parse_reports(src, rep)
        else:
            inputs = parse(src)
            rep.records = len(inputs)

        def write(study_obj):
            write_reports(study_obj, system, inputs, fmt, rep, file=_name_of(source))

    elif kind == "questions":
        if fmt not in QUESTION_FORMATS:
            _refuse(
                source, f"unknown question format {fmt!r}; use one of {', '.join(QUESTION_FORMATS)}"
            )
        src = read_source(source)
        rubric = options.pop("rubric", None)
        if fmt == "researcherbench":
            inputs = researcherbench.parse_questions(src, read_source(rubric) if rubric else None)
        elif rubric:
            _refuse(source, "a separate rubric file is only read with --format researcherbench")
        elif fmt == "researchqa":
            inputs = researchqa.parse_questions(src)
        else:
            inputs = questions.parse_generic(src)
        rep.records = len(inputs)

        def write(study_obj):
            questions.write_questions(study_obj, inputs, rep, file=_name_of(source))

    else:
        if fmt not in (None, "", "scholarqa"):
            _refuse(source, f"unknown pairwise format {fmt!r}; only scholarqa is read")
        src = read_source(source)

        def write(study_obj):
            scholarqa.import_pairwise(src, study_obj, rep, **options)

    try:
        with transaction.atomic():
            study_obj = _study(study, rep)
            write(study_obj)
            if dry_run:
                raise _DryRun
            # A study with no task enabled would make every assignment of it an unavailable
            # page: it gets the tasks its data supports (an admin's choice is kept).
            from annotation.readiness import enable_supported

            rep.enabled_tasks = enable_supported(study_obj)
    except _DryRun:
        pass
    return rep


def _study(study, rep: ImportReport) -> Study:
    if isinstance(study, Study):
        return study
    obj, created = Study.objects.get_or_create(name=str(study).strip())
    if created:
        rep.count("created", "Study")
    return obj
