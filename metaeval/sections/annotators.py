"""Per-annotator alignment: each expert against the judge (seed 003 Fig. 3) and against
their own metric-wise scores (Fig. 4)."""

from ..figures import figure_tables
from .base import Section, plotted, register, without_comparisons

NAMES = ("annotator_judge", "annotator_self")


def _tables(result, entry):
    tables = figure_tables(entry["figures"])
    return {name: tables[name] for name in NAMES}


register(Section(
    absent=without_comparisons,
    key="annotators", title="Per-annotator alignment",
    template="metaeval/sections/annotators.html",
    compute=lambda analysis: {name: analysis.figures.get(name) for name in NAMES},
    tables=_tables,
    figures=(plotted("annotator-judge", lambda result: result["annotator_judge"]),
             plotted("annotator-self", lambda result: result["annotator_self"])),
    payload=False, order=50,
))  # fmt: skip
