"""ResearchQA rubric coverage, 0–4 (001 §3.3, Fig. 11; METHODS §7; docs/ANALYSES.md §2):
human vs each judge per item — exact and binarised agreement ({0,1} vs {2,3,4}), quadratic
κ, Pearson, mean difference, the confusion matrix (overall and per field) —, human vs human
on doubly annotated items, and the paired permutation test between judges on exact
agreement."""

from annotation.models import RubricCoverage

from ..analyses.coverage import BINARY_COLUMNS, HUMAN_FIGURES, analyse_coverage
from ..analysis_schema import CoverageAnalysisSerializer
from ..loaders.coverage import load_coverage
from . import _kit
from .base import FigureSpec, Section, register
from .researchqa_pairwise import DIFF_COLUMNS

FIGURES = ("exact", "binarised", "weighted_kappa", "pearson", "mean_difference")
LABELS = range(5)


def coverage_data(analysis):
    adjudicated = analysis.options.human_signal == "adjudicated"
    return _kit.loaded(analysis, "coverage",
                       lambda: load_coverage(analysis.study_id, _kit.settings(analysis),
                                             adjudicated))  # fmt: skip


def _compute(analysis):
    if not _kit.has(RubricCoverage, analysis.study_id, label__isnull=False):
        return None
    out = analyse_coverage(coverage_data(analysis), rounds=_kit.rounds(analysis),
                           seed=analysis.options.seed, by_field=True,
                           signal=analysis.options.human_signal,
                           failed=_kit.failed(analysis))  # fmt: skip
    return out


def _judge_rows(result):
    rows = []
    for j in result["judges"]:
        blocks = [("all", j["all"]), *sorted((j.get("fields") or {}).items())]
        for field, block in blocks:
            row = {"judge": j["judge"], "scale": j.get("scale", "0-4"), "field": field,
                   "n": block["n"]}  # fmt: skip
            for name in FIGURES:
                fig = block.get(name) or {}
                row[name], row[f"{name}_low"] = fig.get("value"), fig.get("low")
                row[f"{name}_high"] = fig.get("high")
            row["note"] = _kit.row_note({name: block.get(name) for name in FIGURES})
            rows.append(row)
    return rows


def _confusion_rows(result):
    """Human label (rows) × judge label; a binary judge's columns are its two verdicts."""
    rows = []
    for j in result["judges"]:
        binary = j.get("scale") == "binary"
        for h, counts in zip(LABELS, j["all"]["confusion"], strict=False):
            row = {"judge": j["judge"], "human": h}
            if binary:
                row |= dict(zip(BINARY_CONFUSION, counts, strict=True))
            else:
                row |= {f"judge_{k}": c for k, c in zip(LABELS, counts, strict=False)}
            rows.append(row)
    return rows


#: A binary judge's confusion columns (:data:`metaeval.analyses.coverage.BINARY_COLUMNS`).
BINARY_CONFUSION = tuple(f"judge_{c.replace(' ', '_')}" for c in BINARY_COLUMNS)


def _tables(result, entry):
    if not result:
        return {}
    cols = ["judge", "scale", "field", "n"]
    for name in FIGURES:
        cols += [name, f"{name}_low", f"{name}_high"]
    cols.append("note")
    hh = result["human_vs_human"]
    confusion = ["judge", "human", *(f"judge_{k}" for k in LABELS)]
    if any(j.get("scale") == "binary" for j in result["judges"]):
        confusion += BINARY_CONFUSION
    return {
        "coverage_judges": (_judge_rows(result), cols),
        "coverage_confusion": (_confusion_rows(result), confusion),
        "coverage_human_vs_human": ([hh], [*(f"{k}{end}" for k in HUMAN_FIGURES
                                             for end in ("", "_low", "_high")),
                                           "units", "pairs", "note"]),
        "coverage_judge_tests": (result["judge_differences"], DIFF_COLUMNS),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    rows = [("human vs human, exact", {"value": result["human_vs_human"]["exact"]}),
            ("human vs human, binarised", {"value": result["human_vs_human"]["binarised"]})]  # fmt: skip
    for j in result["judges"]:
        for name in ("exact", "binarised", "weighted_kappa", "pearson"):
            if j.get("scale") == "binary" and name != "binarised":
                continue  # undefined for a binary judge (its note is in the table)
            rows.append((f"{j['judge']}: {name.replace('_', ' ')}", j["all"][name]))
    return _kit.intervals_figure(rows, "agreement with experts (0–4 coverage)", xlim=(-0.05, 1.05))


def _text(result) -> str:
    if not result:
        return "coverage: no 0-4 coverage label in this selection"
    return (
        "\n".join(
            f"coverage {j['judge']}{' (binary verdicts)' if j.get('scale') == 'binary' else ''}: "
            f"exact {j['all']['exact']['value']}, binarised "
            f"{j['all']['binarised']['value']}, weighted kappa {j['all']['weighted_kappa']['value']}"
            for j in result["judges"]
        )
        or f"coverage: {result['units']} units, no judge label"
    )


register(Section(
    key="coverage_alignment", title="Rubric coverage 0–4, human vs judge (ResearchQA Fig. 11)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("coverage-alignment", "Coverage agreement with experts", _draw),),
    text=_text, serializer=CoverageAnalysisSerializer, order=62,
))  # fmt: skip
