"""IAA of every doubly annotated label kind (METHODS §5 IAA; docs/ANALYSES.md §6): strict
agreement, Cohen's κ (mean over annotator pairs), Fleiss' κ and Krippendorff's α at the
kind's level of measurement, for preferences, 0–4 and binary coverage, every quality type,
claim support, 5-point report ratings, human metric scores, paragraph relevance,
rubric-item confidence and each DeepScholar label kind (human vs human, seed 002 §8.11).
Each kind's loader runs only when the study has judgments of it (the other sections of the
page share the loaded data)."""

from contextlib import suppress

import numpy as np
from django.db.models import Q

from annotation.models import (
    ClaimCheck,
    DeepScholarLabel,
    PairwisePreference,
    QueryQuality,
    RubricCoverage,
    RubricItemQuality,
)

from ..analyses.iaa import IAA_FIGURES, analyse_iaa, deepscholar_sets, label_clusters, label_sets
from ..analysis_schema import LabelIAAListSerializer
from ..loaders._db import settings_filter
from ..loaders.label_kinds import LABEL_KIND_MODELS, load_label_kinds
from ..loaders.pairwise import load_pairwise
from . import _kit
from .base import FigureSpec, Section, register
from .claim_support import claim_data
from .coverage_alignment import coverage_data
from .label_quality import quality_data

COLUMNS = ["kind", "level", "units", "pairs",
           *[f"{name}{end}" for name in IAA_FIGURES for end in ("", "_low", "_high")],
           "note"]  # fmt: skip


NOT_APPLICABLE = (
    "The human signal does not apply: inter-annotator agreement compares each "
    "annotator's labels (docs/ANALYSES.md §6)."
)


#: Why label_iaa is null although the study has labels: the selection keeps none twice.
NO_UNIT = (
    "label_iaa is null: no unit of this selection (systems, exclude_systems, "
    "expert_agreed) was labelled by two annotators."
)


#: Why label_iaa is null with ``expert_agreed`` when the subset keeps no report: it reads
#: the labels of the reports of the comparisons it keeps, and it keeps none. Before, the
#: section was left out without a word (the kinds read only selected reports had no row).
NO_AGREED_COMPARISON = (
    "label_iaa is null: the expert-agreed subset is empty (no comparison of this selection "
    "has two or more judgments that all agree), and expert_agreed reads the labels of its "
    "comparisons' reports only."
)
NO_COMPARISON = (
    "label_iaa is null: this selection has no comparison (medal ranking or metric-wise "
    "score of two reports), and expert_agreed reads the labels of the reports of the "
    "comparisons whose judgments all agree only."
)


def _none_kept(analysis, reports: set[int]) -> str:
    """Why the selection (its ``reports``, :func:`selected_reports`) keeps no unit
    labelled twice: the empty expert-agreed subset (:data:`NO_COMPARISON`,
    :data:`NO_AGREED_COMPARISON`) when ``expert_agreed`` keeps no report, else
    :data:`NO_UNIT`."""
    if analysis.options.expert_agreed and not reports:
        from ..reports import n_judged

        judged = n_judged(analysis.report.get("selection") or {})
        return NO_AGREED_COMPARISON if judged else NO_COMPARISON
    return NO_UNIT


def selected_reports(analysis) -> set[int] | None:
    """The ids of the reports the selection keeps, the ones the rest of the report reads:
    of its ``systems`` and not of its ``exclude_systems``; with ``expert_agreed``, only the
    reports of the comparisons it analyses. None: no option selects, every report counts.
    Before, label IAA ignored these options and gave the same figures for every selection."""
    options = analysis.options
    if not (options.systems or options.exclude_systems or options.expert_agreed):
        return None
    from annotation.models import Report

    reports = Report.objects.filter(question__study_id=analysis.study_id)
    if options.systems:
        reports = reports.filter(system__name__in=options.systems)
    if options.exclude_systems:
        reports = reports.exclude(system__name__in=options.exclude_systems)
    rows = reports.values_list("id", "question__external_id", "system__name")
    if not options.expert_agreed:
        return {pk for pk, _, _ in rows}
    from ..figures import analysed_frame

    frame = analysed_frame(analysis.loaded()[0], options, analysis.report)
    kept = {(frame.questions[q], frame.systems[s])
            for q, a, b in zip(frame.question, frame.system_a, frame.system_b, strict=True)
            for s in (a, b)}  # fmt: skip
    return {pk for pk, q, system in rows if (q, system) in kept}


def _keep_rows(sets: dict, clusters: dict, kind: str, keep: np.ndarray) -> None:
    """Only the rows ``keep`` of ``kind``'s units × annotators (and of its clusters)."""
    if kind in sets and sets[kind].shape[0] == keep.size:
        sets[kind] = sets[kind][keep]
        if kind in clusters:
            clusters[kind] = np.asarray(clusters[kind])[keep]


def _restrict(sets: dict, clusters: dict, kinds: dict, reports: set[int]) -> None:
    """The comparisons, coverage units and checked claims of the selected ``reports``
    only."""
    ids = np.fromiter(reports, dtype=np.int64, count=len(reports))
    if "pairwise" in kinds:
        p = kinds["pairwise"]
        _keep_rows(sets, clusters, "preference",
                   np.isin(p.report_a, ids) & np.isin(p.report_b, ids))  # fmt: skip
    if "coverage" in kinds:
        keep = np.isin(kinds["coverage"].report, ids)
        for kind in ("coverage", "coverage_binary"):
            _keep_rows(sets, clusters, kind, keep)
    if "claim_support" in sets:
        from annotation.models import ReportClaim

        claims = ReportClaim.objects.filter(report_id__in=list(reports))
        sets["claim_support"] = kinds["claims"].human_matrix(claims.values_list("id", flat=True))


def _compute(analysis):
    sid = analysis.study_id
    reports = selected_reports(analysis)
    has = _kit.present(sid, PairwisePreference, RubricCoverage, QueryQuality,
                       RubricItemQuality, ClaimCheck, DeepScholarLabel,
                       *LABEL_KIND_MODELS)  # fmt: skip
    kinds = {}
    if PairwisePreference in has:
        kinds["pairwise"] = _kit.loaded(analysis, "pairwise",
                                        lambda: load_pairwise(sid, _kit.settings(analysis)))  # fmt: skip
    if RubricCoverage in has:
        kinds["coverage"] = coverage_data(analysis)
    if QueryQuality in has or RubricItemQuality in has:
        with suppress(ValueError):  # a label outside the paper's scale: the kind is left out
            kinds["quality"] = quality_data(analysis)
    if ClaimCheck in has:
        kinds["claims"] = claim_data(analysis)
    sets = label_sets(**kinds) if kinds else {}
    clusters = label_clusters(kinds.get("pairwise"), kinds.get("coverage"))
    if reports is not None:
        _restrict(sets, clusters, kinds, reports)
    if has & set(LABEL_KIND_MODELS):
        sets |= load_label_kinds(sid, _kit.settings(analysis), has, reports)
    levels: dict[str, str] = {}
    if DeepScholarLabel in has:
        rows = DeepScholarLabel.objects.filter(
            study_id=sid, **settings_filter(_kit.settings(analysis))
        )
        if reports is not None:  # a question's own units (no report) are kept
            rows = rows.filter(Q(report__isnull=True) | Q(report_id__in=list(reports)))
        more, levels = deepscholar_sets(rows.values_list(
            "kind", "question_id", "report_id", "unit", "annotator_id", "label"), clusters)  # fmt: skip
        sets.update(more)
    if not sets:
        if reports is not None and has:  # labels, none of the selected reports
            return {"kinds": [], "note": _none_kept(analysis, reports), "n_labels": 0}
        return None
    # the labels read, of the selected units: the count the page shows beside the figures
    # (before, only the selection line's comparisons, "0 judgments" beside label figures)
    n_labels = sum(int(np.isfinite(m).sum()) for m in sets.values() if m.size)
    out = {"kinds": analyse_iaa(sets, levels, clusters, _kit.rounds(analysis),
                                analysis.options.seed), "n_labels": n_labels}  # fmt: skip
    if reports is not None and not any(k["pairs"] for k in out["kinds"]):
        return {
            "kinds": [],
            "note": _none_kept(analysis, reports),
            "n_labels": n_labels,
        }  # null in the report (sections.with_payload)
    if not out["kinds"]:  # no kind holds a label (e.g. only unparsed quality labels)
        return None
    if analysis.options.human_signal is not None:  # never silently ignored (ANALYSES §0)
        out["human_signal"] = {"mode": analysis.options.human_signal, "applies": False,
                               "note": NOT_APPLICABLE}  # fmt: skip
    return out


def _draw(result, entry):
    if not (result and result["kinds"]):
        return None
    rows = [(f"{k['kind']} ({k['level']})", {"value": k["krippendorff_alpha"]})
            for k in result["kinds"]]  # fmt: skip
    return _kit.intervals_figure(rows, "Krippendorff's α", xlim=(-1.05, 1.05))


register(Section(
    key="label_iaa", title="Inter-annotator agreement per label kind", compute=_compute,
    template="metaeval/sections/analysis.html",
    tables=lambda r, e: {"label_iaa": (r["kinds"], COLUMNS)} if r else {},
    figures=(FigureSpec("label-iaa", "Krippendorff's α per label kind", _draw),),
    text=lambda r: "label IAA: " + (", ".join(f"{k['kind']} α {k['krippendorff_alpha']}"
                                              for k in r["kinds"]) if r and r["kinds"]
                                    else (r or {}).get("note") or "none"),
    serializer=LabelIAAListSerializer, order=69,
    absent=lambda r, e: None if r is None or r["kinds"] else r["note"],
))  # fmt: skip
