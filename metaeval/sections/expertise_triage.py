"""Expertise triage (003 Setting 2; docs/ANALYSES.md §11): the annotators' self-ratings of
the questions (within / near / outside their expertise) per annotator and per question, the
questions each level could staff the near- and deep-expert settings from, and, where the
study has medal rankings, agreement with the judge and with the other experts by the
annotator's self-rated expertise on the question."""

from annotation.models import ExpertiseRating, MedalRanking

from ..analysis_schema import ExpertiseAnalysisSerializer
from ..loaders.expertise import load_expertise
from ..stats.expertise import LEVELS, analyse_expertise, ranking_decisions
from . import _kit
from .base import FigureSpec, Section, register

NOT_APPLICABLE = (
    "The human signal does not apply: a self-rating is the annotator's own (no gold, "
    "majority or adjudication), and the agreement split compares each annotator's own "
    "ranking, by that annotator's self-rating (docs/ANALYSES.md §11)."
)


def _compute(analysis):
    study = analysis.study_id
    if not ExpertiseRating.objects.filter(question__study_id=study).exists():
        return None
    judge = None
    if _kit.has(MedalRanking, study):
        judge = analysis.loaded()[2]  # the report's judge (the page has it loaded anyway)
    d = load_expertise(study, _kit.settings(analysis), judge)
    decisions = ranking_decisions(d.m_ranking, d.m_question, d.m_annotator, d.m_report,
                                  d.m_value)  # fmt: skip
    scores = dict(zip(d.s_report.tolist(), d.s_value.tolist(), strict=True))
    out = analyse_expertise(d.question, d.annotator, d.level, decisions=decisions,
                            scores=scores, judge=judge, rounds=_kit.rounds(analysis),
                            seed=analysis.options.seed)  # fmt: skip
    if analysis.options.human_signal is not None:  # never silently ignored (ANALYSES §0)
        out["human_signal"] = {"mode": analysis.options.human_signal, "applies": False,
                               "note": NOT_APPLICABLE}  # fmt: skip
    return out


def _agreement_rows(result):
    if result["agreement"] is None:
        return [{"level": None, "reference": None, "value": None, "n": 0,
                 "note": result["agreement_note"]}]  # fmt: skip
    return result["agreement"]


def _tables(result, entry):
    if not result:
        return {}
    counts = [*LEVELS, "rated"]
    return {
        "expertise_by_annotator": (result["by_annotator"], ["annotator", *counts]),
        "expertise_by_question": (result["by_question"], ["question", *counts]),
        "expertise_coverage": (result["coverage"], ["level", "k", "questions", "share"]),
        "expertise_agreement": (_agreement_rows(result),
                                ["level", "reference", *_kit.FIG_COLUMNS]),
    }  # fmt: skip


def _draw(result, entry):
    if not result:
        return None
    rated = result["totals"]["questions"]
    rows = [(f"≥{c['k']} {c['level']}", {"value": c["share"], "n": c["questions"]})
            for c in result["coverage"]]  # fmt: skip
    rows += [(f"agreement with {a['reference']}: {a['level']}", a)
             for a in result["agreement"] or ()]  # fmt: skip
    return _kit.intervals_figure(rows, f"share of the {rated} rated questions; agreement")


def _text(result):
    if not result:
        return "expertise triage: none"
    t = result["totals"]
    return (f"expertise triage: {t['ratings']} self-ratings of {t['questions']} questions by "
            f"{t['annotators']} annotators (within {t['within']}, near {t['near']}, "
            f"outside {t['outside']})")  # fmt: skip


register(Section(
    key="expertise_triage", title="Expertise triage (ScholarQA-CS2 Setting 2)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("expertise-triage", "Coverage by self-rated expertise", _draw),),
    text=_text, serializer=ExpertiseAnalysisSerializer, order=72,
))  # fmt: skip
