"""What is being judged: studies, questions, rubrics, systems and their reports (METHODS §1).

Reports are stored structured (sections -> numbered paragraphs -> citation anchors) so every
report renders in one uniform format whatever system produced it, and so that judgments can
point at a paragraph or a claim span.

Only what judgments point at is a row: a report, its sections and its paragraphs. A report's
sources are one JSON list on the report (:attr:`Report.citations`, read as :class:`Citation`
values) and a paragraph's citation anchors one JSON list on the paragraph
(:attr:`Paragraph.anchors`): judgments name a source by its key, never by a row, and those
rows were 24 of the 29 rows a report took to store, more CPU than Label Studio's whole import
of the same texts (issue 29, bench/README.md "report_import.py").
"""

import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.db import models

from .jsontext import JSONText


def public_token() -> str:
    """An opaque id for URLs an annotator sees: never a system name, never a database id."""
    return secrets.token_urlsafe(9)


class Study(models.Model):
    """A unit of annotation work: its content, its enabled tasks and their settings."""

    class Task(models.TextChoices):
        QUERY_QUALITY = "query_quality", "Query quality"
        RUBRIC_ITEM_QUALITY = "rubric_item_quality", "Rubric-item quality"
        RUBRIC_COVERAGE = "rubric_coverage", "Rubric coverage"
        PAIRWISE = "pairwise", "Pairwise preference"
        MEDAL_RANKING = "medal_ranking", "Medal ranking"
        METRIC_WISE = "metric_wise", "Metric-wise evaluation"
        CLAIM_CHECK = "claim_check", "Claim citation check"
        RELEVANCE_ADJUDICATION = "relevance_adjudication", "Relevance adjudication"
        EXPERTISE_TRIAGE = "expertise_triage", "Expertise triage"
        QUESTION_AUTHORING = "question_authoring", "Question authoring"
        RUBRIC_COMPARISON = "rubric_comparison", "Rubric comparison"
        ORGANIZATION = "organization", "Organization vs the exemplar"
        NUGGET_IMPORTANCE = "nugget_importance", "Nugget importance"
        NUGGET_SUPPORT = "nugget_support", "Nugget support"
        RETRIEVAL_RELEVANCE = "retrieval_relevance", "Retrieval relevance"
        REFERENCE_IMPORTANCE = "reference_importance", "Reference importance"
        ENTAILMENT = "entailment", "Claim–source entailment"

    #: Defaults of METHODS §2/§3; a study overrides any key in ``config``.
    DEFAULT_CONFIG = {
        "ties_allowed": True,
        "three_way_tie_allowed": False,
        "claims_min": 3,
        "claims_max": 5,
        "relevance_credit": {"R": 1.0, "U": 0.5, "O": 0.0},
        "coverage_credit": {"fully": 1.0, "partially": 0.5, "none": 0.0},
        "support_credit": {"snippet_supports": 1.0, "title_likely_supports": 0.5, "none": 0.0},
        "coverage_binary": False,
        "authoring_min": 1,
        "authoring_max": 5,
        #: Hours after submitting during which an annotator may reopen their own judgment
        #: (0: only an admin can return it for revision).
        "reopen_hours": 0,
    }

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    tasks = models.JSONField(default=list, blank=True, help_text="Enabled task types")
    #: An admin chose ``tasks`` (study page, API, admin): imports no longer add the tasks
    #: their data supports, only those whose judgments the study holds (readiness).
    tasks_chosen = models.BooleanField(default=False)
    config = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    researchers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="annotation.StudyResearcher",
        related_name="+",
        blank=True,
        help_text="Researchers who may read this study; admins read every study.",
    )

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def setting(self, key: str):
        """A task setting: the study's own value, else the METHODS default."""
        return self.config.get(key, self.DEFAULT_CONFIG.get(key))

    #: Fewest claims a metric-wise report may have: citation precision and recall are
    #: ratios over the chosen claims (METHODS §3), undefined over none.
    CLAIMS_LEAST = 1
    CLAIMS_MOST = 20

    @classmethod
    def config_problems(cls, config: dict) -> list[str]:
        """What is wrong with the claim settings of ``config`` (defaults filled in), each
        message naming its key: the one rule the study form, the API, the admin and the
        metric-wise task all apply (a claims_min of 0 made the metric-wise submit fail
        with a server error: citation precision over no claim)."""
        problems = []
        merged = {**cls.DEFAULT_CONFIG, **config}
        bounds = {}
        for key in ("claims_min", "claims_max"):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(f"config.{key}: {value!r} is not a whole number.")
            elif not cls.CLAIMS_LEAST <= value <= cls.CLAIMS_MOST:
                problems.append(f"config.{key}: {value} is not between {cls.CLAIMS_LEAST} and "
                                f"{cls.CLAIMS_MOST} (citation precision and recall are computed "
                                f"over a report's claims).")  # fmt: skip
            else:
                bounds[key] = value
        if len(bounds) == 2 and bounds["claims_min"] > bounds["claims_max"]:
            problems.append(f"config.claims_max: {bounds['claims_max']} is less than claims_min "
                            f"{bounds['claims_min']}.")  # fmt: skip
        return problems

    def clean(self):
        from django.core.exceptions import ValidationError

        super().clean()
        problems = self.config_problems(self.config or {})
        if problems:
            raise ValidationError({"config": problems})


class Question(models.Model):
    """A question of a study. Imported questions are accepted as they come; a question an
    annotator authored (origin expert-authored, ``authored_by`` set) waits for a researcher's
    review and is assigned to nobody until it is accepted."""

    class Origin(models.TextChoices):
        REAL_USER = "real_user", "Real user"
        SURVEY_MINED = "survey_mined", "Survey-mined"
        EXPERT_AUTHORED = "expert_authored", "Expert-authored"
        SYNTHETIC = "synthetic", "Synthetic"
        OTHER = "other", "Other"

    class Review(models.TextChoices):
        ACCEPTED = "accepted", "Accepted"
        PENDING = "pending", "Pending review"
        REJECTED = "rejected", "Rejected"

    #: No index of its own: the unique (study, external_id) leads with it (issue 29).
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="questions", db_index=False
    )
    external_id = models.CharField(max_length=200, help_text="Natural key within the study")
    text = models.TextField()
    field = models.CharField(max_length=200, blank=True)
    subdomain = models.CharField(max_length=200, blank=True)
    domain = models.CharField(max_length=200, blank=True)
    split = models.CharField(max_length=50, blank=True)
    origin = models.CharField(max_length=30, choices=Origin.choices, default=Origin.OTHER)
    intent = models.CharField(max_length=200, blank=True)
    cutoff_date = models.DateField(null=True, blank=True)
    authored_by = models.ForeignKey(
        "annotation.Annotator",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="authored_questions",
    )
    #: The author's notes on what a good answer must contain (authored questions).
    author_notes = models.TextField(blank=True)
    review = models.CharField(max_length=10, choices=Review.choices, default=Review.ACCEPTED)
    #: The question's record as its benchmark released it (``{"format", "record", "data"}``),
    #: for the formats whose export writes it back: an admin's later edit of ``field`` (the
    #: expertise assignment matches on) must not rewrite the released file on export. Text,
    #: as a report's released record: PostgreSQL's jsonb would reorder the record's keys.
    released = JSONText(null=True, blank=True)
    #: (Declared last: a backup's columns are in this order, added ones last.) The
    #: question's own name when its benchmark gives one, shown as its :attr:`label`:
    #: a DeepScholar-Bench question is a paper (its text the templated instruction every
    #: question shares, then the paper's abstract), named by the paper's title.
    title = models.TextField(
        blank=True, help_text="A name for the question (a DeepScholar paper's title)"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="question_natural_key")
        ]
        ordering = ["study", "id"]

    def __str__(self) -> str:
        return self.label[:80]

    @property
    def label(self) -> str:
        """How a question is named in a line (queues, study pages, adjudication and review
        lists, report tables, selectors): its :attr:`title` when it has one, else its text.
        The one declaration every such place uses, each cutting it to its own width: the
        DeepScholar questions' texts all begin with the same ~120-character instruction,
        so their first characters named every paper alike."""
        return self.label_of(self.title, self.text)

    @staticmethod
    def label_of(title: str, text: str) -> str:
        """:attr:`label` of a question read as values (``title``, ``text``), not a row."""
        return title or text


class Rubric(models.Model):
    """One rubric for a question; a question may have several (hybrid, survey, parametric…)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="rubrics")
    kind = models.CharField(max_length=50, default="default")
    public_id = models.CharField(max_length=20, default=public_token, unique=True)
    #: The rubric's record as its benchmark's rubric file released it (``{"format",
    #: "record", "data"}``: ResearcherBench's ``rubric.json``), so the export writes that
    #: record back, ids, weights' types, key order and extra keys as they came; only an item
    #: stored differently since (an admin's edit) is written over. Set by the import of
    #: such a file, cleared by a rubric import of another format. Text, as
    #: :attr:`Question.released`: PostgreSQL's jsonb would reorder the record's keys.
    released = JSONText(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "kind"], name="rubric_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.kind} rubric for {self.question_id}"


class RubricItem(models.Model):
    class Type(models.TextChoices):
        INFORMATION = "information", "Information"
        DEPTH = "depth", "Depth"
        CITATION = "citation", "Citation"
        LIMITATION = "limitation", "Limitation"
        COMPARISON = "comparison", "Comparison"
        EXAMPLE = "example", "Example"
        IMPACT = "impact", "Impact"
        OTHER = "other", "Other"

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    text = models.TextField()
    item_type = models.CharField(max_length=20, choices=Type.choices, default=Type.INFORMATION)
    weight = models.FloatField(default=1.0)
    cited_paper = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rubric", "position"], name="rubric_item_position")
        ]
        ordering = ["rubric", "position"]

    def __str__(self) -> str:
        return self.text[:80]


class System(models.Model):
    """A report generator. Its name is never shown to annotators (blinding)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "name"], name="system_natural_key")]
        ordering = ["study", "name"]

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Citation:
    """A source a report cites, one item of :attr:`Report.citations` (a value, not a row).
    Title-only and bare citations are kept as they are. ``key`` is the id as it appears in
    the report's text; judgments and judge verdicts name a source by it."""

    class Kind(models.TextChoices):
        SNIPPET = "snippet", "With evidence snippets"
        TITLE_ONLY = "title_only", "Title only"
        BARE = "bare", "Bare (no title, no snippet)"

    key: str
    title: str = ""
    snippets: list = field(default_factory=list)
    url: str = ""
    metadata: dict = field(default_factory=dict)

    #: The support scales of a claim's citation (:attr:`scale`).
    SCALES = ("snippet", "link", "title_only", "bare")

    def __str__(self) -> str:
        return f"{self.key} ({self.kind})"

    @property
    def scale(self) -> str:
        """What a claim's citation of this source is judged on (the metric-wise claim form,
        ScholarQA-CS2 guidelines Part 1 step 2): its ``kind``, except that a source with no
        title nor snippet but an http(s) address is ``"link"``: the annotator opens it and
        judges the page, as any source with evidence (supports 1 / does not 0). Only a
        source with nothing to check (``"bare"``: no address, title nor snippet) is fixed
        at 0. Why: Perplexity cites by address only (ResearcherBench), and a scale fixing
        every such source at 0 made its citation precision 0 by construction."""
        from annotation.links import is_web_url

        kind = self.kind
        return "link" if kind == self.Kind.BARE and is_web_url(self.url) else kind

    @property
    def kind(self) -> str:
        if any(s.strip() for s in self.snippets or []):
            return self.Kind.SNIPPET
        if self.title.strip():
            return self.Kind.TITLE_ONLY
        return self.Kind.BARE

    @classmethod
    def from_json(cls, item: dict) -> "Citation":
        """One stored item (:meth:`as_json`) as a value."""
        return cls(
            item["key"],
            item.get("title") or "",
            list(item.get("snippets") or []),
            item.get("url") or "",
            dict(item.get("metadata") or {}),
        )

    def as_json(self) -> dict:
        return citation_item(self.key, self.title, self.snippets, self.url, self.metadata)


def citation_item(key: str, title: str, snippets, url: str, metadata: dict) -> dict:
    """One item of :attr:`Report.citations`, as every writer stores it (the importers,
    the API, ``normalise_reports``, :meth:`Citation.as_json`); :meth:`Citation.from_json`
    reads it."""
    return {"key": key, "title": title, "snippets": list(snippets), "url": url,
            "metadata": metadata}  # fmt: skip


#: The longest citation key and URL a report may store (what the rows held; the API and
#: the admin refuse longer ones, naming the field).
CITATION_KEY_MAX = 300
CITATION_URL_MAX = 2000


def check_citations(value) -> None:
    """What :attr:`Report.citations` may hold (the admin's and the model's check): a list
    of ``{"key", "title", "snippets", "url", "metadata"}`` with unique keys of at most
    :data:`CITATION_KEY_MAX` characters; the error names the item and field."""
    from django.core.exceptions import ValidationError

    if not isinstance(value, list):
        raise ValidationError("expected a list of citations")
    seen = set()
    kinds = {"key": str, "title": str, "snippets": list, "url": str, "metadata": dict}
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ValidationError(f"citations[{i}]: expected an object")
        for name, kind in kinds.items():
            if (name == "key" or name in item) and not isinstance(item.get(name), kind):
                raise ValidationError(f"citations[{i}].{name}: expected {kind.__name__}")
        unknown = sorted(set(item) - set(kinds))
        if unknown:
            raise ValidationError(f"citations[{i}]: unknown field {unknown[0]!r}")
        key = item["key"]
        if not key or len(key) > CITATION_KEY_MAX:
            raise ValidationError(f"citations[{i}].key: 1 to {CITATION_KEY_MAX} characters")
        if len(item.get("url", "")) > CITATION_URL_MAX:
            raise ValidationError(f"citations[{i}].url: longer than {CITATION_URL_MAX}")
        if not all(isinstance(x, str) for x in item.get("snippets", [])):
            raise ValidationError(f"citations[{i}].snippets: expected a list of strings")
        if key in seen:
            raise ValidationError(f"citations[{i}].key: {key!r} is listed twice")
        seen.add(key)


def check_anchors(anchors, text: str, keys) -> None:
    """What :attr:`Paragraph.anchors` may hold: ``[start, end, key]`` items within the
    paragraph's text, not overlapping, each naming one of the report's sources."""
    from django.core.exceptions import ValidationError

    if not isinstance(anchors, list):
        raise ValidationError({"anchors": "expected a list of [start, end, key]"})
    end_before = 0
    for i, a in enumerate(sorted(anchors, key=lambda a: a[0] if isinstance(a, list) and a else 0)):
        if not (
            isinstance(a, list) and len(a) == 3
            and all(isinstance(x, int) and not isinstance(x, bool) for x in a[:2])
            and isinstance(a[2], str)
        ):  # fmt: skip
            raise ValidationError({"anchors": f"anchors[{i}]: expected [start, end, key]"})
        start, end, key = a
        if not 0 <= start < end <= len(text):
            raise ValidationError({"anchors": f"anchors[{i}]: {start}-{end} is outside the text"})
        if start < end_before:
            raise ValidationError({"anchors": f"anchors[{i}]: overlaps the anchor before it"})
        if key not in keys:
            raise ValidationError({"anchors": f"anchors[{i}]: the report cites no source {key!r}"})
        end_before = end


class ReportQuerySet(models.QuerySet):
    def readable(self):
        """The reports with something to read: a paragraph or a table. An empty report (a
        released file's ``"sections": []``, the pairwise import's textless placeholder) is
        never planned into an assignment (issue 25)."""
        return self.filter(
            models.Exists(Paragraph.objects.filter(report=models.OuterRef("pk")))
            | models.Exists(
                Section.objects.filter(report=models.OuterRef("pk"), table__isnull=False)
            )
        )


class Report(models.Model):
    """A system's answer to a question, structured for uniform rendering."""

    #: No index of its own: the natural key (question, system) leads with it (an index
    #: per row written is CPU at import, issue 29).
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="reports", db_index=False
    )
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="reports")
    public_id = models.CharField(max_length=20, default=public_token, unique=True)
    source_format = models.CharField(max_length=30, blank=True)
    #: The report as the system wrote it, before normalisation (annotation.normalise):
    #: researchers only; annotators read the normalised sections.
    original = JSONText(default=dict, blank=True)
    #: Bumped whenever what an annotator reads of the report (its sections, paragraphs,
    #: citations, anchors) is written again (:func:`bump_content_version`): the task page
    #: reuses a rendering only for the same id, public id and version (issue 29,
    #: ``annotation.rendering.page_reports``).
    content_version = models.PositiveIntegerField(default=0, editable=False)
    #: The sources the report cites, normalised: ``[{"key", "title", "snippets", "url",
    #: "metadata"}, …]`` in the report's order, keys unique (:class:`Citation`,
    #: :func:`cited`).
    citations = JSONText(default=list, blank=True, validators=[check_citations])

    objects = ReportQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "system"], name="report_natural_key")
        ]

    def __str__(self) -> str:
        return f"report {self.public_id}"


def bump_content_version(report_ids) -> None:
    """Mark these reports' readable content as changed: a rendering kept by a server
    process for an earlier version is not shown again. Every writer of sections,
    paragraphs, citations or anchors of an existing report calls it (the structure writer,
    ``normalise_reports``, the admin). In chunks: an import may rewrite many reports."""
    ids = sorted(set(report_ids))
    for i in range(0, len(ids), 2000):
        Report.objects.filter(pk__in=ids[i : i + 2000]).update(
            content_version=models.F("content_version") + 1
        )


class Section(models.Model):
    #: Indexed by its unique (report, position) (as Paragraph's and Citation's report).
    report = models.ForeignKey(
        Report, on_delete=models.CASCADE, related_name="sections", db_index=False
    )
    position = models.PositiveIntegerField()
    title = models.TextField(blank=True)
    table = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["report", "position"]
        constraints = [
            models.UniqueConstraint(fields=["report", "position"], name="section_position")
        ]

    def __str__(self) -> str:
        return f"section {self.position}: {self.title[:60]}"


class Paragraph(models.Model):
    """A paragraph, numbered 1..n across the whole report (what annotators refer to)."""

    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="paragraphs")
    report = models.ForeignKey(
        Report, on_delete=models.CASCADE, related_name="paragraphs", db_index=False
    )
    number = models.PositiveIntegerField()
    text = models.TextField()
    #: Where citation markers stand in :attr:`text`: ``[[start, end, key], …]`` (character
    #: offsets, sorted by start, ``key`` one of the report's :attr:`Report.citations`).
    anchors = JSONText(default=list, blank=True)

    class Meta:
        ordering = ["report", "number"]
        constraints = [
            models.UniqueConstraint(fields=["report", "number"], name="paragraph_number")
        ]

    def __str__(self) -> str:
        return f"paragraph {self.number}"

    def clean(self):
        if self.report_id is not None:
            keys = {c.get("key") for c in self.report.citations if isinstance(c, dict)}
            check_anchors(self.anchors, self.text, keys)


def cited(stored) -> dict[str, Citation]:
    """A report's sources by key, from its stored :attr:`Report.citations` list."""
    return {item["key"]: Citation.from_json(item) for item in stored or ()}


def citation_keys(reports) -> set[tuple[int, str]]:
    """``(report id, key)`` of every source of ``reports`` (a Report queryset): what the
    importers of judge verdicts and claims check a named source against (one query)."""
    return {
        (rid, c["key"])
        for rid, cites in reports.values_list("pk", "citations")
        for c in cites or ()
    }
