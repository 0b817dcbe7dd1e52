"""Adjudicated labels for the ``adjudicated`` human signal (ANALYSES §0; QUALITY.md): one
query, the rule of :func:`annotation.quality.observations.adjudicated_labels` (a unit has
an adjudicated label when every decided request of it gave the same one)."""

from __future__ import annotations

from dataclasses import dataclass, field


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


@dataclass(frozen=True)
class AdjudicatedRelevance:
    """Each annotator's answer_relevance as their paragraph labels read after the A.6
    relevance adjudications (the metric-wise part of the ``adjudicated`` signal, ANALYSES
    §0): only the (annotator, setting, report) whose labels a decision changed."""

    #: (pseudonym, setting, report id) -> answer_relevance of the adjudicated labels
    relevance: dict[tuple[str, str, int], float] = field(default_factory=dict)
    changed: int = 0  # paragraph labels a switch decision changed

    def summary(self) -> dict:
        return {"relevance_labels_changed": self.changed,
                "relevance_reports_changed": len(self.relevance)}  # fmt: skip


def adjudicated_relevance(study_id: int) -> AdjudicatedRelevance:
    """The answer_relevance of every (annotator, setting, report) whose paragraph labels
    the study's decided relevance adjudications (003 A.6) change, recomputed from the
    labels (:func:`annotation.annotate.scores.answer_relevance`, the study's credits).

    A paragraph's adjudicated label is :func:`annotation.adjudication.final_label` of the
    annotator's decision on it in that setting (one at most: one adjudication assignment
    per annotator, question and setting, one disagreement per paragraph in it): the
    judge's verdict as R / O for *switch*, the annotator's current label for *keep* and
    *subjective*. A disagreement not decided yet, or a paragraph the annotator has no
    label of, changes nothing. The stored labels and scores are never changed. One query
    without a switch decision; three with one."""
    from annotation import adjudication as rules
    from annotation.annotate.scores import answer_relevance
    from annotation.models import Paragraph, ParagraphRelevance, RelevanceAdjudication, Study

    switched = {
        (annotator, setting, paragraph): relevant
        for annotator, setting, paragraph, relevant in RelevanceAdjudication.objects.filter(
            study_id=study_id, decision=rules.SWITCH
        ).values_list(
            "annotator_id", "setting", "disagreement__paragraph_id", "disagreement__judge_relevant"
        )  # fmt: skip
    }
    if not switched:
        return AdjudicatedRelevance()
    rows = ParagraphRelevance.objects.filter(
        study_id=study_id, annotator_id__in={k[0] for k in switched},
        paragraph__report_id__in=Paragraph.objects.filter(
            pk__in={k[2] for k in switched}).values("report_id"),
    ).values_list("annotator_id", "annotator__pseudonym", "setting", "paragraph_id",
                  "paragraph__report_id", "label")  # fmt: skip
    labels: dict[tuple[str, str, int], list[str]] = {}
    changed, touched = 0, set()
    for annotator, pseudonym, setting, paragraph, report, label in rows:
        relevant = switched.get((annotator, setting, paragraph))
        final = label if relevant is None else rules.final_label(rules.SWITCH, label, relevant)
        if final != label:
            changed += 1
            touched.add((pseudonym, setting, report))
        labels.setdefault((pseudonym, setting, report), []).append(final)
    if not touched:
        return AdjudicatedRelevance()
    credit = Study.objects.get(pk=study_id).setting("relevance_credit")
    return AdjudicatedRelevance(
        {key: answer_relevance(labels[key], credit) for key in touched}, changed
    )
