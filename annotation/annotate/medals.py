"""Medal ranking of 2–3 reports (ScholarQA-CS2 Part 3): gold / silver / bronze + reasoning."""

from __future__ import annotations

from collections import Counter

from annotation.models import Medal, MedalRanking

from .base import Problems, TaskSpec, demote
from .page import TaskPage

MEDALS = ("gold", "silver", "bronze")


def ranking_problems(
    medals: dict[str, str],
    labels: dict[str, str],
    *,
    ties_allowed: bool,
    three_way_allowed: bool,
    final: bool,
) -> Problems:
    """Check a ranking: ``medals`` maps report public id -> medal; ``labels`` names reports.

    Unknown reports and values outside the label set are always errors. Completeness, at
    least one gold, and the tie rules are errors on submit and warnings in a draft.
    """
    hard = Problems()
    for pid, medal in medals.items():
        if pid not in labels:
            hard.errors.append("Medals: a medal was given to a report that is not in this task.")
        elif medal not in MEDALS:
            hard.errors.append(
                f"Medals: {labels[pid]} has {medal!r}, which is not a medal (gold, silver or bronze)."
            )
    if hard.errors:
        return hard
    rules = Problems()
    missing = [labels[pid] for pid in labels if not medals.get(pid)]
    if missing:
        rules.errors.append(f"Medals: give a medal to {', '.join(missing)}.")
    given = [m for m in medals.values() if m]
    counts = Counter(given)
    if not missing and "gold" not in counts:
        rules.errors.append("Medals: the best one gets gold.")
    if counts and max(counts.values()) > 1 and not ties_allowed:
        rules.errors.append("Medals: ties are not allowed in this study; give different medals.")
    elif (
        len(labels) >= 3
        and len(given) == len(labels)
        and len(counts) == 1
        and not three_way_allowed
    ):
        rules.errors.append(
            "Medals: a three-way tie is not allowed; at most two reports may share a medal."
        )
    return demote(rules, final)


def reasoning_problems(reasoning: str, final: bool) -> Problems:
    if reasoning.strip():
        return Problems()
    return demote(Problems(errors=["Reasoning: explain your ranking (1–2 sentences)."]), final)


def parse_medals(data, prefix: str = "medal-") -> dict[str, str]:
    """Every posted ``medal-<public id>`` field, forged ones included (check refuses them)."""
    return {k[len(prefix) :]: str(v).strip() for k, v in data.items() if k.startswith(prefix) and v}


def check_ranking(payload: dict, page: TaskPage, *, final: bool) -> Problems:
    labels = {r.public_id: r.label for r in page.reports}
    medals = payload.get("medals") or {}
    if not isinstance(medals, dict):
        return Problems(errors=["Medals: malformed answer."])
    problems = ranking_problems(
        {str(k): str(v) for k, v in medals.items()},
        labels,
        ties_allowed=bool(page.study.setting("ties_allowed")),
        three_way_allowed=bool(page.study.setting("three_way_tie_allowed")),
        final=final,
    )
    if not problems.errors or final:
        problems.extend(reasoning_problems(str(payload.get("reasoning", "")), final))
    return problems


def persist_ranking(payload: dict, page: TaskPage) -> MedalRanking:
    a = page.assignment
    ranking, _ = MedalRanking.objects.update_or_create(
        study=a.study,
        annotator=page.annotator,
        question=a.question,
        setting=a.setting,
        defaults={"assignment": a, "reasoning": payload["reasoning"].strip()},
    )
    ids = {r.public_id: r.report.pk for r in page.reports}
    ranking.medals.exclude(report_id__in=ids.values()).delete()
    for pid, medal in payload["medals"].items():
        Medal.objects.update_or_create(
            ranking=ranking, report_id=ids[pid], defaults={"medal": medal}
        )
    return ranking


class MedalRankingTask(TaskSpec):
    key = "medal_ranking"
    template = "annotation/annotate/medal_ranking.html"
    min_reports = 2
    max_reports = 3

    def initial(self, page):
        return {"medals": {}, "reasoning": ""}

    def parse(self, data, page):
        return {"medals": parse_medals(data), "reasoning": str(data.get("reasoning", ""))}

    def check(self, payload, page, *, final):
        return check_ranking(payload, page, final=final)

    def persist(self, payload, page):
        persist_ranking(payload, page)

    def context(self, payload, page):
        return {"medal_rows": medal_rows(payload, page), "medal_values": MEDALS}


def medal_rows(payload: dict, page: TaskPage) -> list[dict]:
    medals = payload.get("medals") or {}
    return [{"report": r, "medal": medals.get(r.public_id, "")} for r in page.reports]
