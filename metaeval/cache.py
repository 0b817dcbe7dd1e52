"""The report cache: one place for the study fingerprint, the keys and the entry's life.

Cache key: study id + options + a fingerprint of the study's judgments (counts, largest
ids and update times of every human judgment kind — every ``JudgmentBase`` model, so a
task type added later is covered too —, counts and largest ids of the judge's verdicts
each section reads, value sums of Medal and JudgeScore and a label signature of the
judge's verdicts; three aggregate queries whatever the study's size or number of
kinds; with the ``adjudicated`` human signal, which is part of the options, also the
decided AdjudicationRequests it counts — not a failed adjudicator's —, a fourth; with the
majority or adjudicated signal, the annotators who failed qualification, whose labels
those signals leave out) and a
digest of what the judge card shows of the judges (:func:`judges_signature`, one more
query), so a changed judgment, adjudication, adjudicator's qualification or judge gives a
new key and the report is recomputed; nothing has to be invalidated by hand.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable

from django.apps import apps
from django.conf import settings
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
from django.db.models.functions import MD5, Cast, Coalesce, Length, Ord

from annotation.models import (
    AdjudicationRequest,
    ExpertAgreedRecord,
    ExpertiseRating,
    Medal,
    Question,
)
from annotation.models.judgments import JudgmentBase
from annotation.models.quality import counted_decisions, failed_results
from judges.models import (
    Judge,
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgeDeepScholarLabel,
    JudgePairwise,
    JudgeRelevance,
    JudgeScore,
)
from judges.secrets import masked_parameters, parameters_digest

CACHE_SECONDS = 24 * 60 * 60
#: Bumped when the entry's shape changes, so entries cached by an older release (shared
#: cache, 24 h) are never read as the new shape (2: the sections' results; 3: the judge
#: card's parameters masked — an older entry may hold a judge's credentials; 4: each block
#: with a null figure carries its ``notes``, METHODS §7; 5: a binary judge in the coverage
#: section, the selection's ``study`` counts, intervals and notes in the agreement tables).
ENTRY_VERSION = 5


def _text_code(field: str):
    """A number that tells a field's short labels apart (first character, length)."""
    return Ord(field) + 256 * Length(field)


#: What the sections read besides human judgments and judge scores, with the lookup to their
#: study and a value signature: the judge's verdicts, the released expert-agreed records,
#: the expertise self-ratings and the questions (authored ones are analysed)
#: have no update time, so a new row changes the count or the largest id, and a verdict
#: relabelled in place by a re-import (``sync_rows`` updates in place) changes the sum of
#: its value code weighted by the row id.
OTHER_KINDS = (
    (ExpertAgreedRecord, "study_id", None),
    (JudgeCoverage, "report__question__study_id",
     Coalesce("label", 9) * 3 + Case(When(covered=True, then=1), When(covered=False, then=2),
                                     default=0)),
    (JudgePairwise, "left__question__study_id",
     _text_code("choice") + Coalesce("score_left", 0.0) + 7 * Coalesce("score_right", 0.0)),
    (JudgeClaimVerdict, "report__question__study_id", _text_code("verdict")),
    (JudgeRelevance, "paragraph__report__question__study_id",
     Case(When(relevant=True, then=1), default=2)),
    (JudgeDeepScholarLabel, "question__study_id", _text_code("label")),
    # expertise self-ratings (the expertise-triage section; no study column, so not a
    # JudgmentBase): a second triage submit changes the level in place
    (ExpertiseRating, "question__study_id", _text_code("level")),
    # questions (the question-authoring section reads the authored ones): an authoring
    # resubmit rewrites the text in place, a researcher's review changes its state
    (Question, "study_id", Length("text") + 7919 * Ord("review")),
)  # fmt: skip


def _kind_rows(model, lookup: str, study_id: int, updated: bool, code=None):
    """(kind, count, largest id, last update, value signature) of ``model``'s rows in the
    study: one row, or none when it has no row there (grouped by the study column, so it
    can be UNIONed)."""
    at = Max("updated_at") if updated else Value(None, output_field=DateTimeField())
    sig = (Sum(code * F("id"), output_field=FloatField()) if code is not None
           else Cast(Value(None), FloatField()))  # typed NULL: PostgreSQL's UNION  # fmt: skip
    return (
        model.objects.filter(**{lookup: study_id})
        .order_by()
        .values(lookup)
        .annotate(
            kind=Value(model._meta.label_lower, output_field=CharField()),
            n=Count("id"),
            top=Max("id"),
            at=at,
            sig=sig,
        )  # fmt: skip
        .values_list("kind", "n", "top", "at", "sig")
    )


def judgment_kinds(study_id: int) -> list[tuple]:
    """Every judgment kind's (kind, count, largest id, last update) in the study, in one
    UNION ALL query: every concrete ``JudgmentBase`` model (human judgments, whatever task
    wrote them) and :data:`OTHER_KINDS`. A report section reads some of these; a cache
    key blind to one of them served the report from before a judgment of that kind."""
    humans = sorted((m for m in apps.get_models() if issubclass(m, JudgmentBase)),
                    key=lambda m: m._meta.label_lower)  # fmt: skip
    parts = [_kind_rows(m, "study_id", study_id, True) for m in humans]
    parts += [_kind_rows(m, lookup, study_id, False, code) for m, lookup, code in OTHER_KINDS]
    return sorted(parts[0].union(*parts[1:], all=True))


def judges_signature() -> list:
    """What the judge card shows of every judge (name, provider, model, prompt version,
    masked parameters) and what groups its runs (the prompt text, by its MD5), in one
    query whatever the number of judges. Judges have no update time and are shared
    between studies, so every judge is read: an admin's edit of one (a key removed, the
    model changed) gives every report that may show it a new key. The parameters are
    there masked (:func:`judges.secrets.masked_parameters`) and as a digest keyed by the
    server's ``SECRET_KEY`` (:func:`judges.secrets.parameters_digest`): a changed
    credential — a key, a password in the base URL — changes the key too, and no secret
    is readable from it."""
    rows = Judge.objects.order_by("pk").values_list(
        "pk", "name", "provider", "model", "prompt_version", MD5("prompt_template"), "parameters"
    )
    key = settings.SECRET_KEY
    return [(*row[:-1], masked_parameters(row[-1]), parameters_digest(row[-1], key))
            for row in rows]  # fmt: skip


def study_fingerprint(study_id: int, adjudications: bool = False, failed: bool = False) -> str:
    """A digest of the study's judgments and judge verdicts, in three aggregate queries,
    of the judges the card describes (:func:`judges_signature`), a fourth, and with
    ``adjudications`` (a report of the ``adjudicated`` human signal, the only one that
    reads them) its decided adjudication requests, a fifth; with ``failed`` (a report of the
    majority or adjudicated signal, which leave out the labels of annotators who failed
    qualification) those annotators, one more: failing or passing one changes the key.

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
        judges_signature(),
    ]
    if adjudications:  # a decision (or a changed one) moves the count, the ids or time;
        # so does failing (or passing again) an adjudicator: only counted decisions are read
        parts.append(
            counted_decisions(AdjudicationRequest.objects.filter(study_id=study_id)).aggregate(
                n=Count("id"), top=Max("id"), ids=Sum("id"), at=Max("decided_at")
            )
        )
    if failed:
        parts.append(sorted(failed_results(study_id).values_list("annotator_id", flat=True)))
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:24]


def cache_key(study_id: int, options, fingerprint: str, kind: str = "entry") -> str:
    digest = hashlib.sha256(json.dumps(options.to_dict(), sort_keys=True).encode()).hexdigest()
    return f"concord:report:v{ENTRY_VERSION}:{kind}:{study_id}:{digest[:24]}:{fingerprint}"


def section_key(study_id: int, section: str, options, reads: tuple[str, ...],
                fingerprint: str) -> str:  # fmt: skip
    """Cache key of one section's result: the options it reads only (Section.reads)."""
    read = {name: options.to_dict()[name] for name in reads}
    digest = hashlib.sha256(json.dumps(read, sort_keys=True).encode()).hexdigest()
    return (f"concord:report:v{ENTRY_VERSION}:section:{section}:{study_id}:{digest[:24]}:"
            f"{fingerprint}")  # fmt: skip


class ReportCache:
    """The cache entries of one study's selection, under one fingerprint (read once)."""

    def __init__(self, study_id: int, options, fingerprint: str | None = None):
        self.study_id = study_id
        self.options = options
        signal = getattr(options, "human_signal", None)
        self.fingerprint = fingerprint or study_fingerprint(
            study_id, adjudications=signal == "adjudicated",
            failed=signal in ("majority", "adjudicated"),
        )  # fmt: skip

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


# ----------------------------------------------------------------------------- loaded rows

_SELECTIONS: OrderedDict = OrderedDict()
_SELECTIONS_LOCK = threading.Lock()


def selections_kept() -> int:
    """How many loaded selections a process keeps (``CONCORD_SHARED_SELECTIONS``, 0: none)."""
    from django.conf import settings

    return int(getattr(settings, "CONCORD_SHARED_SELECTIONS", 2))


def shared_selection(study_id: int, fingerprint: str | None, key: tuple, load: Callable):
    """The rows of one selection (:func:`metaeval.reports.load_selection`), loaded once per
    study version and kept in this process for the next request.

    Why: after a selector change that reads the same rows (ties, threshold, calibration,
    bootstrap…), the page's htmx request loaded them again: 240,000 medal rows and 720,000
    judge scores at 40,000 questions, about half of what the command does in all (issue
    29). The key is the entry's: study, :func:`study_fingerprint` (a changed judgment
    gives a new one, so nothing stale is read) and what the loader reads of the options.
    Kept in memory, not in the shared cache: a frame of 40,000 questions is ≈ 60 MB of
    arrays, whose pickling would cost more than the load. The last
    :func:`selections_kept` selections stay (least recently used first out). Callers
    treat the rows as read-only, as they already do within one request.
    """
    kept = selections_kept()
    if fingerprint is None or kept <= 0:
        return load()
    k = (study_id, fingerprint, key)
    with _SELECTIONS_LOCK:
        if k in _SELECTIONS:
            _SELECTIONS.move_to_end(k)
            return _SELECTIONS[k]
    got = load()
    remember_selection(study_id, fingerprint, key, got)
    return got


def remember_selection(study_id: int, fingerprint: str | None, key: tuple, rows) -> None:
    """Keep ``rows`` under another key too (the default judge by its name)."""
    kept = selections_kept()
    if fingerprint is None or kept <= 0:
        return
    with _SELECTIONS_LOCK:
        _SELECTIONS[(study_id, fingerprint, key)] = rows
        _SELECTIONS.move_to_end((study_id, fingerprint, key))
        while len({id(v) for v in _SELECTIONS.values()}) > kept:  # aliases count once
            _SELECTIONS.popitem(last=False)


def forget_selections() -> None:
    with _SELECTIONS_LOCK:
        _SELECTIONS.clear()
