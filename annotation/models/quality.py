"""Study quality control (issue 17, part 2): gold and qualification items, qualification
results with an audited admin override, and adjudication requests for disagreements.

Why these live beside the judgments and never in them: a gold item, a qualification result
or an adjudicated label is a statement *about* judgments. The judgments themselves stay as
the annotators submitted them; the analyses choose which signal to read
(:func:`annotation.quality.signal.human_signal`).

A unit is what one label is about: ``(task, question, unit)`` where ``unit`` is empty for a
medal ranking (the question's reports as a whole), ``"SysA~SysB"`` (system names, sorted)
for one pair of a pairwise task, ``"rating clarity@SysA"`` for one rating of metric-wise, …:
each task type declares its units (``TaskSpec.qc``; docs/QUALITY.md lists them).
"""

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q


class GoldItem(models.Model):
    """A unit with a known answer: a gold (attention) item mixed unannounced into queues, or
    an item of the study's qualification set."""

    class Purpose(models.TextChoices):
        GOLD = "gold", "Gold (attention) item"
        QUALIFICATION = "qualification", "Qualification item"

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="+")
    task = models.CharField(max_length=40)
    question = models.ForeignKey("annotation.Question", on_delete=models.CASCADE, related_name="+")
    unit = models.CharField(max_length=500, blank=True)
    #: The canonical label (``annotation.quality.labels``).
    answer = models.CharField(max_length=500)
    purpose = models.CharField(max_length=20, choices=Purpose.choices, default=Purpose.GOLD)
    #: When marked from a submitted judgment: whose (their own answer never scores them).
    source_annotator = models.ForeignKey(
        "annotation.Annotator", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.CharField(max_length=100, blank=True, help_text="judgment or file it came from")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["purpose", "question", "unit"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "task", "question", "unit"], name="one_gold_per_unit"
            )
        ]

    def __str__(self) -> str:
        return f"{self.purpose} {self.task} q{self.question_id} {self.unit} = {self.answer}"


class QualificationResult(models.Model):
    """Pass / fail of one annotator's qualification round; ``overridden`` when set by hand."""

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(
        "annotation.Annotator", on_delete=models.PROTECT, related_name="+"
    )
    correct = models.PositiveIntegerField(default=0)
    answered = models.PositiveIntegerField(default=0)
    items = models.PositiveIntegerField(default=0)
    passed = models.BooleanField(null=True)
    overridden = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "annotator"], name="one_qualification")
        ]

    def __str__(self) -> str:
        return f"qualification of {self.annotator_id}: {self.passed}"

    @property
    def score(self) -> float | None:
        return self.correct / self.answered if self.answered else None

    #: Why a round with no items stays pending (shown on the study's quality page).
    NOT_GIVEN = (
        "given no qualification item (the release could not add any to their queue; its "
        "message says why): add one they can be given and release again, or pass or fail "
        "them by hand"
    )

    @property
    def pending_reason(self) -> str:
        """Why the round is undecided when nothing the annotator can do will decide it:
        it is decided over the items they were given (``annotation.quality.qualification
        .given``), and they were given none. Empty otherwise."""
        return self.NOT_GIVEN if self.passed is None and not self.items else ""


class QualityEvent(models.Model):
    """The study's audit trail of decisions taken by hand: quality control's (overrides,
    gold, sends) and a judge's results deleted from the study (``judges.removal``)."""

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="+")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=40)
    annotator = models.ForeignKey(
        "annotation.Annotator", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_id}"


class AdjudicationRequest(models.Model):
    """A disagreement sent to an adjudicator. ``originals`` holds the competing labels
    (pseudonym, label) the adjudicator decides on: those of when it was sent, brought up to
    date while it is open when a party submits a changed label, and, once decided, the ones
    it was decided on (``annotation.quality.following``); the judgments themselves stay
    untouched."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        DECIDED = "decided", "Decided"

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="+")
    task = models.CharField(max_length=40)
    question = models.ForeignKey("annotation.Question", on_delete=models.PROTECT, related_name="+")
    unit = models.CharField(max_length=500, blank=True)
    originals = models.JSONField(default=list)
    adjudicator = models.ForeignKey(
        "annotation.Annotator", on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    label = models.CharField(max_length=500, blank=True)
    reason = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    #: Set when the labels a decided request resolved changed afterwards (a party's
    #: judgment reopened and submitted again): the decision is kept and listed, but no
    #: longer counted as the adjudicated label (:func:`counted_decisions`); cleared when
    #: the labels are again those it was decided on (``annotation.quality.following``).
    outdated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["status", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "task", "question", "unit", "adjudicator"],
                name="one_adjudication_request",
            )
        ]

    def __str__(self) -> str:
        return (
            f"adjudication of {self.task} q{self.question_id} {self.unit} by {self.adjudicator_id}"
        )


def released(assignments):
    """``assignments`` without those held back by a qualification round: in a study whose
    config says ``qualification_required``, an annotator who has not passed sees only the
    qualification items until they pass (or an admin passes them by hand) — and, whatever
    their result, the work they have submitted (submitted, or submitted and since reopened
    or returned for revision): turning the round on partway through a study holds back the
    work not done yet, never makes done work disappear from their queue, task pages,
    history or the API (docs/QUALITY.md, "Turning the round on partway")."""
    from .assignment import Assignment
    from .review import Reopening

    submitted = Q(status=Assignment.Status.SUBMITTED) | Exists(
        Reopening.objects.filter(assignment=OuterRef("pk"))
    )
    passed = QualificationResult.objects.filter(
        study=OuterRef("study"), annotator=OuterRef("annotator"), passed=True
    )
    qualifying = GoldItem.objects.filter(
        study=OuterRef("study"),
        task=OuterRef("task"),
        question=OuterRef("question"),
        purpose=GoldItem.Purpose.QUALIFICATION,
    )
    from .content import Study

    # NOT IN over ids, not a negated JSON lookup: a study without the key must not give
    # NULL (SQL's three-valued logic would then drop its assignments too).
    requiring = Study.objects.filter(config__qualification_required=True).values("pk")
    return assignments.filter(
        ~Q(study__in=requiring) | Exists(passed) | Exists(qualifying) | submitted
    )


def counted_decisions(requests):
    """``requests`` (AdjudicationRequests) that are decided and count: without those decided
    on labels that have changed since (``outdated_at``), and without the
    decisions of an adjudicator who failed the qualification round of a study that requires
    it (``annotation.quality.qualification.failed``, read inside the query). A failed
    annotator's labels count nowhere, their decisions included; excluded when read, never
    deleted, so a later pass (an override) restores them. Every reader of adjudicated
    labels (``observations.adjudicated_labels``, the report cache's fingerprint) goes
    through here."""
    failed = QualificationResult.objects.filter(
        study=OuterRef("study"), annotator=OuterRef("adjudicator"), passed=False
    )
    from .content import Study

    requiring = Study.objects.filter(config__qualification_required=True).values("pk")
    return requests.filter(
        status=AdjudicationRequest.Status.DECIDED, outdated_at__isnull=True
    ).exclude(Q(study__in=requiring) & Exists(failed))


def held_studies(annotator) -> dict:
    """The studies requiring a qualification round in which ``annotator`` has work and has
    not passed: study -> their result there (``False`` failed, computed or by hand;
    ``None`` undecided, or no result yet). Their queue there lists their submitted work and
    their qualification items (:func:`released`) and says where they stand, never which
    answers were wrong nor the known answers (a submit already reads the same whether right
    or wrong): after a decided fail, plainly that they did not qualify for this study (their
    other studies are unaffected; the study admin is whom to ask); "being reviewed" only
    while the round is undecided and no qualification item is left for them to do, i.e.
    while it waits for the study admin (docs/QUALITY.md, "What the annotator is told")."""
    from .assignment import Assignment
    from .content import Study

    studies = Study.objects.filter(
        config__qualification_required=True,
        pk__in=Assignment.objects.filter(annotator=annotator)
        .exclude(status=Assignment.Status.WITHDRAWN)
        .values("study_id"),
    )
    results = dict(
        QualificationResult.objects.filter(annotator=annotator, study__in=studies).values_list(
            "study_id", "passed"
        )
    )
    return {s: results.get(s.pk) for s in studies if results.get(s.pk) is not True}


def qualification_tasks(study_ids) -> set[tuple[int, str, int]]:
    """``(study, task, question)`` of every qualification item of the studies (one query)."""
    return set(
        GoldItem.objects.filter(
            study_id__in=study_ids, purpose=GoldItem.Purpose.QUALIFICATION
        ).values_list("study_id", "task", "question_id")
    )


def failed_results(study_id: int):
    """The failed ``QualificationResult`` rows of a study that requires the round, as a
    queryset (``annotation.quality.qualification.failed``'s rule, in one query with the
    study's config read inside it): the report's human signals (majority, adjudicated) leave
    these annotators' labels out, and the report cache's fingerprint reads the same rows so
    that failing (or passing by hand) an annotator gives a new key."""
    from .content import Study

    requiring = Study.objects.filter(config__qualification_required=True).values("pk")
    return QualificationResult.objects.filter(study_id=study_id, passed=False,
                                              study__in=requiring)  # fmt: skip


def may_hold_back(study) -> bool:
    """Whether :func:`released` can hide anything of ``study``: only if its config asks
    for qualification. A page that knows its study skips the filter otherwise (issue 29:
    its three subqueries were compiled on every task page, twice). Truthy, not ``is
    True``: where unsure, the filter decides."""
    return requires_qualification(study.config)


def requires_qualification(config: dict | None) -> bool:
    """:func:`may_hold_back` of a study's ``config`` as read (a row read as values)."""
    return bool((config or {}).get("qualification_required"))


#: Why a failed annotator's work cannot change (the save, submit and reopen refusals say it).
FROZEN = (
    "you did not qualify for this study, so your work in it can no longer be changed "
    "(what you saved is kept). Please contact the study admin if you have questions."
)


def frozen(assignment) -> bool:
    """Whether ``assignment``'s work is frozen: its annotator's qualification round in a
    study that requires one is decided failed (computed or by an override). Their
    submitted work stays visible (:func:`released`) and nothing of it is deleted, but it
    is not reopened (by them or returned by an admin), and what is unsubmitted or returned
    is neither saved nor submitted: a failed annotator's labels count nowhere, and a
    revision would be work done after the decision (docs/QUALITY.md). A pass by hand
    unfreezes it. No query for a study without the round; one otherwise."""
    if not requires_qualification(assignment.study.config):
        return False
    return QualificationResult.objects.filter(
        study_id=assignment.study_id, annotator_id=assignment.annotator_id, passed=False
    ).exists()


def is_qualification_item(assignment) -> bool:
    """Whether ``assignment`` is one of its study's qualification items (its task and
    question carry a qualification ``GoldItem``)."""
    return is_qualification_task(assignment.study_id, assignment.task, assignment.question_id)


def is_qualification_task(study_id, task, question_id) -> bool:
    """Whether ``task`` on the question is a qualification item of the study (an
    assignment not saved yet is asked by its fields)."""
    if study_id is None or question_id is None:
        return False
    return GoldItem.objects.filter(
        study_id=study_id,
        task=task,
        question_id=question_id,
        purpose=GoldItem.Purpose.QUALIFICATION,
    ).exists()


def _on_assignment_saved(sender, instance, **kwargs):
    from annotation.quality.qualification import on_submitted

    on_submitted(sender, instance, **kwargs)


models.signals.post_save.connect(
    _on_assignment_saved, sender="annotation.Draft", dispatch_uid="qc_qualification"
)


def _on_draft_submitted(sender, instance, **kwargs):
    from annotation.quality.following import on_submitted

    on_submitted(sender, instance, **kwargs)


models.signals.post_save.connect(
    _on_draft_submitted, sender="annotation.Draft", dispatch_uid="qc_follow_labels"
)


def _on_flag_saved(sender, instance, **kwargs):
    from annotation.quality.qualification import on_skipped

    on_skipped(sender, instance, **kwargs)


models.signals.post_save.connect(
    _on_flag_saved, sender="annotation.Flag", dispatch_uid="qc_qualification_skip"
)
