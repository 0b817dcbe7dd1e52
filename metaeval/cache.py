"""The report cache: one place for the study fingerprint, the keys and the entry's life.

Cache key: study id + options (the ``human_signal`` among them) + a fingerprint of the
study's judgments (counts, largest ids, update times and value sums of MedalRanking, Medal,
HumanMetricScore, JudgeScore and the DeepScholar labels of experts and judges, six
aggregate queries whatever the study's size; with the ``adjudicated`` human signal also
the decided AdjudicationRequests it reads, a seventh), so a changed judgment or a new
adjudication gives a new key and the report is recomputed; nothing has to be invalidated
by hand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from django.core.cache import cache
from django.db.models import Case, Count, F, FloatField, IntegerField, Max, Sum, Value, When
from django.db.models.functions import Length, Ord

from annotation.models import (
    AdjudicationRequest,
    DeepScholarLabel,
    HumanMetricScore,
    Medal,
    MedalRanking,
)
from judges.models import JudgeDeepScholarLabel, JudgeScore

CACHE_SECONDS = 24 * 60 * 60
#: Bumped when the entry's shape changes, so entries cached by an older release (shared
#: cache, 24 h) are never read as the new shape (2: the sections' results).
ENTRY_VERSION = 2


def study_fingerprint(study_id: int, adjudications: bool = False) -> str:
    """A digest of the study's judgments and judge scores, in six aggregate queries, and
    with ``adjudications`` (a report of the ``adjudicated`` human signal, the only one that
    reads them) its decided adjudication requests, a seventh.

    Medal and JudgeScore have no update time: their value is folded into a sum weighted
    by the row id, so an edit in place changes the fingerprint too.
    """
    medal_code = Case(
        When(medal="gold", then=Value(1)), When(medal="silver", then=Value(2)), default=Value(3),
        output_field=IntegerField(),
    )  # fmt: skip
    parts = [
        MedalRanking.objects.filter(study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), at=Max("updated_at")
        ),
        Medal.objects.filter(ranking__study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), sig=Sum(medal_code * F("id"))
        ),
        HumanMetricScore.objects.filter(study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), at=Max("updated_at")
        ),
        JudgeScore.objects.filter(report__question__study_id=study_id).aggregate(
            n=Count("id"),
            top=Max("id"),
            sum=Sum("value"),
            sig=Sum(F("value") * F("id"), output_field=FloatField()),
        ),  # fmt: skip
        # DeepScholar labels (Table 3): the judge's rows have no update time, and an import
        # relabels in place: (first character, length) tells a kind's labels apart
        DeepScholarLabel.objects.filter(study_id=study_id).aggregate(
            n=Count("id"), top=Max("id"), at=Max("updated_at")
        ),
        JudgeDeepScholarLabel.objects.filter(question__study_id=study_id).aggregate(
            n=Count("id"),
            top=Max("id"),
            sig=Sum((Ord("label") + 256 * Length("label")) * F("id"), output_field=IntegerField()),
        ),  # fmt: skip
    ]
    if adjudications:  # a decision (or a changed one) moves the count, the largest id or time
        parts.append(
            AdjudicationRequest.objects.filter(
                study_id=study_id, status=AdjudicationRequest.Status.DECIDED
            ).aggregate(n=Count("id"), top=Max("id"), at=Max("decided_at"))
        )
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:24]


def cache_key(study_id: int, options, fingerprint: str, kind: str = "entry") -> str:
    digest = hashlib.sha256(json.dumps(options.to_dict(), sort_keys=True).encode()).hexdigest()
    return f"concord:report:v{ENTRY_VERSION}:{kind}:{study_id}:{digest[:24]}:{fingerprint}"


class ReportCache:
    """The cache entries of one study's selection, under one fingerprint (read once)."""

    def __init__(self, study_id: int, options, fingerprint: str | None = None):
        self.study_id = study_id
        self.options = options
        self.fingerprint = fingerprint or study_fingerprint(
            study_id, adjudications=getattr(options, "human_signal", None) == "adjudicated"
        )

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
