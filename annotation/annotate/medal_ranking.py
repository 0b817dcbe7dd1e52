"""Medal ranking of 2–3 reports (ScholarQA-CS2 Part 3): gold / silver / bronze + reasoning."""

from __future__ import annotations

from collections import Counter, defaultdict

from annotation.models import Medal, MedalRanking, Study

from ..quality import labels as ql
from . import qc
from .base import Needs, Problems, TaskSpec, demote, reports_of
from .form import Choices, Field, Form, Unit
from .page import TaskPage
from .qc import CHUNK

MEDALS = ("gold", "silver", "bronze")
#: How many reports one ranking compares (the task page's and quality control's rule).
SIZES = (2, 3)

#: ``medal-<public id>``: one medal per report (the rest of the name is the id, whatever it
#: holds, so a forged one is refused by name rather than ignored). Shared with metric-wise.
MEDAL = Field(
    "medal-<report*>",
    "medals.<report>",
    skip_blank=True,
    choices=Choices(MEDALS, "a medal (gold, silver or bronze)"),
    invalid="Medals: {report} has {value!r}, which is not {choices}.",
    unknown={"report": "Medals: a medal was given to a report that is not in this task."},
)
REASONING = Field("reasoning", "reasoning", default="")
REPORT = Unit("report", reports_of)
FORM = Form(title="Medals", fields=(MEDAL, REASONING), units=(REPORT,))


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
    hard = FORM.problems({"medals": medals}, lambda unit, ids: labels)
    if hard:
        return Problems(errors=hard)
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
    if final:
        problems.errors.extend(ranking_conflict(page))
    return problems


def ranking_conflict(page: TaskPage) -> list[str]:
    """The submit would replace a ranking the annotator gave elsewhere: medal ranking and
    metric-wise both write the one ranking of a question and setting
    (``MedalRanking.one_ranking``), and an import may hold one. The planner never assigns
    both (``TaskSpec.ranks``); this refuses what an assignment made by hand would overwrite
    silently (issue 26: a metric-wise submit replaced the medal ranking)."""
    a = page.assignment
    other = (
        MedalRanking.objects.filter(
            study=a.study, annotator=page.annotator, question=a.question, setting=a.setting
        )
        .exclude(assignment=a)
        .select_related("assignment")
        .first()
    )
    if other is None:
        return []
    where = (
        f"your {Study.Task(other.assignment.task).label.lower()} assignment"
        if other.assignment
        else "a ranking imported into this study under your name"
    )
    return [
        f"Medals: you already ranked this question's reports in {where}; there is one ranking "
        "per question and setting and this submit would replace it. Nothing was saved but "
        "your draft: ask the study's admin to withdraw one of the two assignments."
    ]


def persist_ranking(payload: dict, page: TaskPage) -> MedalRanking:
    """The annotator's one ranking of the question and setting, and its medals, each
    written with one INSERT … ON CONFLICT UPDATE (the rows update_or_create wrote, without
    its read and two savepoints per row: issue 29). The ranking keeps its ``created_at``
    and primary key when it existed (Django sets ``pk`` from ``RETURNING``)."""
    a = page.assignment
    ranking = MedalRanking(
        study=a.study,
        annotator=page.annotator,
        question=a.question,
        setting=a.setting,
        assignment=a,
        reasoning=payload["reasoning"].strip(),
    )
    MedalRanking.objects.bulk_create(
        [ranking],
        update_conflicts=True,
        unique_fields=["study", "annotator", "question", "setting"],
        update_fields=["assignment", "reasoning", "updated_at"],
    )
    ids = {r.public_id: r.report.pk for r in page.reports}
    ranking.medals.exclude(report_id__in=ids.values()).delete()
    Medal.objects.bulk_create(
        [
            Medal(ranking=ranking, report_id=ids[pid], medal=m)
            for pid, m in payload["medals"].items()
        ],
        update_conflicts=True,
        unique_fields=["ranking", "report"],
        update_fields=["medal"],
    )
    return ranking


def stored_ranking(page: TaskPage) -> dict | None:
    """The annotator's one ranking of the question and setting as the form's answers (its
    medals of the assignment's reports and its reasoning), or None."""
    a = page.assignment
    ranking = MedalRanking.objects.filter(
        study=a.study, annotator=page.annotator, question=a.question, setting=a.setting
    ).first()
    if ranking is None:
        return None
    medals = dict(ranking.medals.values_list("report_id", "medal"))
    return {
        "medals": {r.public_id: medals[r.report.pk] for r in page.reports if r.report.pk in medals},
        "reasoning": ranking.reasoning,
    }


def ranking_rows(rankings):
    """``(ranking, "", label)`` for every ranking of the queryset, in two queries whatever
    its size: the medals are read by a join on the rankings' subquery, not prefetched by
    id (a prefetch sends every ranking's and report's id back to the database, which SQLite
    refuses above a few hundred questions: "Expression tree is too large", issue 29)."""
    medals: dict[int, dict[str, str]] = defaultdict(dict)
    found = Medal.objects.filter(ranking__in=rankings.values("pk"))
    for ranking, system, medal in found.values_list(
        "ranking_id", "report__system__name", "medal"
    ).iterator(chunk_size=CHUNK):
        medals[ranking][system] = medal
    for r in rankings.select_related("assignment").iterator(chunk_size=CHUNK):
        yield r, "", ql.medal_label(medals[r.pk])


def stored(study, annotator=None):
    """Rankings of medal-ranking assignments and imported ones (no assignment); those of
    metric-wise assignments are metric-wise's."""
    rankings = MedalRanking.objects.filter(study=study, **qc.who(annotator))
    return rankings.filter(qc.of_task("medal_ranking", unassigned=True))


def qc_rows(study, annotator=None):
    return ranking_rows(stored(study, annotator))


QC = ql.LabelSpec(
    unit="the question's reports as a whole (unit empty)",
    label="the ranking SysA=gold;SysB=silver;… (system names sorted); equal only when every "
    "medal is",
    rows=qc_rows,
    held=qc.held(stored),
    units=lambda study, question: {
        "": ql.Values(tuple(qc.systems(question)), ranked=True, sizes=SIZES)
    },
    parse=lambda text, systems: ql.parse_answer(ql.MEDAL_RANKING, text, systems, sizes=SIZES),
    notation="SysA=gold;SysB=silver;SysC=bronze",
)


class MedalRankingTask(TaskSpec):
    ranks = True
    needs = Needs(reports=2, compares=3)
    key = "medal_ranking"
    qc = QC
    form = FORM

    def check(self, payload, page, *, final):
        return check_ranking(payload, page, final=final)

    def persist(self, payload, page):
        persist_ranking(payload, page)

    def stored_answers(self, page):
        return stored_ranking(page)

    def context(self, payload, page):
        return {"medal_rows": medal_rows(payload, page), "medal_values": MEDALS}


def medal_rows(payload: dict, page: TaskPage) -> list[dict]:
    medals = payload.get("medals") or {}
    return [{"report": r, "medal": medals.get(r.public_id, "")} for r in page.reports]


TASK = MedalRankingTask()
