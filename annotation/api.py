"""REST API of the annotation app (``/api/``); rules in :mod:`annotation.permissions`.

Every viewset follows one pattern (:class:`RoleViewSet`): researchers and admins get the
full queryset and the staff serializer; annotators, where a viewset lets them read at all,
get a queryset scoped to their own assignments and a blinded, read-only serializer. List
querysets are prefetched so the number of queries does not grow with the number of rows.
"""

import dataclasses
import datetime as dt

from django.db.models import Prefetch, ProtectedError, Q
from django.http import HttpResponse
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from annotation import roles
from annotation import serializers as s
from annotation.links import shown_text
from annotation.models import Annotator as AnnotatorModel
from annotation.models import (
    Assignment,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
    Paragraph,
    Question,
    Report,
    Rubric,
    RubricAssessment,
    Section,
    Study,
    System,
    Webhook,
    WebhookDelivery,
)
from annotation.models.quality import is_qualification_item
from annotation.permissions import (
    IsAdmin,
    RolePermission,
    annotator_of,
    listed_study_or_404,
    readable_studies,
    visible_assignments,
    visible_question_ids,
    visible_reports,
    visible_rubric_question_ids,
)
from concord.api_parameters import RefusesUnknownParameters, checks_own_parameters
from concord.api_schema import BLINDED_SUFFIX
from concord.error_body import api_error, as_items, error_body, item, summary
from concord.pagination import LimitOffsetPagination
from concord.query import flag, id_value, is_digits, one_value, unknown_options
from concord.throttles import ScopedRateThrottle


def id_filter(name: str) -> OpenApiParameter:
    """An integer id filter of a list (``?study=3``) as the schema documents it; a study the
    caller does not read, or none, is a 404 (``RoleViewSet.apply_filters``)."""
    refused = "; a study you do not read, or none with this id, is a 404" if name == "study" else ""
    return OpenApiParameter(name, OpenApiTypes.INT, description=f"Only this {name}{refused}")


def filtered(*names: str):
    """Document the integer query filters a list accepts (``?study=3``)."""
    return extend_schema_view(list=extend_schema(parameters=[id_filter(n) for n in names]))


def blinded(staff, annotator):
    """Document both shapes a read answers: staff get ``staff``, an annotator the blinded
    ``annotator`` serializer (no system, no file name). ``anyOf`` rather than ``oneOf``: a
    staff answer may also satisfy the looser blinded schema (see
    ``concord.api_schema.any_of_for_blinded``)."""
    name = staff.__name__.removesuffix("Serializer")

    def proxy(many: bool):
        return PolymorphicProxySerializer(
            component_name=f"{name}{BLINDED_SUFFIX}",
            serializers=[staff, annotator],
            resource_type_field_name=None,
            many=many,
        )

    return extend_schema_view(
        list=extend_schema(responses=proxy(many=True)),
        retrieve=extend_schema(responses=proxy(many=False)),
    )


#: filter name -> (model, lookup from it to its study): the objects a staff list filter
#: names, checked to exist in the studies the caller reads (:meth:`RoleViewSet.check_named`).
NAMED_OBJECTS = {
    "question": (Question, "study"),
    "system": (System, "study"),
    "report": (Report, "question__study"),
}


def annotators_of(studies) -> Q:
    """The annotators of ``studies`` (a subquery of study ids): assigned there, or named by
    a judgment there (an import names annotators without assigning them: a tester found
    them missing from the list) or by an expertise rating of a question there. One
    subquery per judgment kind inside the one query, whatever the number of annotators."""
    from annotation.models import ExpertiseRating
    from annotation.protection import judgment_models

    named = [Assignment.objects.filter(study__in=studies)]
    named += [m.objects.filter(study__in=studies) for m in judgment_models()]
    named.append(ExpertiseRating.objects.filter(question__study__in=studies))
    found = Q()
    for rows in named:
        found |= Q(pk__in=rows.values("annotator_id"))
    return found


class RoleViewSet(RefusesUnknownParameters, viewsets.ModelViewSet):
    """A model viewset whose queryset, serializer and filters depend on the caller's role.

    ``filters`` maps a query parameter to a lookup (researchers and admins);
    ``annotator_filters`` names the ones an annotator may use (never one that could single
    out a system). An annotator giving another is refused, 403 naming it (it was ignored,
    so the list answered looked filtered when it was not); the refusal is the same whatever
    the value, so it says nothing of what exists.
    """

    permission_classes = [IsAuthenticated, RolePermission]
    annotator_readable = False
    annotator_serializer_class = None
    filters: dict[str, str] = {}
    annotator_filters: tuple[str, ...] = ()
    #: Query parameters a list reads besides ``filters`` (pagination's and ``format`` are
    #: every list's); any other is a 400 naming it (:func:`concord.query.accepted`).
    list_options: tuple[str, ...] = ()
    #: Those of ``list_options`` only researchers and admins may give (``system``).
    staff_list_options: tuple[str, ...] = ()
    ordering: tuple[str, ...] = ("id",)
    annotator_ordering: tuple[str, ...] | None = None
    #: Lookup from an object to its study: a researcher reads only the objects of the
    #: studies they were added to (``readable_studies``). None: not study data (judges).
    study_lookup: str | None = "study"

    @property
    def query_parameters(self) -> tuple[str, ...]:
        """What a list reads for the caller (:func:`concord.query.accepted`), as the schema
        documents it for staff; an annotator's are theirs (a filter not theirs was refused
        403 before, ``refuse_filter``, whatever its value)."""
        if getattr(self, "request", None) is not None and self.annotator is not None:
            return (*self.annotator_filters, *self.list_options)
        return (*self.filters, *self.list_options, *self.staff_list_options)

    @property
    def annotator(self):
        if getattr(self, "swagger_fake_view", False):
            return None
        return annotator_of(self.request.user)

    def base_queryset(self):
        return self.queryset.all()

    def readable_filter(self, readable) -> Q:
        """The objects of the ``readable`` studies (a subquery of study ids)."""
        return Q(**{f"{self.study_lookup}__in": readable})

    def scope_for_annotator(self, queryset, annotator):
        raise NotImplementedError

    def get_queryset(self):
        queryset = self.base_queryset()
        annotator = self.annotator
        if annotator is not None:
            if not self.annotator_readable:  # defence in depth: RolePermission refuses first
                return queryset.none()
            queryset = self.scope_for_annotator(queryset, annotator)
            allowed = self.annotator_filters
            ordering = self.annotator_ordering or self.ordering
        else:
            if self.study_lookup is not None and not roles.is_admin(self.request.user):
                readable = readable_studies(self.request.user).values("pk")
                # by id, so a lookup through a many-valued relation adds no duplicate rows
                of_readable = queryset.model.objects.filter(self.readable_filter(readable))
                queryset = queryset.filter(pk__in=of_readable.values("pk"))
            allowed = tuple(self.filters)
            ordering = self.ordering
        if self.action == "list":
            queryset = self.apply_filters(queryset, allowed)
        return queryset.order_by(*ordering)

    def apply_filters(self, queryset, allowed):
        params = self.request.query_params
        for name in self.filters:
            if name not in allowed and params.get(name) not in (None, ""):
                self.refuse_filter(name, allowed)
        lookups, named = {}, {}
        for name in allowed:
            raw = one_value(params, name)
            if raw in (None, ""):
                continue
            value = id_value(raw, name)
            if name == "study":  # a study not theirs, or none: 404 (listed_study_or_404)
                listed_study_or_404(self.request.user, value)
            lookups[self.filters[name]] = value
            named[name] = value
        if self.annotator is None:
            for name, value in named.items():
                if name != "study":
                    self.check_named(name, value)
        return queryset.filter(**lookups)

    def named_scope(self, name: str, studies):
        """The objects a filter ``name`` may name, of ``studies`` (a subquery of study
        ids), or None for a filter that names no object checked here."""
        if name in NAMED_OBJECTS:
            model, path = NAMED_OBJECTS[name]
            return model.objects.filter(**{f"{path}__in": studies})
        if name == "annotator":
            return AnnotatorModel.objects.filter(annotators_of(studies))
        return None

    def check_named(self, name: str, value: int) -> None:
        """A staff filter naming an object that does not exist, or is of no study the
        caller reads (of the ``study`` filtered by, when one is), is a 400 naming the
        parameter, as the exports refuse a value naming nothing in the study: it answered
        an empty list (``?system=99999``), which a script cannot tell from an empty
        selection. The same words whether the object exists elsewhere or not at all."""
        study = one_value(self.request.query_params, "study")
        studies = readable_studies(self.request.user)
        if study not in (None, "") and "study" in self.filters:
            studies = studies.filter(pk=int(study))  # checked first (apply_filters)
        scope = self.named_scope(name, studies.values("pk"))
        if scope is not None and not scope.filter(pk=value).exists():
            where = f"study {study}" if study not in (None, "") else "the studies you read"
            raise ValidationError({name: f"No {name} {value} in {where}."})

    @staticmethod
    def refuse_filter(name: str, allowed) -> None:
        """A filter the caller's role may not use: a 403 naming it and those it may (in
        ``detail``: no key of the answer is the field, so an annotator's JSON never holds a
        ``system`` key, not even a refusal's). It is about a parameter, so ``errors`` names it
        as every refusal of a parameter does (concord.error_body)."""
        theirs = ", ".join(allowed) or "none"
        said = f"{name!r} is not a filter an annotator may use (theirs: {theirs})."
        refused = PermissionDenied(said)
        refused.body = error_body(said, [(name, said)])  # read by concord.error_body's handler
        raise refused

    def get_serializer_class(self):
        if self.annotator is not None and self.annotator_serializer_class is not None:
            return self.annotator_serializer_class
        return self.serializer_class

    def destroy(self, request, *args, **kwargs):
        """Expert work is protected from cascades: a delete that would take judgments,
        drafts or their history with it is refused (409) and changes nothing."""
        try:
            return super().destroy(request, *args, **kwargs)
        except ProtectedError as exc:
            kinds = sorted({str(type(o)._meta.verbose_name_plural) for o in exc.protected_objects})
            return api_error(
                f"Not deleted: expert work depends on it ({', '.join(kinds)}). "
                "Judgments, drafts and their history are never deleted by a cascade.",
                status.HTTP_409_CONFLICT,
            )


# --- Studies -----------------------------------------------------------------------------------


def import_failed(failed) -> Response:
    """A refused import in the one error shape: 413 with ``limit`` (bytes) for an upload
    over ``IMPORT_MAX_BYTES``, as a body over ``UPLOAD_MAX_BYTES`` is answered; else 400."""
    from annotation.importers.base import TooLarge

    if isinstance(failed, TooLarge):
        body = problem_errors(failed.problems)
        body["limit"] = failed.limit
        return Response(body, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    return Response(problem_errors(failed.problems), status=status.HTTP_400_BAD_REQUEST)


def problem_errors(problems) -> dict:
    """An import's refusal (:mod:`concord.error_body`): every problem with its file, record
    and field, and a ``detail`` saying nothing was written and the first problems."""
    items = as_items(problems)
    return error_body(f"Nothing was imported: {summary(items)}", items)


def export_parameters() -> list[OpenApiParameter]:
    """The export's query parameters: ``kind``, ``file_format`` and every option a writer of
    the import registry takes (``Format.dump_options``), so the schema documents what the
    server reads and nothing else (``format`` is DRF's renderer: documenting it made a
    generated client ask for a renderer that does not exist, a 404; issue 28)."""
    from annotation.importers.registry import KINDS, writable

    options: dict[str, list[str]] = {}
    helps: dict[str, str] = {}
    for fmt in writable():
        for option in fmt.dump_options:
            options.setdefault(option.name, []).append(f"{fmt.kind} {fmt.name}")
            helps.setdefault(option.name, option.help)
    return [
        OpenApiParameter("kind", OpenApiTypes.STR, required=True, enum=sorted(KINDS),
                         description="what to export"),
        OpenApiParameter("file_format", OpenApiTypes.STR,
                         enum=sorted({f.name for f in writable()}),
                         description="a format of the kind (`manage.py export_format --help`); "
                         "not `format`, which DRF reads as the response renderer"),
        *(
            OpenApiParameter(name, OpenApiTypes.STR,
                             description=f"{helps[name]} ({'; '.join(used)})")
            for name, used in sorted(options.items())
        ),
    ]  # fmt: skip


class StudyViewSet(RoleViewSet):
    queryset = Study.objects.all()
    study_lookup = "pk"
    serializer_class = s.StudySerializer
    ordering = ("name",)
    throttle_scope = "imports"  # only the import action has ScopedRateThrottle

    def destroy(self, request, *args, **kwargs):
        """Never Django's cascading delete: ``studio.api.StudyViewSet`` (on the router) deletes
        a study after writing its full backup, which composes every app, so it lives above."""
        return api_error(
            "a study is deleted by the study admin, after its backup",
            status.HTTP_405_METHOD_NOT_ALLOWED,
        )

    @extend_schema(
        request={"multipart/form-data": s.StudyImportSerializer},
        responses={
            200: s.ImportReportSerializer,
            # the shared error body (concord.api_schema): ``errors`` lists every problem
            400: OpenApiResponse(
                description="Every problem found, with its file, record and field"
            ),
            413: OpenApiResponse(
                description="A file larger than IMPORT_MAX_BYTES (`limit`: the limit in bytes)"
            ),
        },
        description=(
            "Import a file into this study (admin only). Validates the whole file first and "
            "writes nothing when any record has a problem; answers every problem found. Each "
            "format's expected shape and a small example file are listed on the study's import "
            "page (File formats) and by `manage.py import_<kind> --help`; the example downloads "
            "from /formats/<kind>/<format>/<file>."
        ),
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="import",
        url_name="import",
        permission_classes=[IsAuthenticated, IsAdmin],
        parser_classes=[MultiPartParser, FormParser],
        throttle_classes=[ScopedRateThrottle],  # imports parse whole files (settings)
    )
    def import_file(self, request, pk=None):
        study = self.get_object()
        upload = request.data.get("file")
        name = getattr(upload, "name", "") or "upload"
        form = s.StudyImportSerializer(data=request.data)
        stray = unknown_fields(request.data, request.FILES, form.fields)
        if stray:  # e.g. ``dryrun=true``: ignored, the import wrote what was to be tried
            return import_refused(name, stray)
        if not form.is_valid():
            return import_refused(
                name,
                [(field, str(msg)) for field, messages in form.errors.items() for msg in messages],
            )
        data = form.validated_data
        # Imported here: the importers (and their format modules) load only when used.
        from annotation.importers import ImportFailed, format_of, run

        try:  # a bad kind or format is named first, not as an option the kind lacks
            format_of(data["kind"], data.get("format"), name)
        except ImportFailed as failed:
            return import_failed(failed)
        options, problems = import_options(data["kind"], data["options"], request.FILES)
        if problems:
            return import_refused(name, problems)
        if data.get("format"):
            options["format"] = data["format"]

        try:
            report = run(
                data["kind"], data["file"], study=study, dry_run=data["dry_run"], **options
            )
        except ImportFailed as failed:
            return import_failed(failed)
        body = dataclasses.asdict(report)
        body["summary"] = report.summary()
        return Response(body)

    @checks_own_parameters  # the export writer's options (export_download), in its shape
    @extend_schema(
        parameters=export_parameters(),
        # the file as it downloads (a zip for several files), not JSON: a generated client
        # must not parse it (issue 28)
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
        summary="Export a study's data in an outside format",
        description=(
            "The study's data in an outside format (researchers and admins): the file(s) the "
            "same format's import reads back; several files come as a zip."
        ),
    )
    @action(detail=True, methods=["get"], url_path="export", url_name="export")
    def export_file(self, request, pk=None):
        from annotation.permissions import EXPORT_REFUSAL, exportable_study_or_404

        if not roles.is_researcher(request.user):
            return api_error(EXPORT_REFUSAL, 403)
        return export_response(exportable_study_or_404(request.user, pk), request.query_params)


def export_response(study, query) -> HttpResponse | Response:
    """``GET /api/studies/{id}/export/?kind=&file_format=&<option>=``: the study's data in an
    outside format, written by the format's registered writer (the files its import reads
    back): one file as itself, several (a DeepScholar folder, ResearcherBench questions and
    rubric) as a zip of their relative paths. The study page's Download panel serves the
    same bytes through the same function (``annotation.importers.downloads``). A bad kind,
    format, option name or value is a 400 naming the field (a value naming nothing in this
    study too); valid options that select no record are a 404 "nothing to export"."""
    from annotation.importers.downloads import ExportRefused, attachment, export_download

    try:
        # not ``format``: DRF reads that query parameter as the response renderer, so it is
        # the one parameter besides the writer's that is not refused as unknown
        download = export_download(
            study, query.get("kind", ""), query.get("file_format") or None, query,
            also=("format",),
        )  # fmt: skip
    except ExportRefused as refused:
        return api_error(None, refused.status, errors=refused.problems)
    return attachment(download)


def import_option_types() -> dict[str, dict[str, type | str]]:
    """Options each import kind takes, from the import registry
    (``annotation.importers.registry``): name -> type (``str``, ``bool`` or ``"file"``); a
    file option may also be uploaded as an extra multipart file of the same name."""
    from annotation.importers.registry import KINDS, options_of

    return {
        kind: {name: option.type for name, option in options_of(kind).items()} for kind in KINDS
    }


def __getattr__(name: str):
    # IMPORT_OPTIONS is computed when read: the judges app registers its formats when ready.
    if name == "IMPORT_OPTIONS":
        return import_option_types()
    raise AttributeError(name)


def unknown_fields(data, files, fields) -> list[tuple[str, str]]:
    """(field, message) for each form field of an import the upload form does not read.
    DRF drops them without a word, so a mistyped ``dryrun=true`` or ``dry-run=1`` imported
    for real (found by a tester). A file part other than ``file`` is a file option of the
    kind, checked by :func:`import_options`; an option sent as a form field of its own is
    told to go in ``options``."""
    from annotation.importers.registry import KINDS, options_of

    declared = {name for kind in KINDS for name in options_of(kind)}
    problems = []
    for field in sorted(set(data) - set(fields) - set(files)):
        said = unknown_options([field], fields, what="field")
        if field in declared:
            said += f" (an importer option: send it in 'options', e.g. {{\"{field}\": …}})"
        problems.append((field, said))
    return problems


def import_options(kind: str, given: dict, files) -> tuple[dict, list[tuple[str, str]]]:
    """Check the options against what the importer of ``kind`` takes, before it runs."""
    from annotation.importers.registry import KINDS, options_of

    declared = options_of(kind) if kind in KINDS else {}
    allowed = {name: option.type for name, option in declared.items()}
    options = dict(given)
    for field, upload in files.items():
        if field != "file":
            options[field] = upload
    problems = []
    for option, value in options.items():
        wanted = allowed.get(option)
        if wanted is None:
            problems.append((option, f"{unknown_options([option], allowed)} (a {kind!r} import)"))
        elif wanted == "file":
            if not hasattr(value, "read"):
                problems.append((option, "must be uploaded as a file"))
        elif not isinstance(value, wanted):
            problems.append((option, f"must be a {wanted.__name__}"))
    for name, option in declared.items():
        if option.needed(options) and name not in options:
            problems.append((name, f"required for a {kind!r} import"))
    return options, problems


def import_refused(file: str, problems) -> Response:
    """(field, message) problems of the request (not of a record), in the one shape."""
    items = [item(message, field, file=file) for field, message in problems]
    return Response(problem_errors(items), status=status.HTTP_400_BAD_REQUEST)


@filtered("study")
@blinded(s.QuestionSerializer, s.AnnotatorQuestionSerializer)
class QuestionViewSet(RoleViewSet):
    queryset = Question.objects.all()
    serializer_class = s.QuestionSerializer
    annotator_serializer_class = s.AnnotatorQuestionSerializer
    annotator_readable = True
    filters = {"study": "study_id"}
    annotator_filters = ("study",)

    def scope_for_annotator(self, queryset, annotator):
        return queryset.filter(id__in=visible_question_ids(annotator))


@filtered("question", "study")
@blinded(s.RubricSerializer, s.AnnotatorRubricSerializer)
class RubricViewSet(RoleViewSet):
    queryset = Rubric.objects.prefetch_related("items")
    study_lookup = "question__study"
    serializer_class = s.RubricSerializer
    annotator_serializer_class = s.AnnotatorRubricSerializer
    annotator_readable = True
    lookup_field = "public_id"
    filters = {"question": "question_id", "study": "question__study_id"}
    annotator_filters = ("question",)
    annotator_ordering = ("question_id", "public_id")

    def scope_for_annotator(self, queryset, annotator):
        return queryset.filter(question_id__in=visible_rubric_question_ids(annotator))


@filtered("study")
class SystemViewSet(RoleViewSet):
    queryset = System.objects.all()
    serializer_class = s.SystemSerializer
    filters = {"study": "study_id"}
    ordering = ("study_id", "name")


@filtered("question", "study", "system")
@blinded(s.ReportSerializer, s.AnnotatorReportSerializer)
class ReportViewSet(RoleViewSet):
    """Reports with their structure. Annotators address reports by public id, see only those
    of their own assignments, in an order that says nothing of the systems."""

    queryset = Report.objects.all()
    study_lookup = "question__study"
    serializer_class = s.ReportSerializer
    annotator_serializer_class = s.AnnotatorReportSerializer
    annotator_readable = True
    lookup_field = "public_id"
    filters = {"question": "question_id", "study": "question__study_id", "system": "system_id"}
    annotator_filters = ("question",)
    annotator_ordering = ("question_id", "public_id")

    def base_queryset(self):
        return Report.objects.select_related("system").prefetch_related(
            Prefetch("sections", Section.objects.order_by("position")),
            Prefetch("sections__paragraphs", Paragraph.objects.order_by("number")),
        )

    def scope_for_annotator(self, queryset, annotator):
        # A list of one question's reports reads only that question's assignments (a
        # malformed id is refused by apply_filters, as for every filter).
        raw = self.request.query_params.get("question") if self.action == "list" else None
        question = int(raw) if is_digits(raw) else None
        return queryset.filter(id__in=visible_reports(annotator, question).values("id"))


@blinded(s.AnnotatorSerializer, s.AnnotatorProfileSerializer)  # admins' shape, researchers'
class AnnotatorViewSet(RoleViewSet):
    """Annotators' pseudonymous profiles: an admin reads every one, with the id of the
    account it signs in with (user); a researcher reads those of their studies without it,
    the pseudonym standing for the person."""

    queryset = AnnotatorModel.objects.all()
    serializer_class = s.AnnotatorSerializer
    ordering = ("pseudonym",)

    def get_serializer_class(self):
        if getattr(self, "swagger_fake_view", False) or roles.is_admin(self.request.user):
            return s.AnnotatorSerializer
        return s.AnnotatorProfileSerializer

    def readable_filter(self, readable) -> Q:
        """The annotators of the ``readable`` studies (:func:`annotators_of`)."""
        return annotators_of(readable)

    @extend_schema(
        responses={204: None},
        description=(
            "Deactivate an annotator (admin only): their account can no longer sign in; the "
            "profile, assignments, drafts and judgments stay. People are never deleted."
        ),
    )
    def destroy(self, request, *args, **kwargs):
        from annotation.protection import deactivate_annotator

        deactivate_annotator(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


@filtered("study", "annotator", "question")
@blinded(s.AssignmentSerializer, s.AnnotatorAssignmentSerializer)
class AssignmentViewSet(RoleViewSet):
    """Assignments; an annotator lists and reads only their own (another's is a 404)."""

    queryset = Assignment.objects.all()
    serializer_class = s.AssignmentSerializer
    annotator_serializer_class = s.AnnotatorAssignmentSerializer
    annotator_readable = True
    filters = {"study": "study_id", "annotator": "annotator_id", "question": "question_id"}
    annotator_filters = ("study", "question")
    ordering = ("annotator_id", "position", "id")

    def scope_for_annotator(self, queryset, annotator):
        return (
            visible_assignments(annotator, queryset)  # not held back, not withdrawn
            .select_related("question")
            .prefetch_related(
                Prefetch("question__reports", Report.objects.only("id", "public_id", "question_id"))
            )
        )


# --- Judgments ---------------------------------------------------------------------------------


def described(serializer_class) -> type:
    """The shape of a judgment list's row: ``serializer_class``'s fields and, optional, the
    ones ``describe`` adds (:meth:`JudgmentViewSet.list`), so a client generated from the
    schema has them (a tester's finding: they were in no schema). Documentation only."""
    from rest_framework import serializers

    name = serializer_class.__name__
    fields = {
        "question_text": serializers.CharField(
            required=False, help_text="With `describe`: the question's text"
        ),
        "annotator_pseudonym": serializers.CharField(
            required=False, help_text="With `describe`: the annotator's pseudonym"
        ),
        "question_external_id": serializers.CharField(
            required=False,
            help_text="With `describe`, researchers and admins: the question's source id",
        ),
        "systems": serializers.ListField(
            child=serializers.CharField(),
            required=False,
            help_text="With `describe`, researchers and admins: the system name of each report "
            "the judgment is about, in order",
        ),
        "system": serializers.CharField(
            required=False,
            allow_null=True,
            help_text="With `describe`, researchers and admins: the system name when the "
            "judgment is about exactly one report, else null",
        ),
    }
    base = serializer_class().fields  # a field of its own by that name is kept as it is
    fields = {k: v for k, v in fields.items() if k not in base}
    meta = getattr(serializer_class, "Meta", None)
    if meta is not None and isinstance(getattr(meta, "fields", None), list | tuple):
        fields["Meta"] = type("Meta", (meta,), {"fields": [*meta.fields, *fields]})
    return type(f"Described{name}", (serializer_class,), fields)


#: The type a judgment list declares for each column (``columns``): what a client needs to
#: give an empty answer its columns and dtypes (a DataFrame of shape (0, 0) made a notebook's
#: incremental sync fail when nothing was new). ``json``: a nested value (lists, objects).
COLUMN_TYPES = ("integer", "number", "boolean", "string", "datetime", "json")


def column_type(field) -> str:
    """One of :data:`COLUMN_TYPES` for a serializer field, as its rows carry the value."""
    from rest_framework import relations, serializers

    if isinstance(field, serializers.BooleanField):
        return "boolean"
    if isinstance(field, serializers.ChoiceField):
        keys = list(field.choices)
        if keys and all(isinstance(k, int) and not isinstance(k, bool) for k in keys):
            return "integer"
        return "string"
    if isinstance(field, serializers.IntegerField | relations.PrimaryKeyRelatedField):
        return "integer"
    if isinstance(field, serializers.FloatField | serializers.DecimalField):
        return "number"
    if isinstance(field, serializers.DateTimeField):
        return "datetime"
    if isinstance(field, serializers.CharField | relations.SlugRelatedField):
        return "string"
    return "json"


def column_items(field, lists: tuple[str, ...] = ()) -> str | dict | None:
    """What a ``json`` column's list holds, so a client types it without a row (parquet
    ``list<string>``, a list of structs): a column type for a list of values (a
    ``ListField``, or a JSON field its judgment kind declares a list of strings,
    ``JudgmentKind.lists``), or ``{field: column type}`` for a list of objects (a ranking's
    ``medals``); None for any other JSON value (an object, a free list), kept as JSON text."""
    from rest_framework import serializers

    if isinstance(field, serializers.ListSerializer | serializers.ListField):
        child = field.child
        if isinstance(child, serializers.Serializer):
            return {name: column_type(sub) for name, sub in child.fields.items()}
        return column_type(child)
    if isinstance(field, serializers.JSONField) and field.field_name in lists:
        return "string"
    return None


def column(name: str, kind: str, items=None) -> dict:
    """A column's declaration: name, type and, for a typed list, ``items``."""
    return {"name": name, "type": kind, **({"items": items} if items is not None else {})}


#: The columns ``describe`` adds to a row (:meth:`JudgmentViewSet.list`), in its order; an
#: annotator's rows get only the first two.
DESCRIBED_COLUMNS = (
    column("question_text", "string"),
    column("annotator_pseudonym", "string"),
    column("question_external_id", "string"),
    column("systems", "json", "string"),
    column("system", "string"),
)


class JudgmentPagination(LimitOffsetPagination):
    """A judgment list's page also declares its rows' ``columns`` (name and type), filled
    in by :meth:`JudgmentViewSet.get_paginated_response`: an empty page has no row to read
    them from."""

    def get_paginated_response_schema(self, schema):
        out = super().get_paginated_response_schema(schema)
        out["properties"]["columns"] = {
            "type": "array",
            "description": "Every column of a row of this list, as asked (``describe`` "
            "adds some), in order, with its type; given even when there is no row",
            "items": {
                "type": "object",
                "required": ["name", "type"],
                "properties": {
                    "name": {"type": "string"},
                    "type": {"type": "string", "enum": list(COLUMN_TYPES)},
                    "items": {
                        "description": "A ``json`` column holding a list: the type of its "
                        "values, or ``{field: type}`` for a list of objects",
                        "oneOf": [
                            {"type": "string", "enum": list(COLUMN_TYPES)},
                            {
                                "type": "object",
                                "additionalProperties": {
                                    "type": "string",
                                    "enum": list(COLUMN_TYPES),
                                },
                            },
                        ],
                    },
                },
            },
        }
        out["required"] = [*out.get("required", ["count", "results"]), "columns"]
        return out


def judgment_list(viewset):
    """Document a judgment list's query options: the id filters, ``setting``, ``status``,
    ``system``, ``updated_since`` (incremental sync) and ``describe`` (self-describing rows;
    issue 28), and the rows' fields ``describe`` adds (:func:`described`)."""
    from annotation.models.assignment import Setting

    return extend_schema_view(
        list=extend_schema(
            responses={200: described(viewset.serializer_class)(many=True)},
            parameters=[
                *(id_filter(name) for name in ("study", "annotator", "question")),
                OpenApiParameter(
                    "setting",
                    OpenApiTypes.STR,
                    enum=Setting.values,
                    description="Only judgments made in this setting",
                ),
                OpenApiParameter(
                    "status",
                    OpenApiTypes.STR,
                    enum=Assignment.Status.values,
                    description="Only judgments whose assignment has this status "
                    "(`submitted`: final work; judgments without an assignment, "
                    "e.g. imported ones, match no status)",
                ),
                OpenApiParameter(
                    "system",
                    OpenApiTypes.INT,
                    description="Only judgments about a report of this system "
                    "(id from /api/systems/); researchers and admins, and only "
                    "for kinds about reports (else a 400)",
                ),
                OpenApiParameter(
                    "updated_since",
                    OpenApiTypes.DATETIME,
                    description="Only judgments created or changed at or after this "
                    "ISO 8601 time (incremental sync: pass the largest `updated_at` "
                    "seen; a row changed in that same instant comes again). A time "
                    "without an offset, or a date (its midnight), is read in the "
                    "server's time zone (`TIME_ZONE`, UTC unless set)",
                ),
                OpenApiParameter(
                    "describe",
                    OpenApiTypes.BOOL,
                    description="Add to each row `question_external_id`, "
                    "`question_text`, `annotator_pseudonym`, `systems` (the system "
                    "name of each report the judgment is about, in order) and "
                    "`system` (the name when there is exactly one, else null); "
                    "an annotator gets only `question_text` and "
                    "`annotator_pseudonym`. A constant number of queries "
                    "per page, never any report's text.",
                ),
            ],  # fmt: skip
        )
    )(viewset)


def moment_since(raw: str) -> dt.datetime:
    """``updated_since`` as an aware time: ISO 8601 with an offset (``Z``, ``+02:00``) as
    given; a time without one, or a bare date (its midnight), in the server's time zone
    (``settings.TIME_ZONE``, UTC unless set). Anything else is a 400 naming the field."""
    try:
        moment = parse_datetime(raw)  # Django 5 reads a bare date here too (its midnight)
        if moment is None and (day := parse_date(raw)) is not None:
            moment = dt.datetime.combine(day, dt.time.min)
        if moment is not None:
            if timezone.is_naive(moment):
                moment = timezone.make_aware(moment, timezone.get_default_timezone())
            moment.astimezone(dt.UTC)  # a time the database can hold (year 1 at +05:00 cannot)
    except (ValueError, OverflowError):
        moment = None
    if moment is None:
        raise ValidationError({"updated_since": f"Not an ISO 8601 time or date: {raw!r}."})
    return moment


class JudgmentViewSet(RoleViewSet):
    """Human judgments: researchers read all, annotators read their own."""

    annotator_readable = True
    filters = {"study": "study_id", "annotator": "annotator_id", "question": "question_id"}
    annotator_filters = ("study", "question")
    list_options = ("setting", "status", "updated_since", "describe")
    staff_list_options = ("system",)
    #: Lookups from a judgment to the report(s) it is about (for ``system`` and ``describe``).
    report_paths: tuple[str, ...] = ()

    def destroy(self, request, *args, **kwargs):
        """A judgment of a qualification item is never deleted here: the annotator's first
        answer decides the qualification (409, nothing deleted)."""
        assignment = getattr(self.get_object(), "assignment", None)
        if assignment is not None and is_qualification_item(assignment):
            detail = s.qualification_answer_refusal(assignment)
            return api_error(detail, status.HTTP_409_CONFLICT)
        return super().destroy(request, *args, **kwargs)

    def scope_for_annotator(self, queryset, annotator):
        """Their own judgments, but none of an assignment they may no longer see (held back
        by a qualification round, withdrawn): what the queue and task pages hide."""
        mine = queryset.filter(annotator=annotator)
        if not any(f.name == "assignment" for f in queryset.model._meta.get_fields()):
            return mine
        return mine.filter(
            Q(assignment__isnull=True) | Q(assignment__in=visible_assignments(annotator))
        )

    def apply_filters(self, queryset, allowed):
        """The id filters, then ``setting``, ``status``, ``updated_since`` and (staff only)
        ``system``; a bad value is a 400 naming the parameter."""
        from annotation.models.assignment import Setting

        queryset = super().apply_filters(queryset, allowed)
        params = self.request.query_params
        has = {f.name for f in queryset.model._meta.get_fields()}
        given = {name: one_value(params, name)
                 for name in ("setting", "status", "updated_since", "system")}  # fmt: skip
        for name, needs in (("setting", "setting"), ("status", "assignment"),
                            ("updated_since", "updated_at")):  # fmt: skip
            if given[name] and needs not in has:
                raise ValidationError({name: f"These judgments have no {needs.replace('_', ' ')}."})
        if setting := given["setting"]:
            if setting not in Setting.values:
                raise ValidationError({"setting": f"Unknown setting {setting!r}; use one of "
                                       f"{', '.join(Setting.values)}."})  # fmt: skip
            queryset = queryset.filter(setting=setting)
        if state := given["status"]:
            if state not in Assignment.Status.values:
                raise ValidationError({"status": f"Unknown status {state!r}; use one of "
                                       f"{', '.join(Assignment.Status.values)}."})  # fmt: skip
            queryset = queryset.filter(assignment__status=state)
        if since := given["updated_since"]:
            queryset = queryset.filter(updated_at__gte=moment_since(since))
        # ``system`` is not an annotator's filter (it would single out a system): refused
        # like every filter not theirs, whatever its value (RoleViewSet)
        if (system := given["system"]) not in (None, "") and self.annotator is not None:
            self.refuse_filter("system", allowed)
        if system not in (None, ""):
            if not self.report_paths:
                raise ValidationError({"system": "These judgments are not about a report, so "
                                       "they have no system."})  # fmt: skip
            system_id = id_value(system, "system")
            self.check_named("system", system_id)  # 99999 answered an empty list
            about = Q()
            for path in self.report_paths:
                about |= Q(**{f"{path}__system_id": system_id})
            queryset = queryset.filter(pk__in=queryset.model.objects.filter(about).values("pk"))
        return queryset

    pagination_class = JudgmentPagination

    def columns(self) -> list[dict]:
        """Every column of a row of this list as asked, with its type (``columns`` of each
        page, :class:`JudgmentPagination`)."""
        kind = self.judgment_kind()
        lists = kind.lists if kind is not None else ()
        out = {
            name: column(name, column_type(field), column_items(field, lists))
            for name, field in self.get_serializer().fields.items()
        }
        if flag(one_value(self.request.query_params, "describe"), "describe"):
            added = DESCRIBED_COLUMNS[:2] if self.annotator is not None else DESCRIBED_COLUMNS
            out.update({c["name"]: c for c in added})
        return list(out.values())

    def judgment_kind(self):
        """The declared judgment kind this list reads (``annotation.judgment_kinds``)."""
        from annotation.judgment_kinds import KINDS

        label = self.queryset.model._meta.label
        return next((k for k in KINDS if (k.api_model or k.model) == label), None)

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data["columns"] = self.columns()
        return response

    def list(self, request, *args, **kwargs):
        """With ``describe``: each row also says its question, annotator and systems, in a
        constant number of queries per page (one per report path), so a researcher's
        DataFrame needs no second call that returns every report's text (issue 28)."""
        if not flag(one_value(request.query_params, "describe"), "describe"):
            return super().list(request, *args, **kwargs)
        blinded = self.annotator is not None  # their own rows: the question's text only
        queryset = self.filter_queryset(self.get_queryset()).select_related("question", "annotator")
        page = self.paginate_queryset(queryset)
        objects = list(queryset) if page is None else page
        rows = self.get_serializer(objects, many=True).data
        systems = {} if blinded else self.systems_of([o.pk for o in objects])
        for obj, row in zip(objects, rows, strict=True):
            # an annotator's own rows: the text as their task page shows it (annotation.links)
            text = obj.question.text
            row["question_text"] = shown_text(text) if blinded else text
            row["annotator_pseudonym"] = obj.annotator.pseudonym
            if blinded:  # no source id, no system: what AnnotatorQuestionSerializer shows
                continue
            names = systems.get(obj.pk, [])
            row["question_external_id"] = obj.question.external_id
            row["systems"] = names
            row["system"] = names[0] if len(set(names)) == 1 and len(names) == 1 else None
        return self.get_paginated_response(rows) if page is not None else Response(rows)

    def systems_of(self, ids) -> dict:
        """judgment id -> system names of its reports, in ``report_paths`` order."""
        out = {pk: [] for pk in ids}
        for path in self.report_paths:
            found = (
                self.queryset.model.objects.filter(pk__in=ids)
                .exclude(**{f"{path}__isnull": True})
                .order_by("pk", f"{path.split('__')[0]}__id")  # a ranking's medals in their order
                .values_list("pk", f"{path}__system__name")
            )
            for pk, name in found:
                out[pk].append(name)
        return out


@judgment_list
class MedalRankingViewSet(JudgmentViewSet):
    report_paths = ("medals__report",)
    queryset = MedalRanking.objects.prefetch_related(
        Prefetch("medals", Medal.objects.select_related("report").order_by("id"))
    )
    serializer_class = s.MedalRankingSerializer


@judgment_list
class PairwisePreferenceViewSet(JudgmentViewSet):
    report_paths = ("left", "right")
    queryset = PairwisePreference.objects.select_related("left", "right")
    serializer_class = s.PairwisePreferenceSerializer


@judgment_list
class HumanMetricScoreViewSet(JudgmentViewSet):
    report_paths = ("report",)
    queryset = HumanMetricScore.objects.select_related("report")
    serializer_class = s.HumanMetricScoreSerializer


class ReadOnlyJudgmentViewSet(JudgmentViewSet, viewsets.ReadOnlyModelViewSet):
    """Judgments read through the API only (they are written on the task pages)."""

    http_method_names = ["get", "head", "options"]


#: The judgment kinds with a writable viewset of their own (above); every other kind of
#: ``annotation.judgment_kinds`` gets a read-only one.
WRITABLE_KINDS = {"medal", "pairwise_preference", "human_metric_score"}
#: model name -> (related rows read with it, prefetches, what its list is); a kind whose
#: model is missing here fails at import, so no kind goes without its API route.
_API_READS: dict[str, tuple[tuple, tuple, str]] = {
    "ParagraphRelevance": (("paragraph__report",), (),
        "Relevance labels of report paragraphs (ScholarQA-CS2 metric-wise task)."),
    "ClaimAssessment": (("report", "paragraph"), (),
        "Claim-level citation assessments: each claim's citations, their supporting "
        "credit and the claim's coverage."),
    "ReportRating": (("report",), (),
        "Ratings of whole reports on named dimensions (e.g. ResearchQA 1-5 scales)."),
    "QueryQuality": ((), (),
        "Quality ratings of the questions themselves: clarity, naturalness, relevance "
        "and variability."),
    "RubricItemQuality": (("item__rubric",), (),
        "Quality judgments of rubric items: emphasis, necessity, confidence and flags."),
    "RubricCoverage": (("report", "item__rubric"), (),
        "Whether each report covers each rubric item (ResearchQA / ResearcherBench)."),
    "RubricComparison": ((), (lambda: Prefetch("assessments", RubricAssessment.objects
                                                .select_related("rubric").order_by("id")),),
        "Comparisons of rubrics for one question, with a medal and comments per rubric."),
    "ClaimCheck": (("claim__report",), (),
        "Checks of extracted claims against their cited sources."),
    "RelevanceAdjudication": (("disagreement__paragraph__report",), (),
        "Annotators' decisions on paragraphs where their relevance label and a judge's "
        "disagreed, and the label that results."),
    "DeepScholarLabel": (("report",), (),
        "DeepScholar-Bench labels (seed 002 §8.11): organization, nugget importance and "
        "support, retrieval relevance, reference importance, claim–source entailment, one "
        "label per unit (label_kind, unit; report empty for a unit of the "
        "question)."),
    "ExpertiseRating": ((), (),
        "Expertise triage: each annotator's rating of a question against their expertise "
        "(within, near, outside)."),
}  # fmt: skip


def _judgment_kind_viewsets() -> dict[str, type]:
    """url path -> read-only viewset of every other judgment kind (same rules as above)."""
    from django.apps import apps

    from annotation import judgment_kinds

    out = {}
    for kind in judgment_kinds.KINDS:
        if not kind.api or kind.key in WRITABLE_KINDS:
            continue
        model = apps.get_model(kind.api_model or kind.model)
        related, prefetch, doc = _API_READS[model.__name__]
        queryset = model.objects.select_related(*related).prefetch_related(*(p() for p in prefetch))
        study = kind.study.removeprefix(kind.prefix) if kind.api_model else kind.study
        viewset = type(
            f"{model.__name__}ViewSet",
            (ReadOnlyJudgmentViewSet,),
            {"queryset": queryset, "serializer_class": s.JUDGMENT_KIND_SERIALIZERS[model],
             "study_lookup": study, "report_paths": judgment_kinds.REPORT_PATHS.get(model.__name__, ()),
             "filters": {"study": f"{study}_id", "annotator": "annotator_id",
                         "question": "question_id"},
             "__doc__": doc + " Researchers and admins read every judgment of their studies; "
             "an annotator reads only their own.", "__module__": __name__},
        )  # fmt: skip
        out[kind.api] = judgment_list(viewset)
    return out


JUDGMENT_KIND_VIEWSETS = _judgment_kind_viewsets()


# --- Webhooks ---------------------------------------------------------------------------------


class WebhookViewSet(RefusesUnknownParameters, viewsets.ModelViewSet):
    """Webhooks of a study (admins only: each carries the secret its receiver checks
    signatures with). `events`: `assignment.submitted`, `study.progress` (it fires when the
    share of submitted assignments reaches one of `progress_steps`) and
    `judge_run.finished`. Each event is a POST of JSON signed with HMAC-SHA256 in the
    `X-Concord-Signature` header; receivers on private addresses are refused."""

    permission_classes = [IsAuthenticated, IsAdmin]
    serializer_class = s.WebhookSerializer
    queryset = Webhook.objects.all()

    @extend_schema(
        summary="What a webhook was sent",
        description="Each delivery of the webhook, newest first: the event, its JSON, how "
        "many attempts, the receiver's last HTTP status and why it failed (never the body "
        "of its answer).",
        responses={200: s.WebhookDeliverySerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request, pk=None):
        found = WebhookDelivery.objects.filter(webhook=self.get_object()).order_by("-pk")
        page = self.paginate_queryset(found)
        return self.get_paginated_response(s.WebhookDeliverySerializer(page, many=True).data)


def register(router, *, studies=None) -> None:
    """Every viewset of this app on the router; ``studies`` replaces the study viewset (the
    combined router in ``studio.api_urls`` passes the one that can delete after a backup)."""
    router.register("studies", studies or StudyViewSet, basename="study")
    router.register("questions", QuestionViewSet, basename="question")
    router.register("rubrics", RubricViewSet, basename="rubric")
    router.register("systems", SystemViewSet, basename="system")
    router.register("reports", ReportViewSet, basename="report")
    router.register("annotators", AnnotatorViewSet, basename="annotator")
    router.register("assignments", AssignmentViewSet, basename="assignment")
    router.register("webhooks", WebhookViewSet, basename="webhook")
    router.register("judgments/medal-rankings", MedalRankingViewSet, basename="medal-ranking")
    router.register(
        "judgments/pairwise-preferences", PairwisePreferenceViewSet, basename="pairwise-preference"
    )
    router.register(
        "judgments/metric-scores", HumanMetricScoreViewSet, basename="human-metric-score"
    )
    for path, viewset in JUDGMENT_KIND_VIEWSETS.items():
        router.register(f"judgments/{path}", viewset, basename=path.removesuffix("s"))
