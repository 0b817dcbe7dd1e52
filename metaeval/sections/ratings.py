"""Fig. 9 ratings (003 Appendix, Fig. 9; docs/ANALYSES.md §5): the four 5-point ratings
(informativeness, background, organization, flow) per system, and each one's correlation
with the preference (mean medal) and with every judge metric."""

from annotation.models import ReportRating

from ..analyses.followups import analyse_ratings
from ..analysis_schema import RatingsAnalysisSerializer
from ..loaders.ratings import load_ratings
from . import _kit
from .base import FigureSpec, Section, register


def _compute(analysis):
    if not _kit.has(ReportRating, analysis.study_id):
        return None
    signal = analysis.options.human_signal
    data = load_ratings(analysis.study_id, _kit.settings(analysis), signal == "adjudicated")
    return analyse_ratings(data, signal=signal, failed=_kit.failed(analysis))


def _tables(result, entry):
    if not result:
        return {}
    means = [{"dimension": d["dimension"], "system": s, **m}
             for d in result["dimensions"] for s, m in d["by_system"].items()]  # fmt: skip
    corr = [{"dimension": d["dimension"], "against": name, **c}
            for d in result["dimensions"] for name, c in d["correlations"].items()]  # fmt: skip
    return {
        "ratings_by_system": (means, ["dimension", "system", "mean", "n"]),
        "ratings_correlations": (corr, ["dimension", "against", "pearson", "spearman", "n",
                                        "note"]),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    rows = [(f"{d['dimension']}: {s}", {"value": m["mean"]})
            for d in result["dimensions"] for s, m in d["by_system"].items()]  # fmt: skip
    return _kit.intervals_figure(rows, "mean rating (1–5)", xlim=(1, 5))


register(Section(
    key="ratings", title="Report ratings (ScholarQA-CS2 Fig. 9)", compute=_compute,
    template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("ratings", "Ratings per system", _draw),),
    text=lambda r: "ratings: " + (", ".join(d["dimension"] for d in r["dimensions"])
                                  if r else "none"),
    serializer=RatingsAnalysisSerializer, order=68,
))  # fmt: skip
