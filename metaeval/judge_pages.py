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
    result = (entry.get("results") or {}).get("judge_card")
    card = next((j for j in (result or {}).get("judges", []) if j["judge"] == judge), None)
    if card is None:
        raise Http404(f"judge: {judge!r} has no verdict in this study's selection")
    context.update({"card": card, "judge_card": result,
                    "parameters": json.dumps(card["parameters"], sort_keys=True)})  # fmt: skip
    return render(request, "metaeval/judge_page.html", context)
