"""A study's data in an outside format as one download: the one code path behind
``GET /api/studies/{id}/export/`` and the study page's Download panel (issue 18).

``export_download(study, kind, format, given)`` finds the registered writer
(:mod:`annotation.importers.registry`), checks the options it was given against the
writer's ``dump_options`` (required ones present, a value among the option's choices),
calls the writer once and packs what it wrote: one file as itself, several (a DeepScholar
folder, ResearcherBench questions and rubric) as a zip of their relative paths. The zip is
written with fixed timestamps, so the same study gives the same bytes from the API and the
page, today and tomorrow.

What a request may be refused for, and with which status (the agreement API's rules):

* 400 naming the field: a kind or format with no writer (a read-only format names the
  writers that export its data instead), a parameter no writer of the format reads
  (``splt=dev`` returned every split before; the known ones are listed, with the one meant
  when the name is close: :func:`concord.query.unknown_options`), a required option
  missing, a value outside an option's choices, and a value that names nothing in this
  study (``system=sqa`` of another study, ``judge=99``, ``annotator=Nobody``: the study's
  values of the option, :data:`STUDY_VALUES`, are listed).
* 404: every value names something of the study, but together they select no record (a
  system with no reports of the kind, a judge with no verdicts of the format). The message
  says "nothing to export" and that the options are valid but match nothing, rather than
  an empty file that looks like a successful export.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q

from annotation.models import (
    Annotator,
    HumanMetricScore,
    MedalRanking,
    PairwisePreference,
    Rubric,
    Study,
    System,
)
from concord.query import FALSE_WORDS, TRUE_WORDS, one_value, unknown_options

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


def _systems(study: Study) -> list[str]:
    return list(System.objects.filter(study=study).order_by("name").values_list("name", flat=True))


def _annotators(study: Study) -> list[str]:
    """Annotators with medal rankings, metric scores or preferences in the study (what the
    pairwise records hold), by pseudonym."""
    has_any = Q()
    for model in (MedalRanking, HumanMetricScore, PairwisePreference):
        has_any |= Q(Exists(model.objects.filter(study=study, annotator=OuterRef("pk"))))
    rows = Annotator.objects.filter(has_any).order_by("pseudonym")
    return list(rows.values_list("pseudonym", flat=True))


def _rubric_kinds(study: Study) -> list[str]:
    rows = Rubric.objects.filter(question__study=study).order_by("kind").values_list("kind")
    return [k for (k,) in rows.distinct()]


def _judgment_annotators(study: Study) -> list[str]:
    """Annotators with a human judgment of any kind in the study, by pseudonym (what the
    judgment export holds, :func:`annotation.exporters.judgment_annotators`)."""
    from annotation.exporters import judgment_annotators

    return judgment_annotators(study)


#: The study's values of a writer option that names something of the study, by the
#: option's name (the names the writers share), or by ``kind/option`` where one kind's
#: option names something else (the judgment export's annotators are those with any
#: judgment, not only pairwise records): the Download panel offers them, and an export
#: given another value is refused naming the option. ``judge`` is added by the judges app
#: (its verdict tables live above this layer: ``judges.formats``).
STUDY_VALUES: dict[str, Callable[[Study], list[str]]] = {
    "system": _systems,
    "annotator": _annotators,
    "rubric_kind": _rubric_kinds,
    "judgments/annotator": _judgment_annotators,
}
#: What a refusal calls each value (``no judge '99' with verdicts in this study``).
STUDY_VALUE_WORDS = {
    "system": "system",
    "annotator": "annotator with rankings, scores or preferences",
    "rubric_kind": "rubric kind",
    "judge": "judge with verdicts",
    "judgments/annotator": "annotator with judgments",
}


def study_values_key(fmt, name: str) -> str | None:
    """The :data:`STUDY_VALUES` key of ``fmt``'s option ``name`` (its kind's own first),
    or None when the option names nothing of the study."""
    for key in (f"{fmt.kind}/{name}", name):
        if key in STUDY_VALUES:
            return key
    return None


#: At most this many of the study's values are listed in a refusal.
LISTED = 10


def named_in_study(study: Study, fmt, options: Mapping) -> None:
    """ExportRefused (400) naming each option whose value names nothing in ``study``
    (:data:`STUDY_VALUES`): a system of another study is no filter that matches nothing,
    it is a mistake, and the answer lists the study's values."""
    problems = []
    for o in fmt.dump_options:
        value, key = options.get(o.name), study_values_key(fmt, o.name)
        if key is None or not isinstance(value, str) or not value:
            continue
        values = STUDY_VALUES[key](study)
        if value in values:
            continue
        shown = ", ".join(values[:LISTED]) + (f" and {len(values) - LISTED} more"
                                              if len(values) > LISTED else "")  # fmt: skip
        word = STUDY_VALUE_WORDS.get(key, o.name)
        problems.append((o.name, f"no {word} {value!r} in this study "
                                 f"({f'its values: {shown}' if values else 'it has none'})"))  # fmt: skip
    if problems:
        raise ExportRefused(problems)


#: Parameters every export reads besides its writer's options.
EXPORT_PARAMETERS = ("kind", "file_format")


def export_kinds() -> list[str]:
    from .registry import KINDS, writable

    has_writer = {f.kind for f in writable()}
    return [k for k in KINDS if k in has_writer]


def writer_of(kind: str, format_name: str | None):
    """The registered writer of ``kind`` / ``format_name`` (the kind's default format when
    empty); ExportRefused names ``kind`` or ``file_format`` and what they may be. A format
    that is read only says which writers export its data (:func:`registry.no_writer`)."""
    from .registry import FORMATS, KINDS, no_writer, writable

    kinds = export_kinds()
    if kind not in kinds:
        said = f"unknown export kind {kind!r}" if kind else "required: the export kind"
        raise ExportRefused([("kind", f"{said}; use one of {', '.join(kinds)}")])
    fmt = FORMATS.get((kind, format_name or KINDS[kind].default or ""))
    written = ", ".join(f.name for f in writable() if f.kind == kind)
    if fmt is None:
        said = f"unknown {kind} format {format_name!r}" if format_name else "required"
        raise ExportRefused([("file_format", f"{said}; the {kind} formats written: {written}")])
    if fmt.dump is None:
        raise ExportRefused([("file_format", no_writer(fmt))])
    return fmt


def refuse_unknown(
    fmt, given: Mapping, also: tuple[str, ...] = (), parameters: tuple[str, ...] = EXPORT_PARAMETERS
) -> None:
    """ExportRefused (400) when ``given`` holds a parameter that neither the export
    (``parameters``: a page export whose URL names the kind and format reads none) nor the
    writer reads (``also``: what the caller's own layer reads, e.g. DRF's ``format``): it
    was ignored before, so a typo exported everything."""
    options = fmt.dump_options if fmt is not None else ()
    refuse_unknown_names(
        given, [*parameters, *(o.name for o in options)], also,
        f"a {fmt.kind} {fmt.name} export" if fmt is not None else "",
    )  # fmt: skip


def refuse_unknown_names(given: Mapping, known, also=(), what: str = "") -> None:
    """ExportRefused (400) naming each parameter of ``given`` outside ``known`` and
    ``also``, with the known ones (:func:`concord.query.unknown_options`); ``what`` names
    the export in the message (``a pairwise records bundle``)."""
    unknown = [name for name in given if name not in known and name not in also]
    if unknown:  # one problem per parameter, each naming its field
        said = f" ({what})" if what else ""
        raise ExportRefused([(name, unknown_options([name], known) + said) for name in unknown])


def single_values(given: Mapping) -> dict:
    """``given`` (query parameters) with one value per name: a name given several times
    with different values is refused naming it (:func:`concord.query.one_value`, the API's
    rule), where ``QueryDict.get`` silently kept the last (``system=A&system=B``)."""
    from rest_framework.exceptions import ValidationError

    out, problems = {}, []
    for name in given:
        try:
            out[name] = one_value(given, name)
        except ValidationError as exc:
            for field, said in exc.detail.items():  # one message, or a list of them
                problems.append(
                    (field, " ".join(map(str, said)) if isinstance(said, list) else str(said))
                )
    if problems:
        raise ExportRefused(problems)
    return out


def page_options(study, fmt, given: Mapping, parameters: tuple[str, ...] = ()) -> dict:
    """The options of a study page's export (the "Export results" links) read as the API
    reads an export's: one value each, none unknown, a value among its choices and naming
    something of ``study`` (``fmt``: the registered writer whose options the page export
    takes). Raises ExportRefused (400)."""
    given = single_values(given)
    refuse_unknown(fmt, given, parameters=parameters)
    options = writer_options(fmt, given)
    named_in_study(study, fmt, options)
    return options


def refuse_disagreeing(given: Mapping, named: Mapping[str, str]) -> None:
    """ExportRefused (400) naming each parameter of ``named`` (what a page export's URL
    names: ``kind``, ``file_format``) that ``given`` holds with another value. The page
    export read its kind and format from the path and ignored the query's, so
    ``/export/questions/researcherbench/?kind=judgments&file_format=jsonl`` answered the
    questions zip (found by a tester); a value that agrees with the path is accepted."""
    problems = [
        (name, f"{given[name]!r} disagrees with the URL, which exports {name} {value!r}; "
               f"leave it out or give {value!r}")
        for name, value in named.items()
        if given.get(name) not in (None, "", value)
    ]  # fmt: skip
    if problems:
        raise ExportRefused(problems)


def export_download(
    study,
    kind: str,
    format_name: str | None,
    given: Mapping,
    *,
    also: tuple[str, ...] = (),
    from_path: bool = False,
) -> Download:
    """``study``'s data written by the registered writer of ``kind`` / ``format_name`` with
    the options in ``given``; a parameter of ``given`` outside the writer's options and
    ``also`` is refused (module doc), and so, when ``from_path`` (a page export whose URL
    names them), is a ``kind`` or ``file_format`` that disagrees with the URL's
    (:func:`refuse_disagreeing`). Raises ExportRefused."""
    given = single_values(given)
    if from_path:
        refuse_disagreeing(given, {"kind": kind, "file_format": format_name})
    fmt = writer_of(kind, format_name)
    refuse_unknown(fmt, given, also)
    options = writer_options(fmt, given)
    named_in_study(study, fmt, options)
    files = fmt.dump(study, **options)
    if not any(holds_records(name, text) for name, text in files.items()):
        said = ", ".join(f"{k}={v}" for k, v in options.items())
        which = f" ({said}: valid options, but they select nothing)" if said else ""
        raise ExportRefused(
            [(None, f"nothing to export: study “{study.name}” has no {fmt.kind} to write in "
                    f"the {fmt.name} format ({fmt.title}){which}")],
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
