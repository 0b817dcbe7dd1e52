"""Adjudicated labels for the ``adjudicated`` human signal (ANALYSES §0; QUALITY.md): one
query, the rule of :func:`annotation.quality.observations.adjudicated_labels` (a unit has
an adjudicated label when every decided request of it gave the same one)."""

from __future__ import annotations


def load_adjudicated(study_id: int, task: str) -> dict[tuple[int, str], str]:
    """``(question id, unit) -> adjudicated label`` of one task (``annotation.quality``'s
    canonical labels: pairwise units are ``SysA~SysB``, medal rankings ``""``)."""
    from annotation.quality.observations import adjudicated_labels

    return {
        (q, unit): label for (_t, q, unit), label in adjudicated_labels(study_id, (task,)).items()
    }


def adjudicated_medals(study_id: int) -> dict[str, dict[str, float]]:
    """question external id -> {system: medal score} of its adjudicated medal ranking (the
    agreement report's frame names questions by external id). Two queries."""
    from annotation.models import Medal, Question
    from annotation.quality.labels import parse_ranking

    labels = load_adjudicated(study_id, "medal_ranking")
    if not labels:
        return {}
    external = dict(Question.objects.filter(id__in=[q for q, _ in labels])
                    .values_list("id", "external_id"))  # fmt: skip
    out = {}
    for (q, _), label in labels.items():
        medals = parse_ranking(label)
        out[external[q]] = {s: Medal.SCORE[m] for s, m in medals.items() if m in Medal.SCORE}
    return out


def failed_annotators(study_id: int) -> frozenset[int]:
    """Ids of the annotators who failed the study's qualification round (a study that
    requires it; one query): their labels count nowhere (QUALITY.md), so the majority and
    adjudicated signals do not read them (:func:`metaeval.stats.signal.collapse`'s
    ``excluded``); each annotator's own figures (``each``) still show them."""
    from annotation.models.quality import failed_results

    return frozenset(failed_results(study_id).values_list("annotator_id", flat=True))


def failed_pseudonyms(study_id: int) -> frozenset[str]:
    """:func:`failed_annotators` by pseudonym (the agreement report's frame names
    annotators so)."""
    from annotation.models.quality import failed_results

    return frozenset(failed_results(study_id).values_list("annotator__pseudonym", flat=True))


def decided(study_id: int, *tasks: str) -> dict[tuple[str, int, str], str]:
    """``(task, question id, QC unit) -> adjudicated label`` of ``tasks`` in one query:
    :func:`annotation.quality.observations.adjudicated_labels` itself (every decided request
    of a unit gave the same label; else the unit has none). A loader maps the QC unit onto
    its own with the unit parsers of :mod:`annotation.quality.labels` (one declaration)."""
    from annotation.quality.observations import adjudicated_labels

    return adjudicated_labels(study_id, tasks)


def number(label: str) -> float | None:
    """A label as the number an analysis reads: yes 1, no 0, a digit its value; None else."""
    if label in ("yes", "no"):
        return float(label == "yes")
    try:
        return float(label)
    except ValueError:
        return None
