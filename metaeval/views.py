"""The study report pages: selectors updated in place with htmx, figures and downloads.

Every number shown comes from one cached *entry* (:func:`metaeval.sections.build_entry`):
the agreement report (the dict the command and the API return) and the result, tables and
figures of every registered report section, all computed from one load of the selection
(:class:`metaeval.sections.Analysis`). Views only select, cache (:mod:`metaeval.cache`)
and render; numbers are formatted by :mod:`metaeval.formatting`. Reports with bootstrap
run as a Celery task (:func:`metaeval.tasks.start_report`); the page polls the ReportRun
every second.
"""

from __future__ import annotations

import dataclasses
import math
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from rest_framework.exceptions import ValidationError

from annotation.models import Study, System
from annotation.permissions import staff_study_by_key_or_404
from concord.download_methods import CHECKED_BY_VIEW, download_methods
from concord.error_body import error_response
from concord.token_auth import accepts_token, refusal, wants_json
from judges.models import Judge, judged_in

from . import exports, plots, sections
from . import options as report_options
from .cache import ReportCache, cache_key, study_fingerprint
from .formatting import FIGURE_FORMATS, TABLE_FORMATS, report_context
from .loaders.selection import settings_present
from .models import ReportRun
from .offline import render_offline
from .reports import ReportOptions, agreement_report, check_names, max_bootstrap
from .tasks import start_report

__all__ = ["cache_key", "study_fingerprint", "report_context"]

BOOTSTRAP_CHOICES = (0, 1000, 10000)
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "svg": "image/svg+xml",
    "png": "image/png",
    "html": "text/html; charset=utf-8",
}

# ----------------------------------------------------------------------------- access, options


#: Who may read reports.
REPORTS_REFUSAL = "Reports are for researchers and admins."


def _study_for(request, study_id: int | str) -> Study:
    """The study of a report URL, by id or (the downloads, the page by name) by name."""
    return staff_study_by_key_or_404(request.user, study_id, REPORTS_REFUSAL)


def _system_names(study: Study) -> list[str]:
    return list(System.objects.filter(study=study).order_by("name").values_list("name", flat=True))


def _options(request, systems: list[str] | None = None) -> ReportOptions:
    """Options from the query string, read as the API reads them (every value of a
    repeated ``systems``, a 400 for another option given twice); an empty value is no
    value. A ticked list of every system is the same selection as none, so it shares the
    cache entry of the command's default."""
    data = request.GET.copy()
    for key in list(data):
        given = [v for v in data.getlist(key) if v != ""]
        if given:
            data.setlist(key, given)
        else:
            del data[key]
    options = report_options.from_query(data)
    if systems is not None and options.systems and set(options.systems) >= set(systems):
        options = dataclasses.replace(options, systems=())
    return options


options_query = report_options.to_query


# ----------------------------------------------------------------------------- entries


def build_entry(study_id: int, options: ReportOptions, report: dict | None = None,
                fingerprint: str | None = None) -> dict:  # fmt: skip
    """Every section of one selection, its selection loaded once (``report``: already
    computed, e.g. by a bootstrap run). The main report is computed by this module's
    ``agreement_report``, once. ``fingerprint``: the study version of the entry's cache
    key; the rows loaded are then shared with the next request (a selector change that
    reads the same rows does not load them again, issue 29)."""
    analysis = sections.Analysis(study_id, options, report=report,
                                 compute_report=agreement_report,
                                 fingerprint=fingerprint)  # fmt: skip
    return sections.build_entry(analysis)


def cached_entry(
    study_id: int, options: ReportOptions, *, compute: bool = True, on_miss=None
) -> dict | None:  # fmt: skip
    """The entry from the cache, or computed now (``compute``) and cached. ``on_miss()``
    runs before it is computed (a download's throttle: it may refuse)."""
    cached = ReportCache(study_id, options)

    def build() -> dict:
        if on_miss is not None:
            on_miss()
        return build_entry(study_id, options, fingerprint=cached.fingerprint)

    return cached.entry(build, compute=compute)


# ----------------------------------------------------------------------------- pages


def _form_context(study: Study, systems: list[str], options: ReportOptions, report) -> dict:
    """The selector form, derived from the options' declaration (:mod:`metaeval.options`),
    with the choices that depend on the study."""
    # every judgment kind's settings, with their labels (not only the medal rankings')
    settings = settings_present(study.pk)
    # every judge with output of any kind here (a DeepScholar judge has labels, no score)
    judges = list(Judge.objects.filter(judged_in(study.pk)).order_by("name")
                  .values_list("name", flat=True))  # fmt: skip
    chosen = options.judge or ((report or {}).get("selection") or {}).get("judge")
    rounds = [b for b in BOOTSTRAP_CHOICES if b <= max_bootstrap()]
    choices = {
        "settings": settings,
        "judge": judges,
        "systems": systems,
        "bootstrap": [(b, f"{b} rounds" if b else "off") for b in rounds],
    }
    shown = {"judge": chosen, "systems": tuple(options.systems or systems)}
    return {"controls": report_options.form_controls(options, choices, shown)}


def _run_entry(request, study, cached: ReportCache, options: ReportOptions, start: bool) -> dict:
    """A bootstrap selection not computed yet: its run in progress, the button that starts
    one, or (the run done) its entry."""
    run = ReportRun.objects.filter(pk=cached.get("run") or 0).first()
    if run is None or run.status == ReportRun.Status.FAILED:
        if not start:
            return {"needs_run": True, "failed_run": run}
        try:
            run = start_report(study, options, request.user)
        except Exception as exc:  # noqa: BLE001 - eager mode: the task's error, shown
            return {"error": str(exc)}
        cached.set(run.pk, "run")
    if run.status != ReportRun.Status.DONE:
        return {"run": run}
    entry = build_entry(cached.study_id, options, run.result, cached.fingerprint)
    cached.set(entry)
    return {"entry": entry}


def _body(request, study: Study, options: ReportOptions, *, start: bool = False) -> dict:
    """Context of the report body: the report when ready, else the run in progress, else
    (a bootstrap not computed yet) the button that starts it. Only a POST (``start``) starts
    a run: a GET, which any page or image tag can make a browser send, never does."""
    cached = ReportCache(study.pk, options)
    entry = cached.get()
    if entry is None and options.bootstrap:
        got = _run_entry(request, study, cached, options, start)
        if "entry" not in got:
            return got
        entry = got["entry"]
    elif entry is None:
        try:
            entry = build_entry(study.pk, options, fingerprint=cached.fingerprint)
        except ValueError as exc:
            return {"error": str(exc)}
        cached.set(entry)
    return report_context(entry, options)


#: The one format of the report page (``?format=html`` names it, and changes nothing).
PAGE_FORMAT = "html"


def _refuse_page_format(request) -> None:
    """The report page is HTML; its other formats are downloads with paths of their own
    (``report.json``, ``tables/<name>.<fmt>``, ``figures/<name>.<fmt>``). Any other
    ``?format=`` is a 400 naming it and those paths: the page ignored it (``?format=csv``
    answered the HTML page, as if a CSV were on its way), where the API refuses a
    ``?format=`` it cannot answer (:mod:`concord.negotiation`). An empty value is no value,
    as for the options."""
    given = [v for v in request.GET.getlist("format") if v not in ("", PAGE_FORMAT)]
    if given:
        raise ValidationError({"format": (
            f"{given[0]!r} is not a format of the report page, which is HTML: the report "
            f"downloads as report.json or report.html, a table as tables/<name>."
            f"{{{','.join(TABLE_FORMATS)}}}, a figure as figures/<name>."
            f"{{{','.join(FIGURE_FORMATS)}}}"
        )})  # fmt: skip


@login_required
@require_http_methods(["GET", "POST"])
def report_page(request, study_id: int):
    """The study report; an htmx request from the selectors gets the report body only.

    The options are in the query string, for a POST too: a POST (the page's CSRF-protected
    "compute" button) starts the bootstrap run and comes back to the page, which polls it.
    Options that are refused (a bootstrap above the cap, a ``format`` other than the page's,
    :func:`_refuse_page_format`) answer 400 with the reason; htmx requests get it with 200,
    since htmx only swaps successful answers in.
    """
    study = _study_for(request, study_id)
    systems = _system_names(study)
    status = 200
    try:
        _refuse_page_format(request)
        options = _options(request, systems)
    except ValidationError as exc:
        options, body, status = ReportOptions(), {"error": _message(exc)}, 400
    else:
        body = _body(request, study, options, start=request.method == "POST")
        if request.method == "POST" and "error" not in body:
            query = options_query(options)
            return redirect(request.path + (f"?{query}" if query else ""))
    context = {"study": study, "options": options, "query": options_query(options), **body}
    if request.htmx:
        return render(request, "metaeval/partials/report_body.html", context)
    context.update(_form_context(study, systems, options, body.get("report")))
    return render(request, "metaeval/report.html", context, status=status)


@login_required
def report_by_name(request, study_name: str):
    """``/reports/<name>/``: the study's report page, found by its name (README), at its
    canonical id URL; the same refusal as the page for a study the user does not read."""
    study = _study_for(request, study_name)  # absent or not theirs: the same 404
    target = reverse("metaeval:report", args=[study.pk])
    query = request.META.get("QUERY_STRING")
    return redirect(f"{target}?{query}" if query else target)


@login_required
def run_progress(request, study_id: int, run_id: int):
    """Polled every second while a bootstrap report runs; the report once it is done."""
    study = _study_for(request, study_id)
    run = get_object_or_404(ReportRun, pk=run_id, study=study)
    options = ReportOptions.from_dict(run.options)
    context = {"study": study, "options": options, "query": options_query(options)}
    if run.status == ReportRun.Status.FAILED:
        context["error"] = run.error or "The report failed."
    elif run.status != ReportRun.Status.DONE:
        context["run"] = run
    else:
        cached = ReportCache(study.pk, options)
        entry = cached.entry(lambda: build_entry(study.pk, options, run.result, cached.fingerprint))
        context.update(report_context(entry, options))
    return render(request, "metaeval/partials/report_body.html", context)


def _message(exc: ValidationError) -> str:
    detail = exc.detail
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {' '.join(map(str, v)) if isinstance(v, list) else v}"
                         for k, v in detail.items())  # fmt: skip
    return str(detail)


class OptionsRefused(Exception):
    """A download's options refused: ``problems`` as (option, message) pairs."""

    def __init__(self, problems: list[tuple[str | None, str]]):
        super().__init__("; ".join(m for _f, m in problems))
        self.problems = problems


def _problems(exc: ValidationError | ValueError) -> list[tuple[str | None, str]]:
    """(option, message) of a refusal: a ValidationError's field map, a ValueError's
    ``"<option>: <message>"`` (``check_names``); a message under ``options`` that starts
    with an option's name is that option's."""
    if isinstance(exc, ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"options": exc.detail}
    else:
        detail = {"options": str(exc)}
    known = report_options.by_name()
    problems = []
    for key, value in detail.items():
        for message in value if isinstance(value, list) else [value]:
            name, said, rest = str(message).partition(": ")
            if key == "options" and said and name in known:
                problems.append((name, rest))
            else:
                problems.append((key, str(message)))
    return problems


def _refuse_query_format(request, fmt: str) -> None:
    """A download's format is its path's (``report.json``, ``tables/iaa.<fmt>``): a
    ``format`` in its query string is refused, naming it. The report options skip
    ``format`` (the API's renderer parameter, :func:`metaeval.options.from_query`), so
    ``report.json?format=csv`` answered JSON and ``tables/system.csv?format=json`` CSV, as
    if the value had been taken. No link of the page or test sends one; an empty value is
    no value, as for the options."""
    given = [v for v in request.GET.getlist("format") if v != ""]
    if given:
        raise OptionsRefused([("format", (
            f"not a parameter of this download ({given[0]!r} given): its format is its "
            f"path's, .{fmt}"
        ))])  # fmt: skip


def _download_entry(request, study_id: int | str, fmt: str) -> tuple[Study, ReportOptions, dict]:
    """The study, options and report entry of a download whose path names ``fmt``."""
    study = _study_for(request, study_id)
    _refuse_query_format(request, fmt)
    try:
        options = _options(request, _system_names(study))
        check_names(study.pk, options)
    except (ValidationError, ValueError) as exc:  # ValueError: a name the study lacks
        raise OptionsRefused(_problems(exc)) from exc  # a 400, not a 404
    try:
        # computed now (not cached): counted as the API's reports are
        entry = cached_entry(study.pk, options, on_miss=lambda: _throttled(request))
        return study, options, entry
    except ValueError as exc:
        raise Http404(str(exc)) from exc


class Throttled(Exception):
    """A download that would compute a report beyond the user's ``THROTTLE_REPORTS``."""

    def __init__(self, wait: float | None):
        self.wait = wait


class _ReportsScope:
    throttle_scope = "reports"


def _throttled(request) -> None:
    """The API's ``reports`` throttle for a download that computes (a cache miss: each new
    seed or selection, bootstrap rounds included): the same per-user rate, so a download
    is no way around it (found by a researcher with a token: ``report.json?bootstrap=1000``
    with a new seed each time computed on, after the API answered 429). A cached entry is
    served without counting."""
    from concord.throttles import ScopedRateThrottle

    throttle = ScopedRateThrottle()
    if not throttle.allow_request(request, _ReportsScope()):
        raise Throttled(throttle.wait())


def _refusals(view):
    """A download's refusals. Options refused: 400 naming each option, as the study exports
    answer (``concord.token_auth.refusal``): the API's error body (``detail`` and ``errors``
    items, :mod:`concord.error_body`) to an API client (a token, or ``Accept:
    application/json``), ``<option>: <message>`` lines in plain text to a browser; before, a
    token got plain text here and JSON from the exports. Throttled: 429, as the API's, with
    ``Retry-After`` and the reason (JSON ``detail`` to an API client, plain text to a
    browser)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except OptionsRefused as refused:
            return refusal(request, refused.problems, 400)
        except Throttled as refused:
            wait = max(1, math.ceil(refused.wait or 1))
            said = f"Too many report computations (THROTTLE_REPORTS): try again in {wait} s."
            if wants_json(request):
                response = error_response(said, 429)
            else:
                response = HttpResponse(f"{said}\n", status=429,
                                        content_type="text/plain; charset=utf-8")  # fmt: skip
            response["Retry-After"] = str(wait)
            return response

    return wrapped


def _not_given(request, what: str, reason: str, fmt: str) -> HttpResponse:
    """A 404 whose body says why a table or figure of the report is not given (a section
    not shown and its reason), as every download's refusal: the API's error body to an API
    client or for a ``.json`` path, plain text otherwise (it answered Django's bare HTML
    "Not Found" page)."""
    if fmt == "json":
        return error_response(None, 404, errors=[(what, reason)])
    return refusal(request, [(what, reason)], 404)


def _attachment(content, fmt: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _filename(study: Study, name: str, fmt: str) -> str:
    return f"study{study.pk}-{name}.{fmt}"


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # the report options
@_refusals
def figure_file(request, study_id: int | str, name: str, fmt: str):
    """A figure as SVG or PNG (drawn from the same entry as the page). Like every
    download: HEAD is GET without the body, OPTIONS 200 with Allow, other methods 405
    (:mod:`concord.download_methods`)."""
    if name not in sections.figure_specs() or fmt not in FIGURE_FORMATS:
        raise Http404("no such figure")
    study, options, entry = _download_entry(request, study_id, fmt)
    fig = sections.draw(name, entry)
    if fig is None:
        section = sections.figure_specs()[name][0]
        reason = sections.why_not_shown(section, entry)
        said = f"{section.title} is not shown for this selection: {reason}" if reason else None
        said = said or "this figure has no data for the selection"
        return _not_given(request, "figure", said, fmt)
    return _attachment(plots.render(fig, fmt), fmt, _filename(study, name, fmt))


def all_tables(entry: dict) -> dict[str, tuple[list[dict], list[str]]]:
    """Every table of an entry: those of every registered section."""
    return sections.all_tables(entry)


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # the report options
@_refusals
def table_file(request, study_id: int | str, name: str, fmt: str):
    """A table as CSV, XLSX or JSON; HEAD, OPTIONS as every download (``figure_file``)."""
    if fmt not in TABLE_FORMATS:
        raise Http404("no such format")
    study, options, entry = _download_entry(request, study_id, fmt)
    tables = all_tables(entry)
    if name not in tables:
        said = sections.table_not_shown(name, entry)
        said = said or f"{name!r} is not a table of this report"
        return _not_given(request, "table", said, fmt)
    rows, columns = tables[name]
    if fmt == "csv":
        content = exports.rows_to_csv(rows, columns)
    elif fmt == "xlsx":
        content = exports.rows_to_xlsx(rows, columns, name)
    else:
        content = exports.rows_to_json(rows, columns)
    return _attachment(content, fmt, _filename(study, name, fmt))


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # the report options
@_refusals
def report_json(request, study_id: int | str):
    """The report dict, as ``manage.py agreement --json`` prints it; HEAD, OPTIONS as every
    download (``figure_file``)."""
    study, options, entry = _download_entry(request, study_id, "json")
    response = JsonResponse(entry["report"], json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{_filename(study, "report", "json")}"'
    return response


@accepts_token
@login_required
@download_methods(parameters=CHECKED_BY_VIEW)  # the report options
@_refusals
def offline_file(request, study_id: int | str):
    """The whole report as one HTML file that opens offline (inline CSS and SVG); HEAD,
    OPTIONS as every download (``figure_file``)."""
    study, options, entry = _download_entry(request, study_id, "html")
    html = render_offline(study, options, entry)
    return _attachment(html, "html", _filename(study, "report", "html"))
