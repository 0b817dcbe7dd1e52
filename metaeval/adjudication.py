"""Relevance adjudication results of a study (003 A.6, Figure 2), from the database.

Reads submitted adjudication assignments, their frozen disagreements and decisions, and
counts the paragraphs compared (the annotator's metric-wise labels that the same judge also
judged) — three queries whatever the study size — then hands the counts to
:func:`metaeval.stats.adjudication.adjudication_outcome`, per judge and setting and over all
settings.
"""

from __future__ import annotations

import math
from collections import defaultdict

from annotation.models import Assignment, ParagraphRelevance, RelevanceDisagreement, Study
from judges.models import JudgeRelevance
from metaeval.stats.adjudication import adjudication_outcome

ALL = "all"


def _plain(value):
    return None if isinstance(value, float) and math.isnan(value) else value


def adjudication_results(study_id: int, *, judge: str | None = None) -> list[dict]:
    """One row per (judge, setting) and one per judge over all settings (``setting`` "all"):
    paragraphs compared, disagreements, decisions taken, agreement before and after, and the
    share of keep / switch / subjective. Only submitted adjudications count."""
    rows = RelevanceDisagreement.objects.filter(
        assignment__study_id=study_id,
        assignment__task=Study.Task.RELEVANCE_ADJUDICATION,
        assignment__status=Assignment.Status.SUBMITTED,
    )
    if judge:
        rows = rows.filter(judge__name=judge)
    found = list(
        rows.values_list(
            "assignment_id",
            "assignment__annotator_id",
            "assignment__question_id",
            "assignment__setting",
            "judge_id",
            "judge__name",
            "adjudication__decision",
        )
    )
    if not found:
        return []
    scopes = {(r[1], r[2], r[3], r[4]) for r in found}  # annotator, question, setting, judge
    labels = ParagraphRelevance.objects.filter(
        study_id=study_id,
        annotator_id__in={s[0] for s in scopes},
        question_id__in={s[1] for s in scopes},
    ).values_list("annotator_id", "question_id", "setting", "paragraph_id")
    labelled: dict[tuple, set[int]] = defaultdict(set)
    for annotator, question, setting, paragraph in labels:
        labelled[(annotator, question, setting)].add(paragraph)
    judged: dict[int, set[int]] = defaultdict(set)
    for judge_id, paragraph in JudgeRelevance.objects.filter(
        judge_id__in={s[3] for s in scopes},
        paragraph_id__in={p for ps in labelled.values() for p in ps},
    ).values_list("judge_id", "paragraph_id"):
        judged[judge_id].add(paragraph)

    names = {r[4]: r[5] for r in found}
    counts: dict[tuple[int, str], dict] = defaultdict(
        lambda: {"n": 0, "disagreements": 0, "decisions": []}
    )
    frozen = defaultdict(int)
    for r in found:
        frozen[(r[1], r[2], r[3], r[4])] += 1
    for annotator, question, setting, judge_id in scopes:
        # A verdict deleted since the disagreement was frozen still counts as compared.
        n = max(
            len(labelled[(annotator, question, setting)] & judged[judge_id]),
            frozen[(annotator, question, setting, judge_id)],
        )
        for key in ((judge_id, setting), (judge_id, ALL)):
            counts[key]["n"] += n
    for _, _, _, setting, judge_id, _, decision in found:
        for key in ((judge_id, setting), (judge_id, ALL)):
            counts[key]["disagreements"] += 1
            if decision:
                counts[key]["decisions"].append(decision)
    out = []
    for (judge_id, setting), c in sorted(
        counts.items(), key=lambda kv: (names[kv[0][0]], kv[0][1] == ALL, kv[0][1])
    ):
        outcome = adjudication_outcome(c["n"], c["disagreements"], c["decisions"])
        out.append(
            {
                "judge": names[judge_id],
                "setting": setting,
                **{k: _plain(v) for k, v in outcome._asdict().items()},
            }
        )
    return out
