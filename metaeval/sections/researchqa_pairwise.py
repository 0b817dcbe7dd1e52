"""ResearchQA pairwise preference (001 §3.3, §4.1; METHODS §7; docs/ANALYSES.md §1): the
plurality label over up to four experts, human-vs-majority accuracy, binarised pairwise
agreement (Tie / Both bad dropped), each judge's accuracy with footnote 6's partial credit
(Table 5 shape, one row per judge and protocol) and the paired permutation test between
every two judges."""

from annotation.models import PairwisePreference

from ..analyses.researchqa_pairwise import analyse_pairwise
from ..analysis_schema import PairwiseAnalysisSerializer
from ..loaders.pairwise import load_pairwise
from ..loaders.signal import load_adjudicated
from . import _kit
from .base import FigureSpec, Section, register

DIFF_COLUMNS = ["a", "b", "agreement_a", "agreement_b", "difference", "pvalue", "n",
                "questions", "note"]  # fmt: skip


def result_of(analysis) -> dict | None:
    """The whole pairwise analysis (the leaderboard section reads its boards from here)."""
    if not _kit.has(PairwisePreference, analysis.study_id):
        return None
    data = _kit.loaded(analysis, "pairwise",
                       lambda: load_pairwise(analysis.study_id, _kit.settings(analysis)))  # fmt: skip
    signal = analysis.options.human_signal
    adjudicated = (data.adjudicated(load_adjudicated(analysis.study_id, "pairwise"))
                   if signal == "adjudicated" else None)  # fmt: skip
    return analyse_pairwise(data, rounds=_kit.rounds(analysis), seed=analysis.options.seed,
                            signal=signal, adjudicated=adjudicated,
                            failed=_kit.failed(analysis))  # fmt: skip


def _compute(analysis):
    full = _kit.loaded(analysis, "pairwise_result", lambda: result_of(analysis))
    if full is None:
        return None
    return {k: v for k, v in full.items() if k != "leaderboard"}


def _tables(result, entry):
    if not result:
        return {}
    humans = [{"figure": name, **_kit.cells(result[name])}
              for name in ("human_vs_majority", "binarised_pa")]  # fmt: skip
    judges = [{"judge": j["judge"], "protocol": j["protocol"], **_kit.cells(j["accuracy"])}
              for j in result["judges"]]  # fmt: skip
    return {
        "pairwise_human": (humans, ["figure", *_kit.FIG_COLUMNS]),
        "pairwise_judges": (judges, ["judge", "protocol", *_kit.FIG_COLUMNS]),
        "pairwise_judge_tests": (result["judge_differences"], DIFF_COLUMNS),
    }


def _draw(result, entry):
    if not result:
        return None
    rows = [("human vs majority", result["human_vs_majority"]),
            ("binarised PA (humans)", result["binarised_pa"])]  # fmt: skip
    rows += [(f"{j['judge']} ({j['protocol']})", j["accuracy"]) for j in result["judges"]]
    return _kit.intervals_figure(rows, "agreement / accuracy (footnote-6 credit)",
                                 f"{result['comparisons']} comparisons")  # fmt: skip


def _text(result) -> str:
    if not result:
        return "pairwise: no pairwise preference in this selection"
    lines = [f"pairwise: {result['comparisons']} comparisons, human vs majority "
             f"{result['human_vs_majority']['value']}, binarised PA {result['binarised_pa']['value']}"]  # fmt: skip
    lines += [f"  {j['judge']} {j['protocol']}: {j['accuracy']['value']}" for j in result["judges"]]
    lines += [f"  {d['a']} vs {d['b']}: difference {d['difference']}, p = {d['pvalue']}"
              for d in result["judge_differences"]]  # fmt: skip
    return "\n".join(lines)


register(Section(
    key="researchqa_pairwise", title="Pairwise preference (ResearchQA §3.3, §4.1)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("researchqa-pairwise", "Pairwise agreement and judge accuracy", _draw),),
    text=_text, serializer=PairwiseAnalysisSerializer, order=60,
))  # fmt: skip
