"""Expertise triage (003 Setting 2): the annotator rates a candidate question against their
own expertise — within / near / outside — which feeds the near-expert assignment."""

from __future__ import annotations

from annotation.models import ExpertiseRating

from .base import Problems, TaskSpec, demote
from .widgets import radio_group

LEVELS = [
    (ExpertiseRating.Level.WITHIN, "Within my expertise", "w"),
    (ExpertiseRating.Level.NEAR, "Near my expertise", "n"),
    (ExpertiseRating.Level.OUTSIDE, "Outside my expertise", "o"),
]


class ExpertiseTriageTask(TaskSpec):
    key = "expertise_triage"
    template = "annotation/annotate/expertise_triage.html"

    def initial(self, page):
        return {"level": ""}

    def parse(self, data, page):
        return {"level": str(data.get("level", ""))}

    def check(self, payload, page, *, final):
        level = payload.get("level") or ""
        if level and level not in ExpertiseRating.Level.values:
            return Problems(errors=[f"Expertise: {level!r} is not within, near or outside."])
        if not level:
            return demote(Problems(errors=["Expertise: choose within, near or outside."]), final)
        return Problems()

    def persist(self, payload, page):
        ExpertiseRating.objects.update_or_create(
            annotator=page.annotator, question=page.question, defaults={"level": payload["level"]}
        )

    def context(self, payload, page):
        return {
            "level_html": radio_group(
                "level",
                [(str(v), label, k) for v, label, k in LEVELS],
                payload.get("level"),
                "How does this question relate to your expertise?",
            )
        }
