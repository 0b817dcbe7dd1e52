"""A.5 controlled claim check (003 Appendix A.5; docs/ANALYSES.md §5): human vs each judge
on claim support (citation recall) and on each citation's support (citation precision),
with and without the first system the report's ``exclude_systems`` names (the paper:
69 % / 75 %, 75 % / 81 % without Elicit)."""

from annotation.models import ClaimCheck

from ..analyses.followups import analyse_claims
from ..analysis_schema import ClaimAnalysisSerializer
from ..loaders.claims import load_claims
from . import _kit
from .base import FigureSpec, Section, register

BLOCKS = ("claim_support", "citation_support")


def claim_data(analysis):
    adjudicated = analysis.options.human_signal == "adjudicated"
    return _kit.loaded(analysis, "claims",
                       lambda: load_claims(analysis.study_id, _kit.settings(analysis),
                                           adjudicated))  # fmt: skip


def _compute(analysis):
    if not _kit.has(ClaimCheck, analysis.study_id):
        return None
    excluded = (analysis.options.exclude_systems or (None,))[0]
    out = analyse_claims(claim_data(analysis), exclude_system=excluded,
                         rounds=_kit.rounds(analysis), seed=analysis.options.seed,
                         signal=analysis.options.human_signal,
                         failed=_kit.failed(analysis))  # fmt: skip
    return out


def _rows(result):
    rows = []
    for j in result["judges"]:
        for subset in ("all", "without"):
            if subset not in j:
                continue
            for block in BLOCKS:
                b = j[subset][block]
                rows.append({"judge": j["judge"], "subset": subset, "figure": block,
                             **_kit.cells(b["agreement"]), "kappa": b["kappa"]["value"],
                             "judge_lenient": b["judge_lenient"]["value"]})  # fmt: skip
    return rows


def _tables(result, entry):
    if not result:
        return {}
    cols = ["judge", "subset", "figure", *_kit.FIG_COLUMNS, "kappa", "judge_lenient"]
    return {"claim_support": (_rows(result), cols)}


def _draw(result, entry):
    if not result:
        return None
    rows = [(f"{r['judge']} {r['subset']}: {r['figure']}", r) for r in _rows(result)]
    return _kit.intervals_figure(rows, "human vs judge agreement on claims and citations")


register(Section(
    key="claim_support", title="Controlled claim check (ScholarQA-CS2 A.5)", compute=_compute,
    template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("claim-support", "Claim and citation support: agreement", _draw),),
    text=lambda r: f"claim check: {r['checks']} checks" if r else "claim check: none",
    serializer=ClaimAnalysisSerializer, order=66,
))  # fmt: skip
