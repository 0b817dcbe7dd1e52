"""The study report pages: selectors updated in place with htmx, figures and downloads.

Every number shown comes from one cached *entry* — ``{"report", "figures", "alignment",
"svgs"}`` — built from :func:`metaeval.reports.agreement_report` (the dict the command and
the API return), :func:`metaeval.figures.study_figures` and, when that module exists,
:func:`metaeval.alignment.judge_alignment`. Views only select, cache and format.

Cache key: study id + options + a fingerprint of the study's judgments (counts, largest
ids, update times and value sums of MedalRanking, Medal, HumanMetricScore and JudgeScore,
four aggregate queries whatever the study's size), so a changed judgment gives a new key
and the report is recomputed. Reports with bootstrap run as a Celery task
(:func:`metaeval.tasks.start_report`); the page polls the ReportRun every second.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import BadRequest
from django.db.models import Case, Count, F, FloatField, IntegerField, Max, Sum, Value, When
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from rest_framework.exceptions import ValidationError

from annotation.models import HumanMetricScore, Medal, MedalRanking, Study, System
from annotation.permissions import readable_studies, require_staff, staff_study_or_404
from concord.token_auth import accepts_token
from judges.models import Judge, JudgeScore

from . import exports, figures, plots
from .api import options_from
from .models import ReportRun
from .reports import (
    CALIBRATIONS,
    COMPAT_MODES,
    TIE_STRATEGIES,
    ReportOptions,
    agreement_report,
    max_bootstrap,
)
from .tasks import start_report

CACHE_SECONDS = 24 * 60 * 60
BOOTSTRAP_CHOICES = (0, 1000, 10000)
TABLE_FORMATS = ("csv", "xlsx", "json")
FIGURE_FORMATS = ("svg", "png")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "svg": "image/svg+xml",
    "png": "image/png",
    "html": "text/html; charset=utf-8",
}

# ----------------------------------------------------------------------------- access, options


def _study_for(request, study_id: int) -> Study:
    return staff_study_or_404(request.user, study_id, "Reports are for researchers and admins.")


def _system_names(study: Study) -> list[str]:
    return list(System.objects.filter(study=study).order_by("name").values_list("name", flat=True))


def _options(request, systems: list[str] | None = None) -> ReportOptions:
    """Options from the query string (the API's names); a ticked list of every system is
    the same selection as none, so it shares the cache entry of the command's default."""
    data = {k: v for k, v in request.GET.items() if k != "systems" and v != ""}
    ticked = [s for s in request.GET.getlist("systems") for s in s.split(",") if s]
    if ticked and not (systems is not None and set(ticked) >= set(systems)):
        data["systems"] = ",".join(ticked)
    return options_from(data)


def options_query(options: ReportOptions) -> str:
    """The query string of ``options`` (non-default values only), for links."""
    default = ReportOptions().to_dict()
    params = {}
    for key, value in options.to_dict().items():
        if value == default[key]:
            continue
        if isinstance(value, list):
            value = ",".join(value)
        elif isinstance(value, bool):
            value = "true" if value else "false"
        params[key] = value
    return urlencode(params)


# ----------------------------------------------------------------------------- cache


def study_fingerprint(study_id: int) -> str:
    """A digest of the study's judgments and judge scores, in four aggregate queries.

    Medal and JudgeScore have no update time: their value is folded into a sum weighted
    by the row id, so an edit in place changes the fingerprint too.
    """
    medal_code = Case(
        When(medal="gold", then=Value(1)), When(medal="silver", then=Value(2)), default=Value(3),
        output_field=IntegerField(),
    )  # fmt: skip
    parts = [
        MedalRanking.objects.filter(study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), at=Max("updated_at")
        ),
        Medal.objects.filter(ranking__study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), sig=Sum(medal_code * F("id"))
        ),
        HumanMetricScore.objects.filter(study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), at=Max("updated_at")
        ),
        JudgeScore.objects.filter(report__question__study_id=study_id).aggregate(
            n=Count("id"),
            top=Max("id"),
            sum=Sum("value"),
            sig=Sum(F("value") * F("id"), output_field=FloatField()),
        ),  # fmt: skip
    ]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:24]


def cache_key(study_id: int, options: ReportOptions, fingerprint: str, kind: str = "entry"):
    digest = hashlib.sha256(json.dumps(options.to_dict(), sort_keys=True).encode()).hexdigest()
    return f"concord:report:{kind}:{study_id}:{digest[:24]}:{fingerprint}"


def _judge_alignment(study_id: int, options: ReportOptions) -> dict | None:
    """Per-judge figures and the cross-judge matrix, when metaeval.alignment exists.

    Every judge of the study (the judge selector picks the main report's judge, not the
    columns of Table 5), without bootstrap: the per-judge table has no intervals.
    """
    try:
        from .alignment import judge_alignment
    except ImportError:
        return None
    return judge_alignment(study_id, replace(options, judge=None, bootstrap=0))


def build_entry(study_id: int, options: ReportOptions, report: dict | None = None) -> dict:
    """Report, figure data, judge alignment and inline SVGs of one selection."""
    if report is None:
        report = agreement_report(study_id, options)
    entry = {
        "report": report,
        "figures": figures.study_figures(study_id, options, report),
        "alignment": _judge_alignment(study_id, options),
    }
    entry["svgs"] = plots.figure_svgs(entry)
    return entry


def cached_entry(study_id: int, options: ReportOptions, *, compute: bool = True) -> dict | None:
    """The entry from the cache, or computed now (``compute``) and cached."""
    key = cache_key(study_id, options, study_fingerprint(study_id))
    entry = cache.get(key)
    if entry is None and compute:
        entry = build_entry(study_id, options)
        cache.set(key, entry, CACHE_SECONDS)
    return entry


# ----------------------------------------------------------------------------- pages


def _form_context(study: Study, systems: list[str], options: ReportOptions, report) -> dict:
    settings = sorted(
        MedalRanking.objects.filter(study=study)
        .order_by()
        .values_list("setting", flat=True)
        .distinct()
    )
    judges = list(
        Judge.objects.filter(scores__report__question__study=study)
        .order_by("name").values_list("name", flat=True).distinct()
    )  # fmt: skip
    chosen = options.judge or ((report or {}).get("selection") or {}).get("judge")
    return {
        "all_systems": systems,
        "ticked_systems": set(options.systems or systems),
        "all_settings": settings,
        "all_judges": judges,
        "chosen_judge": chosen,
        "tie_strategies": TIE_STRATEGIES,
        "calibrations": list(CALIBRATIONS),
        "compat_modes": COMPAT_MODES,
        "bootstrap_choices": [b for b in BOOTSTRAP_CHOICES if b <= max_bootstrap()],
    }


def _body(request, study: Study, options: ReportOptions, *, start: bool = False) -> dict:
    """Context of the report body: the report when ready, else the run in progress, else
    (a bootstrap not computed yet) the button that starts it. Only a POST (``start``) starts
    a run: a GET, which any page or image tag can make a browser send, never does."""
    fingerprint = study_fingerprint(study.pk)
    key = cache_key(study.pk, options, fingerprint)
    entry = cache.get(key)
    if entry is None and options.bootstrap:
        run_key = cache_key(study.pk, options, fingerprint, "run")
        run = ReportRun.objects.filter(pk=cache.get(run_key) or 0).first()
        if run is None or run.status == ReportRun.Status.FAILED:
            if not start:
                return {"needs_run": True, "failed_run": run}
            try:
                run = start_report(study, options, request.user)
            except Exception as exc:  # noqa: BLE001 - eager mode: the task's error, shown
                return {"error": str(exc)}
            cache.set(run_key, run.pk, CACHE_SECONDS)
        if run.status != ReportRun.Status.DONE:
            return {"run": run}
        entry = build_entry(study.pk, options, run.result)
        cache.set(key, entry, CACHE_SECONDS)
    elif entry is None:
        try:
            entry = build_entry(study.pk, options)
        except ValueError as exc:
            return {"error": str(exc)}
        cache.set(key, entry, CACHE_SECONDS)
    return report_context(entry, options)


@login_required
@require_http_methods(["GET", "POST"])
def report_page(request, study_id: int):
    """The study report; an htmx request from the selectors gets the report body only.

    The options are in the query string, for a POST too: a POST (the page's CSRF-protected
    "compute" button) starts the bootstrap run and comes back to the page, which polls it.
    Options that are refused (a bootstrap above the cap) answer 400 with the reason; htmx
    requests get it with 200, since htmx only swaps successful answers in.
    """
    study = _study_for(request, study_id)
    systems = _system_names(study)
    status = 200
    try:
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
    require_staff(request.user, "Reports are for researchers and admins.")
    study = readable_studies(request.user).filter(name=study_name).first()
    if study is None:  # absent, or not one of the researcher's studies: the same answer
        raise Http404("No study of that name.")
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
        key = cache_key(study.pk, options, study_fingerprint(study.pk))
        entry = cache.get(key)
        if entry is None:
            entry = build_entry(study.pk, options, run.result)
            cache.set(key, entry, CACHE_SECONDS)
        context.update(report_context(entry, options))
    return render(request, "metaeval/partials/report_body.html", context)


def _message(exc: ValidationError) -> str:
    detail = exc.detail
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {' '.join(map(str, v)) if isinstance(v, list) else v}"
                         for k, v in detail.items())  # fmt: skip
    return str(detail)


def _download_entry(request, study_id: int) -> tuple[Study, ReportOptions, dict]:
    study = _study_for(request, study_id)
    try:
        options = _options(request, _system_names(study))
    except ValidationError as exc:
        raise BadRequest(_message(exc)) from exc  # a refused option is a 400, not a 404
    try:
        return study, options, cached_entry(study.pk, options)
    except ValueError as exc:
        raise Http404(str(exc)) from exc


def _attachment(content, fmt: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _filename(study: Study, name: str, fmt: str) -> str:
    return f"study{study.pk}-{name}.{fmt}"


@accepts_token
@login_required
def figure_file(request, study_id: int, name: str, fmt: str):
    """A figure as SVG or PNG (drawn from the same entry as the page)."""
    if name not in plots.FIGURE_TITLES or fmt not in FIGURE_FORMATS:
        raise Http404("no such figure")
    study, options, entry = _download_entry(request, study_id)
    fig = plots.build(name, entry)
    if fig is None:
        raise Http404("this figure has no data for the selection")
    return _attachment(plots.render(fig, fmt), fmt, _filename(study, name, fmt))


def all_tables(entry: dict) -> dict[str, tuple[list[dict], list[str]]]:
    """Every table of an entry: the report's, the figures' and the judges'."""
    return {
        **exports.report_tables(entry["report"]),
        **figures.figure_tables(entry["figures"]),
        **figures.alignment_tables(entry.get("alignment")),
    }


@accepts_token
@login_required
def table_file(request, study_id: int, name: str, fmt: str):
    """A table as CSV, XLSX or JSON."""
    if fmt not in TABLE_FORMATS:
        raise Http404("no such format")
    study, options, entry = _download_entry(request, study_id)
    tables = all_tables(entry)
    if name not in tables:
        raise Http404("no such table")
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
def report_json(request, study_id: int):
    """The report dict, as ``manage.py agreement --json`` prints it."""
    study, options, entry = _download_entry(request, study_id)
    response = JsonResponse(entry["report"], json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{_filename(study, "report", "json")}"'
    return response


@accepts_token
@login_required
def offline_file(request, study_id: int):
    """The whole report as one HTML file that opens offline (inline CSS and SVG)."""
    from .offline import render_offline

    study, options, entry = _download_entry(request, study_id)
    html = render_offline(study, options, entry)
    return _attachment(html, "html", _filename(study, "report", "html"))


# ----------------------------------------------------------------------------- formatting


def _raw(x) -> str:
    return "" if x is None else repr(x)


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _dec(x, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _cell(value, kind: str = "dec", ci=None) -> dict:
    fmt = {"pct": _pct, "dec": _dec, "int": lambda v: "—" if v is None else f"{v:g}",
           "thr": lambda v: _dec(v, 3)}[kind]  # fmt: skip
    cell = {"raw": _raw(value), "text": fmt(value)}
    if ci:
        lo, hi = ci
        cell["ci"] = f"[{fmt(lo)}, {fmt(hi)}]"
        cell["ci_raw"] = f"{_raw(lo)},{_raw(hi)}"
    return cell


def _metric_rows(table: dict) -> list[dict]:
    rows = []
    for metric, fig in table.items():
        ci = fig.get("ci") or {}
        rows.append({
            "metric": metric,
            "label": plots.label(metric),
            "agreement": _cell(fig.get("agreement"), "pct", ci.get("agreement")),
            "tau_b": _cell(fig.get("tau_b"), "dec", ci.get("tau_b")),
            "n": _cell(fig.get("n"), "int"),
            "threshold": _cell(fig.get("threshold"), "thr"),
            "human_tie_rate": _cell(fig.get("human_tie_rate"), "pct"),
            "judge_tie_rate": _cell(fig.get("judge_tie_rate"), "pct"),
        })  # fmt: skip
    return rows


def _judge_table(alignment: dict | None) -> dict | None:
    """Seed 003 Table 5 shape: metrics × judges (agreement, τ-b); system τ-b all/agreed."""
    if not alignment or not alignment.get("judges"):
        return None
    judges = alignment["judges"]
    metrics: list[str] = []
    for j in judges:
        for m in (j.get("all") or {}).get("preference") or {}:
            if m not in metrics:
                metrics.append(m)
    rows = []
    for m in metrics:
        cells = []
        for j in judges:
            fig = ((j.get("all") or {}).get("preference") or {}).get(m) or {}
            cells.append({"judge": j["judge"], "agreement": _cell(fig.get("agreement"), "pct"),
                          "tau_b": _cell(fig.get("tau_b"))})  # fmt: skip
        rows.append({"metric": m, "label": plots.label(m), "cells": cells})
    system = [
        {
            "judge": j["judge"],
            "all": _cell((j.get("all") or {}).get("system_tau_b")),
            "agreed": _cell((j.get("expert_agreed") or {}).get("system_tau_b")),
        }  # fmt: skip
        for j in judges
    ]
    return {"judges": [j["judge"] for j in judges], "rows": rows, "system": system}


def _notes(report: dict) -> tuple[list[dict], list[str]]:
    notes = report.get("notes") or []
    compat = [
        {**n, "compat_cell": _cell(n.get("compat"), "dec" if "tau" in n.get("figure", "") else "pct"),
         "without_cell": _cell(n.get("without_quirk"), "dec" if "tau" in n.get("figure", "") else "pct"),
         "default_cell": _cell(n.get("default"), "dec" if "tau" in n.get("figure", "") else "pct")}
        for n in notes if isinstance(n, dict)
    ]  # fmt: skip
    return compat, [n for n in notes if isinstance(n, str)]


def report_context(entry: dict, options: ReportOptions) -> dict:
    """Template context of an entry: formatted cells that carry their raw values."""
    report = entry["report"]
    iaa = report.get("iaa") or {}
    system = report.get("system") or {}
    compat_notes, notes = _notes(report)
    svgs = entry.get("svgs") or {}
    figure_list = [
        {"name": name, "title": plots.FIGURE_TITLES[name], "svg": svg} for name, svg in svgs.items()
    ]
    return {
        "entry": entry,
        "report": report,
        "selection": report.get("selection") or {},
        "iaa": {k: _cell(iaa.get(k), kind) for k, kind in (
            ("strict", "pct"), ("half_credit", "pct"), ("n", "int"), ("n_pairs", "int"),
            ("cohen_kappa", "dec"), ("fleiss_kappa", "dec"), ("krippendorff_alpha", "dec"))},
        "preference_rows": _metric_rows(report.get("preference") or {}),
        "metric_wise_rows": _metric_rows(report.get("metric_wise") or {}),
        "system_tau": _cell(system.get("tau_b"), "dec", (system.get("ci") or {}).get("tau_b")),
        "system_rows": [
            {"system": s["system"],
             "human": _cell(s.get("human_win_rate"), "dec",
                            (s.get("ci") or {}).get("human_win_rate")),
             "judge": _cell(s.get("judge_win_rate"), "dec",
                            (s.get("ci") or {}).get("judge_win_rate")),
             "n": _cell(s.get("n"), "int")}
            for s in system.get("systems") or []
        ],
        "judge_table": _judge_table(entry.get("alignment")),
        "figures": {f["name"].replace("-", "_"): f for f in figure_list},
        "compat_notes": compat_notes,
        "notes": notes,
        "table_formats": TABLE_FORMATS,
        "figure_formats": FIGURE_FORMATS,
    }  # fmt: skip
