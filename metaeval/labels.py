"""What the researcher reads for the report's machine names: one declaration, used by the
report page and the offline HTML (both render the same section templates, through the
``column_label``, ``table_label`` and ``note_text`` filters of
:mod:`metaeval.templatetags.report_sections`).

The downloads (CSV, XLSX, JSON), the API and the command keep the machine names: a
column ``krippendorff_alpha_high`` stays that in every file, so scripts that read them
are not broken; only what a page shows is worded here. A tester read a table headed
``label_iaa`` with columns ``strict_low``, ``cohen_kappa_low``, and notes such as
"— null: system τ-b." and "preference is null: …".
"""

from __future__ import annotations

import re

from .charts import METRIC_LABELS

#: Column keys -> the header shown on the page (the downloads keep the keys).
COLUMN_LABELS = {
    "kind": "Label kind", "level": "Level of measurement", "units": "Units",
    "pairs": "Annotator pairs", "strict": "Strict agreement", "half_credit": "Half credit",
    "cohen_kappa": "Cohen's κ (mean over pairs)", "fleiss_kappa": "Fleiss' κ",
    "krippendorff_alpha": "Krippendorff's α", "weighted_kappa": "Weighted κ",
    "note": "Note", "notes": "Notes", "value": "Value", "low": "95 % CI low",
    "high": "95 % CI high", "n": "n", "judge": "Judge", "system": "System",
    "systems": "Systems", "metric": "Metric", "table": "Table", "figure": "Figure",
    "agreement": "Agreement", "tau_b": "Kendall τ-b", "threshold": "Threshold",
    "human_tie_rate": "Human ties", "judge_tie_rate": "Judge ties",
    "human_win_rate": "Human win rate", "judge_win_rate": "Judge win rate",
    "protocol": "Protocol", "question": "Question", "annotator": "Annotator",
    "rating": "Rating", "dimension": "Dimension", "benchmark": "Benchmark",
    "source": "Source", "label": "Label", "share": "Share", "accuracy": "Accuracy",
    "pvalue": "p-value", "difference": "Difference", "verdicts": "Verdicts",
    "runs": "Runs", "comparisons": "Comparisons", "n_units": "Units",
    "n_questions": "Questions", "n_labels": "Labels", "self_agreement": "Self-agreement",
    "win_rate": "Win rate", "elo": "Elo rating", "mean": "Mean", "total": "Total",
    "count": "Count", "position": "Position", "scale": "Scale",
}  # fmt: skip

#: Suffixes of interval columns: ``<figure>_low`` -> "<figure>, 95 % CI low".
SUFFIXES = {"_low": "95 % CI low", "_high": "95 % CI high", "_note": "note"}

#: Table and report-block names -> their title on the page.
TABLE_LABELS = {
    "label_iaa": "Inter-annotator agreement per label kind",
    "iaa": "Inter-annotator agreement on comparisons",
    "preference": "Expert preference vs judge scores",
    "metric_wise": "Metric-wise human scores vs judge scores",
    "system": "System ranking", "system_tau": "System τ-b",
    "notes": "Notes",
}  # fmt: skip


def _words(key: str) -> str:
    """A key not declared: its words, the first capitalised (never the bare key)."""
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def column_label(key) -> str:
    """The header of column ``key`` on the page."""
    key = str(key)
    if key in COLUMN_LABELS:
        return COLUMN_LABELS[key]
    if key in METRIC_LABELS:
        return METRIC_LABELS[key]
    for suffix, said in SUFFIXES.items():
        if key.endswith(suffix) and len(key) > len(suffix):
            return f"{column_label(key[: -len(suffix)])}, {said}"
    return _words(key)


def table_label(name) -> str:
    """The title of table (or report block) ``name`` on the page."""
    name = str(name)
    return TABLE_LABELS.get(name) or _words(name)


#: Machine names a note may carry (a block, a table, a metric) -> what the page says.
_NAMES = {**TABLE_LABELS, **METRIC_LABELS, "metric-wise": "metric-wise"}
_NAME = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _NAMES), key=len, reverse=True))
                   + r")\b")  # fmt: skip
_NULL_BLOCK = re.compile(r"^([a-z][a-z_]*) is null: (.*)$", re.S)
_NULL_FIGURES = re.compile(r"^(.*?) — null: (.*?)\.?$", re.S)


def _names(text: str) -> str:
    """``text`` with the machine names in it (``label_iaa``, ``answer_relevance``) worded;
    only names with an underscore, so plain words ("system", "preference") stay."""
    return _NAME.sub(lambda m: _NAMES[m.group(1)] if "_" in m.group(1) else m.group(1), text)


def note_text(note) -> str:
    """A report note as the page says it. The report dict's notes keep their form (the
    API's "<block> is null: why", "why — null: figures", notes.csv); the page reads
    "The <table> is not shown: why" and "why (figures without a value: …)"."""
    text = str(note)
    block = _NULL_BLOCK.match(text)
    if block:
        name, why = block.groups()
        text = f"{table_label(name)}: no figure for this selection — {why}"
    figures = _NULL_FIGURES.match(text)
    if figures:
        why, places = figures.groups()
        text = f"{why.rstrip('.')} (figures without a value: {places})."
    return _names(text)
