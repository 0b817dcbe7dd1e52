"""The report cache: one place for the study fingerprint, the keys and the entry's life.

Cache key: study id + options + a fingerprint of the study's judgments (counts, largest
ids and update times of every human judgment kind — every ``JudgmentBase`` model, so a
task type added later is covered too —, counts and largest ids of the judge's verdicts
each section reads, value sums of Medal and JudgeScore and a label signature of the
judge's DeepScholar labels; four aggregate queries whatever the study's size or number of
kinds), so a changed judgment gives a new key and the report is recomputed; nothing has
to be invalidated by hand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from django.apps import apps
from django.core.cache import cache
from django.db.models import (
    Case,
    CharField,
    Count,
    DateTimeField,
    F,
    FloatField,
    IntegerField,
    Max,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Length, Ord

from annotation.models import ExpertAgreedRecord, Medal
from annotation.models.judgments import JudgmentBase
from judges.models import (
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgeDeepScholarLabel,
    JudgePairwise,
    JudgeRelevance,
    JudgeScore,
)

CACHE_SECONDS = 24 * 60 * 60
#: Bumped when the entry's shape changes, so entries cached by an older release (shared
#: cache, 24 h) are never read as the new shape (2: the sections' results).
ENTRY_VERSION = 2


#: What the sections read besides human judgments and judge scores, with the lookup to their
#: study: the judge's verdicts and the released expert-agreed records (no update time: a
#: new row changes the count or the largest id).
OTHER_KINDS = (
    (ExpertAgreedRecord, "study_id"),
    (JudgeCoverage, "report__question__study_id"),
    (JudgePairwise, "left__question__study_id"),
    (JudgeClaimVerdict, "report__question__study_id"),
    (JudgeRelevance, "paragraph__report__question__study_id"),
    (JudgeDeepScholarLabel, "question__study_id"),
)


def _kind_rows(model, lookup: str, study_id: int, updated: bool):
    """(kind, count, largest id, last update) of ``model``'s rows in the study: one row, or
    none when it has no row there (grouped by the study column, so it can be UNIONed)."""
    at = Max("updated_at") if updated else Value(None, output_field=DateTimeField())
    return (
        model.objects.filter(**{lookup: study_id})
        .order_by()
        .values(lookup)
        .annotate(
            kind=Value(model._meta.label_lower, output_field=CharField()),
            n=Count("id"),
            top=Max("id"),
            at=at,
        )  # fmt: skip
        .values_list("kind", "n", "top", "at")
    )


def judgment_kinds(study_id: int) -> list[tuple]:
    """Every judgment kind's (kind, count, largest id, last update) in the study, in one
    UNION ALL query: every concrete ``JudgmentBase`` model (human judgments, whatever task
    wrote them) and :data:`OTHER_KINDS`. A report section reads some of these; a cache
    key blind to one of them served the report from before a judgment of that kind."""
    humans = sorted((m for m in apps.get_models() if issubclass(m, JudgmentBase)),
                    key=lambda m: m._meta.label_lower)  # fmt: skip
    parts = [_kind_rows(m, "study_id", study_id, True) for m in humans]
    parts += [_kind_rows(m, lookup, study_id, False) for m, lookup in OTHER_KINDS]
    return sorted(parts[0].union(*parts[1:], all=True))


def study_fingerprint(study_id: int) -> str:
    """A digest of the study's judgments and judge verdicts, in four aggregate queries.

    Medal and JudgeScore have no update time: their value is folded into a sum weighted
    by the row id, so an edit in place changes the fingerprint too. A human judgment
    edited in place has a new update time (``JudgmentBase.updated_at``).
    """
    medal_code = Case(
        When(medal="gold", then=Value(1)), When(medal="silver", then=Value(2)), default=Value(3),
        output_field=IntegerField(),
    )  # fmt: skip
    parts = [
        judgment_kinds(study_id),
        Medal.objects.filter(ranking__study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), sig=Sum(medal_code * F("id"))
        ),
        JudgeScore.objects.filter(report__question__study_id=study_id).aggregate(
            n=Count("id"),
            top=Max("id"),
            sum=Sum("value"),
            sig=Sum(F("value") * F("id"), output_field=FloatField()),
        ),  # fmt: skip
        # DeepScholar labels (Table 3): the judge's rows have no update time, and an import
        # relabels in place: (first character, length) tells a kind's labels apart
        JudgeDeepScholarLabel.objects.filter(question__study_id=study_id).aggregate(
            sig=Sum((Ord("label") + 256 * Length("label")) * F("id"), output_field=IntegerField()),
        ),  # fmt: skip
    ]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:24]


def cache_key(study_id: int, options, fingerprint: str, kind: str = "entry") -> str:
    digest = hashlib.sha256(json.dumps(options.to_dict(), sort_keys=True).encode()).hexdigest()
    return f"concord:report:v{ENTRY_VERSION}:{kind}:{study_id}:{digest[:24]}:{fingerprint}"


class ReportCache:
    """The cache entries of one study's selection, under one fingerprint (read once)."""

    def __init__(self, study_id: int, options, fingerprint: str | None = None):
        self.study_id = study_id
        self.options = options
        self.fingerprint = fingerprint or study_fingerprint(study_id)

    def key(self, kind: str = "entry") -> str:
        return cache_key(self.study_id, self.options, self.fingerprint, kind)

    def get(self, kind: str = "entry"):
        return cache.get(self.key(kind))

    def set(self, value, kind: str = "entry") -> None:
        cache.set(self.key(kind), value, CACHE_SECONDS)

    def entry(self, build: Callable[[], dict], *, compute: bool = True) -> dict | None:
        """The cached entry, or ``build()`` now (``compute``) and cached."""
        entry = self.get()
        if entry is None and compute:
            entry = build()
            self.set(entry)
        return entry
