"""One entry point for every import: management commands, the API and the admin page.

``run(kind, source, *, study, dry_run=False, format=None, **options) -> ImportReport``

The kinds, their formats and each format's options are declared once, in the registry
(:mod:`annotation.importers.registry`); ``python manage.py import_reports --help`` (and
``import_questions``, ``import_pairwise``, ``import_judge_scores``) lists them with their
help texts. Content formats live here (``scholarqa`` reports, ``researchqa``,
``researcherbench``, ``deepscholar``, generic ``jsonl`` questions); formats whose files carry
judge verdicts (ScholarQA-CS2 pairwise records, judge-score files) in ``judges/formats/``.

``source`` is a filesystem path, an uploaded file (``request.FILES[...]``) or bytes. The
study is named by ``study`` (a name or a Study) and created when it does not exist (unless
the kind needs an existing study). Every record is validated before anything is written,
and everything is written in one transaction; on any problem :class:`ImportFailed` carries
all of them and nothing changes. With ``dry_run`` the import runs completely and is rolled
back, so the report's counts are exactly what a real import would do. Once it is
committed, the tables it wrote are analysed (:mod:`.planner_statistics`).
"""

from __future__ import annotations

import logging
import time

from django.db import DataError

from annotation.models import Study

# Imported in the order the forms list them; each module registers its formats.
from . import deepscholar, questions, researcherbench, researchqa, scholarqa  # noqa: F401, I001
from .base import ImportFailed, ImportReport, Problem, dry_run_transaction
from .common import TooLong
from .common import question_key as question_key
from .page_cache import import_page_cache
from .planner_statistics import refreshed_after
from .registry import FORMATS, KINDS, Format, Kind, format_names

questions.register_generic()
from . import judgments  # noqa: E402, F401, I001  (the judgments kind, after the content kinds)
from . import deepscholar_units  # noqa: E402, F401, I001  (units of questions already imported)
from . import deepscholar_exemplars  # noqa: E402, F401, I001  (the LaTeX exemplars, released)
from . import claims  # noqa: E402, F401, I001  (claims of reports already imported)

logger = logging.getLogger("concord.imports")

#: The content formats, as tuples (registry-derived; kept for callers that list them).
REPORT_FORMATS = format_names("reports")
QUESTION_FORMATS = format_names("questions")

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


def _name_of(source) -> str:
    if isinstance(source, (bytes, bytearray)):
        return "upload"
    return str(getattr(source, "name", source))


def _refuse(source, message: str, field: str | None = None):
    raise ImportFailed([Problem(_name_of(source), None, field, message)])


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


def format_of(kind: str, name: str | None, source="upload") -> Format:
    """The registered format ``name`` of ``kind`` (the kind's default when empty); an
    unknown one is refused naming its field, ``kind`` or ``format`` (the API's answer then
    says which part of the request is wrong, not only the file)."""
    spec = KINDS.get(kind)
    if spec is None:
        _refuse(source, f"unknown import kind {kind!r}; use one of {', '.join(KINDS)}", "kind")
    fmt = FORMATS.get((kind, name or spec.default or ""))
    if fmt is None:
        _refuse(source, not_of_kind(kind, name), "format")
    return fmt


def not_of_kind(kind: str, name: str | None) -> str:
    """Why ``name`` is no format of ``kind``: a format of other kinds is named as theirs (a
    forged or stale choice of the import pages), any other name as unknown; both list the
    kind's formats. The one sentence of :func:`format_of` and the upload forms."""
    names = ", ".join(format_names(kind))
    label = kind.rstrip("s").replace("_", " ")
    others = [f.kind for f in FORMATS.values() if f.name == name]
    if others:
        return f"{name!r} is a format of {' / '.join(others)}, not of {kind}; use one of {names}"
    return f"unknown {label} format {name!r}; use one of {names}"


def _options(fmt: Format, given: dict, source) -> dict:
    """The format's options (absent ones None); a value the format does not read is refused,
    so is one longer than its column or outside the option's choices, naming the option."""
    taken = {o.name for o in fmt.all_options()}
    for name, value in given.items():
        if name in taken or value in (None, "", False):
            continue
        readers = [f.name for f in _formats_taking(fmt.kind, name)]
        if not readers:
            _refuse(source, f"unknown option {name!r} for a {fmt.kind!r} import")
        _refuse(source, f"--{name.replace('_', '-')} is only read with --format "
                + " / ".join(readers))  # fmt: skip
    problems = []
    for option in fmt.all_options():
        value, limit = given.get(option.name), option.max_chars()
        if isinstance(value, str) and limit is not None and len(value) > limit:
            problems.append(Problem(_name_of(source), None, option.name,
                                    f"longer than {limit} characters ({len(value)})"))  # fmt: skip
        if option.choices and value not in (None, "") and value not in option.choices:
            # checked here for every entry point (API, command, pages): a ``split`` outside
            # its choices was written to the questions as it was
            problems.append(Problem(_name_of(source), None, option.name,
                                    f"{option.name} {value!r} is not one of "
                                    f"{', '.join(option.choices)}"))  # fmt: skip
    if problems:
        raise ImportFailed(problems)
    return {name: given.get(name) for name in taken}


def _formats_taking(kind: str, option: str) -> list[Format]:
    return [f for f in FORMATS.values() if f.kind == kind and option in {o.name for o in f.options}]


def _run(kind: str, source, *, study, dry_run: bool = False, **options) -> ImportReport:
    spec: Kind | None = KINDS.get(kind)
    if spec is None:
        _refuse(source, f"unknown import kind {kind!r}; use one of {', '.join(KINDS)}", "kind")
    if not study or (isinstance(study, str) and not study.strip()):
        _refuse(source, "a study name is required")
    limit = Study._meta.get_field("name").max_length
    if isinstance(study, str) and len(study) > limit:
        raise ImportFailed([Problem(_name_of(source), None, "study",
                                    f"longer than {limit} characters ({len(study)})")])  # fmt: skip
    fmt = format_of(kind, options.pop("format", None), source)
    options = _options(fmt, options, source)
    rep = ImportReport(kind=kind, dry_run=dry_run)
    existing = None if spec.creates_study else _existing_study(study, source)
    try:
        with import_page_cache(), dry_run_transaction(dry_run), refreshed_after():
            study_obj = existing or _study(study, rep)
            fmt.load(source, study_obj, rep, **options)
            _enable(spec, study_obj, rep, dry_run)
    except TooLong as long:
        raise ImportFailed([Problem(_name_of(source), None, long.field.name, str(long))]) from None
    except DataError as error:
        # a value the format did not check against its column (PostgreSQL refuses it; the
        # transaction is rolled back, nothing written): a refusal, never a 500
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ImportFailed(
            [Problem(_name_of(source), None, None, f"refused by the database: {first}")]
        ) from None
    return rep


def _enable(spec, study_obj, rep, dry_run) -> None:
    if spec.enables_tasks and not dry_run:
        # Until an admin chooses them, a study's tasks are those its data supports,
        # whatever the order of the imports (a study with none enabled would make every
        # assignment an unavailable page); the tasks whose judgments it holds always.
        from annotation.readiness import enable_supported

        rep.enabled_tasks = enable_supported(study_obj)


def _existing_study(study, source) -> Study:
    if isinstance(study, Study):
        return study
    found = Study.objects.filter(name=study).first()
    if found is None:
        _refuse(source, f"no study named {study!r}; import its reports first")
    return found


def _study(study, rep: ImportReport) -> Study:
    if isinstance(study, Study):
        return study
    obj, created = Study.objects.get_or_create(name=str(study).strip())
    if created:
        rep.count("created", "Study")
    return obj
