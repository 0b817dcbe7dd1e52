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
