"""Study quality control for admins (issue 17, part 2): gold and qualification items, the
qualification round, adjudication of disagreements, and annotator quality over time.

The database side of ``annotation.quality``: every function here validates, writes in one
transaction and raises :class:`QualityError` naming the record and field on bad input, so a
refused action changes nothing. Config keys of a study: ``gold_threshold`` (accuracy below
which an annotator is flagged, default 0.7), ``qualification_required``,
``qualification_pass`` (default 0.8).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import hmac
import io
import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.annotate.registry import SPECS
from annotation.assignment import expert_of
from annotation.models import (
    AdjudicationRequest,
    Annotator,
    Assignment,
    ExpertiseRating,
    GoldItem,
    MedalRanking,
    QualificationResult,
    QualityEvent,
    Question,
    Report,
    Setting,
)
from annotation.protection import holding_work
from annotation.quality import catalog, following, observations, pace, qualification
from annotation.quality.agreement import AnnotatorQuality, annotator_quality, disagreements
from annotation.quality.labels import (
    PAIRWISE,
    BadAnswer,
    Unit,
    check_answer,
    parse_ranking,
    ranked_names,
    split_unit,
)
from annotation.quality.pace import TaskPace
from annotation.quality.scoring import Score, flagged
from annotation.spreadsheets import csv_writer
from concord.query import is_digits

from . import gold_reports, planning

DEFAULT_GOLD_THRESHOLD = 0.7
Purpose = GoldItem.Purpose


class QualityError(ValueError):
    """A refused quality-control action; the message names the record and the field."""


class AdjudicatorRefused(QualityError):
    """An adjudicator who may no longer decide (:class:`AdjudicatorRule`): a 403."""


def gold_threshold(study) -> float:
    return float(study.config.get("gold_threshold", DEFAULT_GOLD_THRESHOLD))


def unit_key(unit: Unit) -> str:
    task, qid, name = unit
    return f"{task}|{qid}|{name}"


def parse_unit_key(text: str) -> Unit:
    try:
        task, qid, name = text.split("|", 2)
        return task, int(qid), name
    except ValueError:
        raise QualityError(f"unit: “{text}” is not a unit of this study") from None


def _audit(study, user, action, annotator=None, **detail):
    QualityEvent.objects.create(
        study=study, actor=user, action=action, annotator=annotator, detail=detail
    )


# --- settings -------------------------------------------------------------------------------


def save_settings(study, *, threshold: str, required: bool, pass_mark: str, user) -> None:
    values = {}
    for field, text in (("gold_threshold", threshold), ("qualification_pass", pass_mark)):
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise QualityError(f"{field}: “{text}” is not a number between 0 and 1") from None
        if not 0 <= value <= 1:
            raise QualityError(f"{field}: {value:g} is not between 0 and 1")
        values[field] = value
    study.config = {**study.config, **values, "qualification_required": bool(required)}
    study.save(update_fields=["config"])
    _audit(study, user, "settings", **values, qualification_required=bool(required))
    # turned on partway through: whoever wrote a known answer is qualified by it at once
    qualification.qualify_authors(study)


# --- gold and qualification items -----------------------------------------------------------


def _systems(question) -> list[str]:
    return list(question.reports.values_list("system__name", flat=True))


def _create_item(study, *, task, question, unit, answer, purpose, user, source="", by=None):
    if purpose not in Purpose.values:
        raise QualityError(f"purpose: “{purpose}” is not one of {', '.join(Purpose.values)}")
    try:
        with transaction.atomic():
            return GoldItem.objects.create(
                study=study, task=task, question=question, unit=unit, answer=answer,
                purpose=purpose, source=source, source_annotator=by, created_by=user,
            )  # fmt: skip
    except IntegrityError:
        raise QualityError(
            f"question {question.external_id} ({task} {unit}): already a gold or qualification item"
        ) from None


def mark_from_judgment(study, *, unit: str, annotator_id: str, purpose: str, user) -> GoldItem:
    """Make a submitted label a known answer: the annotator's label on the unit."""
    key = parse_unit_key(unit)
    aid = record_id(annotator_id, "annotator")
    if aid in qualification.failed(study):
        raise QualityError(
            f"annotator: {aid} failed the qualification round; their label cannot be a known answer"
        )
    found = [o for o in observations.load(study) if o.unit == key and o.annotator == aid]
    if not found:
        raise QualityError(f"unit {unit}: annotator {aid} has no submitted label on it")
    question = Question.objects.get(pk=key[1])
    _as_many_as_shown(study, key[0], question, key[2], found[0].label, "")
    item = _create_item(
        study, task=key[0], question=question, unit=key[2], answer=found[0].label,
        purpose=purpose, user=user, source=f"judgment of annotator {aid}",
        by=Annotator.objects.get(pk=aid),
    )  # fmt: skip
    _audit(
        study, user, "mark_gold", purpose=purpose, question=question.external_id,
        task=key[0], unit=key[2], answer=item.answer,
    )  # fmt: skip
    qualification.qualify_authors(study)  # the annotator it came from is qualified by it
    return item


def not_offered(study, labelled) -> dict:
    """(unit, label) -> why that submitted label cannot be a known answer (its assignment
    would show other reports than ordinary work: :mod:`gold_reports`), for the pairs of
    ``labelled`` that cannot; the quality page offers no "Mark as known answer" for them."""
    seen = gold_reports.ShownReports.of(study)
    questions = Question.objects.in_bulk({unit[1] for unit, _ in labelled})
    return {
        (unit, label): why
        for unit, label in labelled
        if unit[1] in questions
        and (why := seen.refusal(unit[0], questions[unit[1]], unit[2], label))
    }


def _question(study, external_id: str, where: str, by_id: bool = False) -> Question:
    """The study's question of that external id; with ``by_id`` (the "Enter a known
    answer" form, whose admin reads ids on the study's pages) also of that database id:
    an external id of the study wins, and digits that are none are read as an id. An
    import file names questions by external id only (digits that name no question there
    are an error, never another question that happens to have that id)."""
    text = (external_id or "").strip()
    found = Question.objects.filter(study=study, external_id=text).first()
    if found is None and by_id and is_digits(text) and len(text) < 19:  # a bigint
        found = Question.objects.filter(study=study, pk=int(text)).first()
    if found is None:
        said = "id or external id" if by_id else "external id"
        raise QualityError(
            f"{where}question: no question “{external_id}” in this study (by {said})"
        )
    return found


def _entered(
    study, row: dict, where: str, default_purpose: str, shown=None, by_id: bool = False
) -> dict:
    task = (row.get("task") or "").strip()
    spec = catalog.spec(task)
    if spec is None or not spec.has_label:
        why = f" ({spec.no_label})" if spec is not None else ""
        raise QualityError(
            f"{where}task: “{task}” is not one of {', '.join(catalog.labelled())}{why}"
        )
    if task not in (study.tasks or []):
        raise QualityError(f"{where}task: {task} is not enabled in this study")
    question = _question(study, row.get("question", ""), where, by_id)
    unit = (row.get("unit") or "").strip()
    answer = row.get("answer", "")
    try:
        parsed = None
        offered = spec.units(study, question) if unit or spec.parse is None else {}
        if (unit or spec.parse is None) and unit not in offered:
            shown = ", ".join(f"“{u}”" for u in list(offered)[:6]) or "none"
            raise QualityError(
                f"{where}unit: “{unit}” is not a unit of {task} on question "
                f"{question.external_id} (its units: {shown}{' …' if len(offered) > 6 else ''})"
            )
        if spec.parse is not None:
            # the task's notation (``LabelSpec.notation``: SysA>SysB names its unit) is read
            # with or without a unit; with one, a plain label of that unit is read too
            try:
                parsed = spec.parse(answer, _systems(question))
            except BadAnswer:
                if not unit:
                    raise
        if parsed is not None and unit and parsed[0] != unit:
            raise QualityError(
                f"{where}answer: “{answer}” is about the unit “{parsed[0]}”, not “{unit}”"
            )
        if parsed is not None:
            unit, label = parsed
        else:
            noun = "rubric" if spec.blind_as == "Rubric" else "report"
            label = check_answer(offered[unit], answer, noun)
    except BadAnswer as bad:
        raise QualityError(f"{where}answer: {bad}") from None
    _as_many_as_shown(study, task, question, unit, label, where, shown)
    purpose = (row.get("purpose") or default_purpose).strip()
    return {"task": task, "question": question, "unit": unit, "answer": label, "purpose": purpose}


def _as_many_as_shown(study, task, question, unit, label, where, shown=None) -> None:
    """A known answer's assignment shows the reports ordinary work of the task on the
    question shows: as many for a ranking (its comparison, else as many as the study's
    ordinary assignments of the task), never a textless report
    (:meth:`gold_reports.ShownReports.refusal`); otherwise it would be told apart."""
    why = (shown or gold_reports.ShownReports.of(study)).refusal(task, question, unit, label)
    if why:
        raise QualityError(f"{where}answer: {why}")


def mark_entered(study, *, task, question, answer, purpose, user, unit="") -> GoldItem:
    row = {"task": task, "question": question, "answer": answer, "unit": unit}
    d = _entered(study, row, "", purpose, by_id=True)
    item = _create_item(study, **d, user=user, source="entered")
    _audit(
        study, user, "mark_gold", purpose=purpose, question=d["question"].external_id, task=task,
        unit=item.unit, answer=answer,
    )  # fmt: skip
    return item


def read_rows(name: str, data: bytes) -> list[dict]:
    """Rows of a JSONL (one object a line) or CSV (header row) upload."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise QualityError(f"{name}: not UTF-8 text") from None
    if name.lower().endswith(".csv"):
        return [dict(r) for r in csv.DictReader(io.StringIO(text))]
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise QualityError(f"{name} line {n}: not JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise QualityError(f"{name} line {n}: not a JSON object")
            rows.append({k: str(v) if v is not None else "" for k, v in row.items()})
    return rows


def import_items(study, name: str, data: bytes, *, purpose: str, user) -> int:
    """All rows or none: fields ``question`` (external id), ``task``, ``answer``, ``unit``
    (optional for pairwise and medal ranking, whose answer names it: SysA>SysB), optional
    ``purpose``; each task's units and labels are its ``TaskSpec.qc``."""
    rows = read_rows(name, data)
    if not rows:
        raise QualityError(f"{name}: no rows")
    line = 2 if name.lower().endswith(".csv") else 1
    shown = gold_reports.ShownReports.of(study)
    with transaction.atomic():
        for n, row in enumerate(rows, start=line):
            where = f"{name} row {n}: "
            d = _entered(study, row, where, purpose, shown)
            try:
                _create_item(study, **d, user=user, source=name)
            except QualityError as e:
                raise QualityError(f"{where}{e}") from None
        _audit(study, user, "import_gold", file=name, rows=len(rows))
    return len(rows)


@dataclass
class Released:
    """What "Add … to every annotator's queue" did: assignments made, and per annotator and
    item not added, why (the admin is told precisely, never just "0 added")."""

    created: int = 0
    not_added: list[str] = dataclasses.field(default_factory=list)
    #: Items added although something tells them apart from the annotator's other work:
    #: their setting differs from the annotator's usual one (an expertise-matched annotator
    #: given gold outside their fields, when the study has no gold in them: the question's
    #: field shows it). The admin is told, per annotator and item.
    recognisable: list[str] = dataclasses.field(default_factory=list)
    #: Annotators of the study given nothing because they cannot sign in (an imported
    #: pseudonym without an account, a deactivated account), each with why: an item
    #: given to them could never be done (in progress and pending forever).
    left_out: list[str] = dataclasses.field(default_factory=list)


def _shown_reports(study, task, qid, items, rng, seen) -> list[int]:
    """The reports a gold item's assignment shows: what an ordinary assignment of the task on
    that question shows, so the item looks like any other. A task about the question shows
    no chosen reports (planning stores none); a ranking shows exactly the reports its known
    answer ranks (the label is the ranking of the reports shown, so an annotator who ranks
    them as the answer does scores 1); another unit shows the comparison's reports when
    they hold the unit's systems, else the unit's systems and others with text up to as
    many as an ordinary assignment of the task shows (``seen``: a
    :class:`gold_reports.ShownReports`; a textless report is never drawn)."""
    if task not in planning.REPORT_TASKS:
        return []
    by_system = seen.reports.get(qid, {})
    spec = catalog.spec(task)
    needed: set[str] = set()
    for item in items:
        values = spec.units(study, item.question).get(item.unit) if spec else None
        if values is not None and values.ranked:
            needed |= set(ranked_names(item.answer))
            continue
        needed |= set(spec.systems_in(item.unit) if spec else ())
    rankings = [i for i in items if (v := spec.units(study, i.question).get(i.unit)) and v.ranked]
    if rankings:
        return [by_system[n] for n in sorted(needed) if n in by_system]
    compared = seen.comparison(task, qid)
    shown = {s for s, rid in by_system.items() if rid in compared}
    if compared and needed <= shown:
        return compared
    count = seen.expected(task, items[0].question)[0] or len(by_system)
    others = sorted(n for n, rid in by_system.items() if n not in needed and rid in seen.readable)
    rng.shuffle(others)
    chosen = sorted(needed) + others[: max(0, count - len(needed))]
    return [by_system[n] for n in chosen if n in by_system]


def _untouched(assignments) -> list[Assignment]:
    """The annotator's assignments nobody has opened: not started, no draft, flag,
    reopening, disagreement or judgment refers to them (they hold no work)."""
    rows = [
        a for a in assignments
        if a.status == Assignment.Status.NOT_STARTED and a.started_at is None
    ]  # fmt: skip
    used = holding_work(a.pk for a in rows)
    return [a for a in rows if a.pk not in used]


def _reissue(annotator, study, new: list[Assignment], rng) -> None:
    """Write ``new`` (the gold and qualification assignments) into the annotator's queue so
    that nothing tells them apart: qualification ones first, then each gold one at a
    uniformly random place among ALL the annotator's unsubmitted work of the study, opened
    or not (placing it among unopened work only let an annotator who opened every task
    first push it to the end of their queue). The unsubmitted work takes the positions it
    held plus new ones after the last, in the new order: a submitted item keeps its
    position and nothing's answers change (an opened one only moves). Work never opened
    (no draft, no judgment) is written again with the new rows, in a random order, so ids
    are mixed among it; an opened item keeps its id (docs/QUALITY.md: known limit)."""
    mine = list(
        Assignment.objects.select_for_update()
        .filter(annotator=annotator)
        .order_by("position", "pk")
    )
    ours = [a for a in mine if a.study_id == study.pk]
    fresh = _untouched(ours)
    unsubmitted = [
        a
        for a in ours
        if a.status in (Assignment.Status.NOT_STARTED, Assignment.Status.IN_PROGRESS)
    ]
    order = [a for a in new if a._purpose == Purpose.QUALIFICATION]
    rest = list(unsubmitted)
    for a in (a for a in new if a._purpose != Purpose.QUALIFICATION):
        rest.insert(rng.randint(0, len(rest)), a)
    order += rest
    top = max((a.position for a in mine), default=0)
    positions = sorted(a.position for a in unsubmitted)
    positions += list(range(top + 1, top + 1 + len(new)))
    for a, position in zip(order, positions, strict=True):
        a.position = position
    recreated = {a.pk for a in fresh}
    for a in unsubmitted:
        if a.pk not in recreated:
            Assignment.objects.filter(pk=a.pk).update(position=a.position)
    rows = [
        Assignment(
            study_id=a.study_id,
            annotator_id=a.annotator_id,
            question_id=a.question_id,
            task=a.task,
            setting=a.setting,
            report_order=a.report_order,
            status=a.status,
            position=a.position,
        )  # fmt: skip
        for a in order
        if a.pk is None or a.pk in recreated
    ]
    rng.shuffle(rows)
    Assignment.objects.filter(pk__in=recreated).delete()
    Assignment.objects.bulk_create(rows)


def release(study, user, *, seed: int | None = None) -> Released:
    """Put every gold and qualification item into the queue of every annotator of the
    study who lacks it: an ordinary assignment showing what an ordinary one shows (same
    page, same URL shape, same number of reports, an id among their other work) — a gold
    item at a random place among their work, qualification items first. An annotator who
    already has the task on that question cannot get a second assignment of it: the result
    says so, per annotator and item (for a qualification item, work done before it became
    one does not count: :func:`annotation.quality.qualification.evaluate`). Nor does one
    who adjudicates the task on that question (:func:`_adjudicators`), nor, for a
    qualification item, one whose qualification is already decided (:func:`_decided`: with
    the gold checks of that task on that question, which are the same assignment; the gold
    checks of the question's other tasks they do get); the result says so. Its setting
    is the one true of it (:func:`_truthful_setting`); an annotator whose usual setting a
    gold item would not fit gets only the gold that fits when the study has some, else the
    item is added and listed as recognisable (docs/QUALITY.md, "Gold and settings")."""
    rng = random.Random(seed)
    everyone = Annotator.objects.filter(assignments__study=study).distinct()
    annotators = planning.can_sign_in(everyone).order_by("pseudonym")
    grouped: dict[tuple[str, int], list[GoldItem]] = {}
    for g in GoldItem.objects.filter(study=study).select_related("question"):
        grouped.setdefault((g.task, g.question_id), []).append(g)
    out = Released()
    if grouped:
        out.left_out = _cannot_sign_in(everyone.exclude(pk__in=annotators.values("pk")))
    seen = gold_reports.ShownReports.of(study)
    for key, items in sorted(grouped.items()):
        # a known answer stored before this check (or whose question changed since) that
        # would show other reports than ordinary work there: released to no one
        refused = [
            (i, why) for i in items if (why := seen.refusal(i.task, i.question, i.unit, i.answer))
        ]
        if refused:
            del grouped[key]
            out.not_added += [
                f"the known answer {i.answer} of {i.task} on question {i.question.external_id} "
                f"is released to no one: {why}; remove it and enter another"
                for i, why in refused
            ]
    ranking = {key for key, spec in SPECS.items() if spec.ranks}
    # rankings held without an assignment of this study (imported under an annotator's name)
    ranked = set(
        MedalRanking.objects.filter(
            study=study, question_id__in={q for t, q in grouped if t in ranking}
        ).values_list("annotator_id", "question_id", "setting")
    )
    adjudicators = _adjudicators(study)
    purposes = {
        key: Purpose.QUALIFICATION
        if any(i.purpose == Purpose.QUALIFICATION for i in items)
        else Purpose.GOLD
        for key, items in grouped.items()
    }
    rated = _triage_ratings(study, {q for _, q in grouped})
    decided = {
        r.annotator_id: r
        for r in QualificationResult.objects.filter(study=study, passed__isnull=False)
    }
    with transaction.atomic():
        shown = {
            key: _shown_reports(study, *key, items, rng, seen)
            for key, items in sorted(grouped.items())
        }
        for annotator in annotators:
            mine = Assignment.objects.filter(study=study, annotator=annotator).values_list(
                "task", "question_id", "status", "setting", "submitted_at", "report_order"
            )
            rows, orders = [], defaultdict(list)
            for *row, order in mine:
                rows.append(tuple(row))
                if row[2] != Assignment.Status.WITHDRAWN:
                    orders[row[0], row[1]].append(order)
            have = {(t, q): (status, at) for t, q, status, _, at in rows}
            # their work other than known-answer items: gold released earlier (given as
            # assigned outside an expert's fields) must not make ``assigned`` look usual
            ordinary = [r for r in rows if (r[0], r[1]) not in grouped] or rows
            usual = {task: _usual_setting(ordinary, task) for task, _ in grouped}
            expert = {task: _expert_setting(ordinary, task) or usual[task] for task, _ in grouped}
            truthful = {
                (task, qid): _truthful_setting(annotator, items[0].question, usual[task], rated)
                for (task, qid), items in grouped.items()
            }
            # whether the item fits the setting of their expert work (an expert's own
            # fields): one that does not is told apart from that work, whatever else they do
            fits = {
                (task, qid): _truthful_setting(annotator, items[0].question, expert[task], rated)
                == expert[task]
                for (task, qid), items in grouped.items()
            }
            # gold that fits the annotator's setting (an expert's own fields): when the study
            # has some, only it is given, so no gold item is the one question of their queue
            # outside their fields
            fitting = any(purposes[key] == Purpose.GOLD and fits[key] for key in grouped)
            new = []
            # the rankings this release gives them: (question, setting) -> task
            releasing: dict[tuple[int, str], str] = {}
            # qualification items first: of two rankings of one question, the one kept is
            # the one their qualification needs (the order of the rest is unchanged)
            for (task, qid), items in sorted(
                grouped.items(), key=lambda kv: (purposes[kv[0]] != Purpose.QUALIFICATION, kv[0])
            ):
                purpose = purposes[task, qid]
                if (task, qid) in have:
                    unscored = seen.unscored(items, orders[task, qid])
                    out.not_added.append(
                        _unscored(annotator, unscored, purpose)
                        if unscored
                        else _why_not(annotator, items, purpose, *have[task, qid])
                    )
                    continue
                if purpose == Purpose.QUALIFICATION and annotator.pk in decided:
                    out.not_added.append(_decided(annotator, items, decided[annotator.pk]))
                    continue
                if (annotator.pk, task, qid) in adjudicators:
                    out.not_added.append(
                        f"{annotator.pseudonym} adjudicates {task} on question "
                        f"{items[0].question.external_id} (asked to, or did): they have read "
                        "the labels given there, so a known answer there would not test them"
                    )
                    continue
                setting = truthful[task, qid]
                if not fits[task, qid]:
                    why = _misfit(annotator, items[0], expert[task])
                    if purpose == Purpose.GOLD and fitting:
                        out.not_added.append(
                            f"{why}: it would be the one item of their queue that shows it, "
                            "so it is not given (they get the gold checks that fit them)"
                        )
                        continue
                    out.recognisable.append(
                        f"{why}: given as {setting}, it can be told apart from their "
                        f"{expert[task]} work"
                        + (
                            "; no gold item of the study fits them: add one (e.g. on a "
                            "question of their fields) to make it unrecognisable"
                            if purpose == Purpose.GOLD
                            else ""
                        )
                    )
                if task in ranking:
                    clash = _ranking_clash(
                        annotator, items, rows, ranking, ranked, setting
                    ) or _released_clash(annotator, items, releasing, setting)
                    if clash:
                        out.not_added.append(clash)
                        continue
                    releasing[qid, setting] = task
                a = Assignment(
                    study=study, annotator=annotator, question_id=qid, task=task,
                    report_order=Assignment.shuffled(shown[task, qid]), setting=setting,
                )  # fmt: skip
                a._purpose = purpose
                new.append(a)
            if new:
                _reissue(annotator, study, new, rng)
                out.created += len(new)
        _audit(study, user, "release_gold", assignments=out.created, not_added=len(out.not_added))
    return out


def _cannot_sign_in(annotators) -> list[str]:
    """Each annotator who cannot sign in, with why (:func:`planning.can_sign_in`)."""
    return [
        f"{a.pseudonym} ("
        + (
            "no account: imported under this pseudonym, they cannot sign in"
            if a.user_id is None
            else "account deactivated"
        )
        + ")"
        for a in annotators.order_by("pseudonym")
    ]


def _adjudicators(study) -> set[tuple[int, str, int]]:
    """(annotator, task, question) of every adjudication request of the study, open,
    decided or withdrawn: its adjudicator has read the labels others gave there (the page
    shows them), so a gold or qualification item there would score what they were told."""
    seen = set(
        AdjudicationRequest.objects.filter(study=study).values_list(
            "adjudicator_id", "task", "question_id"
        )
    )
    questions = dict(Question.objects.filter(study=study).values_list("external_id", "pk"))
    withdrawn = QualityEvent.objects.filter(
        study=study, action=qualification.WITHDRAW_ADJUDICATION, annotator__isnull=False
    ).values_list("annotator_id", "detail")
    for annotator_id, detail in withdrawn:
        for r in detail.get("requests", []):
            if r.get("question") in questions:
                seen.add((annotator_id, r.get("task"), questions[r["question"]]))
    return seen


def _ranking_clash(annotator, items, rows, ranking: set[str], ranked: set, setting: str):
    """Why ``annotator`` gets no assignment of a ranking item (medal ranking or metric-wise,
    ``TaskSpec.ranks``) on its question, or None: they already rank that question in that
    setting, by another task that writes the same ranking or by a ranking imported under
    their name. Both write the one ranking of a question and setting, so a second
    assignment could never be submitted (``medal_ranking.ranking_conflict`` refuses it),
    and a qualification item there could never be passed; the planner bars the same pair
    (``planning._barred``)."""
    item = items[0]
    other = next(
        (
            t
            for t, q, status, s, _ in rows
            if t in ranking
            and q == item.question_id
            and s == setting
            and status != Assignment.Status.WITHDRAWN
        ),
        None,
    )
    if other is None and (annotator.pk, item.question_id, setting) not in ranked:
        return None
    where = (
        f"their {other} assignment" if other is not None else "a ranking imported under their name"
    )
    return (
        f"{annotator.pseudonym} already ranks question {item.question.external_id} in {where} "
        f"(one ranking per question and setting): a {item.task} item there could never be "
        "submitted; choose a question they have not ranked, or withdraw that assignment"
    )


def _released_clash(annotator, items, releasing: dict[tuple[int, str], str], setting: str):
    """Why ``annotator`` gets no assignment of a ranking item because this same release
    already gives them another ranking of its question in that setting, or None: gold for
    metric-wise medals and for medal ranking on one question made two items of which only
    the first submitted could ever be (``medal_ranking.ranking_conflict`` refuses the
    other), so the release keeps one, a qualification item before a gold one."""
    item = items[0]
    other = releasing.get((item.question_id, setting))
    if other is None:
        return None
    return (
        f"{annotator.pseudonym} gets the {other} item on question {item.question.external_id} "
        f"in this release (one ranking per question and setting): a {item.task} item there "
        "too could never be submitted; it is given to them in no release while they hold "
        f"the {other} one"
    )


def _triage_ratings(study, questions) -> dict[tuple[int, int], str]:
    """(annotator, question) -> their triage level, for the items' questions (one query)."""
    return {
        (a, q): level
        for a, q, level in ExpertiseRating.objects.filter(
            question__study=study, question_id__in=questions
        ).values_list("annotator_id", "question_id", "level")
    }


def _truthful_setting(annotator, question, usual: str, rated) -> str:
    """The setting a gold or qualification assignment truthfully has: the annotator's usual
    one when what that setting asserts holds for this question (expertise_matched: the
    question's field is one of theirs; near_expert: they rated it within or near their
    expertise; deep_expert: they wrote it), else ``assigned`` — the question reached them
    whatever they know, which is what Setting 1 says. A setting is what analyses group
    by (agreement and alignment by setting), so a non-expert's answer labelled
    expertise-matched would be pooled with the experts' (docs/QUALITY.md)."""
    if usual == Setting.EXPERTISE_MATCHED:
        holds = expert_of(question.field, annotator.expertise_fields)
    elif usual == Setting.NEAR_EXPERT:
        holds = rated.get((annotator.pk, question.pk)) in (
            ExpertiseRating.Level.WITHIN,
            ExpertiseRating.Level.NEAR,
        )
    elif usual == Setting.DEEP_EXPERT:
        holds = question.authored_by_id == annotator.pk
    else:
        holds = True
    return usual if holds else Setting.ASSIGNED


def _misfit(annotator, item: GoldItem, usual: str) -> str:
    """Says why an item does not fit the annotator's usual setting."""
    q = item.question
    where = f"{item.task} on question {q.external_id}"
    if usual == Setting.EXPERTISE_MATCHED:
        fields = ", ".join(annotator.expertise_fields or ()) or "none"
        return (
            f"{annotator.pseudonym} judges by expertise (fields: {fields}); {where} is in "
            f"field {q.field or '(none)'}"
        )
    if usual == Setting.NEAR_EXPERT:
        return f"{annotator.pseudonym} judges near-expert work; they did not rate {where} within or near their expertise"
    return f"{annotator.pseudonym} judges the questions they wrote; they did not write {where}"


def _usual_setting(rows, task: str) -> str:
    """The setting of the annotator's other work of ``task`` (else of any task): a gold
    item whose setting differed from theirs (assigned among near-expert work) would show."""
    for wanted in (task, None):
        found = Counter(s for t, _, _, s, _ in rows if wanted is None or t == wanted)
        if found:
            return found.most_common(1)[0][0]
    return Assignment._meta.get_field("setting").default


def _expert_setting(rows, task: str) -> str | None:
    """The most common setting other than ``assigned`` of the annotator's work of ``task``
    (else, when they have none of it, of any task), or None: what an expert's work asserts (their fields, their
    triage, their authorship). An item that does not fit it stands out among that work
    even when they also hold ``assigned`` work (earlier gold, a random plan)."""
    for wanted in (task, None):
        found = Counter(
            s
            for t, _, status, s, _ in rows
            if (wanted is None or t == wanted) and status != Assignment.Status.WITHDRAWN
        )
        if found:
            found.pop(Setting.ASSIGNED, None)
            return found.most_common(1)[0][0] if found else None
    return None


def _decided(annotator, items: list[GoldItem], result: QualificationResult) -> str:
    """Why an annotator whose qualification is decided (passed or failed, computed or by
    hand) gets no new qualification item: a decided result is never recomputed, so the
    item would be work that changes nothing while looking like a retry.

    Why the ordinary gold checks of the *same task* on that question are not given either
    (the admin is told so, naming them): a qualification item is a task on a question
    (``annotation.models.quality.is_qualification_task``), and an annotator has one
    assignment of a task on a question, which shows every unit of it there — the
    qualification unit included. That assignment *is* the qualification item: giving it
    for a gold check would show a decided annotator the qualification item again (and
    treat their gold work as a qualification attempt: locked from revision). The study's
    gold checks of the question's *other* tasks are their own assignments and a decided
    annotator receives them as anyone does (:func:`release` groups items by task and
    question); a gold check wanted for decided annotators belongs on another question."""
    item = items[0]
    verdict = "passed" if result.passed else "failed"
    how = " (set by hand)" if result.overridden else ""
    gold = sorted(i.unit or "the ranking" for i in items if i.purpose == Purpose.GOLD)
    many = len(gold) > 1
    also = (
        f"; the gold check{'s' if many else ''} of {item.task} there ({', '.join(gold)}) "
        f"{'share' if many else 'shares'} that assignment, so {'they are' if many else 'it is'} "
        "not given either (put a gold check for decided annotators on another question)"
        if gold
        else ""
    )
    return (
        f"{annotator.pseudonym} has already {verdict} the qualification round{how}: "
        f"{item.task} on question {item.question.external_id} would not change a decided "
        f"result (only an override does){also}"
    )


def _unscored(annotator, unscored, purpose: str) -> str:
    """Why a known answer in a task ``annotator`` already has on its question is never
    scored for them: their assignment shows other reports than the answer is about (a
    ranking of other reports, a unit of a report not shown), and one annotator has one
    assignment of a task on a question (a ranking one per question and setting:
    ``medal_ranking.ranking_conflict``), so it cannot be shown to them again. Said so,
    instead of promising a score that gold accuracy never counts
    (``annotation.quality.scoring.answers``)."""
    item = unscored[0][0]
    shown = " / ".join(", ".join(sorted(s)) or "no report" for s in unscored[0][1]) or "nothing"
    what = "; ".join(
        f"the known answer {i.answer}" if "=" in i.answer else f"{i.unit or 'the answer'}"
        for i, _ in unscored
    )
    return (
        f"{annotator.pseudonym} already has {item.task} on question "
        f"{item.question.external_id}, which shows them other reports ({shown}) than "
        f"{what} is about: their label there cannot be scored as "
        f"{'their qualification answer' if purpose == Purpose.QUALIFICATION else 'gold'}, "
        f"and a second {item.task} assignment of that question cannot be given to them "
        "(one per task and question); this check is not given to them"
    )


def _why_not(annotator, items: list[GoldItem], purpose: str, status: str, submitted_at) -> str:
    """Why ``annotator`` gets no assignment of the item: what they already have and whether
    it counts. Work submitted once the unit was a qualification item is their answer
    (:func:`annotation.quality.qualification.as_qualification`); said "from before" of it
    too, the message told the admin to pass or fail by hand an annotator already scored."""
    item = items[0]
    what = f"{annotator.pseudonym} already has {item.task} on question {item.question.external_id}"
    if purpose == Purpose.QUALIFICATION and status == Assignment.Status.SUBMITTED:
        since = min(i.created_at for i in items if i.purpose == Purpose.QUALIFICATION)
        if observations.attempted(True, submitted_at, since):  # the one rule
            return (
                f"{what} (submitted once it was a qualification item: their qualification answer)"
            )
        return (
            f"{what} from before it became a qualification item: that work does not count as "
            "qualification; their round is decided over the items they are given (given none: "
            "pass or fail them by hand, or choose a question they have not done)"
        )
    if purpose == Purpose.QUALIFICATION:
        return f"{what} (in their queue: their submission there is their qualification answer)"
    if status == Assignment.Status.SUBMITTED:
        return f"{what} (submitted: their label there is scored as gold)"
    return f"{what} (in their queue: their label there will be scored as gold)"


def record_id(text, field: str) -> int:
    """A posted database id, or a QualityError naming the field (never a ValueError)."""
    text = str(text or "").strip()
    if not is_digits(text):
        raise QualityError(f"{field}: “{text[:40]}” is not an id")
    return int(text)


def remove_item(study, item_id: str, user) -> None:
    item = GoldItem.objects.filter(study=study, pk=record_id(item_id, "item")).first()
    if item is None:
        raise QualityError(f"gold item {item_id}: not in this study")
    _audit(
        study, user, "remove_gold", question=item.question.external_id, unit=item.unit,
        answer=item.answer,
    )  # fmt: skip
    item.delete()


# --- qualification ----------------------------------------------------------------------------


def refresh_qualification(study) -> list[QualificationResult]:
    """The study's qualification results, those of annotators who can sign in brought up
    to date. One who cannot (an imported pseudonym, a deactivated account) is given no
    qualification item (:func:`release`), so their round would stay pending forever: it is
    neither computed nor listed, unless decided (by hand, or before)."""
    everyone = Annotator.objects.filter(assignments__study=study).distinct()
    able = set(planning.can_sign_in(everyone).values_list("pk", flat=True))
    for annotator in everyone.filter(pk__in=able):
        qualification.evaluate(study, annotator)
    wrote = qualification.authors(study)
    rows = [
        r
        for r in QualificationResult.objects.filter(study=study).select_related("annotator")
        if r.annotator_id in able or r.passed is not None
    ]
    for r in rows:  # passed because they wrote a known answer (evaluate), said so
        r.by_authorship = bool(r.passed and not r.overridden and r.annotator_id in wrote)
    return rows


def override(study, *, annotator_id: str, verdict: str, reason: str, user) -> QualificationResult:
    """Pass or fail an annotator by hand, with a reason; audited, never recomputed."""
    annotator = Annotator.objects.filter(
        pk=record_id(annotator_id, "annotator"), assignments__study=study
    ).first()
    if annotator is None:
        raise QualityError(f"annotator: {annotator_id} has no work in this study")
    if verdict not in ("pass", "fail"):
        raise QualityError(f"verdict: “{verdict}” is not pass or fail")
    if not (reason or "").strip():
        raise QualityError(f"reason: say why {annotator.pseudonym} is passed or failed by hand")
    with transaction.atomic():
        result, _ = QualificationResult.objects.get_or_create(study=study, annotator=annotator)
        before = result.passed
        result.passed, result.overridden = verdict == "pass", True
        result.save()
        _audit(
            study, user, "qualification_override", annotator,
            verdict=verdict, reason=reason.strip(), before=before,
        )  # fmt: skip
        qualification.withdraw_adjudications(
            study, annotator, why=f"failed by hand: {reason.strip()}", actor=user
        )
    return result


# --- adjudication -----------------------------------------------------------------------------


@dataclass
class AdjudicatorRule:
    """Who may adjudicate a disagreement of the study (issue 24): not an interested party.

    Refused: an annotator who gave one of the disagreeing labels (a party), one with
    unfinished work (not started or a draft) on the same question (the adjudication page
    would show them its reports and the others' labels before they answer), and, in a study
    that requires a qualification round, one who has not passed it. Built once per study
    (two queries), then asked per unit without a query.
    """

    pending: set[tuple[int, int]]
    qualified: set[int] | None

    @classmethod
    def of(cls, study) -> AdjudicatorRule:
        unfinished = (Assignment.Status.NOT_STARTED, Assignment.Status.IN_PROGRESS)
        pending = set(
            Assignment.objects.filter(study=study, status__in=unfinished).values_list(
                "annotator_id", "question_id"
            )
        )
        return cls(pending, qualification.qualified(study))

    def refusal(self, annotator: Annotator, unit: Unit, parties) -> str | None:
        """Why ``annotator`` may not adjudicate ``unit`` (None: they may)."""
        if annotator.pk in parties:
            return f"{annotator.pseudonym} gave one of the disagreeing labels"
        if (annotator.pk, unit[1]) in self.pending:
            return f"{annotator.pseudonym} has unfinished work on this question"
        if self.qualified is not None and annotator.pk not in self.qualified:
            return f"{annotator.pseudonym} has not passed the qualification round"
        return None


def adjudicator_choices(study, unit: Unit, parties, annotators, rule=None):
    """(offered, refused): the annotators who may adjudicate ``unit`` and (annotator, why)
    of those who may not."""
    rule = rule or AdjudicatorRule.of(study)
    offered, refused = [], []
    for person in annotators:
        why = rule.refusal(person, unit, parties)
        if why is None:
            offered.append(person)
        else:
            refused.append((person, why))
    return offered, refused


#: Why a disagreement on reports without text is not offered for adjudication.
TEXTLESS = "reports have no text: import the reports to adjudicate"


def textless(study, units: dict[Unit, list[str]]) -> dict[Unit, list[str]]:
    """unit -> the systems (sorted) whose report of the unit's question has no text
    (``Report.objects.readable``: the pairwise import's placeholders, an empty released
    report), for the units among ``units`` (unit -> its labels) that read one. Like a gold
    item there, such a disagreement is never adjudicated: the adjudicator would read "This
    report is empty." and choose blind. The reports read are those the unit names, or for a
    ranking of reports those its labels rank (:func:`studio.quality_views._report_paragraphs`
    shows the same). One query."""
    reports = Report.objects.filter(question__study=study)
    empty = set(
        reports.exclude(pk__in=reports.readable().values("pk")).values_list(
            "question_id", "system__name"
        )
    )
    out = {}
    for unit, labels in units.items():
        spec = catalog.spec(unit[0])
        read = set(spec.systems_in(unit[2])) if spec is not None else set()
        if not read and spec is not None and spec.blind_as == "Report":
            read = {name for label in labels for name in ranked_names(label)}
        if found := sorted(n for n in read if (unit[1], n) in empty):
            out[unit] = found
    return out


def _textless_refusal(unit: str, empty: list[str]) -> QualityError:
    many = len(empty) > 1
    return QualityError(
        f"unit {unit}: the report{'s' if many else ''} of {', '.join(empty)} "
        f"{'have' if many else 'has'} no text (a placeholder of the pairwise import or an "
        f"empty released report), so an adjudicator could not read what they decide "
        f"about: {TEXTLESS}"
    )


def send_to_adjudication(study, *, unit: str, adjudicators: list[str], user) -> int:
    """Open one request per adjudicator on a disagreeing unit, with its labels as they now
    are (``annotation.quality.following`` keeps them current). Every chosen adjudicator must
    pass :class:`AdjudicatorRule` (a forged post is refused whole); a unit on reports
    without text is refused (:func:`textless`). Sent again to an adjudicator whose decision
    there is outdated, the request opens again (:func:`Sending.send`)."""
    sending = Sending(study, units=[unit], adjudicators=adjudicators, user=user)
    created = sending.send(unit)
    sending.write()
    return created


class Sending:
    """Disagreements sent to adjudication in one post: one (:func:`send_to_adjudication`)
    or many (``studio.studyadmin.bulk_adjudication``), each unit through the same checks of
    :meth:`send`. What the checks and the writes read is read once for all ``units``
    (labels, adjudicators, the rule, reports without text, pseudonyms, questions, the
    requests already sent) and what they write is written by :meth:`write` in bulk, so a
    post costs the same queries whatever the number of units it sends."""

    def __init__(self, study, *, units: list[str], adjudicators: list[str], user):
        self.study, self.user = study, user
        self.disagreeing = disagreements(qualification.counted(study, observations.load(study)))
        keys = set()
        for unit in units:
            try:
                keys.add(parse_unit_key(unit))
            except QualityError:
                continue  # refused by send, naming it
        found = {k: self.disagreeing[k] for k in keys if k in self.disagreeing}
        labels = {k: [o.label for o in f] for k, f in found.items()}
        self.empty = textless(study, labels) if labels else {}
        ids = [a for a in adjudicators if is_digits(a)]
        self.unknown = [a for a in adjudicators if a not in ids]
        self.people = list(Annotator.objects.filter(pk__in=ids))
        self.unknown += sorted(
            set(adjudicators) - set(self.unknown) - {str(p.pk) for p in self.people}
        )
        self.rule = AdjudicatorRule.of(study)
        parties = {o.annotator for f in found.values() for o in f}
        self.names = dict(Annotator.objects.filter(pk__in=parties).values_list("pk", "pseudonym"))
        qids = {k[1] for k in found}
        self.questions = dict(Question.objects.filter(pk__in=qids).values_list("pk", "external_id"))
        self.requests = {
            (r.task, r.question_id, r.unit, r.adjudicator_id): r
            for r in AdjudicationRequest.objects.filter(
                study=study, question_id__in=qids, adjudicator__in=self.people
            ).select_related("adjudicator")
        } if found and self.people else {}  # fmt: skip
        self.new: list[AdjudicationRequest] = []
        self.reopened: list[AdjudicationRequest] = []
        self.events: list[QualityEvent] = []

    def send(self, unit: str) -> int:
        """Check ``unit`` as a single send does (QualityError says why it is refused) and
        queue its requests: the number it opens (new, or decided on outdated labels and
        opened again); 0 when all were sent to them before."""
        key = parse_unit_key(unit)
        found = self.disagreeing.get(key)
        if not found:
            raise QualityError(f"unit {unit}: no disagreement to adjudicate")
        if empty := self.empty.get(key):
            raise _textless_refusal(unit, empty)
        if self.unknown:
            raise QualityError(f"adjudicators: no annotator {', '.join(self.unknown)}")
        if not self.people:
            raise QualityError("adjudicators: choose at least one adjudicator")
        parties = {o.annotator for o in found}
        refused = [why for p in self.people if (why := self.rule.refusal(p, key, parties))]
        if refused:
            raise QualityError(f"adjudicators: {'; '.join(refused)}: choose someone else")
        originals = following.frozen_labels(found, self.names)
        question = self.questions[key[1]]
        created = 0
        for person in self.people:
            request = self.requests.get((*key, person.pk))
            if request is None:
                request = AdjudicationRequest(
                    study=self.study, task=key[0], question_id=key[1], unit=key[2],
                    adjudicator=person, originals=originals, requested_by=self.user,
                )  # fmt: skip
                self.requests[(*key, person.pk)] = request
                self.new.append(request)
                created += 1
            else:
                created += self._reopen_outdated(request, question, originals)
        self._audit("send_adjudication", None, task=key[0], unit=key[2], question=question,
                    adjudicators=[p.pseudonym for p in self.people])  # fmt: skip
        return created

    def _reopen_outdated(self, request: AdjudicationRequest, question: str, originals) -> bool:
        """Open again a request decided on labels that have changed since, on the labels as
        they now are; its earlier decision is kept in the audit trail (label, reason, when,
        the labels it was decided on). False (nothing done) for any other request."""
        if request.status != AdjudicationRequest.Status.DECIDED or request.outdated_at is None:
            return False
        self._audit(
            "reopen_adjudication", request.adjudicator,
            task=request.task, unit=request.unit, question=question,
            label=request.label, reason=request.reason,
            decided_at=request.decided_at.isoformat() if request.decided_at else None,
            decided_on=request.originals,
        )  # fmt: skip
        request.status, request.originals = AdjudicationRequest.Status.OPEN, originals
        request.label = request.reason = ""
        request.decided_at = request.outdated_at = None
        request.requested_by = self.user
        self.reopened.append(request)
        return True

    def _audit(self, action, annotator, **detail) -> None:
        self.events.append(
            QualityEvent(
                study=self.study, actor=self.user, action=action, annotator=annotator,
                detail=detail,
            )
        )  # fmt: skip

    #: What opening a request again writes.
    REOPENED = ("status", "originals", "label", "reason", "decided_at", "outdated_at",
                "requested_by")  # fmt: skip

    def write(self) -> None:
        """Store what :meth:`send` queued, in one transaction: the new requests (one sent
        meanwhile by another post is kept as it is), those opened again, the audit."""
        with transaction.atomic():
            if self.new:
                AdjudicationRequest.objects.bulk_create(self.new, ignore_conflicts=True)
            if self.reopened:
                AdjudicationRequest.objects.bulk_update(self.reopened, self.REOPENED)
            if self.events:
                QualityEvent.objects.bulk_create(self.events)
        self.new, self.reopened, self.events = [], [], []


def unit_values(request: AdjudicationRequest):
    """The :class:`~annotation.quality.labels.Values` of the request's unit (None when the
    question no longer offers it)."""
    spec = catalog.spec(request.task)
    if spec is None or not spec.has_label:
        return None
    return spec.units(request.study, request.question).get(request.unit)


#: What an adjudicator reads for a pair's outcomes that name no report.
OUTCOME_NAMES = {"tie": "Tie", "both_bad": "Both bad"}


@dataclass(frozen=True)
class Blinding:
    """How one adjudication request names what it compares: each system (or rubric kind)
    gets a letter, shown as "Report A", "Rubric B", ….

    Structured, by unit, never a text replace (issue 24): a label or unit is parsed into its
    parts and each name is looked up, so a name inside another ("gpt" in "gpt-dr", "old" in
    "sys2=gold") is never touched. The letters are drawn in a random order per request (a
    seeded shuffle of the secret key and the request's id: stable across page loads and the
    post that decides, so the option chosen is the option shown; not sorted by name, so a
    letter cannot be mapped back to a system by knowing the systems' names).
    """

    noun: str
    letters: dict[str, str]

    @classmethod
    def of(cls, request: AdjudicationRequest) -> Blinding:
        spec = catalog.spec(request.task)
        shown = spec.systems_in(request.unit) if spec is not None else []
        noun = "Report" if shown else (spec.blind_as if spec is not None else "Report")
        names = set(shown)
        if not shown:
            for label in [o["label"] for o in request.originals] + [request.label]:
                names.update(ranked_names(label or ""))
            if noun == "Rubric":
                names.update(request.question.rubrics.values_list("kind", flat=True))
            elif (values := unit_values(request)) is not None and values.ranked:
                names.update(values.values)
        order = sorted(names)
        seed = hmac.new(
            settings.SECRET_KEY.encode(), f"adjudication {request.pk}".encode(), hashlib.sha256
        ).digest()
        random.Random(seed).shuffle(order)
        return cls(noun, {name: chr(65 + n) for n, name in enumerate(order)})

    def name(self, system: str) -> str:
        letter = self.letters.get(system)
        return f"{self.noun} {letter}" if letter else f"a {self.noun.lower()} no longer shown"

    def label(self, label: str) -> str:
        """A label as the adjudicator reads it: a system's name as its letter, a ranking
        as letter=medal pairs in letter order, an outcome or a scale value in words."""
        if label in self.letters:
            return self.name(label)
        if label in OUTCOME_NAMES:
            return OUTCOME_NAMES[label]
        ranking = parse_ranking(label)
        if ranking:
            parts = sorted((self.name(n), medal) for n, medal in ranking.items())
            return "; ".join(f"{shown}: {medal}" for shown, medal in parts)
        return label.replace("_", " ")

    def unit(self, unit: str) -> str:
        """What a unit is about, the report it is in as its letter: "rating clarity in
        Report B"; "" for a pair or a ranking (the options say it)."""
        what, system = split_unit(unit)
        return f"{what} in {self.name(system)}" if system else what


def options(request: AdjudicationRequest, blinding: Blinding | None = None):
    """(label, blinded text) the adjudicator chooses from, in the order shown: for a pair
    every outcome, the two reports in letter order; for a unit with a label set every label
    of it (the adjudicator may choose one nobody gave); for a ranking the competing
    rankings, in the order of their blinded text."""
    b = blinding or Blinding.of(request)
    if request.task == PAIRWISE:
        pair = sorted(request.unit.split("~"), key=b.name)
        return [(n, f"{b.name(n)} is better") for n in pair] + [
            (outcome, text) for outcome, text in OUTCOME_NAMES.items()
        ]
    values = unit_values(request)
    if values is not None and not values.ranked:
        return [(v, b.label(v)) for v in values.values]
    labels = {o["label"] for o in request.originals}
    return sorted(((label, b.label(label)) for label in labels), key=lambda o: o[1])


def blind(request: AdjudicationRequest, label: str, blinding: Blinding | None = None) -> str:
    """A label as the adjudicator reads it (:meth:`Blinding.label`)."""
    return (blinding or Blinding.of(request)).label(label)


def blind_unit(request: AdjudicationRequest, blinding: Blinding | None = None) -> str:
    """What the adjudicator decides about, blinded: "rating clarity in Report A"."""
    if not request.unit or request.task == PAIRWISE:
        return ""
    return (blinding or Blinding.of(request)).unit(request.unit)


def labels_seen(request: AdjudicationRequest) -> str:
    """A digest of the labels an adjudicator is shown (the page posts it back with the
    decision): they change while a request is open when a party submits a changed label
    (``annotation.quality.following``), and a decision on labels no longer there is
    refused. The labels only, never whose they are."""
    labels = sorted(o.get("label", "") for o in request.originals)
    return hashlib.sha256(json.dumps(labels).encode()).hexdigest()[:16]


def decide(
    request: AdjudicationRequest, *, choice: str, reason: str, seen: str | None = None
) -> None:
    """``choice`` is the option's position (the page never carries a system name);
    ``seen`` the :func:`labels_seen` of the page the adjudicator decided on (None: not
    checked, as for a caller that shows no labels).

    The adjudicator must still meet :class:`AdjudicatorRule` (one failed after the request
    was sent is refused: their decision would become an adjudicated label). The decision is
    one conditional update of the still-open row, in a transaction holding its lock: of two
    posts at once exactly one is stored, the other is told it is already decided. The
    options are those of the locked row: labels changed since the page was read (``seen``
    differs) are refused, as the option at a position may be another one."""
    choice = (choice or "").strip()
    decided = AdjudicationRequest.Status.DECIDED
    with transaction.atomic():
        locked = AdjudicationRequest.objects.select_for_update().filter(pk=request.pk).first()
        if locked is None:
            raise QualityError(
                f"adjudication {request.pk}: withdrawn (the annotators no longer disagree, "
                "or you may no longer decide it)"
            )
        if locked.status == decided:
            raise QualityError(f"adjudication {request.pk}: already decided")
        request.originals = locked.originals
        if seen is not None and seen != labels_seen(locked):
            raise QualityError(
                f"adjudication {request.pk} labels: they changed since you opened the page "
                "(an annotator revised their answer); read them again and decide"
            )
        allowed = [value for value, _ in options(request)]
        if not is_digits(choice) or int(choice) >= len(allowed):
            raise QualityError(f"adjudication {request.pk} label: choose one of the options")
        label = allowed[int(choice)]
        unit = (request.task, request.question_id, request.unit)
        why = AdjudicatorRule.of(request.study).refusal(request.adjudicator, unit, parties=())
        if why:
            raise AdjudicatorRefused(f"adjudication {request.pk}: {why}; it cannot be decided")
        values = {"label": label, "reason": (reason or "").strip(), "decided_at": timezone.now()}
        stored = AdjudicationRequest.objects.filter(
            pk=request.pk, status=AdjudicationRequest.Status.OPEN
        ).update(status=decided, **values)
        if not stored:
            raise QualityError(f"adjudication {request.pk}: already decided")
    for field, value in {**values, "status": decided}.items():
        setattr(request, field, value)


# --- quality over time --------------------------------------------------------------------------


@dataclass
class QualityRow:
    annotator: Annotator
    quality: AnnotatorQuality
    flagged: bool
    qualification: QualificationResult | None
    #: Their submitted tasks under the floor of seconds per unit, fastest first
    #: (:mod:`annotation.quality.pace`): flagged for the admin, never blocking.
    too_fast: list[TaskPace] = dataclasses.field(default_factory=list)

    @property
    def fastest_per_unit(self) -> float | None:
        return self.too_fast[0].per_unit if self.too_fast else None


#: The floor of seconds per unit the quality table and quality.csv flag tasks under.
PACE_FLOOR = pace.SECONDS_PER_UNIT_FLOOR


def quality_rows(study, obs=None, task: str | None = None, skipped=None) -> list[QualityRow]:
    """One row per annotator of the study, over every task (``task`` None) or one task.
    A skipped gold unit (``observations.skipped``) counts as a gold check not passed; a
    submitted task under ``PACE_FLOOR`` seconds per unit is listed on its row."""
    obs = observations.load(study) if obs is None else obs
    fast = pace.too_fast_by_annotator(observations.unit_paces(study, task), PACE_FLOOR)
    skipped = observations.skipped(study) if skipped is None else skipped
    if task is not None:
        obs = [o for o in obs if o.unit[0] == task]
    gold = observations.gold_map(study)
    skipped = {
        aid: [u for u in units if task is None or u[0] == task] for aid, units in skipped.items()
    }
    per = annotator_quality(
        obs,
        gold,
        observations.seconds_per_annotator(study, task),
        qualification.failed(study),
        skipped,
    )
    results = {r.annotator_id: r for r in QualificationResult.objects.filter(study=study)}
    threshold = gold_threshold(study)
    rows = []
    for annotator in Annotator.objects.filter(assignments__study=study).distinct():
        q = per.get(annotator.pk) or AnnotatorQuality(annotator.pk)
        score = Score(q.gold_correct, q.gold_checked) if q.gold_checked else None
        rows.append(
            QualityRow(
                annotator, q, flagged(score, threshold), results.get(annotator.pk),
                fast.get(annotator.pk, []),
            )
        )  # fmt: skip
    return sorted(rows, key=lambda r: r.annotator.pseudonym)


CSV_COLUMNS = (
    "annotator", "task", "submitted_labels", "gold_answered", "gold_skipped", "gold_accuracy",
    "gold_flagged",
    "consensus_scored", "consensus_agreement", "median_seconds_per_task",
    "agreement_first_third", "agreement_last_third", "drift", "qualification",
    "tasks_under_unit_time_floor", "fastest_seconds_per_unit",
)  # fmt: skip


def _num(x):
    return "" if x is None else round(x, 4)


def quality_csv(study) -> str:
    """Per annotator, one row per task type they labelled (``task`` = its key), then their
    row over every task (``task`` = ``all``): each task type's labels are its own scale, so
    its accuracy and agreement are shown apart as well as pooled."""
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    obs = observations.load(study)
    skipped = observations.skipped(study)
    held = {o.unit[0] for o in obs} | {u[0] for units in skipped.values() for u in units}
    tasks = [t for t in catalog.labelled() if t in held]
    per_task = {t: {r.annotator.pk: r for r in quality_rows(study, obs, t, skipped)} for t in tasks}
    for r in quality_rows(study, obs, skipped=skipped):
        mine = [(t, per_task[t][r.annotator.pk]) for t in tasks]
        shown = [(t, x) for t, x in mine if x.quality.submitted or x.quality.gold_skipped]
        for task, row in [*shown, ("all", r)]:
            _csv_row(w, row, task)
    return out.getvalue()


def _csv_row(w, r: QualityRow, task: str) -> None:
    q, res = r.quality, r.qualification
    verdict = "" if res is None or res.passed is None else ("pass" if res.passed else "fail")
    w.writerow([
        r.annotator.pseudonym, task, q.submitted, q.gold_n, q.gold_skipped, _num(q.gold_rate),
        int(r.flagged),
        q.consensus_n, _num(q.consensus_rate), _num(q.median_seconds),
        _num(q.first_third), _num(q.last_third), _num(q.drift), verdict,
        len(r.too_fast), _num(r.fastest_per_unit),
    ])  # fmt: skip
