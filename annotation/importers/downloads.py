"""A study's data in an outside format as one download: the one code path behind
``GET /api/studies/{id}/export/`` and the study page's Download panel (issue 18).

``export_download(study, kind, format, given)`` finds the registered writer
(:mod:`annotation.importers.registry`), checks the options it was given against the
writer's ``dump_options`` (required ones present, a value among the option's choices),
calls the writer once and packs what it wrote: one file as itself, several (a DeepScholar
folder, ResearcherBench questions and rubric) as a zip of their relative paths. The zip is
written with fixed timestamps, so the same study gives the same bytes from the API and the
page, today and tomorrow.

An export that holds no record (a study without the data, a system or judge with nothing
in it) is refused with a message saying so rather than answered with an empty file that
looks like a successful export.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass

from concord.query import FALSE_WORDS, TRUE_WORDS

from .base import ImportFailed

#: Content types by file extension; text types are sent as UTF-8.
CONTENT_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".csv": "text/csv",
    ".md": "text/markdown",
    ".zip": "application/zip",
}
#: Zip entries carry this time stamp (zip's earliest), so an export's bytes are reproducible.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Download:
    filename: str
    content: bytes
    content_type: str


class ExportRefused(Exception):
    """Why a download cannot be written: ``problems`` as (field, message); ``status`` 400
    for a request the writer cannot honour, 404 when there is nothing to export."""

    def __init__(self, problems: list[tuple[str | None, str]], status: int = 400):
        super().__init__("; ".join(m for _f, m in problems))
        self.problems = problems
        self.status = status


def extension_of(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > name.rfind("/") else ""


def content_type(name: str) -> str:
    ext = extension_of(name)
    kind = CONTENT_TYPES.get(ext, "application/octet-stream")
    return f"{kind}; charset=utf-8" if ext in (".json", ".jsonl", ".csv", ".md") else kind


def holds_records(name: str, text: str) -> bool:
    """Whether a written file holds at least one record: not blank, a JSON file not an empty
    list or object, a CSV file more than its header."""
    if not text.strip():
        return False
    ext = extension_of(name)
    if ext == ".json":
        try:
            return bool(json.loads(text))
        except ValueError:
            return True
    if ext == ".csv":
        return len([line for line in text.splitlines() if line.strip()]) > 1
    return True


#: How a yes/no option may be written in a query string (or given by the command line):
#: the words every true/false parameter of the API takes (``concord.query``).
YES = {True, *TRUE_WORDS}
NO = {False, *FALSE_WORDS}


def writer_options(fmt, given: Mapping) -> dict[str, str | bool]:
    """The writer's options from ``given`` (query parameters); ExportRefused names each
    missing required option (``required``, or ``required_unless`` another is not set), each
    yes/no option that is neither and each value outside an option's choices. A yes/no
    option reaches the writer as True, or not at all."""
    options = {o.name: given[o.name] for o in fmt.dump_options if given.get(o.name)}
    problems: list[tuple[str | None, str]] = []
    for o in fmt.dump_options:
        if o.type is bool and o.name in options:
            value = options.pop(o.name)
            said = value.lower() if isinstance(value, str) else value
            if said in YES:
                options[o.name] = True
            elif said not in NO:
                problems.append((o.name, f"{value!r} is not true or false"))
    for o in fmt.dump_options:
        if o.needed(options) and o.name not in options:
            problems.append((o.name, f"required: {o.help}"))
        elif o.choices and o.name in options and options[o.name] not in o.choices:
            problems.append((o.name, f"{options[o.name]!r} is not one of {', '.join(o.choices)}"))
    if problems:
        raise ExportRefused(problems)
    return options


def export_download(study, kind: str, format_name: str | None, given: Mapping) -> Download:
    """``study``'s data written by the registered writer of ``kind`` / ``format_name`` with
    the options in ``given`` (module doc). Raises ExportRefused."""
    from . import KINDS, format_of

    try:
        fmt = format_of(kind, format_name or None)
    except ImportFailed as failed:
        field = "kind" if kind not in KINDS else "file_format"
        raise ExportRefused([(p.field or field, p.message) for p in failed.problems]) from None
    if fmt.dump is None:
        raise ExportRefused([("file_format", f"{fmt.kind} {fmt.name} has no writer")])
    options = writer_options(fmt, given)
    files = fmt.dump(study, **options)
    if not any(holds_records(name, text) for name, text in files.items()):
        said = "".join(f", {k}={v}" for k, v in options.items())
        raise ExportRefused(
            [(None, f"nothing to export: study “{study.name}” has no {fmt.kind} to write in "
                    f"the {fmt.name} format ({fmt.title}{said})")],
            status=404,
        )  # fmt: skip
    if len(files) == 1:
        name, text = next(iter(files.items()))
        name = name.replace("/", "_")
        return Download(name, text.encode("utf-8"), content_type(name))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in files.items():
            info = zipfile.ZipInfo(path, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text)
    name = f"{fmt.kind}-{fmt.name}.zip"
    return Download(name, buf.getvalue(), CONTENT_TYPES[".zip"])


def attachment(download: Download):
    """The download as an HTTP attachment (its file name in Content-Disposition)."""
    from django.http import HttpResponse

    response = HttpResponse(download.content, content_type=download.content_type)
    response["Content-Disposition"] = f'attachment; filename="{download.filename}"'
    return response
