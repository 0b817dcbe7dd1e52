"""Question authoring (003 Setting 3; docs/ANALYSES.md §12): the questions the annotators
wrote, per annotator and per field — how many, their review state, text length, rubric
items per question, and how many were used (answered by a report, judged by an expert)."""

from ..analysis_schema import AuthoringAnalysisSerializer
from ..loaders.authoring import authored, load_authoring
from ..stats.authoring import REVIEWS, analyse_authoring
from . import _kit
from .base import FigureSpec, Section, register

NOT_APPLICABLE = (
    "The human signal does not apply: an authored question is not a label (nothing to take "
    "a majority or an adjudication of; docs/ANALYSES.md §12)."
)

SUMMARY = ["questions", *REVIEWS, "mean_chars", "median_chars", "mean_rubric_items",
           "with_rubric", "with_reports", "judged"]  # fmt: skip


def _compute(analysis):
    if not authored(analysis.study_id).exists():
        return None
    d = load_authoring(analysis.study_id)
    out = analyse_authoring(d.question, d.author, d.field, d.review, d.chars, d.rubric_items,
                            d.reports, d.judged)  # fmt: skip
    if analysis.options.human_signal is not None:  # never silently ignored (ANALYSES §0)
        out["human_signal"] = {"mode": analysis.options.human_signal, "applies": False,
                               "note": NOT_APPLICABLE}  # fmt: skip
    return out


def _tables(result, entry):
    if not result:
        return {}
    total = [{"annotator": "(all)", **result["total"]}]
    return {
        "authoring_by_annotator": (result["by_annotator"] + total, ["annotator", *SUMMARY]),
        "authoring_by_field": (result["by_field"], ["field", *SUMMARY]),
        "authored_questions": (result["questions"], ["question", "author", "field", "review",
                                                     "chars", "rubric_items", "reports",
                                                     "judged"]),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    rows = [(f"{a['annotator'] or '(no author)'}: written", {"value": a["questions"]})
            for a in result["by_annotator"]]  # fmt: skip
    rows += [(f"{a['annotator'] or '(no author)'}: judged", {"value": a["judged"]})
             for a in result["by_annotator"]]  # fmt: skip
    top = max((a["questions"] for a in result["by_annotator"]), default=1)
    return _kit.intervals_figure(rows, "questions", xlim=(0, max(top, 1)))


def _text(result):
    if not result:
        return "question authoring: none"
    t = result["total"]
    return (f"question authoring: {t['questions']} questions by {len(result['by_annotator'])} "
            f"annotators ({t['accepted']} accepted, {t['with_reports']} with reports, "
            f"{t['judged']} judged)")  # fmt: skip


register(Section(
    key="question_authoring", title="Question authoring (ScholarQA-CS2 Setting 3)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("question-authoring", "Questions written and judged per annotator",
                        _draw),),
    text=_text, serializer=AuthoringAnalysisSerializer, order=73,
))  # fmt: skip
