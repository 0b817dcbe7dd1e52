"""Relevance adjudication (003 A.6): which paragraphs an annotator is asked to look at again.

Pure functions, no database. ``studio.studyadmin.adjudication`` loads the inputs and
writes the assignments; the task page is ``annotation.annotate.adjudication``.

Disagreement, precisely. The annotator labels each paragraph R (relevant), U (unnecessary
but acceptable) or O (off the mark or misleading); a ScholarQA-CS2 judge only flags
paragraphs as irrelevant (``JudgeRelevance.relevant`` False) or not. The judge's flag means
"this paragraph should not be in the answer", which is what O says; U says the paragraph is
acceptable where it is. So the annotator and the judge **disagree** on a paragraph when

- the judge flags it irrelevant and the annotator labelled it R or U, or
- the judge does not flag it (relevant) and the annotator labelled it O.

Everything else is agreement (judge irrelevant & O; judge relevant & R or U). A paragraph the
judge gave no verdict on, or the annotator no label, is not compared.

After adjudication the annotator's label is: their own for *keep* and *subjective* (a
subjective difference is not a change of mind), the judge's for *switch* — O when the judge
flagged the paragraph irrelevant, R when it did not (the judge's "relevant" has no U).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

LABELS = ("R", "U", "O")
KEEP, SWITCH, SUBJECTIVE = "keep", "switch", "subjective"
DECISIONS = (KEEP, SWITCH, SUBJECTIVE)
BLINDED = "[a system]"


def disagrees(annotator_label: str, judge_relevant: bool) -> bool:
    """True when the annotator's R/U/O label and the judge's verdict disagree (see above)."""
    if annotator_label not in LABELS:
        raise ValueError(f"{annotator_label!r} is not a relevance label (R, U or O)")
    return (annotator_label == "O") == bool(judge_relevant)


def judge_label(judge_relevant: bool) -> str:
    """The judge's verdict as an annotator label: what *switch* adopts."""
    return "R" if judge_relevant else "O"


def final_label(decision: str, annotator_label: str, judge_relevant: bool) -> str:
    """The annotator's label after their decision on one disagreement."""
    if decision not in DECISIONS:
        raise ValueError(f"{decision!r} is not keep, switch or subjective")
    return judge_label(judge_relevant) if decision == SWITCH else annotator_label


@dataclass(frozen=True)
class Label:
    """The annotator's label of one paragraph in one finished metric-wise assignment."""

    source: int  # the metric-wise assignment
    paragraph: int
    label: str


@dataclass(frozen=True)
class Verdict:
    """The judge's verdict on one paragraph."""

    relevant: bool
    rationale: str = ""


@dataclass(frozen=True)
class Disagreement:
    source: int
    paragraph: int
    annotator_label: str
    judge_relevant: bool
    rationale: str


def find(labels: Iterable[Label], verdicts: Mapping[int, Verdict]) -> dict[int, list[Disagreement]]:
    """Disagreements per source assignment, in the order the labels come in (give them in
    reading order). Sources without a disagreement are absent."""
    found: dict[int, list[Disagreement]] = {}
    for label in labels:
        verdict = verdicts.get(label.paragraph)
        if verdict is None or not disagrees(label.label, verdict.relevant):
            continue
        found.setdefault(label.source, []).append(
            Disagreement(
                label.source, label.paragraph, label.label, verdict.relevant, verdict.rationale
            )
        )
    return found


def pick(
    found: Mapping[int, Sequence[Disagreement]],
    *,
    limit: int | None = None,
    skip: Iterable[int] = (),
) -> list[tuple[int, list[Disagreement]]]:
    """The sources to adjudicate: those with the most disagreements first (003 A.6 took the
    questions where human and judge differed most), ties by source id so the choice is
    reproducible; ``skip`` sources (already adjudicated) are left out; at most ``limit``."""
    if limit is not None and limit < 1:
        raise ValueError("limit must be at least 1")
    skipped = set(skip)
    chosen = sorted(
        ((s, list(d)) for s, d in found.items() if d and s not in skipped),
        key=lambda item: (-len(item[1]), item[0]),
    )
    return chosen[:limit] if limit is not None else chosen


def blind(text: str, names: Iterable[str]) -> str:
    """The text with every system name replaced (a judge's rationale may name the system it
    judged; annotators must never see one). Longest names first, case-insensitive."""
    names = sorted({n for n in names if n and n.strip()}, key=len, reverse=True)
    if not names or not text:
        return text
    pattern = re.compile("|".join(re.escape(n) for n in names), re.IGNORECASE)
    return pattern.sub(BLINDED, text)
