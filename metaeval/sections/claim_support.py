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


#: Why the claim check has no figure, checked in this order (before, the page showed an
#: empty table, "No data in this selection", whatever was missing).
NO_CHECK = (
    "no claim check of this selection is submitted (skipped checks are not read, nor "
    "those of settings not selected): nothing to compare with the judges' claim verdicts."
)
NO_VERDICT = (
    "no judge has claim verdicts for this study, which the experts' checks are compared "
    "with: import them (judge_scores, claim-verdicts) or run a judge."
)
NO_OVERLAP = (
    "no claim the experts checked has a judge verdict ({checks} checked, none matched): a "
    "check meets a verdict on the same report whose claim text is the same (whitespace "
    "aside; docs/ANALYSES.md §5), and the judges' verdicts are on other claims."
)
NO_DECIDED = (
    "no claim has both an expert's answer and a judge's supported / unsupported verdict: "
    "the matched verdicts are 'unknown' or the checks unanswered, which are left out "
    "(METHODS §4)."
)


#: Why the section is not shown in a study that assigns claim checks and has none yet.
NOT_YET = (
    "no claim check is submitted in this study yet (its claim-check tasks are assigned): "
    "nothing to compare with the judges' claim verdicts."
)


def _unavailable(analysis) -> str | None:
    """:data:`NOT_YET` when the study assigns claim-check tasks (its protocol offers the
    section) and no check was saved; None: the protocol has no claim check. One query."""
    from annotation.models import Assignment

    assigned = Assignment.objects.filter(study_id=analysis.study_id, task="claim_check")
    return NOT_YET if assigned.exists() else None


def missing(result: dict) -> str | None:
    """What the claim check lacks to give any figure (:data:`NO_CHECK`,
    :data:`NO_VERDICT`, :data:`NO_OVERLAP`, :data:`NO_DECIDED`), or None when some judge
    has a figure."""
    if not result["checks"]:
        return NO_CHECK
    if not result["judges"]:
        return NO_VERDICT
    if any(j["all"][b]["n"] for j in result["judges"] for b in BLOCKS):
        return None
    if result["unmatched_checks"] >= result["checks"]:
        return NO_OVERLAP.format(checks=result["checks"])
    return NO_DECIDED


def _compute(analysis):
    if not _kit.has(ClaimCheck, analysis.study_id):
        return None
    excluded = (analysis.options.exclude_systems or (None,))[0]
    out = analyse_claims(claim_data(analysis), exclude_system=excluded,
                         rounds=_kit.rounds(analysis), seed=analysis.options.seed,
                         signal=analysis.options.human_signal,
                         failed=_kit.failed(analysis))  # fmt: skip
    note = missing(out)
    if note:  # the section says what is missing instead of an empty table
        out["note"] = note
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


def _text(result) -> str:
    if not result:
        return "claim check: none"
    if result.get("note"):
        return f"claim check: {result['checks']} checks; {result['note']}"
    return f"claim check: {result['checks']} checks"


register(Section(
    key="claim_support", title="Controlled claim check (ScholarQA-CS2 A.5)", compute=_compute,
    template="metaeval/sections/analysis.html", tables=_tables,
    figures=(FigureSpec("claim-support", "Claim and citation support: agreement", _draw),),
    text=_text, serializer=ClaimAnalysisSerializer, order=66,
    absent=lambda r, e: (r or {}).get("note"), unavailable=_unavailable,
))  # fmt: skip
