"""API shapes for the annotation app.

Two families: the *staff* serializers (researchers read them, admins write through them) and
the *annotator* serializers, which are read-only and blinded: no system name or id, no report
database id, no rubric kind, no report source format, no citation metadata; reports and
rubrics are identified by ``public_id`` only. A viewset picks one family per request
(``annotation.api``); querysets are prefetched there so serializers never query per row.
"""

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils.functional import lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation import roles
from annotation.annotate import scores
from annotation.assignment import expert_of
from annotation.links import shown_snippet, shown_text, shown_title, shown_url
from annotation.models import (
    Annotator,
    Assignment,
    Citation,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
    Paragraph,
    Question,
    Report,
    Rubric,
    RubricItem,
    Section,
    Setting,
    Study,
    System,
    Webhook,
    WebhookDelivery,
)
from annotation.models.content import CITATION_KEY_MAX
from annotation.models.quality import is_qualification_item, is_qualification_task
from annotation.protection import judgment_models
from annotation.rubric_weights import weight_refusal
from annotation.units import (
    JudgedUnitChanged,
    JudgedUnitRemoved,
    refused_changes,
    reword_refusal,
    write_rubric_items,
)


def _has_judgments(assignment: Assignment) -> bool:
    """Whether any judgment (of any kind) was written under ``assignment``."""
    return any(m.objects.filter(assignment=assignment).exists() for m in judgment_models())


def task_url(request, assignment_id: int) -> str:
    """The absolute browser URL of an assignment's task page."""
    path = reverse("annotate:task", args=[assignment_id])
    return request.build_absolute_uri(path) if request is not None else path


class ReportRef(serializers.SlugRelatedField):
    """A report referred to by its ``public_id`` (the only report id annotators ever see)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("slug_field", "public_id")
        if not kwargs.get("read_only"):
            kwargs.setdefault("queryset", Report.objects.all())
        super().__init__(**kwargs)


# --- Studies, questions, rubrics, systems ------------------------------------------------------


@extend_schema_field(
    # The same choice set as Assignment.task: one enum component for both (TaskEnum).
    {"type": "array", "items": {"$ref": "#/components/schemas/TaskEnum"}}
)
class TaskListField(serializers.ListField):
    pass


class StudySerializer(serializers.ModelSerializer):
    tasks = TaskListField(
        child=serializers.ChoiceField(choices=Study.Task.choices),
        required=False,
        help_text="Enabled task types",
    )

    researchers = serializers.SlugRelatedField(
        many=True,
        slug_field="username",
        queryset=User.objects.filter(groups__name=roles.RESEARCHER),
        required=False,
        help_text="User names of the researchers who may read this study (admins read all)",
    )

    class Meta:
        model = Study
        fields = ["id", "name", "description", "tasks", "tasks_chosen", "config", "researchers",
                  "created_at"]  # fmt: skip
        read_only_fields = ["created_at", "tasks_chosen"]

    def validate(self, attrs):
        if "tasks" in attrs:
            attrs["tasks_chosen"] = True  # an admin's choice: imports no longer change it
        return attrs

    def validate_config(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be a JSON object.")
        problems = Study.config_problems(value)
        if problems:
            raise serializers.ValidationError(problems)
        return value


def import_kinds_help() -> str:
    """The import kinds, from the one format registry (``annotation.importers.registry``)."""
    from annotation.importers.registry import KINDS

    return "What the file holds: " + ", ".join(sorted(KINDS))


def import_formats_help() -> str:
    """Every format of each import kind, from the one format registry: the description
    listed three kinds' formats by hand and missed the others (judge scores, judgments,
    DeepScholar…). Read when the schema is built: the judges app registers its formats
    when it is ready."""
    from annotation.importers.registry import FORMATS

    by_kind: dict[str, list[str]] = {}
    for kind, name in sorted(FORMATS):
        by_kind.setdefault(kind, []).append(name)
    return "; ".join(f"{kind}: {' | '.join(names)}" for kind, names in by_kind.items())


class StudyImportSerializer(serializers.Serializer):
    """The upload form of ``POST /api/studies/{id}/import/``."""

    kind = serializers.CharField(help_text=lazy(import_kinds_help, str)())
    format = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=lazy(import_formats_help, str)(),
    )
    file = serializers.FileField()
    dry_run = serializers.BooleanField(required=False, default=False)
    options = serializers.JSONField(
        binary=True,  # multipart sends it as a JSON string
        required=False,
        default=dict,
        help_text='Importer options as a JSON object, e.g. {"system": "…"} or '
        '{"annotator": "…", "judge": "…"}; a file option (rubric) is sent as its own part',
    )

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be a JSON object.")
        return value


class StudyDeletionSerializer(serializers.Serializer):
    """What deleting a study did (``DELETE /api/studies/{id}/?confirm=<name>``)."""

    study = serializers.CharField()
    backup = serializers.CharField(help_text="File name of the backup written first")
    judgments = serializers.IntegerField()
    versions = serializers.IntegerField(help_text="Draft versions deleted with the study")


class ImportProblemSerializer(serializers.Serializer):
    file = serializers.CharField()
    record = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class ImportChangeSerializer(serializers.Serializer):
    """``annotation.importers.base.Change``: one stored record an import changes."""

    table = serializers.CharField()
    id = serializers.CharField(help_text="the stored row by its natural key")
    fields = serializers.ListField(child=serializers.CharField())
    file = serializers.CharField(allow_null=True)
    record = serializers.IntegerField(allow_null=True, help_text="the file's record, 1-based")
    detail = serializers.CharField(
        allow_blank=True,
        help_text="short values' old -> new (e.g. a judge's score); a record created or "
        "unchanged: its short values",
    )
    action = serializers.ChoiceField(
        choices=["created", "updated", "unchanged"],
        help_text="what the import does to the record: updated (every import lists these); "
        "created or unchanged (listed by the human judgments import, which names every "
        "judgment it writes)",
    )


class ImportReportSerializer(serializers.Serializer):
    """``annotation.importers.base.ImportReport`` as JSON."""

    kind = serializers.CharField()
    dry_run = serializers.BooleanField()
    records = serializers.IntegerField()
    created = serializers.DictField(child=serializers.IntegerField())
    updated = serializers.DictField(child=serializers.IntegerField())
    unchanged = serializers.DictField(child=serializers.IntegerField())
    enabled_tasks = serializers.ListField(
        child=serializers.CharField(),
        help_text="tasks this import enabled in a study that had none (those its data supports)",
    )
    annotators = serializers.DictField(
        child=serializers.CharField(),
        help_text="pseudonym -> which annotator it matched (new, existing, or an account's)",
    )
    warnings = ImportProblemSerializer(
        many=True,
        help_text="what was imported by a documented rule rather than as written (e.g. a "
        "citation with an empty id, a marker citing no listed source, a question given twice)",
    )
    changes = ImportChangeSerializer(
        many=True,
        help_text="each stored record the import changes (a dry run: would change) and which "
        "of its fields; the human judgments import also lists each one it creates or leaves "
        "unchanged",
    )
    summary = serializers.CharField()


class QuestionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Question
        fields = [
            "id",
            "study",
            "external_id",
            "text",
            "title",
            "field",
            "subdomain",
            "domain",
            "split",
            "origin",
            "intent",
            "cutoff_date",
            "authored_by",
        ]

    def validate(self, attrs):
        study = attrs.get("study", getattr(self.instance, "study", None))
        author = attrs.get("authored_by")
        if self.instance is not None and "study" in attrs and attrs["study"] != self.instance.study:
            raise serializers.ValidationError({"study": "A question cannot move to another study."})
        if author is not None and study is None:
            raise serializers.ValidationError({"study": "Required."})
        return attrs


class AnnotatorQuestionSerializer(serializers.ModelSerializer):
    """What an annotator sees of a question: its text and field, nothing about its source.
    The text as the task page shows it (:func:`annotation.links.shown_text`: no text
    fragment nor tracking parameter in an address it holds)."""

    class Meta:
        model = Question
        fields = ["id", "study", "text", "field", "subdomain", "domain"]
        read_only_fields = fields

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if isinstance(data.get("text"), str):
            data["text"] = shown_text(data["text"])
        return data


class RubricItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = RubricItem
        fields = ["position", "text", "item_type", "weight", "cited_paper"]


class UnitConflict(serializers.ValidationError):
    """A PATCH that would remove judged rubric items or paragraphs (annotation.units):
    409 naming the field; nothing changed (the serializer's transaction rolls back). One
    that would reword a judged item is a plain 400 on that item's ``text``."""

    status_code = 409
    default_code = "conflict"


class RubricSerializer(serializers.ModelSerializer):
    items = RubricItemSerializer(many=True, required=False)

    class Meta:
        model = Rubric
        fields = ["id", "public_id", "question", "kind", "items"]
        read_only_fields = ["public_id"]

    def validate_items(self, items):
        if self.partial:
            # A PATCH replaces the items, so each must be complete: validate them as on a
            # create (a missing position is a 400 naming it, not a KeyError).
            full = RubricItemSerializer(data=self.initial_data.get("items"), many=True)
            if not full.is_valid():
                raise serializers.ValidationError(full.errors)
            items = full.validated_data
        positions = [i["position"] for i in items]
        if len(set(positions)) != len(positions):
            raise serializers.ValidationError("Item positions must be unique.")
        return items

    def validate(self, attrs):
        """A rubric with judged items keeps its question and kind (annotation.units): a 400
        naming the rubric and the field, nothing written."""
        if self.instance is not None and (refused := refused_changes(self.instance, attrs)):
            raise serializers.ValidationError({k: [v] for k, v in refused.items()})
        return attrs

    def to_internal_value(self, data):
        """Its items' weights in its kind's range first (:meth:`_check_weights`)."""
        self._check_weights(data)
        return super().to_internal_value(data)

    def _check_weights(self, data) -> None:
        """A 400 on each item's ``weight`` its rubric's kind refuses
        (:func:`annotation.rubric_weights.weight_refusal`, the import's rule), naming the
        rubric and the item. Asked of the weights as sent, before the fields are read: a
        string is refused as the import refuses it (neither read as a number nor answered
        a bare "A valid number is required."). A kind changed with no items given asks
        the stored ones."""
        if not isinstance(data, dict):
            return  # the fields' own errors say what the body should be
        kind = data.get("kind", getattr(self.instance, "kind", None))
        name = f"rubric {self.instance.public_id}, " if self.instance is not None else ""
        sent = data.get("items")
        if isinstance(sent, list):
            errors = [
                {"weight": [f"{name}item at position {i.get('position')}: {refusal}"]}
                if isinstance(i, dict) and (refusal := weight_refusal(kind, i.get("weight", 1)))
                else {}
                for i in sent
            ]
            if any(errors):
                raise serializers.ValidationError({"items": errors})
        elif self.instance is not None and sent is None and kind != self.instance.kind:
            for position, weight in self.instance.items.values_list("position", "weight"):
                if refusal := weight_refusal(kind, weight):
                    raise serializers.ValidationError(
                        {"kind": [f"{name}item at position {position}: {refusal}"]}
                    )

    @transaction.atomic
    def create(self, validated_data):
        items = validated_data.pop("items", [])
        rubric = super().create(validated_data)
        RubricItem.objects.bulk_create(RubricItem(rubric=rubric, **i) for i in items)
        return rubric

    @transaction.atomic
    def update(self, instance, validated_data):
        items = validated_data.pop("items", None)
        rubric = super().update(instance, validated_data)
        if items is not None:  # the items given replace the rubric's items, by position
            try:  # in place: judgments point at the items (annotation.units)
                write_rubric_items({rubric.pk: [dict(i) for i in items]})
            except JudgedUnitChanged as refused:  # a 400 on each changed kept field
                raise serializers.ValidationError({"items": [
                    {name: [reword_refusal(rubric.public_id, i["position"], kinds, name)]
                     for name in refused.fields.get((rubric.pk, i["position"]), ["text"])}
                    if (kinds := refused.kinds(rubric.pk, i["position"])) else {}
                    for i in items
                ]}) from None  # fmt: skip
            except JudgedUnitRemoved as refused:
                raise UnitConflict(
                    {"items": f"rubric {rubric.public_id} " + refused.message(rubric.pk)}
                ) from None
            if hasattr(rubric, "_prefetched_objects_cache"):
                rubric._prefetched_objects_cache.pop("items", None)
        return rubric


class AnnotatorRubricItemSerializer(RubricItemSerializer):
    """An item's text as the task page shows it (:func:`annotation.links.shown_text`)."""

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if isinstance(data.get("text"), str):
            data["text"] = shown_text(data["text"])
        return data


class AnnotatorRubricSerializer(serializers.ModelSerializer):
    """Blinded: no database id and no kind (which can tell how a rubric was made)."""

    items = AnnotatorRubricItemSerializer(many=True, read_only=True)

    class Meta:
        model = Rubric
        fields = ["public_id", "question", "items"]
        read_only_fields = fields


class SystemSerializer(serializers.ModelSerializer):
    class Meta:
        model = System
        fields = ["id", "study", "name"]


# --- Reports: sections -> paragraphs -> citation anchors; citations --------------------------


class CitationAnchorSerializer(serializers.Serializer):
    """An anchor of :attr:`Paragraph.anchors` (stored ``[start, end, key]``) as an object."""

    citation = serializers.CharField(help_text="The citation's key")
    start = serializers.IntegerField(min_value=0, max_value=2**31 - 1)
    end = serializers.IntegerField(min_value=0, max_value=2**31 - 1)

    def to_representation(self, instance):
        start, end, key = instance
        return {"citation": key, "start": start, "end": end}


class ParagraphSerializer(serializers.ModelSerializer):
    anchors = CitationAnchorSerializer(many=True, required=False)

    class Meta:
        model = Paragraph
        fields = ["number", "text", "anchors"]


class SectionSerializer(serializers.ModelSerializer):
    paragraphs = ParagraphSerializer(many=True, required=False)

    class Meta:
        model = Section
        fields = ["position", "title", "table", "paragraphs"]


@extend_schema_field(
    {"anyOf": [{"type": "string", "format": "uri"}, {"type": "string", "maxLength": 0}]}
)
class OptionalURLField(serializers.URLField):
    """A URL or ``""``: bare and title-only citations often have no link, and an empty
    string is not a ``format: uri`` value, so the schema says both."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("max_length", 2000)
        super().__init__(**kwargs)


class CitationSerializer(serializers.Serializer):
    """A source of :attr:`Report.citations` (stored as JSON on the report, issue 29)."""

    key = serializers.CharField(
        max_length=CITATION_KEY_MAX, help_text="The id as it appears in the report text"
    )
    title = serializers.CharField(required=False, allow_blank=True)
    snippets = serializers.JSONField(required=False)
    url = OptionalURLField(required=False)
    metadata = serializers.JSONField(required=False)
    kind = serializers.ChoiceField(choices=Citation.Kind.choices, read_only=True)

    def to_representation(self, instance):
        if isinstance(instance, dict):
            instance = Citation.from_json(instance)
        return super().to_representation(instance)

    def validate_snippets(self, value):
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            raise serializers.ValidationError("Must be a list of strings.")
        return value

    def validate_metadata(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be an object.")
        return value


class AnnotatorCitationSerializer(CitationSerializer):
    """What an annotator may read of a source: no metadata (it may name the system)."""

    metadata = None

    def get_fields(self):
        fields = super().get_fields()
        for f in fields.values():
            f.read_only = True
        return fields

    def to_representation(self, instance):
        """The address as the task page links it (:func:`annotation.links.shown_url`): no
        text fragment nor tracking parameter naming the system, whenever the report was
        stored; the title and snippets as the task page shows them (their addresses so
        cleaned, a text fragment's words as a quotation: ``shown_title``, ``shown_snippet``)."""
        data = super().to_representation(instance)
        if data.get("url"):
            data["url"] = shown_url(data["url"])
        if data.get("title"):
            data["title"] = shown_title(data["title"])
        if isinstance(data.get("snippets"), list):
            data["snippets"] = [
                shown_snippet(x) if isinstance(x, str) else x for x in data["snippets"]
            ]
        return data


class AnnotatorParagraphSerializer(ParagraphSerializer):
    """A paragraph as the task page shows it: every address in its text cleaned
    (:func:`annotation.links.shown_text`: no text fragment nor tracking parameter, also
    in a report stored before the rule), its anchors moved with the text."""

    def to_representation(self, instance):
        data = super().to_representation(instance)
        text = data.get("text") or ""
        if "=" in text:
            spans = [(a["start"], a["end"], a) for a in data["anchors"]]
            data["text"], moved = shown_text(text, spans)
            data["anchors"] = [{**a, "start": start, "end": end} for start, end, a in moved]
        return data


class AnnotatorSectionSerializer(SectionSerializer):
    paragraphs = AnnotatorParagraphSerializer(many=True, read_only=True)

    def to_representation(self, instance):
        """The title, and a ScholarQA table's Markdown text, cleaned as a paragraph's."""
        data = super().to_representation(instance)
        if isinstance(data.get("title"), str):
            data["title"] = shown_text(data["title"])
        table = data.get("table")
        if isinstance(table, dict) and isinstance(table.get("text"), str):
            data["table"] = {**table, "text": shown_text(table["text"])}
        return data


class ReportSerializer(serializers.ModelSerializer):
    """A report with its whole structure. On write, ``sections`` and ``citations`` (when
    given) replace the report's structure; anchors name citations by key."""

    system_name = serializers.CharField(source="system.name", read_only=True)
    sections = SectionSerializer(many=True, required=False)
    citations = CitationSerializer(many=True, required=False)
    original = serializers.JSONField(
        read_only=True,
        help_text="The report as the system wrote it, before normalisation (researchers only).",
    )

    class Meta:
        model = Report
        fields = [
            "id",
            "public_id",
            "question",
            "system",
            "system_name",
            "source_format",
            "sections",
            "citations",
            "original",
        ]
        read_only_fields = ["public_id", "original"]

    def validate(self, attrs):
        question = attrs.get("question", getattr(self.instance, "question", None))
        system = attrs.get("system", getattr(self.instance, "system", None))
        if question and system and question.study_id != system.study_id:
            raise serializers.ValidationError(
                {"system": "The system and the question belong to different studies."}
            )
        # a report experts labelled or judges scored keeps its question and system
        # (annotation.units); its sections and sources are refused by the writer (409)
        moved = {k: v for k, v in attrs.items() if k in ("question", "system")}
        if self.instance is not None and (refused := refused_changes(self.instance, moved)):
            raise serializers.ValidationError({k: [v] for k, v in refused.items()})
        errors = {}
        sections = attrs.get("sections")
        citations = attrs.get("citations")
        if citations is not None:
            keys = [c["key"] for c in citations]
            if len(set(keys)) != len(keys):
                errors["citations"] = "Citation keys must be unique within a report."
        else:
            keys = [] if self.instance is None else [c["key"] for c in self.instance.citations]
        if sections is not None:
            if len({s["position"] for s in sections}) != len(sections):
                errors["sections"] = "Section positions must be unique."
            numbers = [p["number"] for s in sections for p in s.get("paragraphs", [])]
            if len(set(numbers)) != len(numbers):
                errors["sections"] = "Paragraph numbers must be unique across the report."
            for s in sections:
                for p in s.get("paragraphs", []):
                    for a in p.get("anchors", []):
                        if a["citation"] not in keys:
                            errors["sections"] = (
                                f"Paragraph {p['number']}: anchor cites unknown key "
                                f"{a['citation']!r}."
                            )
                        if not 0 <= a["start"] <= a["end"] <= len(p["text"]):
                            errors["sections"] = (
                                f"Paragraph {p['number']}: anchor offsets "
                                f"{a['start']}..{a['end']} are outside the text."
                            )
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    @transaction.atomic
    def create(self, validated_data):
        from annotation.importers.structure import citations_json

        sections = validated_data.pop("sections", [])
        citations = validated_data.pop("citations", [])
        normalised, original = normalised_structure(sections, citations)
        # inserted with its record and sources, as the importers insert a new report
        # (write_structures then writes its sections and paragraphs only)
        report = Report.objects.create(
            **validated_data, original=original, citations=citations_json(normalised)
        )
        self._write_structure(report, normalised, original, new=True)
        return report

    @transaction.atomic
    def update(self, instance, validated_data):
        sections = validated_data.pop("sections", None)
        citations = validated_data.pop("citations", None)
        report = super().update(instance, validated_data)
        if sections is not None or citations is not None:
            if citations is None:
                citations = list(report.citations)
            if sections is None:
                sections = SectionSerializer(report.sections.all(), many=True).data
            self._write_structure(report, *normalised_structure(sections, citations), new=False)
            report.refresh_from_db(fields=["citations"])  # the response shows them as stored
            if hasattr(report, "_prefetched_objects_cache"):
                report._prefetched_objects_cache.clear()
        return report

    @staticmethod
    def _write_structure(report, normalised, original, *, new: bool) -> None:
        """Store the structure normalised (:func:`normalised_structure`, issue 12): what an
        API client writes is read by annotators in the same one format as imported
        reports, and stored by the same writer
        (``annotation.importers.structure.write_structures``).

        An existing report (``new`` False) keeps its sections by position and paragraphs
        by number, updated in place (judgments point at paragraphs, annotation.units);
        removing a judged paragraph is a 409 naming ``sections`` and the caller's
        transaction rolls back."""
        from annotation.importers.base import ImportReport
        from annotation.importers.structure import write_structures

        rep = ImportReport(kind="reports", dry_run=False)
        try:
            write_structures([(report, normalised, original)], rep, {report.pk} if new else set())
        except JudgedUnitRemoved as refused:
            raise UnitConflict(
                {"sections": f"report {report.public_id} " + refused.message(report.pk)}
            ) from None


def normalised_structure(sections: list[dict], citations: list[dict]):
    """Validated ``sections`` / ``citations`` of the API, normalised as an import's
    (annotation.normalise): (the normalised report, its original)."""
    from annotation.normalise import normalise_report

    return normalise_report(parsed_structure(sections, citations))


def parsed_structure(sections: list[dict], citations: list[dict]):
    """Validated ``sections`` / ``citations`` of the API as a ParsedReport."""
    from annotation.importers.structure import (
        ParsedCitation,
        ParsedParagraph,
        ParsedReport,
        ParsedSection,
    )

    return ParsedReport(
        sections=[
            ParsedSection(
                title=s.get("title") or "",
                table=s.get("table"),
                paragraphs=[
                    ParsedParagraph(
                        p["text"],
                        [(a["start"], a["end"], a["citation"]) for a in p.get("anchors", [])],
                    )
                    for p in sorted(s.get("paragraphs", []), key=lambda p: p["number"])
                ],
            )
            for s in sorted(sections, key=lambda s: s["position"])
        ],
        citations={
            c["key"]: ParsedCitation(
                key=c["key"],
                title=c.get("title") or "",
                snippets=list(c.get("snippets") or []),
                url=c.get("url") or "",
                metadata=dict(c.get("metadata") or {}),
            )
            for c in citations
        },
    )


class AnnotatorReportSerializer(serializers.ModelSerializer):
    """Blinded report: no id, no system, no source format, no citation metadata."""

    sections = AnnotatorSectionSerializer(many=True, read_only=True)
    citations = AnnotatorCitationSerializer(many=True, read_only=True)

    class Meta:
        model = Report
        fields = ["public_id", "question", "sections", "citations"]
        read_only_fields = fields


# --- People and assignments --------------------------------------------------------------------


class AnnotatorSerializer(serializers.ModelSerializer):
    """An admin's view of an annotator: the profile and the account it signs in with."""

    class Meta:
        model = Annotator
        fields = ["id", "user", "pseudonym", "degree", "expertise_fields"]

    def validate_expertise_fields(self, value):
        if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
            raise serializers.ValidationError("Must be a list of strings.")
        return value


class AnnotatorProfileSerializer(serializers.ModelSerializer):
    """A researcher's view of an annotator: the pseudonymous profile only. Annotators are
    known to researchers by a generated pseudonym, never a real name
    (:mod:`annotation.pseudonyms`); the internal ``user`` id is the key to the account
    (username, e-mail) behind it, which only admins manage, so researchers do not get it
    (a researcher with a token read every annotator's ``user`` id)."""

    class Meta:
        model = Annotator
        fields = ["id", "pseudonym", "degree", "expertise_fields"]
        read_only_fields = fields


class AssignmentSerializer(serializers.ModelSerializer):
    """Staff view of an assignment. ``report_order`` holds report database ids; left empty
    on create, it is drawn at random from the question's reports (stable afterwards)."""

    task = serializers.ChoiceField(choices=Study.Task.choices)
    task_url = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "study",
            "annotator",
            "question",
            "task",
            "setting",
            "report_order",
            "status",
            "position",
            "started_at",
            "submitted_at",
            "seconds_on_task",
            "created_at",
            "task_url",
        ]
        read_only_fields = ["created_at"]

    @extend_schema_field(OpenApiTypes.URI)
    def get_task_url(self, obj) -> str:
        return task_url(self.context.get("request"), obj.pk)

    def validate(self, attrs):
        def current(name):
            return attrs.get(name, getattr(self.instance, name, None))

        study, question, task = current("study"), current("question"), current("task")
        errors = {}
        if task == Study.Task.QUESTION_AUTHORING and question is not None:
            errors["question"] = "A question authoring assignment has no question."
        elif task and task != Study.Task.QUESTION_AUTHORING and question is None:
            errors["question"] = "This field is required (only question authoring has none)."
        if question is not None and study is not None and question.study_id != study.pk:
            errors["question"] = "The question belongs to another study."
        if study is not None and task and study.tasks and task not in study.tasks:
            errors["task"] = f"Task {task!r} is not enabled in study {study.name!r}."
        order = attrs.get("report_order")
        if order is not None and question is not None:
            if not isinstance(order, list) or not all(isinstance(i, int) for i in order):
                errors["report_order"] = "Must be a list of report ids."
            else:
                known = set(question.reports.values_list("id", flat=True))
                unknown = [i for i in order if i not in known]
                if unknown or len(set(order)) != len(order):
                    errors["report_order"] = (
                        f"Must list distinct reports of question {question.pk}; "
                        f"not of it: {unknown}."
                    )
        errors.update(self.qualification_errors(attrs, current))
        errors.update(self.setting_errors(attrs, current))
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    def setting_errors(self, attrs, current) -> dict:
        """The setting says how the question reached the annotator, and every judgment
        carries it (agreement is computed within a setting): a setting is not rewritten
        once there is work under it (the judgments would keep the old one), and an
        expertise-matched assignment belongs to an expert of the question's field (a move
        to anyone else would file a non-expert's work as expert work)."""
        was, errors = self.instance, {}
        rewrites = was is not None and "setting" in attrs and attrs["setting"] != was.setting
        if rewrites and (was.status == Assignment.Status.SUBMITTED or _has_judgments(was)):
            errors["setting"] = (
                f"Cannot change: assignment {was.pk} is submitted or has judgments, which "
                f"carry its setting {was.setting!r}; the two would disagree."
            )
        moved = was is None or any(
            name in attrs and getattr(attrs[name], "pk", attrs[name]) != getattr(was, f"{name}_id")
            for name in ("annotator", "question")
        ) or ("setting" in attrs and attrs["setting"] != was.setting)  # fmt: skip
        annotator, question = current("annotator"), current("question")
        if (
            moved
            and not errors  # a refused setting is no setting to check the annotator against
            and current("setting") == Setting.EXPERTISE_MATCHED
            and annotator is not None
            and question is not None
            and not expert_of(question.field, annotator.expertise_fields)
        ):
            errors["annotator"] = (
                f"Annotator {annotator.pk} has no expertise in the question's field "
                f"({question.field or 'none'!r}): an expertise-matched assignment needs it."
            )
        return errors

    #: What a submitted qualification item's answer is read with (its labels count as the
    #: qualification attempt by status, submission time, annotator, study, task, question).
    QUALIFICATION_FIXED = ("status", "submitted_at", "annotator", "study", "question", "task")

    def qualification_errors(self, attrs, current) -> dict:
        """A qualification item's first answer decides the qualification (issue 24): as the
        review page refuses to return one for revision, the API refuses a write that would
        reopen it (shown unsubmitted while save and submit refuse it), withdraw it, move it
        or change its submission time, and one that would mark it submitted without its
        annotator's answer. Its position and seconds may still change (its setting not:
        ``setting_errors``)."""

        def pk(value):
            return getattr(value, "pk", value)

        submitted = Assignment.Status.SUBMITTED
        was = self.instance
        if was is not None and was.status == submitted and is_qualification_item(was):
            changed = [
                name for name in self.QUALIFICATION_FIXED
                if name in attrs and pk(attrs[name]) != pk(getattr(was, name))
            ]  # fmt: skip
            why = (
                f"assignment {was.pk} is a submitted qualification item: its first answer "
                "decides the qualification. To change the result, override it (pass or fail "
                "by hand, with a reason) on the study's quality page."
            )
            return {
                name: (f"Qualification items cannot be reopened: {why}" if name == "status"
                       else f"Cannot change: {why}")
                for name in changed
            }  # fmt: skip
        into = current("status") == submitted and (was is None or was.status != submitted)
        study, question = current("study"), current("question")
        if into and is_qualification_task(pk(study), current("task"), pk(question)):
            return {
                "status": "A qualification item is submitted only by its annotator's answer "
                "on the task page; the API cannot mark it submitted."
            }
        return {}

    def create(self, validated_data):
        if not validated_data.get("report_order") and validated_data.get("question"):
            ids = list(validated_data["question"].reports.values_list("id", flat=True))
            validated_data["report_order"] = Assignment.shuffled(ids)
        return super().create(validated_data)


class AnnotatorAssignmentSerializer(serializers.ModelSerializer):
    """An annotator's own assignment. Reports appear as public ids, in the annotator's
    order; the viewset prefetches ``question__reports`` so this costs no query per row."""

    question_text = serializers.CharField(
        source="question.text", read_only=True, allow_null=True, default=None
    )
    reports = serializers.SerializerMethodField(help_text="Report public ids, in display order")
    task_url = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "study",
            "question",
            "question_text",
            "task",
            "setting",
            "status",
            "position",
            "reports",
            "started_at",
            "submitted_at",
            "task_url",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_reports(self, obj) -> list[str]:
        return [r.public_id for r in assignment_reports(obj)]

    @extend_schema_field(OpenApiTypes.URI)
    def get_task_url(self, obj) -> str:
        return task_url(self.context.get("request"), obj.pk)


def assignment_reports(assignment: Assignment) -> list[Report]:
    """The reports of an assignment in the annotator's order (``report_order`` when set,
    else every report of the question by public id, an order that says nothing of systems).
    Uses ``question.reports`` (prefetch it for lists). Question authoring has none."""
    if assignment.question_id is None:
        return []
    reports = list(assignment.question.reports.all())
    if assignment.report_order:
        by_id = {r.pk: r for r in reports}
        return [by_id[i] for i in assignment.report_order if i in by_id]
    return sorted(reports, key=lambda r: r.public_id)


# --- Judgments ---------------------------------------------------------------------------------


def qualification_answer_refusal(assignment) -> str:
    """Why the API writes no judgment of a qualification item (nor deletes one): the
    annotator's own first answer decides the qualification (issue 24); one written, changed
    or removed by hand would pass or fail them on an answer that is not theirs."""
    return (
        f"assignment {assignment.pk} is a qualification item: its annotator's answer cannot be "
        "written, changed or deleted through the API (their first answer decides the "
        "qualification). To change the result, override it on the study's quality page."
    )


class JudgmentSerializer(serializers.ModelSerializer):
    """Shared checks: the question, the assignment and the reports agree with the study."""

    report_fields: tuple[str, ...] = ()

    class Meta:
        fields = [
            "id",
            "study",
            "annotator",
            "question",
            "setting",
            "assignment",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["created_at", "updated_at"]

    def validate(self, attrs):
        def current(name):
            return attrs.get(name, getattr(self.instance, name, None))

        study, question = current("study"), current("question")
        annotator, assignment = current("annotator"), current("assignment")
        errors = {}
        if question is not None and study is not None and question.study_id != study.pk:
            errors["question"] = "The question belongs to another study."
        if assignment is not None and (
            assignment.annotator_id != getattr(annotator, "pk", None)
            or assignment.question_id != getattr(question, "pk", None)
            or assignment.study_id != getattr(study, "pk", None)
        ):
            errors["assignment"] = "The assignment is for another annotator, question or study."
        held = {getattr(self.instance, "assignment", None), assignment} - {None}
        if errors.get("assignment") is None and (
            refused := next((a for a in held if is_qualification_item(a)), None)
        ):
            errors["assignment"] = qualification_answer_refusal(refused)
        for name in self.report_fields:
            report = current(name)
            if report is not None and question is not None and report.question_id != question.pk:
                errors[name] = f"Report {report.public_id} answers another question."
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class MedalSerializer(serializers.ModelSerializer):
    report = ReportRef()

    class Meta:
        model = Medal
        fields = ["report", "medal"]


class MedalRankingSerializer(JudgmentSerializer):
    """Gold/silver/bronze over 2–3 reports of the question; ``medals`` replace on write."""

    medals = MedalSerializer(many=True)

    class Meta(JudgmentSerializer.Meta):
        model = MedalRanking
        fields = [*JudgmentSerializer.Meta.fields, "reasoning", "medals"]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        medals = attrs.get("medals")
        if medals is None:
            return attrs
        question = attrs.get("question", getattr(self.instance, "question", None))
        study = attrs.get("study", getattr(self.instance, "study", None))
        reports = [m["report"] for m in medals]
        if not 2 <= len(reports) <= 3:
            raise serializers.ValidationError({"medals": "Rank 2 or 3 reports."})
        if len({r.pk for r in reports}) != len(reports):
            raise serializers.ValidationError({"medals": "Each report gets one medal."})
        stray = [r.public_id for r in reports if question and r.question_id != question.pk]
        if stray:
            raise serializers.ValidationError(
                {"medals": f"Reports answer another question: {', '.join(stray)}."}
            )
        values = {m["medal"] for m in medals}
        if (
            len(reports) == 3
            and len(values) == 1
            and study
            and not study.setting("three_way_tie_allowed")
        ):
            raise serializers.ValidationError(
                {"medals": "A three-way tie is not allowed in this study."}
            )
        return attrs

    @transaction.atomic
    def create(self, validated_data):
        medals = validated_data.pop("medals")
        ranking = MedalRanking.objects.create(**validated_data)
        Medal.objects.bulk_create(Medal(ranking=ranking, **m) for m in medals)
        return ranking

    @transaction.atomic
    def update(self, instance, validated_data):
        medals = validated_data.pop("medals", None)
        ranking = super().update(instance, validated_data)
        if medals is not None:
            ranking.medals.all().delete()
            Medal.objects.bulk_create(Medal(ranking=ranking, **m) for m in medals)
            if hasattr(ranking, "_prefetched_objects_cache"):
                ranking._prefetched_objects_cache.pop("medals", None)
        return ranking


class PairwisePreferenceSerializer(JudgmentSerializer):
    report_fields = ("left", "right")
    left = ReportRef()
    right = ReportRef()

    class Meta(JudgmentSerializer.Meta):
        model = PairwisePreference
        fields = [*JudgmentSerializer.Meta.fields, "left", "right", "choice", "reason"]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        left = attrs.get("left", getattr(self.instance, "left", None))
        right = attrs.get("right", getattr(self.instance, "right", None))
        if left is not None and left == right:
            raise serializers.ValidationError({"right": "Compare two different reports."})
        reason = attrs.get("reason", getattr(self.instance, "reason", ""))
        if not (reason or "").strip():
            raise serializers.ValidationError({"reason": "A reason is required."})
        return attrs


class HumanMetricScoreSerializer(JudgmentSerializer):
    report_fields = ("report",)
    report = ReportRef()

    class Meta(JudgmentSerializer.Meta):
        model = HumanMetricScore
        fields = [*JudgmentSerializer.Meta.fields, "report", "metric", "value"]

    def validate_metric(self, metric: str) -> str:
        """One of the human metrics (as the judgments import checks it): a misspelt name
        would be stored as a metric no analysis reads."""
        problem = scores.metric_problem(metric)
        if problem:
            raise serializers.ValidationError(problem)
        return metric

    def validate(self, attrs):
        """The value on its metric's scale (``scores.HUMAN_METRICS``), as the judgments
        import checks it: ``overall`` 7 or an infinite value would be stored as a score."""
        attrs = super().validate(attrs)
        metric = attrs.get("metric", getattr(self.instance, "metric", None))
        value = attrs.get("value", getattr(self.instance, "value", None))
        problem = None if None in (metric, value) else scores.value_problem(metric, value)
        if problem:
            raise serializers.ValidationError({"value": problem})
        return attrs


# --- The other judgment kinds (read-only through the API) ---------------------------------------
# The same blinding as the three above: reports, claims, disagreements and rubrics by public id,
# paragraphs and rubric items by their number within them, never a system or a database id
# of a report, so an annotator's own judgments tell them nothing about who wrote what.


def _read_only_judgment(model_, extra: list[str], **declared):
    """A read-only serializer of ``model_``: the common judgment fields and ``extra``."""
    meta = type("Meta", (), {"model": model_, "fields": [*JudgmentSerializer.Meta.fields, *extra],
                             "read_only_fields": [*JudgmentSerializer.Meta.fields, *extra]})  # fmt: skip
    name = f"{model_.__name__}Serializer"
    return type(name, (serializers.ModelSerializer,), {"Meta": meta, **declared,
                "__doc__": f"One {model_._meta.verbose_name} (read-only)."})  # fmt: skip


def _public(source: str, help_text: str):
    return serializers.CharField(source=source, read_only=True, help_text=help_text)


def _number(source: str, help_text: str):
    return serializers.IntegerField(source=source, read_only=True, help_text=help_text)


def _kind_serializers():
    from annotation.models import (
        ClaimAssessment,
        ClaimCheck,
        DeepScholarLabel,
        ExpertiseRating,
        ParagraphRelevance,
        QueryQuality,
        RelevanceAdjudication,
        ReportRating,
        RubricComparison,
        RubricCoverage,
        RubricItemQuality,
    )

    report = _public("report.public_id", "Public id of the report")
    return {
        ParagraphRelevance: _read_only_judgment(
            ParagraphRelevance, ["report", "paragraph", "label"],
            report=_public("paragraph.report.public_id", "Public id of the report"),
            paragraph=_number("paragraph.number", "Paragraph number within the report"),
        ),
        ClaimAssessment: _read_only_judgment(
            ClaimAssessment, ["report", "paragraph", "position", "text", "citation_count",
                              "citations", "supporting_credit", "coverage", "notes"],
            report=report,
            paragraph=serializers.IntegerField(source="paragraph.number", read_only=True,
                                               allow_null=True, default=None),
        ),
        ReportRating: _read_only_judgment(
            ReportRating, ["report", "dimension", "value"], report=report
        ),
        QueryQuality: _read_only_judgment(
            QueryQuality, ["clarity", "naturalness", "relevance", "variability", "comment"]
        ),
        RubricItemQuality: _read_only_judgment(
            RubricItemQuality, ["rubric", "item", "emphasis", "necessity", "confidence", "flags"],
            rubric=_public("item.rubric.public_id", "Public id of the rubric"),
            item=_number("item.position", "Position of the item in its rubric"),
        ),
        RubricCoverage: _read_only_judgment(
            RubricCoverage, ["report", "rubric", "item", "label", "covered"],
            report=report,
            rubric=_public("item.rubric.public_id", "Public id of the rubric"),
            item=_number("item.position", "Position of the item in its rubric"),
        ),
        RubricComparison: _read_only_judgment(
            RubricComparison, ["reasoning", "assessments"],
            assessments=RubricAssessmentSerializer(many=True, read_only=True),
        ),
        ClaimCheck: _read_only_judgment(
            ClaimCheck, ["claim", "report", "skipped", "fully_supported", "citation_supports"],
            claim=_public("claim.public_id", "Public id of the claim"),
            report=_public("claim.report.public_id", "Public id of the report"),
        ),
        RelevanceAdjudication: _read_only_judgment(
            RelevanceAdjudication, ["disagreement", "report", "paragraph", "annotator_label",
                                    "judge_relevant", "decision", "reason", "final_label"],
            disagreement=_public("disagreement.public_id", "Public id of the disagreement"),
            report=_public("disagreement.paragraph.report.public_id", "Public id of the report"),
            paragraph=_number("disagreement.paragraph.number", "Paragraph number"),
            annotator_label=serializers.CharField(source="disagreement.annotator_label",
                                                  read_only=True),
            judge_relevant=serializers.BooleanField(source="disagreement.judge_relevant",
                                                    read_only=True),
        ),
        DeepScholarLabel: _read_only_judgment(
            DeepScholarLabel, ["label_kind", "report", "unit", "label"],
            label_kind=serializers.CharField(source="kind", read_only=True,
                                             help_text="Which DeepScholar label"),
            report=serializers.CharField(source="report.public_id", read_only=True,
                                         allow_null=True, default=None,
                                         help_text="Public id of the report (null: a unit "
                                         "of the question)"),
        ),
        ExpertiseRating: _expertise_serializer(ExpertiseRating),
    }  # fmt: skip


def _expertise_serializer(model_):
    """Expertise triage has no setting or assignment: annotator, question, level, when."""
    fields = ["id", "annotator", "question", "level", "rated_at"]
    meta = type("Meta", (), {"model": model_, "fields": fields, "read_only_fields": fields})
    return type("ExpertiseRatingSerializer", (serializers.ModelSerializer,),
                {"Meta": meta, "__doc__": "One expertise rating (read-only)."})  # fmt: skip


class RubricAssessmentSerializer(serializers.Serializer):
    rubric = serializers.CharField(source="rubric.public_id", read_only=True)
    medal = serializers.CharField(read_only=True)
    strengths = serializers.CharField(read_only=True)
    missing = serializers.CharField(read_only=True)
    weaknesses = serializers.CharField(read_only=True)


#: judgment model -> its read-only serializer (annotation.api registers one viewset each)
JUDGMENT_KIND_SERIALIZERS = _kind_serializers()


class WebhookSerializer(serializers.ModelSerializer):
    """A webhook (admins only: it carries the secret the receiver checks signatures with)."""

    events = serializers.ListField(
        child=serializers.ChoiceField(choices=Webhook.Event.choices), allow_empty=False
    )
    progress_steps = serializers.ListField(
        child=serializers.FloatField(min_value=0.0, max_value=1.0, allow_null=False),
        required=False,
        help_text="fractions of the study's assignments submitted at which study.progress "
        "fires, e.g. [0.5, 1.0]",
    )

    class Meta:
        model = Webhook
        fields = ["id", "study", "url", "events", "progress_steps", "active", "secret",
                  "created_at"]  # fmt: skip
        read_only_fields = ["secret", "created_at"]

    def validate_url(self, value):
        from annotation.webhooks import url_problem

        problem = url_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value

    def validate(self, attrs):
        events = attrs.get("events", self.instance.events if self.instance else [])
        steps = attrs.get("progress_steps", self.instance.progress_steps if self.instance else [])
        if Webhook.Event.STUDY_PROGRESS in events and not steps:
            raise serializers.ValidationError(
                {"progress_steps": "study.progress needs the steps at which it fires"}
            )
        if "progress_steps" in attrs:
            attrs["progress_steps"] = sorted(set(attrs["progress_steps"]))
        return attrs


class WebhookDeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = ["id", "webhook", "event", "payload", "status", "attempts", "response_status",
                  "error", "created_at", "delivered_at"]  # fmt: skip
        read_only_fields = fields
