"""Pairwise preference (ResearchQA): left / right / tie / both bad with a required reason.

The pairs are every pair of the assignment's reports in its (randomized, stable) order;
with two reports that is one comparison.
"""

from __future__ import annotations

from itertools import combinations

from annotation.models import PairwisePreference

from ..quality import labels as ql
from . import qc
from .base import Needs, Problems, TaskSpec, demote
from .form import Choices, Field, Form, Unit
from .page import TaskPage

CHOICES = tuple(PairwisePreference.Choice.values)
SEP = "."

#: A pair's key is its two reports' public ids joined by a dot: the rest of the posted name.
PAIR = Unit(
    "pair",
    lambda page, ids: pair_names(page),
    unknown="Preference: an answer names a pair of reports not in this task.",
)
CHOICE = Field(
    "choice-<pair*>",
    "pairs.<pair>.choice",
    default="",
    choices=Choices(CHOICES, "one of left, right, tie, both_bad"),
    invalid="Preference ({pair}): {value!r} is not {choices}.",
    required="Preference ({pair}): choose which report is better.",
)
REASON = Field(
    "reason-<pair*>",
    "pairs.<pair>.reason",
    default="",
    required="Reason ({pair}): a short reason is required.",
)
FORM = Form(title="Preference", fields=(CHOICE, REASON), units=(PAIR,))


def pairs_of(page: TaskPage):
    return list(combinations(page.reports, 2))


def pair_key(left, right) -> str:
    return f"{left.public_id}{SEP}{right.public_id}"


def pair_names(page: TaskPage) -> dict[str, str]:
    return {pair_key(a, b): f"{a.label} vs {b.label}" for a, b in pairs_of(page)}


def preference_problems(
    answers: dict[str, dict], pairs: dict[str, str], *, ties_allowed: bool, final: bool
) -> Problems:
    """``answers``: pair key -> {"choice", "reason"}; ``pairs``: pair key -> its name."""
    payload = {"pairs": answers}
    resolve = lambda unit, ids: pairs  # noqa: E731
    hard = FORM.problems(payload, resolve)
    if hard:
        return Problems(errors=hard)
    rules = Problems(errors=FORM.required_problems(payload, resolve))
    if not ties_allowed:
        rules.errors += [
            f"Preference ({name}): ties are not allowed in this study."
            for key, name in pairs.items()
            if (answers.get(key) or {}).get("choice") == "tie"
        ]
    return demote(rules, final)


def stored(study, annotator=None):
    return PairwisePreference.objects.filter(study=study, **qc.who(annotator))


def qc_rows(study, annotator=None):
    prefs = stored(study, annotator)
    for p in prefs.select_related("left__system", "right__system", "assignment"):
        left, right = p.left.system.name, p.right.system.name
        yield p, ql.pair_unit(left, right), ql.pairwise_label(p.choice, left, right)


def qc_units(study, question):
    names = qc.systems(question)
    return {
        ql.pair_unit(a, b): ql.Values((a, b, *ql.PAIR_OUTCOMES)) for a, b in combinations(names, 2)
    }


QC = ql.LabelSpec(
    unit="one pair of reports, named by its systems sorted: SysA~SysB",
    label="the better report's system, tie or both_bad (whichever side it was shown on)",
    rows=qc_rows,
    held=qc.held(stored),
    units=qc_units,
    parse=lambda text, systems: ql.parse_answer(ql.PAIRWISE, text, systems),
    notation="SysA>SysB · SysA=SysB (tie) · SysA,SysB:both_bad (the unit may stay empty); "
    "or unit “SysA~SysB”, answer SysA (the better one), tie or both_bad",
    extra={"unit_systems": lambda unit: unit.split("~")},
)


class PairwiseTask(TaskSpec):
    needs = Needs(reports=2, compares=2)
    qc = QC
    key = "pairwise"
    form = FORM

    def check(self, payload, page, *, final):
        answers = payload.get("pairs")
        if not isinstance(answers, dict):
            return Problems(errors=["Preference: malformed answer."])
        return preference_problems(
            answers,
            pair_names(page),
            ties_allowed=bool(page.study.setting("ties_allowed")),
            final=final,
        )

    def persist(self, payload, page):
        """One INSERT … ON CONFLICT for every pair (the same rows as an update_or_create
        per pair, without its read and savepoints); ``created_at`` stays the first one's."""
        a = page.assignment
        rows = []
        for left, right in pairs_of(page):
            answer = payload["pairs"][pair_key(left, right)]
            rows.append(
                PairwisePreference(
                    study=a.study,
                    annotator=page.annotator,
                    left=left.report,
                    right=right.report,
                    setting=a.setting,
                    question=a.question,
                    assignment=a,
                    choice=answer["choice"],
                    reason=answer["reason"].strip(),
                )
            )
        PairwisePreference.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["study", "annotator", "left", "right", "setting"],
            update_fields=["question", "assignment", "choice", "reason", "updated_at"],
        )

    def stored_answers(self, page):
        """The annotator's stored preferences of the assignment's pairs; one stored with its
        reports the other way round (an import's) has its left and right swapped."""
        a = page.assignment
        ids = [r.report.pk for r in page.reports]
        stored = {
            (p.left_id, p.right_id): p
            for p in PairwisePreference.objects.filter(
                study=a.study, annotator=page.annotator, setting=a.setting,
                left_id__in=ids, right_id__in=ids,
            )
        }  # fmt: skip
        swap = {"left": "right", "right": "left"}
        answers = {}
        for left, right in pairs_of(page):
            p = stored.get((left.report.pk, right.report.pk))
            choice = p and p.choice
            if p is None and (p := stored.get((right.report.pk, left.report.pk))):
                choice = swap.get(p.choice, p.choice)
            if p is not None:
                answers[pair_key(left, right)] = {"choice": choice, "reason": p.reason}
        return {"pairs": answers} if answers else None

    def context(self, payload, page):
        answers = payload.get("pairs") or {}
        rows = []
        for n, (left, right) in enumerate(pairs_of(page), start=1):
            key = pair_key(left, right)
            answer = answers.get(key) or {}
            rows.append(
                {
                    "n": n,
                    "key": key,
                    "left": left,
                    "right": right,
                    "choice": answer.get("choice", ""),
                    "reason": answer.get("reason", ""),
                }
            )
        return {"pair_rows": rows}


TASK = PairwiseTask()
