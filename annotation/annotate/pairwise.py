"""Pairwise preference (ResearchQA): left / right / tie / both bad with a required reason.

The pairs are every pair of the assignment's reports in its (randomized, stable) order;
with two reports that is one comparison.
"""

from __future__ import annotations

from itertools import combinations

from annotation.models import PairwisePreference

from .base import Problems, TaskSpec, demote
from .page import TaskPage

CHOICES = tuple(PairwisePreference.Choice.values)
SEP = "."


def pairs_of(page: TaskPage):
    return list(combinations(page.reports, 2))


def pair_key(left, right) -> str:
    return f"{left.public_id}{SEP}{right.public_id}"


def preference_problems(
    answers: dict[str, dict], pairs: dict[str, str], *, ties_allowed: bool, final: bool
) -> Problems:
    """``answers``: pair key -> {"choice", "reason"}; ``pairs``: pair key -> its name."""
    hard = Problems()
    for key, answer in answers.items():
        if key not in pairs:
            hard.errors.append("Preference: an answer names a pair of reports not in this task.")
        elif not isinstance(answer, dict):
            hard.errors.append(f"Preference ({pairs[key]}): malformed answer.")
        elif answer.get("choice") and answer["choice"] not in CHOICES:
            hard.errors.append(
                f"Preference ({pairs[key]}): {answer['choice']!r} is not one of "
                "left, right, tie, both_bad."
            )
    if hard.errors:
        return hard
    rules = Problems()
    for key, name in pairs.items():
        answer = answers.get(key) or {}
        if not answer.get("choice"):
            rules.errors.append(f"Preference ({name}): choose which report is better.")
        elif answer["choice"] == "tie" and not ties_allowed:
            rules.errors.append(f"Preference ({name}): ties are not allowed in this study.")
        if not str(answer.get("reason", "")).strip():
            rules.errors.append(f"Reason ({name}): a short reason is required.")
    return demote(rules, final)


class PairwiseTask(TaskSpec):
    key = "pairwise"
    template = "annotation/annotate/pairwise.html"
    min_reports = 2
    max_reports = 3

    def initial(self, page):
        return {"pairs": {}}

    def parse(self, data, page):
        answers: dict[str, dict] = {}
        for name, value in data.items():
            field, _, key = name.partition("-")
            if field in ("choice", "reason") and key:
                answers.setdefault(key, {"choice": "", "reason": ""})[field] = str(value)
        return {"pairs": answers}

    def check(self, payload, page, *, final):
        answers = payload.get("pairs")
        if not isinstance(answers, dict):
            return Problems(errors=["Preference: malformed answer."])
        names = {pair_key(a, b): f"{a.label} vs {b.label}" for a, b in pairs_of(page)}
        return preference_problems(
            answers, names, ties_allowed=bool(page.study.setting("ties_allowed")), final=final
        )

    def persist(self, payload, page):
        a = page.assignment
        for left, right in pairs_of(page):
            answer = payload["pairs"][pair_key(left, right)]
            PairwisePreference.objects.update_or_create(
                study=a.study,
                annotator=page.annotator,
                left=left.report,
                right=right.report,
                setting=a.setting,
                defaults={
                    "question": a.question,
                    "assignment": a,
                    "choice": answer["choice"],
                    "reason": answer["reason"].strip(),
                },
            )

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
