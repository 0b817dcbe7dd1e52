"""A.6 relevance adjudication (003 Appendix A.6; docs/ANALYSES.md §5): keep / switch /
subjective rates per setting, and the test of near-expert vs deep-expert difference."""

from annotation.models import RelevanceAdjudication

from ..analyses.followups import analyse_adjudication
from ..analysis_schema import AdjudicationAnalysisSerializer
from ..loaders.adjudication import load_adjudications
from . import _kit
from .base import FigureSpec, Section, register

DECISIONS = ("keep", "switch", "subjective")


def _compute(analysis):
    if not _kit.has(RelevanceAdjudication, analysis.study_id):
        return None
    return analyse_adjudication(load_adjudications(analysis.study_id, _kit.settings(analysis)),
                                signal=analysis.options.human_signal)  # fmt: skip


def _tables(result, entry):
    if not result:
        return {}
    tests = [{"a": d["a"], "b": d["b"], "pvalue_all": d["pvalue_all"],
              **{f"pvalue_{k}": v for k, v in d["pvalue_per_decision"].items()}}
             for d in result["differences"]]  # fmt: skip
    return {
        "adjudication_rates": (result["settings"], ["setting", "n", *DECISIONS]),
        "adjudication_tests": (tests, ["a", "b", "pvalue_all",
                                       *(f"pvalue_{k}" for k in DECISIONS)]),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    rows = [
        (f"{s['setting']}: {k}", {"value": s[k]}) for s in result["settings"] for k in DECISIONS
    ]
    return _kit.intervals_figure(rows, "share of adjudications")


register(Section(
    key="relevance_adjudication", title="Relevance adjudication (ScholarQA-CS2 A.6)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("relevance-adjudication", "Adjudication decisions per setting", _draw),),
    text=lambda r: "adjudication: " + (", ".join(
        f"{s['setting']} keep {s['keep']}" for s in r["settings"]) if r else "none"),
    serializer=AdjudicationAnalysisSerializer, order=67,
))  # fmt: skip
