"""The systems an expert judged in a study: those of a report any expert judgment of any
kind is about (one ``UNION`` query). The report's selection line names the selected
systems without one (an admin ticked 6 systems and the line listed the 5 with judgments,
silently leaving OpenAI out)."""

from __future__ import annotations

from annotation.judgment_kinds import REPORT_PATHS

from ._db import settings_filter

#: Judgment models about a question, its rubric or its items: no system is judged.
QUESTION_LEVEL = ("QueryQuality", "RubricItemQuality", "RubricComparison")


def judged_systems(study_id: int, settings=None) -> set[str]:
    """Names of the study's systems with at least one expert judgment of any kind (in
    ``settings`` when given)."""
    from annotation.protection import judgment_models

    where = {"study_id": study_id, **settings_filter(settings)}
    parts = [
        model.objects.filter(**where, **{f"{path}__isnull": False})
        .order_by()
        .values_list(f"{path}__system__name", flat=True)
        .distinct()
        for model in sorted(judgment_models(), key=lambda m: m._meta.model_name)
        for path in REPORT_PATHS.get(model.__name__, ())
    ]
    if not parts:
        return set()
    first, *rest = parts
    return set(first.union(*rest) if rest else first)
