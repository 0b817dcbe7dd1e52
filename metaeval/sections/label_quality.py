"""Query and rubric-item quality (001 §3.1, §3.2, Table 2; docs/ANALYSES.md §3): the label
distribution of each annotation type with the paper's merges and the binarised pairwise
agreement beside the paper's printed PA; the share of item judgments with an error flag."""

from annotation.models import QueryQuality, RubricItemQuality

from ..analyses.quality import analyse_quality
from ..analysis_schema import QualityAnalysisSerializer
from ..loaders.quality import load_quality
from . import _kit
from .base import FigureSpec, Section, register


def quality_data(analysis):
    adjudicated = analysis.options.human_signal == "adjudicated"
    return _kit.loaded(analysis, "quality",
                       lambda: load_quality(analysis.study_id, _kit.settings(analysis),
                                            adjudicated))  # fmt: skip


def _compute(analysis):
    if not (_kit.has(QueryQuality, analysis.study_id)
            or _kit.has(RubricItemQuality, analysis.study_id)):  # fmt: skip
        return None
    try:
        data = quality_data(analysis)
    except ValueError:  # a label outside the paper's scale (an older import): not analysed
        return None
    raw = analyse_quality(data, rounds=_kit.rounds(analysis), seed=analysis.options.seed,
                          signal=analysis.options.human_signal,
                          failed=_kit.failed(analysis))  # fmt: skip
    flags = raw.pop("item_flags")
    signal = raw.pop("human_signal", None)
    out = {"kinds": [{"kind": k, **v} for k, v in raw.items()], "item_flags": flags}
    out = out if signal is None else out | {"human_signal": signal}
    return out


def _tables(result, entry):
    if not result:
        return {}
    pa = [{"kind": k["kind"], "merged": "+".join(k["merged"]), "paper_pa": k["paper_pa"],
           **_kit.cells(k["binarised_pa"])} for k in result["kinds"]]  # fmt: skip
    dist = [{"kind": k["kind"], "label": c, "count": n, "share": sh}
            for k in result["kinds"]
            for c, n, sh in zip(k["categories"], k["counts"], k["shares"], strict=False)]  # fmt: skip
    return {
        "quality_agreement": (pa, ["kind", "merged", *_kit.FIG_COLUMNS, "paper_pa"]),
        "quality_distribution": (dist, ["kind", "label", "count", "share"]),
    }


def _draw(result, entry):
    if not result:
        return None
    rows = [(f"{k['kind']} PA", k["binarised_pa"]) for k in result["kinds"]]
    rows += [(f"{k['kind']} merged share", k["merged_share"]) for k in result["kinds"]]
    return _kit.intervals_figure(rows, "binarised pairwise agreement; share in the merge")


register(Section(
    key="label_quality", title="Query and rubric-item quality (ResearchQA §3.1, §3.2, Table 2)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("label-quality", "Quality labels: agreement and merges", _draw),),
    text=lambda r: "quality: " + (", ".join(f"{k['kind']} PA {k['binarised_pa']['value']}"
                                            for k in r["kinds"]) if r else "no label"),
    serializer=QualityAnalysisSerializer, order=64,
))  # fmt: skip
