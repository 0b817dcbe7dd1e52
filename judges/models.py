"""The judges' side of every comparison: who judged, and the scores they gave (METHODS §4)."""

from django.db import models

from annotation.models.jsontext import JSONText


class Judge(models.Model):
    name = models.CharField(max_length=200, unique=True)
    provider = models.CharField(max_length=100, blank=True)
    model = models.CharField(max_length=200, blank=True)
    prompt_template = models.TextField(blank=True)
    prompt_version = models.CharField(max_length=50, blank=True)
    parameters = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        """The admin's form refuses parameters a run would refuse (as the API does)."""
        from django.core.exceptions import ValidationError

        from judges.llm import LLMConfig

        try:
            LLMConfig.check_parameters(self.name, self.model, self.parameters)
        except ValueError as exc:
            raise ValidationError({"parameters": str(exc)}) from exc

    def run_refusal(self) -> str | None:
        """Why a run of this judge would be refused, or None: the check a run starts with
        (:meth:`judges.llm.LLMConfig.for_judge`, which :func:`judges.runs.create_run` calls),
        so a page offers to run only the judges a run accepts. An imported or simulated
        judge (the demo's ``{"simulated", "source"}``) gives results only."""
        from judges.llm import LLMConfig

        parameters = self.parameters if isinstance(self.parameters, dict) else {}
        if parameters.get("simulated"):
            # in words an admin reads, not the parameter check's list (a tester)
            source = parameters.get("source")
            return (
                "its results were simulated"
                + (f" ({source})" if source else "")
                + ("; it has no model endpoint to call")
            )
        try:
            LLMConfig.for_judge(self)
        except ValueError as exc:
            return str(exc)
        return None

    @property
    def runnable(self) -> bool:
        return self.run_refusal() is None


class JudgeScore(models.Model):
    """A judge's score of one report on one metric, with its rationale when given.

    ``judge`` has no index of its own: the unique (judge, report, metric) leads with it and
    serves every query by judge and the judge's deletion (issue 29: 720,000 rows arrive in
    the scale import, and each index is written per row)."""

    judge = models.ForeignKey(
        Judge, on_delete=models.CASCADE, related_name="scores", db_index=False
    )
    report = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    metric = models.CharField(max_length=40)
    value = models.FloatField()
    rationale = models.TextField(blank=True)
    #: What the judge file this score came from released for the report, so its export
    #: gives the file back (as ``annotation.importers.released`` keeps reports' records):
    #: ``{"format", "record": n, "data": the record as parsed}`` of a ResearcherBench
    #: results record; ``{"format", "record", "shape"}`` of a ResearchQA coverage entry.
    #: Null for a score computed here or read from a format that keeps nothing. Text, as a
    #: report's released record (:mod:`annotation.models.jsontext`): PostgreSQL's jsonb
    #: would reorder the record's keys, and the export writes them in the released order.
    released = JSONText(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "report", "metric"], name="one_judge_score")
        ]

    def __str__(self) -> str:
        return f"{self.judge} {self.metric} of report {self.report_id}: {self.value}"


def default_judge(study_id: int) -> str | None:
    """The judge with the most scores in the study (ties: by name; one query), for an export
    or a selection that names none: one rule for the judges layer and the reports
    (``metaeval.data`` reads it from here)."""
    row = (
        JudgeScore.objects.filter(report__question__study_id=study_id)
        .values_list("judge__name")
        .order_by()
        .annotate(n=models.Count("id"))
        .order_by("-n", "judge__name")
        .first()
    )
    return row[0] if row else None


class JudgeRun(models.Model):
    """One live run of a judge over a study: its plan (units), progress, errors and cost.

    A run is split into *units* (:class:`JudgeUnit`), one LLM task each (a coverage batch
    of ≤ 8 rubric items, one pairwise order, one report's relevance, one claim). Each unit's
    result is written with the unit marked done in one transaction, so a worker that dies
    loses at most the calls in flight, and a resumed run skips every completed unit.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed (some units failed; resume retries them)"
        CANCELLED = "cancelled", "Cancelled"

    class Task(models.TextChoices):
        # labelled by what the task does, whatever the study's benchmark: the same prompt
        # grades each item 0–4 in every study (a ResearcherBench study read "ResearchQA");
        # :meth:`JudgeRun.task_choices` offers one of the two coverage tasks per study, the
        # one its protocol (the setting ``coverage_binary``) reads
        COVERAGE = "coverage", "Rubric coverage: each item graded 0–4, 8 items a call"
        COVERAGE_BINARY = (
            "coverage_binary",
            "Rubric coverage, covered or not (ResearcherBench): yes / no per item, 8 items a call",
        )
        PAIRWISE = "pairwise", "Direct pairwise judging, both orders"
        ENSEMBLE = "ensemble", "ResearchQA ensemble decision (coverage + both orders)"
        RELEVANCE = "relevance", "Paragraph relevance (ScholarQA-CS2)"
        CITATIONS = "citations", "Claim citation support"
        # DeepScholar-Bench labels (seed 002 §8.11, Table 3): one kind per label kind
        ORGANIZATION = "organization", "DeepScholar organization vs the exemplar, both orders"
        NUGGET_IMPORTANCE = "nugget_importance", "DeepScholar nugget importance"
        NUGGET_SUPPORT = "nugget_support", "DeepScholar nugget support by a report"
        RETRIEVAL_RELEVANCE = "retrieval_relevance", "DeepScholar retrieved-source relevance 0–2"
        REFERENCE_IMPORTANCE = "reference_importance", "DeepScholar exemplar-reference importance"
        ENTAILMENT = "entailment", "DeepScholar claim–source entailment"

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="runs")
    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="+")
    tasks = models.JSONField(default=list, help_text="Task kinds of this run (Task values)")
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total_units = models.PositiveIntegerField(default=0)
    done_units = models.PositiveIntegerField(default=0)
    failed_units = models.PositiveIntegerField(default=0)
    requests = models.PositiveIntegerField(default=0, help_text="HTTP calls answered")
    cache_hits = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cost = models.FloatField(default=0.0, help_text="In the currency of the judge's prices")
    errors = models.JSONField(default=list, blank=True, help_text="Last errors, newest last")
    #: Which task execution owns the run, and when it last showed life (resume logic).
    lease = models.CharField(max_length=40, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    requested_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.judge} ({self.status})"

    #: The tasks a study's coverage protocol leaves out: a binary-coverage study (the
    #: setting ``coverage_binary``, ResearcherBench) reads covered yes / no, which the 0–4
    #: task (and the ensemble, which sums 0–4 labels) would not write; a graded study reads
    #: 0–4 labels, which the binary task would not write.
    BINARY_ONLY = ("coverage_binary",)
    GRADED_ONLY = ("coverage", "ensemble")

    @staticmethod
    def binary_coverage(study) -> bool:
        """Whether ``study``'s rubric-coverage protocol is binary (covered yes / no)."""
        return study is not None and bool(study.setting("coverage_binary"))

    @classmethod
    def refused_tasks(cls, study) -> tuple[str, ...]:
        """The tasks a run on ``study`` may not have (:attr:`BINARY_ONLY`,
        :attr:`GRADED_ONLY`): the coverage rows a study's analyses read are of its one
        protocol."""
        return cls.GRADED_ONLY if cls.binary_coverage(study) else cls.BINARY_ONLY

    @classmethod
    def refusal(cls, study, task: str) -> str:
        """Why ``task`` is refused on ``study`` (one of :meth:`refused_tasks`)."""
        if cls.binary_coverage(study):
            return (f"tasks: {task} grades rubric items 0–4, but study {study.name!r} reads "
                    "binary rubric coverage (covered yes / no, ResearcherBench's S_c): run "
                    "coverage_binary instead")  # fmt: skip
        return (f"tasks: {task} judges rubric items covered yes / no, but study "
                f"{study.name!r} reads graded coverage 0–4: run coverage, or set the study's "
                "'Binary rubric coverage' setting (coverage_binary)")  # fmt: skip

    @classmethod
    def task_choices(cls, study) -> list[tuple[str, str]]:
        """The tasks as the run form offers them for ``study``: every task but those its
        coverage protocol refuses (:meth:`refused_tasks`)."""
        refused = cls.refused_tasks(study) if study is not None else ()
        return [(value, label) for value, label in cls.Task.choices if value not in refused]

    @property
    def progress(self) -> float:
        """Share of units settled (done or failed), 0..1."""
        if not self.total_units:
            return 1.0 if self.status == self.Status.DONE else 0.0
        return (self.done_units + self.failed_units) / self.total_units


class JudgeChunk(models.Model):
    """A slice of a run's units (``units``) executed by one Celery task under its
    own lease (:mod:`concord.leases`), so that several workers share one run and a worker
    that dies loses only its chunk, which is then leased again (issue 18). The run is done
    when every chunk is."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done (every unit settled)"

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    lease = models.CharField(max_length=40, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="executions started")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "number"]
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="one_chunk_number")]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"chunk {self.number} of run {self.run_id} ({self.status})"


class JudgeUnit(models.Model):
    """One unit of work of a run, with what it cost; ``key`` is stable across resumes."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="units")
    #: The chunk that executes the unit (None: a unit planned before runs had chunks).
    chunk = models.ForeignKey(
        JudgeChunk, null=True, blank=True, on_delete=models.SET_NULL, related_name="units"
    )
    key = models.CharField(max_length=200)
    task = models.CharField(max_length=24, choices=JudgeRun.Task.choices)
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    cached = models.BooleanField(default=False)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.FloatField(default=0.0)
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="one_unit_key")]
        indexes = [models.Index(fields=["run", "status"]), models.Index(fields=["chunk", "status"])]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


class LLMResponse(models.Model):
    """The response cache: one valid answer per (model, prompt hash).

    ``key`` = sha256 of the endpoint and every request field (``judges.llm.cache_key``);
    only answers that parsed are stored, so a malformed answer is asked again, never
    replayed.
    """

    key = models.CharField(max_length=64, unique=True)
    model = models.CharField(max_length=200)
    content = models.TextField()
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model} {self.key[:12]}"


class JudgeCoverage(models.Model):
    """A judge's coverage of one rubric item by one report: ``label`` 0–4 or ``covered``.

    Indexes (issue 16: 2.9 M rows arrive in one study's import, and each index is written
    per row): ``judge`` has none of its own, the unique (judge, report, item) leads with it
    and serves every query by judge and the judge's deletion; ``run`` is indexed only where
    set (a live run's rows; imported rows have none), which is all its users look up (a
    run's deletion sets its rows' run to null). ``report`` and ``item`` keep theirs: their
    deletions look the rows up by them, and the reports' loaders join on them."""

    judge = models.ForeignKey(
        Judge, on_delete=models.CASCADE, related_name="coverage", db_index=False
    )
    report = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    item = models.ForeignKey("annotation.RubricItem", on_delete=models.CASCADE, related_name="+")
    label = models.PositiveSmallIntegerField(null=True, blank=True)
    covered = models.BooleanField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    run = models.ForeignKey(
        JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        db_index=False,
    )  # fmt: skip

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "report", "item"], name="one_judge_coverage")
        ]
        indexes = [
            models.Index(
                fields=["run"], condition=models.Q(run__isnull=False), name="judgecoverage_run"
            )
        ]

    def __str__(self) -> str:
        return f"{self.judge}: item {self.item_id} of report {self.report_id} = {self.label}"


class JudgePairwise(models.Model):
    """A judge's decision on two reports as presented (``left`` shown first).

    ``protocol`` "direct": one order of the direct judge; both orders are kept as two rows
    (A, B) and (B, A). "ensemble": ResearchQA's J_ensemble on the canonical pair, with the
    two ensemble scores.
    """

    class Protocol(models.TextChoices):
        DIRECT = "direct", "Direct judge (one order)"
        ENSEMBLE = "ensemble", "Ensemble judge (ResearchQA)"

    class Choice(models.TextChoices):
        LEFT = "left", "Left better"
        RIGHT = "right", "Right better"
        TIE = "tie", "Tie"

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="pairwise")
    protocol = models.CharField(max_length=10, choices=Protocol.choices, default=Protocol.DIRECT)
    left = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    right = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    choice = models.CharField(max_length=5, choices=Choice.choices)
    score_left = models.FloatField(null=True, blank=True)
    score_right = models.FloatField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    run = models.ForeignKey(
        JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "protocol", "left", "right"], name="one_judge_pairwise"
            )
        ]

    def __str__(self) -> str:
        return f"{self.judge} {self.protocol}: {self.left_id} vs {self.right_id} -> {self.choice}"


class JudgeRelevance(models.Model):
    """A judge's relevance flag of one paragraph (ScholarQA-CS2: irrelevant paragraphs are
    flagged, with a rationale)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="relevance")
    paragraph = models.ForeignKey(
        "annotation.Paragraph", on_delete=models.CASCADE, related_name="+"
    )
    relevant = models.BooleanField(default=True)
    rationale = models.TextField(blank=True)
    run = models.ForeignKey(
        JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "paragraph"], name="one_judge_relevance")
        ]

    def __str__(self) -> str:
        return f"{self.judge}: paragraph {self.paragraph_id} relevant={self.relevant}"


class JudgeClaimVerdict(models.Model):
    """A judge's verdict on one claim: is it supported by its citations, and by which.

    A claim is a span of one paragraph ending in a group of citation markers (METHODS §1);
    ``key`` is "p<paragraph number>:<start>-<end>" within the report.
    """

    class Verdict(models.TextChoices):
        SUPPORTED = "supported", "Fully supported"
        PARTIAL = "partial", "Partially supported"
        UNSUPPORTED = "unsupported", "Not supported"
        UNKNOWN = "unknown", "Unknown"

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="claim_verdicts")
    report = models.ForeignKey("annotation.Report", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=40)
    text = models.TextField()
    verdict = models.CharField(max_length=12, choices=Verdict.choices)
    #: Per citation: {"key": ..., "supports": bool, "title_only": bool}
    citations = models.JSONField(default=list, blank=True)
    rationale = models.TextField(blank=True)
    run = models.ForeignKey(
        JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "report", "key"], name="one_claim_verdict")
        ]

    def __str__(self) -> str:
        return f"{self.judge}: {self.key} of report {self.report_id} {self.verdict}"


class JudgeDeepScholarLabel(models.Model):
    """A judge's label of one DeepScholar unit (seed 002 §8.11): the counterpart of an
    expert's :class:`annotation.models.DeepScholarLabel`, keyed the same way (kind, question,
    report or none, unit key) so that Table 3 joins the two without ids."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="deepscholar_labels")
    kind = models.CharField(max_length=24)
    question = models.ForeignKey("annotation.Question", on_delete=models.CASCADE, related_name="+")
    report = models.ForeignKey(
        "annotation.Report", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    unit = models.CharField(max_length=400, blank=True)
    label = models.CharField(max_length=24)
    rationale = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "kind", "question", "report", "unit"],
                name="one_judge_deepscholar_label",
            )
        ]

    def __str__(self) -> str:
        return f"{self.judge}: {self.kind} {self.unit} = {self.label}"


#: Every kind of judge output, with the lookup from a row to the study of what it judged.
#: A judge of one benchmark may hold no JudgeScore at all (a DeepScholar judge has labels
#: only, a ResearchQA coverage judge coverage rows): the judge option, the judges list and
#: the report page's judge choice read all of them (:func:`judged_in`), so such a judge can
#: be chosen wherever judges are (a researcher's ``?judge=`` of a DeepScholar judge with
#: 354 labels was refused as "no score in this study").
OUTPUT_STUDY_PATHS = (
    ("JudgeScore", "report__question__study"),
    ("JudgeCoverage", "report__question__study"),
    ("JudgePairwise", "left__question__study"),
    ("JudgeRelevance", "paragraph__report__question__study"),
    ("JudgeClaimVerdict", "report__question__study"),
    ("JudgeDeepScholarLabel", "question__study"),
)


def judged_in(studies) -> models.Q:
    """The judges with output of any kind (:data:`OUTPUT_STUDY_PATHS`) in ``studies``: one
    study id, or a subquery of study ids. One ``EXISTS`` per kind, so a judge is tested
    without reading its rows (720,000 scores at 40,000 questions, issue 29)."""
    from django.apps import apps

    lookup = "exact" if isinstance(studies, int) else "in"
    found = models.Q()
    for name, path in OUTPUT_STUDY_PATHS:
        rows = apps.get_model("judges", name).objects.filter(
            judge=models.OuterRef("pk"), **{f"{path}__{lookup}": studies}
        )
        found |= models.Q(models.Exists(rows))
    return found
