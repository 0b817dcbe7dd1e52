"""Quality-control pages (issue 17, part 2): the admin's quality page of a study, its CSV,
and the adjudicator's page. Thin: parse the POST, call ``studio.studyadmin.quality``, render.
A refused action re-renders the page with status 400, the error naming the record and field,
and the entered values kept in the form."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from annotation.annotate.claim_check import claim_in_report
from annotation.models import (
    AdjudicationRequest,
    Annotator,
    GoldItem,
    QualityEvent,
    ReportClaim,
    Study,
)
from annotation.permissions import readable_studies
from annotation.quality import catalog, observations, qualification
from annotation.quality import labels as ql
from annotation.quality.agreement import disagreements
from annotation.readiness import task_label
from annotation.rendering import load_reports, render_report
from annotation.views.access import admin_required, researcher_required
from concord.download_methods import download_methods
from concord.errors import refused_page
from concord.query import is_digits
from concord.token_auth import accepts_token
from studio.studyadmin import audit_text, quality
from studio.studyadmin.bulk_adjudication import send_many

ACTIONS = {}
#: How many "not added" reasons one message lists (the rest are counted).
RELEASE_REASONS = 10


def action(name):
    def register(fn):
        ACTIONS[name] = fn
        return fn

    return register


@action("settings")
def _settings(request, study):
    p = request.POST
    quality.save_settings(
        study,
        threshold=p.get("gold_threshold", ""),
        required=p.get("qualification_required") == "on",
        pass_mark=p.get("qualification_pass", ""),
        user=request.user,
    )
    return "Quality settings saved."


@action("mark")
def _mark(request, study):
    p = request.POST
    quality.mark_from_judgment(
        study, unit=p.get("unit", ""), annotator_id=p.get("annotator", ""),
        purpose=p.get("purpose", "gold"), user=request.user,
    )  # fmt: skip
    return "Marked as a known answer."


@action("enter")
def _enter(request, study):
    p = request.POST
    quality.mark_entered(
        study, task=p.get("task", ""), question=p.get("question", ""),
        answer=p.get("answer", ""), purpose=p.get("purpose", "gold"), user=request.user,
        unit=p.get("unit", ""),
    )  # fmt: skip
    return "Known answer saved."


@action("import")
def _import(request, study):
    upload = request.FILES.get("file")
    if upload is None:
        raise quality.QualityError("file: choose a JSONL or CSV file of known answers")
    n = quality.import_items(
        study, upload.name, upload.read(), purpose=request.POST.get("purpose", "gold"),
        user=request.user,
    )  # fmt: skip
    return f"{n} known answers imported from {upload.name}."


def _listed(items: list[str]) -> str:
    """The first :data:`RELEASE_REASONS` of ``items`` and how many more."""
    shown, more = items[:RELEASE_REASONS], len(items) - RELEASE_REASONS
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


@action("release")
def _release(request, study):
    done = quality.release(study, request.user)
    said = f"{done.created} gold and qualification assignments added to the annotators' queues."
    if done.not_added:
        said += f" Not added: {_listed(done.not_added)}."
    if done.left_out:
        said += (
            " Given nothing (they cannot sign in, so the work could never be done): "
            f"{_listed(done.left_out)}."
        )
    if done.recognisable:
        said += f" Recognisable: {_listed(done.recognisable)}."
    return said


@action("remove")
def _remove(request, study):
    quality.remove_item(study, request.POST.get("item", ""), request.user)
    return "Known answer removed."


@action("override")
def _override(request, study):
    p = request.POST
    r = quality.override(
        study, annotator_id=p.get("annotator", ""), verdict=p.get("verdict", ""),
        reason=p.get("reason", ""), user=request.user,
    )  # fmt: skip
    return f"{r.annotator.pseudonym}: qualification set by hand to {p.get('verdict')}."


@action("adjudicate")
def _send(request, study):
    n = quality.send_to_adjudication(
        study, unit=request.POST.get("unit", ""),
        adjudicators=request.POST.getlist("adjudicators"), user=request.user,
    )  # fmt: skip
    return f"Sent to {n} adjudicator(s)."


@action("adjudicate_many")
def _send_many(request, study):
    """Several disagreements to the same adjudicator(s) at once; each refused one is named
    with why, the others sent. Nothing sent at all is a refusal (the page says why)."""
    done = send_many(
        study, units=request.POST.getlist("units"),
        adjudicators=request.POST.getlist("adjudicators"), user=request.user,
    )  # fmt: skip
    refused = _listed([f"{unit}: {why}" for unit, why in done.refused])
    if not done.sent:
        raise quality.QualityError(f"Nothing sent. Refused: {refused}.")
    created = sum(n for _, n in done.sent)
    said = f"{len(done.sent)} disagreement(s) sent to adjudication ({created} new request(s))."
    already = [unit for unit, n in done.sent if not n]
    if already:
        said += f" Already sent to them before: {_listed(already)}."
    return said + (f" Refused: {refused}." if done.refused else "")


def task_menu(study, obs) -> tuple[list[dict], str]:
    """The enabled task types quality control reads, each with what its unit and label are
    (``TaskSpec.qc``), and a notice: labels the study holds under tasks it does not enable
    (they are out of the menu), or — when the menu is empty — why and what to do."""
    enabled = list(study.tasks or [])
    specs = catalog.specs()
    menu = [
        {"key": t, "name": task_label(t), "spec": specs[t]}
        for t in specs
        if t in enabled and specs[t].has_label
    ]
    held = sorted({o.unit[0] for o in obs} - set(enabled))
    if held:
        names = ", ".join(task_label(t) for t in held)
        return menu, (
            f"This study holds submitted labels of {names} but does not enable "
            f"{'it' if len(held) == 1 else 'them'}. Tick {'it' if len(held) == 1 else 'them'} "
            "under “Tasks and settings” on the set-up page and save; gold, qualification and "
            "adjudication then work on those labels."
        )
    if menu:
        return menu, ""
    if not enabled:
        return menu, (
            "This study enables no task, so there is nothing to mark as a known answer. Enable "
            "its tasks under “Tasks and settings” on the set-up page (importing reports or "
            "judgments enables the tasks their data supports)."
        )
    unlabelled = ", ".join(task_label(t) for t in enabled if t in specs)
    return menu, (
        f"The enabled tasks ({unlabelled}) have no single label to score, compare or "
        "adjudicate (see below why). Enable a task with labels under “Tasks and settings” "
        "on the set-up page."
    )


#: Why a decided request is not counted (Adjudications table of the quality page).
NOT_COUNTED = "not counted: adjudicator failed qualification"
OUTDATED = (
    "not counted: based on outdated labels (a label changed after the decision); "
    "send it to adjudication again"
)


def adjudication_rows(study) -> list[AdjudicationRequest]:
    """The study's adjudication requests, each with ``not_counted``: why its decision is
    not an adjudicated label ("" when it is, or while it is open). A decided request of an
    adjudicator who failed qualification stays listed (their work is never deleted) and
    counts again if they are passed by hand; so does one decided on labels that have
    changed since (``outdated_at``, ``annotation.quality.following``)."""
    failed = qualification.failed(study)
    rows = list(
        AdjudicationRequest.objects.filter(study=study).select_related("adjudicator", "question")
    )
    for r in rows:
        decided = r.status == AdjudicationRequest.Status.DECIDED
        r.not_counted = _why_not_counted(r, failed) if decided else ""
    return rows


def _why_not_counted(request: AdjudicationRequest, failed) -> str:
    """Why a decided request is no adjudicated label, the same rules as
    ``annotation.models.quality.counted_decisions`` ("" when it is one)."""
    if request.outdated_at:
        return OUTDATED
    return NOT_COUNTED if request.adjudicator_id in failed else ""


def adjudication_state(unit, adjudicated: dict, requests: list[AdjudicationRequest]) -> str:
    """Where a disagreement stands: its adjudicated label, the open requests it waits for,
    or that it needs adjudication (none sent, the counted decisions differ, or the only
    decisions are of an adjudicator who has since failed qualification)."""
    if unit in adjudicated:
        return f"adjudicated: {adjudicated[unit]}"
    mine = [r for r in requests if (r.task, r.question_id, r.unit) == unit]
    waiting = sum(r.status == AdjudicationRequest.Status.OPEN for r in mine)
    if waiting:
        return f"waiting for {waiting} adjudicator(s)"
    counted = [
        r for r in mine if r.status == AdjudicationRequest.Status.DECIDED and not r.not_counted
    ]
    if counted:
        return "needs adjudication: the decisions differ"
    if mine:
        return f"needs adjudication: its decision is {mine[0].not_counted}"
    return "needs adjudication"


def disagreement_groups(rows: list[tuple[str, dict]]) -> list[dict]:
    """The disagreements by task, each group with what its bulk send offers: the union of
    the adjudicators its units offer (each unit is checked again on sending). Each row gets
    an anchor its form posts to, so a refusal is shown, and scrolled to, beside it; it is
    ticked for the bulk send while it still needs adjudication."""
    groups: dict[str, dict] = {}
    for n, (key, u) in enumerate(rows, 1):
        u["anchor"] = f"disagreement-{n}"
        u["ticked"] = u["adjudication"].startswith("needs adjudication")
        group = groups.setdefault(
            u["unit"][0],
            {"task": u["unit"][0], "name": task_label(u["unit"][0]), "rows": [], "offered": {}},
        )
        group["rows"].append((key, u))
        group["offered"].update({a.pk: a for a in u["adjudicators"]})
    for group in groups.values():
        group["offered"] = sorted(group["offered"].values(), key=lambda a: a.pseudonym)
    return list(groups.values())


#: How many of the latest audit events the quality page lists.
AUDIT_SHOWN = 30


def audit_events(study) -> list[QualityEvent]:
    """The study's latest audit events, each with its actor and detail in words
    (``actor_text``, ``detail_text``: :mod:`studio.studyadmin.audit_text`)."""
    events = list(
        QualityEvent.objects.filter(study=study).select_related("actor", "annotator")[:AUDIT_SHOWN]
    )
    judges = audit_text.judge_names(events)
    for e in events:
        e.actor_text = audit_text.actor_text(e)
        e.detail_text = audit_text.detail_text(e.detail, judges)
    return events


def error_row(context: dict, posted) -> str:
    """The anchor of the disagreement row a refused single send is shown beside (the unit
    it posted), or "" when that unit is no row of the page: the message at the top must
    then not point to a row (a garbage unit was told "shown beside the disagreement
    below", where there was none)."""
    if posted.get("action") != "adjudicate":
        return ""
    unit = posted.get("unit", "")
    for group in context["disagreements"]:
        for key, u in group["rows"]:
            if key == unit:
                return u["anchor"]
    return ""


def _context(study) -> dict:
    obs = qualification.counted(study, observations.load(study))  # failed: not offered
    names = dict(Annotator.objects.values_list("pk", "pseudonym"))
    questions = dict(study.questions.values_list("pk", "external_id"))
    units: dict = {}
    for o in sorted(obs, key=lambda o: (o.unit, names.get(o.annotator, ""))):
        key = quality.unit_key(o.unit)
        units.setdefault(key, {"unit": o.unit, "question": questions.get(o.unit[1]), "labels": []})
        units[key]["labels"].append(
            {"annotator": o.annotator, "name": names.get(o.annotator), "label": o.label}
        )
    open_units = {quality.unit_key(u) for u in disagreements(obs)}
    annotators = list(Annotator.objects.filter(user__is_active=True).order_by("pseudonym"))
    rule = quality.AdjudicatorRule.of(study)
    textless = quality.textless(
        study,
        {units[k]["unit"]: [label["label"] for label in units[k]["labels"]] for k in open_units},
    )
    for key in open_units:
        u = units[key]
        if u["unit"] in textless:  # never offered, as gold items there are not
            u["adjudicators"], u["not_offered"] = [], []
            u["textless"] = f"{', '.join(textless[u['unit']])}: {quality.TEXTLESS}"
            continue
        parties = {label["annotator"] for label in u["labels"]}
        u["adjudicators"], u["not_offered"] = quality.adjudicator_choices(
            study, u["unit"], parties, annotators, rule
        )
    requests = adjudication_rows(study)
    adjudicated = observations.adjudicated_labels(study)
    for key in open_units:
        units[key]["adjudication"] = adjudication_state(units[key]["unit"], adjudicated, requests)
    shown_units = list(units.items())[:300]
    refused = quality.not_offered(
        study, [(u["unit"], label["label"]) for _, u in shown_units for label in u["labels"]]
    )
    for _, u in shown_units:
        for label in u["labels"]:
            label["refused"] = refused.get((u["unit"], label["label"]), "")
    menu, why_empty = task_menu(study, obs)
    return {
        "study": study,
        "threshold": quality.gold_threshold(study),
        "pace_floor": quality.PACE_FLOOR,
        "pass_mark": study.config.get("qualification_pass", 0.8),
        "required": bool(study.config.get("qualification_required")),
        "items": GoldItem.objects.filter(study=study).select_related("question"),
        "rows": quality.quality_rows(study),
        "qualification": quality.refresh_qualification(study),
        "units": shown_units,
        "disagreements": disagreement_groups([(k, units[k]) for k in sorted(open_units)]),
        "requests": requests,
        "events": audit_events(study),
        "tasks": [m["key"] for m in menu],
        "menu": menu,
        "menu_empty": why_empty,
        "unlabelled": [
            {"key": t, "name": task_label(t), "why": why}
            for t, why in catalog.unlabelled().items()
            if t in (study.tasks or [])
        ],
        "purposes": GoldItem.Purpose.choices,
    }


@admin_required
@require_http_methods(["GET", "POST"])
def study_quality(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    if request.method == "POST":
        act = ACTIONS.get(request.POST.get("action", ""))
        if act is None:
            error = f"action: “{request.POST.get('action', '')}” is not a quality action"
        else:
            try:
                message = act(request, study)
            except quality.QualityError as exc:
                error = str(exc)
            else:
                messages.success(request, message)
                return redirect("studies:quality", study_id=study.pk)
        context = {**_context(study), "error": error, "posted": request.POST}
        context["error_in_row"] = error_row(context, request.POST)
        return render(request, "annotation/studies/quality.html", context, status=400)
    return render(request, "annotation/studies/quality.html", _context(study))


@researcher_required
@require_GET
def progress_quality(request, study_id: int):
    """The quality-over-time table of the progress page, loaded (and refreshed every 30 s,
    so gold accuracy is live) by htmx: its queries stay out of the progress page's own."""
    study = get_object_or_404(readable_studies(request.user), pk=study_id)
    context = {
        "rows": quality.quality_rows(study),
        "threshold": quality.gold_threshold(study),
        "pace_floor": quality.PACE_FLOOR,
    }
    return render(request, "annotation/studies/_quality_table.html", context)


@accepts_token
@admin_required
@download_methods
def study_quality_csv(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    slug = "".join(c if c.isalnum() else "_" for c in study.name).strip("_") or f"study{study.pk}"
    response = HttpResponse(quality.quality_csv(study), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-quality.csv"'
    return response


def _report_paragraphs(request: AdjudicationRequest, blinding: quality.Blinding):
    """The reports an adjudicator reads, in letter order, named as ``blinding`` names them:
    those the unit names, every report for a ranking of reports, the rubrics (as Rubric A,
    B, …, their items) for a ranking of rubrics, none for a unit about the question."""
    spec = catalog.spec(request.task)
    if spec is not None and spec.blind_as == "Rubric":
        rubrics = request.question.rubrics.prefetch_related("items")
        shown = [
            {"label": blinding.name(r.kind), "items": list(r.items.order_by("position"))}
            for r in rubrics
            if r.kind in blinding.letters
        ]
        return sorted(shown, key=lambda r: r["label"])
    reports = list(request.question.reports.select_related("system"))
    wanted = spec.systems_in(request.unit) if spec is not None else []
    if wanted:
        reports = [r for r in reports if r.system.name in wanted]
    else:
        values = quality.unit_values(request)
        if values is None or not values.ranked or spec.blind_as != "Report":
            reports = []
    reports = [r for r in reports if r.system.name in blinding.letters]
    letters = {r.pk: blinding.letters[r.system.name] for r in reports}
    # rendered as the task pages render them: Markdown, citations with their references
    return [
        render_report(r, ord(letters[r.pk]) - 65)
        for r in sorted(load_reports(list(letters)), key=lambda r: letters[r.pk])
    ]


def _claim_of(request: AdjudicationRequest, reports) -> dict | None:
    """For a unit about a claim ("claim <id>@System", or "… cites <key>@System"): the
    claim as the claim check shows it (text, sources) and where it stands in its paragraph,
    marked (:func:`claim_in_report`); None for any other unit. Without it the page said
    only "About: claim TdX5UNbwtyQb in Report A", an id nobody can find in the report."""
    what, system = ql.split_unit(request.unit or "")
    parsed = ql.parse_claim(what)
    if parsed is None or not system:
        return None
    public_id, asked = parsed
    claim = ReportClaim.objects.filter(
        public_id=public_id, report__question_id=request.question_id, report__system__name=system
    ).first()
    report = next((r for r in reports if claim and r.report.pk == claim.report_id), None)
    return claim_in_report(claim, report, asked) if report is not None else None


#: Paragraphs shown either side of a disputed one, beside the label buttons.
NEIGHBOURS = 1


def _disputed(request: AdjudicationRequest, blinding: quality.Blinding, reports) -> dict | None:
    """For a unit about one paragraph ("paragraph 10@System"): that paragraph, marked, with
    its neighbours, in its report as the page names it, shown beside the label buttons.
    Before, only the words "paragraph 10 in Report A" said which it was, above every
    report in full (15,000 px of text before the buttons). None for any other unit."""
    what, system = ql.split_unit(request.unit or "")
    number = ql.parse_paragraph(what)
    letter = blinding.letters.get(system)
    report = next((r for r in reports if letter and getattr(r, "letter", "") == letter), None)
    if number is None or report is None:
        return None
    paragraphs = report.paragraphs
    at = next((i for i, p in enumerate(paragraphs) if p.number == number), None)
    if at is None:
        return None
    shown = paragraphs[max(0, at - NEIGHBOURS) : at + NEIGHBOURS + 1]
    return {
        "report": report.label,
        "number": number,
        "paragraphs": [
            {"number": p.number, "html": p.html, "disputed": p.number == number} for p in shown
        ],
    }


@login_required
@require_http_methods(["GET", "POST"])
def my_adjudications(request):
    """The signed-in annotator's adjudication requests: the question, the reports (blinded),
    the competing labels (anonymous) and a choice; decided ones are listed read-only.

    Anyone signed in may open it and sees only their own requests: none, said plainly, for
    one who has none, and for a user who is no annotator (an admin following the quality
    page's link got a bare 404) that adjudication is done by annotators and where the
    requests of a study are listed. A request that is not theirs is a 404 as before,
    the same as one that does not exist."""
    annotator = getattr(request.user, "annotator", None)
    mine = AdjudicationRequest.objects.filter(adjudicator=annotator).select_related(
        "question", "study"
    )
    if annotator is None:
        mine = mine.none()
    error, status = None, 200
    if request.method == "POST":
        posted = request.POST.get("request", "")
        if not is_digits(posted):
            said = f"request: “{posted[:40]}” is not an adjudication id"
            return refused_page(request, said, reverse("studies:my_adjudications"))
        target = mine.filter(pk=int(posted)).first()
        if target is None:
            raise Http404("No such adjudication")
        try:
            quality.decide(
                target,
                choice=request.POST.get("label", ""),
                reason=request.POST.get("reason", ""),
                seen=request.POST.get("seen"),
            )
        except quality.QualityError as exc:
            error = str(exc)
            status = 403 if isinstance(exc, quality.AdjudicatorRefused) else 400
        else:
            messages.success(request, "Adjudication saved. Thank you!")
            return redirect("studies:my_adjudications")
    rows, shown_questions = [], set()
    for r in mine:
        b = quality.Blinding.of(r)
        # keyboard shortcuts on the first open request (one form answers them at a time)
        keys = r.status == "open" and not any(row["keys"] for row in rows)
        reports = _report_paragraphs(r, b) if r.status == "open" else []
        claim, disputed = _claim_of(r, reports), _disputed(r, b, reports)
        # the whole reports open only where nothing narrower is shown, once per question
        reports_open = not (claim or disputed) and r.question_id not in shown_questions
        if reports:
            shown_questions.add(r.question_id)
        rows.append({
            "request": r,
            "options": [text for _, text in quality.options(r, b)],
            "originals": [b.label(o["label"]) for o in r.originals],
            "unit": quality.blind_unit(r, b),
            "reports": reports,
            "claim": claim,
            "disputed": disputed,
            "reports_open": reports_open,
            "decided": b.label(r.label) if r.label else "",
            "seen": quality.labels_seen(r),
            "keys": keys,
            "rubric": getattr(catalog.spec(r.task), "blind_as", "") == "Rubric",
        })  # fmt: skip
    return render(
        request,
        "annotation/studies/quality_adjudicate.html",
        {
            "rows": rows,
            "error": error,
            "posted": request.POST,
            "no_profile": annotator is None,
        },
        status=status,
    )
