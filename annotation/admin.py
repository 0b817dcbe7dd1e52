"""Django admin: every table, and the "Import data" page (admin role only: the site is
``concord.admin_site.ConcordAdminSite``).

System names are visible here: the admin is for staff, never for annotators (blinding
applies to the task pages).
"""

from django import forms
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import path

from annotation.importers import ImportFailed, run
from annotation.importers.forms import RegistryImportForm
from annotation.protection import deactivate_annotator
from annotation.rubric_weights import weight_refusal
from annotation.units import added_item_refusal, refused_changes

from .models import (
    Annotator,
    Assignment,
    ExpertiseRating,
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
    Study,
    StudyResearcher,
    System,
    Webhook,
    bump_content_version,
)


class ImportForm(RegistryImportForm):
    """Fields from the import registry (annotation.importers.forms), and the study by name."""

    study = forms.CharField(help_text="created when no study has this name")
    dry_run = forms.BooleanField(required=False, initial=True)
    field_order = ["kind", "format", "file", "study"]


class StudyResearcherInline(admin.TabularInline):
    """Researchers who may read the study (admins read every study)."""

    model = StudyResearcher
    extra = 1
    fields = ("user", "added_at")
    readonly_fields = ("added_at",)
    raw_id_fields = ("user",)


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    inlines = [StudyResearcherInline]
    list_display = ("name", "created_at")
    search_fields = ("name", "description")
    change_list_template = "admin/annotation/study/change_list.html"
    change_form_template = "admin/annotation/study/change_form.html"

    def get_urls(self):
        """The import page; ``studio.admin`` adds the backup download and the one delete
        (both write a full backup, which composes every app, so they live above this one)."""
        extra = [
            path("import/", self.admin_site.admin_view(self.import_view), name="annotation_import"),
        ]
        return extra + super().get_urls()

    def save_model(self, request, obj, form, change):
        if "tasks" in form.changed_data:
            obj.tasks_chosen = True  # an admin's choice: imports no longer change it
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request, obj=None):
        """Never Django's cascading delete: see :meth:`delete_with_backup_view`."""
        return False

    def import_view(self, request):
        """Upload a file and run the one import function; show its report or every problem."""
        result, problems = None, []
        if request.method == "POST":
            form = ImportForm(request.POST, request.FILES)
            if form.is_valid():
                d = form.cleaned_data
                try:
                    result = run(
                        d["kind"],
                        d["file"],
                        study=d["study"],
                        dry_run=d["dry_run"],
                        **form.options(),
                    )
                    messages.success(request, result.summary())
                except ImportFailed as exc:
                    problems = exc.problems
        else:
            form = ImportForm()
        context = {
            **self.admin_site.each_context(request),
            "title": "Import data",
            "form": form,
            "result": result,
            "problems": problems,
            "result_rows": _rows(result),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/annotation/import.html", context)


def _rows(result):
    if result is None:
        return []
    tables = sorted({*result.created, *result.updated, *result.unchanged})
    return [
        (t, result.created.get(t, 0), result.updated.get(t, 0), result.unchanged.get(t, 0))
        for t in tables
    ]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("external_id", "short_label", "study", "split", "field", "intent", "origin")
    list_filter = ("study", "split", "origin")
    search_fields = ("external_id", "title", "text", "field", "intent")

    @admin.display(description="question")
    def short_label(self, obj):
        return obj.label[:80]


class KeptWhenJudged(forms.ModelForm):
    """What experts' labels and judges' scores hang off keeps its text and attachment
    (``annotation.units``, :func:`~annotation.units.refused_changes`): a judged rubric item
    its text, weight, type, rubric and position, a rubric with judged items its question
    and kind, a labelled or scored report its sources, sections and paragraphs. The admin
    answers the error on each such field and saves nothing, as the import and the API
    refuse it. Unjudged rows may still change."""

    def clean(self):
        cleaned = super().clean()
        new = {k: v for k, v in cleaned.items() if k in self.changed_data}
        for field, message in refused_changes(self.instance, new).items():
            self.add_error(field, message)
        if isinstance(self.instance, RubricItem):
            self._check_weight(cleaned)
        if isinstance(self.instance, RubricItem) and self.instance.pk is None:
            rubric = cleaned.get("rubric")  # an inline's is the parent's, on the instance
            rid = getattr(rubric, "pk", None) or self.instance.rubric_id
            if message := added_item_refusal(rid, cleaned.get("position")):
                self.add_error("rubric" if "rubric" in self.fields else None, message)
        return cleaned

    def _check_weight(self, cleaned) -> None:
        """An item's weight in its rubric's kind's range, the rule the import and the API
        ask (:func:`annotation.rubric_weights.weight_refusal`)."""
        rubric = cleaned.get("rubric") or getattr(self.instance, "rubric", None)
        weight = cleaned.get("weight")
        if rubric is None or weight is None:
            return
        if refusal := weight_refusal(rubric.kind, weight):
            where = f"rubric {rubric.public_id}, item at position {cleaned.get('position')}"
            self.add_error("weight", f"{where}: {refusal}")


class RubricItemInline(admin.TabularInline):
    model = RubricItem
    form = KeptWhenJudged
    extra = 0


@admin.register(Rubric)
class RubricAdmin(admin.ModelAdmin):
    list_display = ("id", "question", "kind")
    list_filter = ("kind",)
    search_fields = ("question__text", "question__external_id")
    form = KeptWhenJudged
    inlines = [RubricItemInline]


@admin.register(RubricItem)
class RubricItemAdmin(admin.ModelAdmin):
    form = KeptWhenJudged
    list_display = ("rubric", "position", "item_type", "weight", "text")
    list_filter = ("item_type",)
    search_fields = ("text",)


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ("name", "study")
    list_filter = ("study",)
    search_fields = ("name",)


class ReportContentAdmin(admin.ModelAdmin):
    """An edit of what annotators read of a report (a section, paragraph, citation or
    anchor) bumps the report's ``content_version``: server processes then render it
    afresh instead of showing the rendering they keep (issue 29)."""

    @staticmethod
    def report_ids(queryset) -> list[int]:
        raise NotImplementedError

    def save_model(self, request, obj, form, change):
        before = list(self.report_ids(type(obj).objects.filter(pk=obj.pk))) if change else []
        super().save_model(request, obj, form, change)
        bump_content_version(before + list(self.report_ids(type(obj).objects.filter(pk=obj.pk))))

    def delete_model(self, request, obj):
        ids = list(self.report_ids(type(obj).objects.filter(pk=obj.pk)))
        super().delete_model(request, obj)
        bump_content_version(ids)

    def delete_queryset(self, request, queryset):
        ids = list(self.report_ids(queryset))
        super().delete_queryset(request, queryset)
        bump_content_version(ids)


@admin.register(Section)
class SectionAdmin(ReportContentAdmin):
    form = KeptWhenJudged
    list_display = ("report", "position", "title")
    search_fields = ("title",)
    raw_id_fields = ("report",)
    report_ids = staticmethod(lambda rows: rows.values_list("report_id", flat=True))


@admin.register(Paragraph)
class ParagraphAdmin(ReportContentAdmin):
    form = KeptWhenJudged
    list_display = ("report", "number", "short_text")
    search_fields = ("text",)
    raw_id_fields = ("report", "section")
    report_ids = staticmethod(lambda rows: rows.values_list("report_id", flat=True))

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:80]


@admin.register(Report)
class ReportAdmin(ReportContentAdmin):
    """A report's sources are edited here, as the JSON list :attr:`Report.citations` stores
    (checked by :func:`~annotation.models.content.check_citations`); a paragraph's anchors
    on the paragraph's page."""

    form = KeptWhenJudged
    list_display = ("public_id", "system", "question", "source_format")
    list_filter = ("question__study", "system__name", "source_format")
    search_fields = ("public_id", "question__text", "system__name")
    raw_id_fields = ("question", "system")
    report_ids = staticmethod(lambda rows: rows.values_list("pk", flat=True))


@admin.register(Annotator)
class AnnotatorAdmin(admin.ModelAdmin):
    list_display = ("pseudonym", "user", "degree")
    search_fields = ("pseudonym", "user__username", "degree")
    actions = ["deactivate"]

    def has_delete_permission(self, request, obj=None):
        """People are deactivated, never deleted: their work stays."""
        return False

    @admin.action(description="Deactivate (cannot sign in; their work stays)")
    def deactivate(self, request, queryset):
        for annotator in queryset.select_related("user"):
            deactivate_annotator(annotator)
        messages.success(request, f"{queryset.count()} annotators deactivated.")


@admin.register(ExpertiseRating)
class ExpertiseRatingAdmin(admin.ModelAdmin):
    list_display = ("annotator", "question", "level", "rated_at")
    list_filter = ("level",)
    raw_id_fields = ("question",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("id", "study", "annotator", "question", "task", "setting", "status", "position")
    list_filter = ("study", "task", "setting", "status")
    search_fields = ("annotator__pseudonym", "question__text")
    raw_id_fields = ("question",)


class MedalInline(admin.TabularInline):
    model = Medal
    extra = 0
    raw_id_fields = ("report",)


@admin.register(MedalRanking)
class MedalRankingAdmin(admin.ModelAdmin):
    list_display = ("id", "study", "annotator", "question", "setting", "updated_at")
    list_filter = ("study", "setting")
    search_fields = ("annotator__pseudonym", "question__text")
    raw_id_fields = ("question", "assignment")
    inlines = [MedalInline]


@admin.register(Medal)
class MedalAdmin(admin.ModelAdmin):
    list_display = ("ranking", "report", "medal")
    list_filter = ("medal",)
    raw_id_fields = ("ranking", "report")


@admin.register(PairwisePreference)
class PairwisePreferenceAdmin(admin.ModelAdmin):
    list_display = ("id", "study", "annotator", "question", "left", "right", "choice", "setting")
    list_filter = ("study", "setting", "choice")
    search_fields = ("annotator__pseudonym", "question__text", "reason")
    raw_id_fields = ("question", "left", "right", "assignment")


@admin.register(HumanMetricScore)
class HumanMetricScoreAdmin(admin.ModelAdmin):
    list_display = ("study", "annotator", "report", "metric", "value", "setting")
    list_filter = ("study", "setting", "metric")
    search_fields = ("annotator__pseudonym", "report__system__name", "question__text")
    raw_id_fields = ("question", "report", "assignment")


class WebhookAdminForm(forms.ModelForm):
    url = forms.URLField(max_length=500, assume_scheme="https")

    class Meta:
        model = Webhook
        fields = ["study", "url", "events", "progress_steps", "active"]

    def clean_url(self):
        from annotation.webhooks import url_problem

        url = self.cleaned_data["url"]
        problem = url_problem(url)
        if problem:
            raise forms.ValidationError(problem)
        return url


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """Registered here or by ``POST /api/webhooks/`` (annotation.webhooks)."""

    form = WebhookAdminForm
    list_display = ("url", "study", "active", "created_at")
    readonly_fields = ("secret", "progress_sent")
