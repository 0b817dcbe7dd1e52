"""IAA of every doubly annotated label kind (METHODS §5 IAA; docs/ANALYSES.md §6): strict
agreement, Cohen's κ (mean over annotator pairs), Fleiss' κ and Krippendorff's α at the
kind's level of measurement, for preferences, 0–4 and binary coverage, every quality type,
claim support, 5-point report ratings, human metric scores, paragraph relevance,
rubric-item confidence and each DeepScholar label kind (human vs human, seed 002 §8.11).
Each kind's loader runs only when the study has judgments of it (the other sections of the
page share the loaded data)."""

from contextlib import suppress

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


def _compute(analysis):
    sid = analysis.study_id
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
    if has & set(LABEL_KIND_MODELS):
        sets |= load_label_kinds(sid, _kit.settings(analysis), has)
    levels: dict[str, str] = {}
    if DeepScholarLabel in has:
        rows = DeepScholarLabel.objects.filter(
            study_id=sid, **settings_filter(_kit.settings(analysis))
        ).values_list("kind", "question_id", "report_id", "unit", "annotator_id", "label")
        more, levels = deepscholar_sets(rows, clusters)
        sets.update(more)
    if not sets:
        return None
    out = {"kinds": analyse_iaa(sets, levels, clusters, _kit.rounds(analysis),
                                analysis.options.seed)}  # fmt: skip
    if not out["kinds"]:  # no kind holds a label (e.g. only unparsed quality labels)
        return None
    if analysis.options.human_signal is not None:  # never silently ignored (ANALYSES §0)
        out["human_signal"] = {"mode": analysis.options.human_signal, "applies": False,
                               "note": NOT_APPLICABLE}  # fmt: skip
    return out


def _draw(result, entry):
    if not result:
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
                                              for k in r["kinds"]) if r else "none"),
    serializer=LabelIAAListSerializer, order=69,
))  # fmt: skip
