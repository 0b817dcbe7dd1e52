"""What each judge holds in one study, for the runs page: every judge with results of any
kind there (imported or from a run), its results counted per task or metric.

Why: after judge scores were imported, the runs page said "No judge run yet" with no sign
of the judge (found by an admin). One grouped query per kind of output
(:data:`judges.models.OUTPUT_STUDY_PATHS`), one for the runs, one for the judges.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.apps import apps
from django.db.models import Count

from .models import OUTPUT_STUDY_PATHS, Judge, JudgeRun

#: Per kind of output: what a count is called, and the column it is split by (None: one
#: count). A score is counted per metric, a pairwise verdict per protocol, a DeepScholar
#: label per label kind.
KINDS = {
    "JudgeScore": ("score", "metric"),
    "JudgeCoverage": ("rubric coverage", None),
    "JudgePairwise": ("pairwise", "protocol"),
    "JudgeRelevance": ("paragraph relevance", None),
    "JudgeClaimVerdict": ("claim verdicts", None),
    "JudgeDeepScholarLabel": ("DeepScholar", "kind"),
}
assert set(KINDS) == {name for name, _ in OUTPUT_STUDY_PATHS}


@dataclass
class JudgeResults:
    judge: Judge
    counts: list[tuple[str, int]] = field(default_factory=list)  # (task or metric, rows)
    runs: list[int] = field(default_factory=list)  # the judge's runs on the study, newest first

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    @property
    def origin(self) -> str:
        """ "run" when a run of the judge wrote here, else "imported" (a judge's scores
        come from an import or from the API)."""
        return "run" if self.runs else "imported"


def study_results(study_id: int) -> list[JudgeResults]:
    """Every judge with results in the study, by name, with its counts per task or metric
    (label ``"<kind>: <split>"``, e.g. ``"score: overall"``) and its runs there."""
    counts: dict[int, list[tuple[str, int]]] = {}
    for name, path in OUTPUT_STUDY_PATHS:
        label, split = KINDS[name]
        keys = ["judge_id"] + ([split] if split else [])
        rows = (
            apps.get_model("judges", name)
            .objects.filter(**{path: study_id})
            .values(*keys)
            .order_by()
            .annotate(n=Count("pk"))
        )
        for row in rows:
            what = f"{label}: {row[split]}" if split else label
            counts.setdefault(row["judge_id"], []).append((what, row["n"]))
    runs: dict[int, list[int]] = {}
    for judge_id, run_id in JudgeRun.objects.filter(study_id=study_id).values_list(
        "judge_id", "pk"
    ):
        runs.setdefault(judge_id, []).append(run_id)
    out = []
    for judge in Judge.objects.filter(pk__in=counts).order_by("name"):
        out.append(
            JudgeResults(
                judge=judge,
                counts=sorted(counts[judge.pk]),
                runs=sorted(runs.get(judge.pk, []), reverse=True),
            )
        )
    return out
