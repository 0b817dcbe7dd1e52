"""A.4 rubric comparison (003 Appendix A.4; docs/ANALYSES.md §5): each rubric source's win
rate over the experts' medal rankings of rubrics, and the p-value of every two sources'
comparison (binomial on decisive matches)."""

from annotation.models import RubricComparison

from ..analyses.followups import analyse_rubric_comparison
from ..analysis_schema import RubricComparisonAnalysisSerializer
from ..loaders.rubric_comparison import load_rubric_comparisons
from . import _kit
from .base import FigureSpec, Section, register


def _compute(analysis):
    if not _kit.has(RubricComparison, analysis.study_id):
        return None
    signal = analysis.options.human_signal
    data = load_rubric_comparisons(analysis.study_id, _kit.settings(analysis),
                                   signal == "adjudicated")  # fmt: skip
    out = analyse_rubric_comparison(data, rounds=max(_kit.rounds(analysis), 1000),
                                    seed=analysis.options.seed,
                                    signal=signal, failed=_kit.failed(analysis))  # fmt: skip
    return out


def _tables(result, entry):
    if not result:
        return {}
    return {
        "rubric_sources": (result["sources"], ["source", "matches", "wins", "ties", "losses",
                                               "win_rate", "tie_rate", "score"]),
        "rubric_source_tests": (result["comparisons"], ["x", "y", "x_wins", "y_wins", "ties",
                                                        "pvalue", "method", "note"]),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    return _kit.intervals_figure(
        [(s["source"], {"value": s["win_rate"]}) for s in result["sources"]],
        "win rate against the other rubric sources",
        f"{result['rankings']} rankings",
    )


register(Section(
    key="rubric_comparison", title="Rubric comparison (ScholarQA-CS2 A.4)", compute=_compute,
    template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("rubric-comparison", "Rubric sources: win rates", _draw),),
    text=lambda r: "rubric comparison: " + (", ".join(
        f"{s['source']} {s['win_rate']}" for s in r["sources"]) if r else "none"),
    serializer=RubricComparisonAnalysisSerializer, order=65,
))  # fmt: skip
