from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.contrib.admin.utils import unquote
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse

from . import removal
from .models import Judge, JudgeScore
from .secrets import masked_parameters


class JudgeAdminForm(forms.ModelForm):
    """The admin's judge form shows the parameters masked and reads them back as the API
    does (:class:`judges.serializers.JudgeSerializer`'s ``validate_parameters``: a mask
    written back keeps the stored secret; a private base URL refused). The plain form
    printed ``api_key`` in clear in its textarea and its hidden initial value (a tester
    adding a judge from the runs page, then opening it here)."""

    class Meta:
        model = Judge
        fields = ["name", "provider", "model", "prompt_template", "prompt_version", "parameters"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial["parameters"] = masked_parameters(self.instance.parameters or {})

    def clean_parameters(self):
        from rest_framework.exceptions import ValidationError as APIError

        from .serializers import JudgeSerializer

        serializer = JudgeSerializer(instance=self.instance if self.instance.pk else None)
        try:
            return serializer.validate_parameters(self.cleaned_data["parameters"])
        except APIError as exc:
            detail = exc.detail if isinstance(exc.detail, list) else [exc.detail]
            raise forms.ValidationError([str(d) for d in detail]) from None


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    """Deleting a judge here follows the API's rule (:mod:`judges.removal`): refused, with
    the studies named, when its results lie in several studies, annotators adjudicate its
    verdicts or a run still writes; otherwise its results are deleted as the API deletes
    them, recorded in the study's audit trail. The cascade of a plain delete took the
    judge's results in every study with it, silently."""

    form = JudgeAdminForm
    list_display = ("name", "provider", "model", "prompt_version")
    search_fields = ("name", "provider", "model")
    actions = ["delete_selected"]

    def _refuse(self, request, refusals) -> None:
        for exc in refusals:
            self.message_user(request, str(exc), messages.ERROR)

    def delete_view(self, request, object_id, extra_context=None):
        judge = self.get_object(request, unquote(object_id))
        back = HttpResponseRedirect(
            reverse(f"admin:{Judge._meta.app_label}_judge_change", args=[object_id])
        )
        if judge is not None and self.has_delete_permission(request, judge):
            refused = removal.whole_deletion_refusal(judge)
            if refused is not None:  # before the page lists what the cascade would take
                self._refuse(request, [refused])
                return back
        try:
            return super().delete_view(request, object_id, extra_context)
        except removal.RemovalRefused as exc:  # a run started since: nothing was deleted
            self._refuse(request, [exc])
            return back

    def delete_model(self, request, obj):
        removal.delete_judge(obj, user=request.user)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            for judge in queryset:
                removal.delete_judge(judge, user=request.user)

    @admin.action(permissions=["delete"], description="Delete selected judges")
    def delete_selected(self, request, queryset):
        """Django's "delete selected", refused whole (nothing deleted) when any selected
        judge may not be deleted, each refusal shown."""
        refusals = [r for r in map(removal.whole_deletion_refusal, queryset) if r is not None]
        if refusals:
            self._refuse(request, refusals)
            return None
        try:
            with transaction.atomic():  # the log entries go with a refused deletion
                return django_delete_selected(self, request, queryset)
        except removal.RemovalRefused as exc:
            self._refuse(request, [exc])
            return None


@admin.register(JudgeScore)
class JudgeScoreAdmin(admin.ModelAdmin):
    list_display = ("judge", "report", "system_name", "metric", "value")
    list_filter = ("judge", "metric")
    search_fields = ("judge__name", "report__system__name", "report__question__text")
    raw_id_fields = ("report",)
    list_select_related = ("judge", "report__system")

    @admin.display(description="system", ordering="report__system__name")
    def system_name(self, obj):
        return obj.report.system.name


# --- Live runs and per-unit judgments (judges.runs) --------------------------------------------

from .models import (  # noqa: E402
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgePairwise,
    JudgeRelevance,
    JudgeRun,
    JudgeUnit,
    LLMResponse,
)


class JudgeUnitInline(admin.TabularInline):
    model = JudgeUnit
    fields = ("key", "status", "attempts", "cached", "prompt_tokens", "completion_tokens", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(JudgeRun)
class JudgeRunAdmin(admin.ModelAdmin):
    list_display = ("id", "judge", "study", "status", "done_units", "failed_units",
                    "total_units", "requests", "cost", "created_at")  # fmt: skip
    list_filter = ("status", "judge")
    readonly_fields = ("lease", "heartbeat_at", "started_at", "finished_at", "errors")
    inlines = [JudgeUnitInline]


@admin.register(JudgeCoverage)
class JudgeCoverageAdmin(admin.ModelAdmin):
    list_display = ("judge", "report", "item", "label", "covered")
    list_filter = ("judge",)
    raw_id_fields = ("report", "item", "run")


@admin.register(JudgePairwise)
class JudgePairwiseAdmin(admin.ModelAdmin):
    list_display = ("judge", "protocol", "left", "right", "choice", "score_left", "score_right")
    list_filter = ("judge", "protocol", "choice")
    raw_id_fields = ("left", "right", "run")


@admin.register(JudgeRelevance)
class JudgeRelevanceAdmin(admin.ModelAdmin):
    list_display = ("judge", "paragraph", "relevant")
    list_filter = ("judge", "relevant")
    raw_id_fields = ("paragraph", "run")


@admin.register(JudgeClaimVerdict)
class JudgeClaimVerdictAdmin(admin.ModelAdmin):
    list_display = ("judge", "report", "key", "verdict")
    list_filter = ("judge", "verdict")
    raw_id_fields = ("report", "run")


@admin.register(LLMResponse)
class LLMResponseAdmin(admin.ModelAdmin):
    list_display = ("key", "model", "prompt_tokens", "completion_tokens", "created_at")
    search_fields = ("key", "model")
