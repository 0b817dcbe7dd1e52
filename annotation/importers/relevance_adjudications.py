"""Relevance adjudications (003 A.6) read back from the judgments export (issue 26).

An adjudication decides one *disagreement*: a paragraph on which the annotator's metric-wise
relevance label and a judge's verdict differ, frozen when the adjudication assignment was
planned (``studio.studyadmin.adjudication``). Its record carries that frozen disagreement
(``judge`` by name, ``annotator_label``, ``judge_relevant``, ``judge_rationale``) beside the
decision (``decision``, ``reason``, ``final_label``), so another study that holds the same
reports and the same judge's relevance verdicts (kind ``judge_scores``, format
``relevance``, imported first) can hold the same adjudication: the import writes the
annotator's submitted relevance-adjudication assignment of the question (reused when it
exists, as the pairwise import does for its judgments), the disagreement and the decision.

A record is checked as the task page checks a posted decision
(``annotation.annotate.relevance_adjudication``): the decision is keep, switch or
subjective, the reason at most its length, and ``final_label`` is the label the decision
gives (``annotation.adjudication.final_label``: the annotator's for keep and subjective,
the judge's as an R/O label for switch). The frozen values must make a disagreement
(``annotation.adjudication.disagrees``), and a disagreement already stored for the same
assignment and paragraph must have the same frozen values: what was adjudicated never
changes; the decision on it is updated like any other judgment's value.
"""

from __future__ import annotations

from django.apps import apps
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotation import adjudication as rules
from annotation.annotate import relevance_adjudication as task_page
from annotation.models import (
    Assignment,
    RelevanceAdjudication,
    RelevanceDisagreement,
    Report,
    Study,
)

from .common import Problems, insert_new, listed, optional_str, sync_rows, type_name

TASK = Study.Task.RELEVANCE_ADJUDICATION
#: The frozen disagreement's columns, then the decision's (the record's own values).
FROZEN = ("judge", "annotator_label", "judge_relevant", "judge_rationale")
DECISION = ("decision", "reason", "final_label")
_POSTED = {f.segments[-1]: f for f in task_page.FORM.fields}


def known_judges(study, names) -> dict[str, int]:
    """Judge name -> id, for the judges of ``names`` with a relevance verdict in ``study``
    (a judge is known in a study by its verdicts: one query, none without a name)."""
    names = [n for n in names if isinstance(n, str)]
    if not names:
        return {}
    verdicts = apps.get_model("judges", "JudgeRelevance").objects.filter(
        paragraph__report__question__study=study, judge__name__in=names
    )
    return dict(verdicts.values_list("judge__name", "judge_id").distinct())


def values(problems: Problems, n: int, r: dict, judges: dict[str, int]) -> dict | None:
    """The record's frozen disagreement and decision, each checked; None when one is wrong
    (a problem names the record and the field)."""
    from .judgments import as_posted  # the task form's check of a posted value

    before = len(problems.items)
    judge = r.get("judge")
    if not isinstance(judge, str) or not judge.strip():
        problems.add(n, "judge", f"expected a judge's name, found {type_name(judge)}")
    elif judge not in judges:
        problems.add(n, "judge", f"no judge {judge!r} in the study: import its relevance "
                     "verdicts first (kind judge_scores, format relevance)")  # fmt: skip
    label = r.get("annotator_label")
    if label not in rules.LABELS:
        problems.add(n, "annotator_label", f"{label!r} is not R, U or O")
    relevant = r.get("judge_relevant")
    if not isinstance(relevant, bool):
        problems.add(n, "judge_relevant", f"{relevant!r} is not true or false")
    elif label in rules.LABELS and not rules.disagrees(label, relevant):
        problems.add(n, "annotator_label", f"{label} agrees with the judge's verdict "
                     f"(relevant: {str(relevant).lower()}): there is nothing to adjudicate")  # fmt: skip
    rationale = optional_str(problems, n, r, "judge_rationale")
    reason = optional_str(problems, n, r, "reason").strip()  # as the task page stores it
    decision = r.get("decision")
    try:
        if decision in (None, ""):
            raise ValidationError("required: keep, switch or subjective")
        as_posted(_POSTED["decision"], decision)
    except ValidationError as exc:
        problems.add(n, "decision", "; ".join(exc.messages))
        decision = None
    try:
        as_posted(_POSTED["reason"], reason)
    except ValidationError as exc:
        problems.add(n, "reason", "; ".join(exc.messages))
    final = r.get("final_label")
    if final not in rules.LABELS:
        problems.add(n, "final_label", f"{final!r} is not R, U or O")
    elif decision is not None and label in rules.LABELS and isinstance(relevant, bool):
        expected = rules.final_label(decision, label, relevant)
        if final != expected:
            whose = "the judge's" if decision == rules.SWITCH else "the annotator's"
            problems.add(n, "final_label", f"{final} does not follow from {decision}: "
                         f"{expected} ({whose} label)")  # fmt: skip
    if len(problems.items) > before:
        return None
    return {"judge": judge, "annotator_label": label, "judge_relevant": relevant,
            "judge_rationale": rationale, "decision": decision, "reason": reason,
            "final_label": final}  # fmt: skip


def _frozen(row) -> tuple:
    return tuple(row.values[f] for f in FROZEN)


def check_stored(study, rows, problems: Problems) -> None:
    """A disagreement already stored for the record's annotator, setting, question and
    paragraph must have the record's frozen values (one query)."""
    if not rows:
        return
    stored = {
        (who, setting, q, p): (judge, label, relevant, rationale)
        for who, setting, q, p, judge, label, relevant, rationale in (
            RelevanceDisagreement.objects.filter(
                assignment__study=study, assignment__task=TASK,
                assignment__annotator__pseudonym__in={r.annotator for r in rows},
            ).values_list(
                "assignment__annotator__pseudonym", "assignment__setting",
                "assignment__question_id", "paragraph_id", "judge__name", "annotator_label",
                "judge_relevant", "judge_rationale",
            )
        )
    }  # fmt: skip
    for r in rows:
        old = stored.get((r.annotator, r.setting, r.question, r.target["paragraph"]))
        if old is None or old == _frozen(r):
            continue
        differ = [(f, a) for f, a, b in zip(FROZEN, old, _frozen(r), strict=True) if a != b]
        stored_values = ", ".join(f"{f} {a!r}" for f, a in differ)
        problems.add(r.n, differ[0][0], f"the study already holds this disagreement with "
                     f"{stored_values}: what was adjudicated cannot change")  # fmt: skip


def _assignments(study, rows, people: dict, rep) -> dict[tuple, int]:
    """(annotator id, question id, setting) -> the annotator's submitted adjudication
    assignment of the question, created (its reports in the order of their metric-wise
    assignment of it, else the question's) or marked submitted (a first submission time is
    kept)."""
    wanted = {(people[r.annotator], r.question, r.setting) for r in rows}
    who = {a for a, _, _ in wanted}
    mine = Assignment.objects.filter(study=study, annotator_id__in=who)

    def stored(task) -> dict[tuple, tuple]:
        rows_ = mine.filter(task=task).values_list(
            "annotator_id", "question_id", "setting", "id", "status", "submitted_at",
            "report_order",
        )  # fmt: skip
        return {(a, q, s): rest for a, q, s, *rest in rows_}

    existing = stored(TASK)
    now, submitted = timezone.now(), Assignment.Status.SUBMITTED
    changed = []
    for key in wanted & set(existing):
        pk, status, at, _ = existing[key]
        if status == submitted:
            rep.count("unchanged", "Assignment")
        else:
            changed.append(Assignment(pk=pk, status=submitted, submitted_at=at or now))
    if changed:
        Assignment.objects.bulk_update(changed, ["status", "submitted_at"])
        rep.count("updated", "Assignment", len(changed))
    missing = wanted - set(existing)
    if missing:
        source = {k: v[3] for k, v in stored(Study.Task.METRIC_WISE).items()}
        reports: dict[int, list[int]] = {}
        for q, pk in (
            Report.objects.filter(question_id__in={q for _, q, _ in missing})
            .order_by("pk")
            .values_list("question_id", "id")
        ):
            reports.setdefault(q, []).append(pk)
        insert_new(Assignment, [
            {"study": study.pk, "annotator": a, "question": q, "task": TASK, "setting": s,
             "report_order": source.get((a, q, s)) or reports.get(q, []),
             "status": submitted, "submitted_at": now}
            for a, q, s in sorted(missing)
        ])  # fmt: skip
        rep.count("created", "Assignment", len(missing))
        existing = stored(TASK)
    return {k: existing[k][0] for k in wanted}


def write(study, rows, people: dict, rep) -> set[int]:
    """The rows' assignments, disagreements (in record order after those stored) and
    decisions; returns the questions whose decisions it wrote (new or changed)."""
    assignments = _assignments(study, rows, people, rep)
    judges = known_judges(study, {r.values["judge"] for r in rows})
    owner = {r.n: assignments[(people[r.annotator], r.question, r.setting)] for r in rows}
    stored = {
        (a, p): (pk, position)
        for a, p, pk, position in RelevanceDisagreement.objects.filter(
            assignment_id__in=set(assignments.values())
        ).values_list("assignment_id", "paragraph_id", "id", "position")
    }
    last: dict[int, int] = {}
    for (a, _), (_, position) in stored.items():
        last[a] = max(last.get(a, 0), position)
    new = []
    for r in rows:
        a = owner[r.n]
        if (a, r.target["paragraph"]) in stored:
            rep.count("unchanged", "RelevanceDisagreement")
            continue
        last[a] = last.get(a, 0) + 1
        new.append({"assignment": a, "judge": judges[r.values["judge"]],
                    "paragraph": r.target["paragraph"], "position": last[a],
                    **{f: r.values[f] for f in FROZEN[1:]}})  # fmt: skip
    if new:
        insert_new(RelevanceDisagreement, new)
        rep.count("created", "RelevanceDisagreement", len(new))
        stored = {
            (a, p): (pk, 0)
            for a, p, pk in RelevanceDisagreement.objects.filter(
                assignment_id__in=set(assignments.values())
            ).values_list("assignment_id", "paragraph_id", "id")
        }
    disagreement = {r.n: stored[(owner[r.n], r.target["paragraph"])][0] for r in rows}
    by_disagreement = {disagreement[r.n]: r for r in rows}
    now = timezone.now()
    decided = {
        d: (pk, tuple(v))
        for pk, d, *v in RelevanceAdjudication.objects.filter(
            disagreement_id__in=list(by_disagreement)
        ).values_list("id", "disagreement_id", *DECISION)
    }
    wanted = {d: tuple(r.values[f] for f in DECISION) for d, r in by_disagreement.items()}
    sync_rows(
        RelevanceAdjudication, rep, stored=decided, wanted=wanted,
        fields=list(DECISION), touch=lambda d: by_disagreement[d].touched(now),
        new_row=lambda d, v: {
            "study": study.pk, "annotator": people[by_disagreement[d].annotator],
            "question": by_disagreement[d].question, "setting": by_disagreement[d].setting,
            "assignment": owner[by_disagreement[d].n], "disagreement": d,
            **dict(zip(DECISION, v, strict=True)), **by_disagreement[d].stamps(),
        },
        **listed(by_disagreement),
    )  # fmt: skip
    return {
        by_disagreement[d].question
        for d, v in wanted.items()
        if d not in decided or decided[d][1] != v
    }


__all__ = ["check_stored", "known_judges", "values", "write"]
