"""A page per judge (issue 27): its card — every protocol's figures with their notes, its
verdict lines, operations and tests against the other judges — above the table that
compares every judge of the study. It reads the report page's cached entry
(:func:`metaeval.views.cached_entry`), so the numbers are the page's, the API's and the
downloads'. A bootstrap selection not computed yet is computed from the report page (its
"Compute" button), never by a GET here."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from rest_framework.exceptions import ValidationError

from .formatting import FIGURE_FORMATS, TABLE_FORMATS
from .views import (
    _message,
    _options,
    _study_for,
    _system_names,
    cached_entry,
    options_query,
)


@login_required
def judge_page(request, study_id: int, judge: str):
    study = _study_for(request, study_id)
    try:
        options = _options(request, _system_names(study))
    except ValidationError as exc:
        return render(request, "metaeval/judge_page.html",
                      {"study": study, "judge": judge, "error": _message(exc)}, status=400)  # fmt: skip
    try:
        entry = cached_entry(study.pk, options, compute=not options.bootstrap)
    except ValueError as exc:
        raise Http404(str(exc)) from exc
    context = {"study": study, "judge": judge, "query": options_query(options),
               "options": options, "table_formats": TABLE_FORMATS,
               "figure_formats": FIGURE_FORMATS}  # fmt: skip
    if entry is None:
        context["needs_run"] = True
        return render(request, "metaeval/judge_page.html", context)
    results = entry.get("results") or {}
    result = results.get("judge_card")
    card = next((j for j in (result or {}).get("judges", []) if j["judge"] == judge), None)
    if card is None:
        context["judge_card"] = result
        if judge not in study_judges(entry):
            context["error"] = f"judge: {judge!r} has no verdict in this study's selection"
            return render(request, "metaeval/judge_page.html", context, status=404)
        context["no_card"] = no_card_note(judge, entry)
        return render(request, "metaeval/judge_page.html", context)
    context.update({"card": card, "judge_card": result,
                    "parameters": json.dumps(card["parameters"], sort_keys=True)})  # fmt: skip
    return render(request, "metaeval/judge_page.html", context)


def study_judges(entry: dict) -> set[str]:
    """Every judge the report names: the report's judge, each benchmark scoreboard's and
    each card's. A judge page exists for each of them (tester: the benchmark's own judge,
    the report's default, was a bare "Not Found")."""
    results = entry.get("results") or {}
    names = {((entry.get("report") or {}).get("selection") or {}).get("judge")}
    names |= {b.get("judge") for b in (results.get("scoreboard") or {}).get("boards") or ()}
    names |= {j["judge"] for j in (results.get("judge_card") or {}).get("judges") or ()}
    return {n for n in names if n}


def no_card_note(judge: str, entry: dict) -> str:
    """Why a judge of the report has no card: none of its verdicts meets an expert label
    of its kind in this selection; where its figures are instead."""
    boards = [b for b in ((entry.get("results") or {}).get("scoreboard") or {}).get("boards") or ()
              if b.get("judge") == judge]  # fmt: skip
    where = (
        f" Its own figures are on the report's scoreboard ({', '.join(sorted({b['benchmark'] for b in boards}))})."
        if boards else ""
    )  # fmt: skip
    return (
        f"No card: no verdict of {judge} meets an expert label of the same kind in this "
        "selection (a pairwise preference, a medal ranking or metric-wise score, a rubric "
        "coverage label, a DeepScholar label), and it has no live run; every figure of the "
        "card compares the judge with the experts, so none is defined." + where
    )
