"""What a study's selection holds, over every judgment kind (issue 26): the report's
selection line counts the judgments of every kind, not only the ScholarQA-CS2 comparisons
the agreement report analyses. Three queries whatever the number of kinds (each a
``UNION`` over the judgment models)."""

from __future__ import annotations

from django.db.models import Count, Value

from ._db import settings_filter


def judgment_counts(study_id: int, settings=None) -> dict:
    """``{n_judgments, n_questions, n_annotators, by_kind: {verbose name: count}}`` over
    every judgment model (``annotation.protection.judgment_models``), expertise self-ratings
    and authored questions."""
    from annotation.models import ExpertiseRating
    from annotation.protection import judgment_models

    from .authoring import authored

    models = sorted(judgment_models(), key=lambda m: m._meta.model_name)
    where = {"study_id": study_id, **settings_filter(settings)}

    def union(querysets):
        first, *rest = querysets
        return first.union(*rest, all=False) if rest else first

    # Expertise self-ratings and authored questions are judgments too (issue 26: a study with
    # only these said "no expert judgment yet" above its triage and authoring sections).
    # Neither has a setting, and both sections read them whatever the setting: counted so.
    ratings = ExpertiseRating.objects.filter(question__study_id=study_id).order_by()
    written = authored(study_id).order_by()
    counts = union([
        m.objects.filter(**where).order_by().values("study_id")
        .annotate(kind=Value(str(m._meta.verbose_name)), n=Count("pk")).values_list("kind", "n")
        for m in models
    ] + [
        ratings.values("question__study_id").annotate(
            kind=Value(str(ExpertiseRating._meta.verbose_name)), n=Count("pk")
        ).values_list("kind", "n"),
        written.values("study_id").annotate(kind=Value("authored question"), n=Count("pk"))
        .values_list("kind", "n"),
    ])  # fmt: skip
    by_kind = {kind: n for kind, n in counts if n}
    questions = union(
        [m.objects.filter(**where).order_by().values_list("question_id") for m in models]
        + [ratings.values_list("question_id"), written.values_list("pk")]
    )
    annotators = union(
        [m.objects.filter(**where).order_by().values_list("annotator_id") for m in models]
        + [ratings.values_list("annotator_id"),
           written.filter(authored_by__isnull=False).values_list("authored_by_id")]
    )  # fmt: skip
    return {
        "n_judgments": sum(by_kind.values()),
        "n_questions": len(list(questions)),
        "n_annotators": len(list(annotators)),
        "by_kind": dict(sorted(by_kind.items())),
    }


def settings_present(study_id: int, settings=None) -> list[tuple[str, str]]:
    """``[(setting, label)]`` of the settings present in any judgment kind of the study
    (restricted to ``settings`` when given), in the order and with the labels of their one
    declaration, ``annotation.models.Setting``. One ``UNION`` query. Why every kind: the
    page's Setting selector and the selection line listed only the settings of the medal
    rankings and metric-wise scores, so a study whose expertise-matched judgments were all
    rubric coverage offered "all settings" only and summarised its selection as "—"."""
    from annotation.models import Setting
    from annotation.protection import judgment_models

    where = {"study_id": study_id, **settings_filter(settings)}
    models = sorted(judgment_models(), key=lambda m: m._meta.model_name)
    first, *rest = [
        m.objects.filter(**where).order_by().values_list("setting", flat=True).distinct()
        for m in models
    ]
    found = set(first.union(*rest) if rest else first)
    return [(value, str(label)) for value, label in Setting.choices if value in found]
