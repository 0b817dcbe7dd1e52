"""ResearcherBench binary rubric coverage (004 §4.3, Table 2; METHODS §7; docs/ANALYSES.md
§4): the human weighted coverage score per report and system, each judge's accuracy,
precision, recall and F1 against the human labels (unweighted and weighted by item weight)
with Cohen's κ, the judge's coverage score per system beside the human's, and the paired
permutation test between judges on per-item agreement."""

import numpy as np

from annotation.models import RubricCoverage

from ..analyses.coverage import analyse_binary_coverage
from ..analyses.researchqa_pairwise import judge_differences
from ..analyses.scoreboard import researcherbench_coverage
from ..analysis_schema import ResearcherBenchAnalysisSerializer
from ..loaders.scoreboard import load_coverage_results
from . import _kit
from .base import FigureSpec, Section, register
from .coverage_alignment import coverage_data
from .researchqa_pairwise import DIFF_COLUMNS

METRICS = ("accuracy", "precision", "recall", "f1")


def _compute(analysis):
    if not _kit.has(RubricCoverage, analysis.study_id, covered__isnull=False):
        return None
    data = coverage_data(analysis)
    rounds, seed = _kit.rounds(analysis), analysis.options.seed
    signal = analysis.options.human_signal
    results = _kit.loaded(analysis, "judge_coverage_results",
                          lambda: load_coverage_results(analysis.study_id, analysis.options))  # fmt: skip
    failed = _kit.failed(analysis)
    out = analyse_binary_coverage(data, rounds=rounds, seed=seed, signal=signal,
                                  benchmark=researcherbench_coverage(results),
                                  failed=failed)  # fmt: skip
    out["systems"] = list(data.systems)
    credits = {}
    sig = data.signal("covered", signal, failed)
    for judge in data.judges:
        h, j, q, _ = data.human_vs_judge(judge, "covered", sig)
        if not (~(np.isnan(h) | np.isnan(j))).any():
            continue
        credits[(judge, "binary")] = np.where(np.isnan(h) | np.isnan(j), np.nan, h == j)
        clusters = q
    out["judge_differences"] = judge_differences(credits, clusters, rounds, seed) if credits else []
    return out


def _tables(result, entry):
    if not result:
        return {}
    judges, cols = [], ["judge", "weighting", "n", "kappa"]
    for m in METRICS:
        cols += [m, f"{m}_low", f"{m}_high"]
    for j in result["judges"]:
        for w in ("unweighted", "weighted"):
            row = {"judge": j["judge"], "weighting": w, "n": j["n"], "kappa": j["kappa"]["value"]}
            for m in METRICS:
                fig = j[w][m]
                row[m], row[f"{m}_low"], row[f"{m}_high"] = fig["value"], fig["low"], fig["high"]
            row["note"] = _kit.row_note({"kappa": j["kappa"], **{m: j[w][m] for m in METRICS}})
            judges.append(row)
    cols.append("note")  # a null κ or metric says why (one category: tester's study)
    systems = []
    for k, name in enumerate(result["systems"]):
        row = {"system": name, **_kit.cells(result["human_coverage_by_system"].get(name), "human_")}
        for j in result["judges"]:
            row[f"{j['judge']} (labelled units)"] = j["judge_coverage_paired_by_system"][k]
            row[f"{j['judge']} (benchmark, all items)"] = j["judge_coverage_benchmark_by_system"][k]
        systems.append(row)
    sys_cols = ["system", "human_value", "human_n"]
    for j in result["judges"]:
        sys_cols += [f"{j['judge']} (labelled units)", f"{j['judge']} (benchmark, all items)"]
    return {
        "researcherbench_judges": (judges, cols),
        "researcherbench_systems": (systems, sys_cols),
        "researcherbench_judge_tests": (result["judge_differences"], DIFF_COLUMNS),
    }


def _draw(result, entry):
    if not result:
        return None
    rows = []
    for j in result["judges"]:
        rows += [(f"{j['judge']}: {m} (weighted)", j["weighted"][m]) for m in METRICS]
    rows += [
        (f"human S_c: {name}", fig) for name, fig in result["human_coverage_by_system"].items()
    ]
    return _kit.intervals_figure(rows, "judge vs human on binary coverage; human coverage score")


def _text(result) -> str:
    if not result:
        return (
            "researcherbench: no binary coverage label in this selection (the judge "
            "against the experts; the judges' own S_c per system, Table 3, is --kind "
            "scoreboard)"
        )
    return "\n".join(f"researcherbench {j['judge']}: F1 {j['unweighted']['f1']['value']}, "
                     f"weighted F1 {j['weighted']['f1']['value']}, kappa {j['kappa']['value']}"
                     for j in result["judges"]) or "researcherbench: no judge label"  # fmt: skip


register(Section(
    key="researcherbench", title="Binary rubric coverage (ResearcherBench §4.3, Table 2)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("researcherbench", "Binary coverage: judge vs human", _draw),),
    text=_text, serializer=ResearcherBenchAnalysisSerializer, order=63,
))  # fmt: skip
