from django.contrib import admin

from .models import Judge, JudgeScore


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    list_display = ("name", "provider", "model", "prompt_version")
    search_fields = ("name", "provider", "model")


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
