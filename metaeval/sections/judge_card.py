"""The judge card (issue 27; docs/ANALYSES.md §13): one card per judge and a table of all
judges of the study — agreement beside the experts', position, length and tie behaviour,
agreement with its own reruns, operations and a verdict line per protocol. The page has a
page per judge as well (``/reports/<study>/judges/<name>/``, :mod:`metaeval.judge_pages`).
"""

from __future__ import annotations

from dataclasses import replace

from annotation.models import MedalRanking, RubricCoverage
from judges.models import JudgeCoverage, JudgeDeepScholarLabel, JudgePairwise, JudgeScore

from ..analyses.judge_card import (
    ScoreInput,
    coverage_cards,
    deepscholar_cards,
    iaa_figure,
    judge_cards,
    medal_rows,
    medal_tests,
    pairwise_cards,
    pairwise_tests,
    restrict,
    score_cards,
    score_tests,
)
from ..judge_card_schema import JudgeCardAnalysisSerializer
from ..loaders.judge_card import (
    deepscholar_judge_labels,
    families,
    judge_identity,
    report_words,
    run_records,
    study_report_words,
)
from ..loaders.pairwise import load_pairwise
from . import _kit
from .base import PAIRWISE_SECTION, FigureSpec, Section, register
from .coverage_alignment import coverage_data
from .researchqa_pairwise import DIFF_COLUMNS, result_of

#: The figures of a protocol card, by column prefix -> path in the card.
FIGURES = {
    "agreement": ("agreement",),
    "experts_agreement": ("experts_agreement",),
    "order_consistency": ("position", "order_consistency"),
    "first_shown": ("position", "first_shown"),
    "longer_judge": ("length", "judge"),
    "longer_experts": ("length", "experts"),
    "longer_difference": ("length", "difference"),
    "length_rho_judge": ("length", "judge_rho"),
    "length_rho_experts": ("length", "experts_rho"),
    "ties_judge": ("ties", "judge"),
    "ties_experts": ("ties", "experts"),
    "ties_difference": ("ties", "difference"),
    "self_agreement": ("self_agreement",),
}
OPERATIONS = ["runs", "requested", "parsed", "parsed_share", "refused", "failed", "tokens",
              "cost", "seconds", "tokens_per_1000", "cost_per_1000", "seconds_per_1000", "note"]  # fmt: skip


def figure_of(card: dict, name: str) -> dict:
    got = card
    for key in FIGURES[name]:
        got = (got or {}).get(key)
    return got or {}


def _study_words(analysis) -> dict:
    """(question, system) -> (report id, words) of every report of the study, read once."""
    return _kit.loaded(analysis, "judge_card_words", lambda: study_report_words(analysis.study_id))


def _words_of(analysis, report_ids) -> dict:
    """Report id -> words: from the study's lengths when read already, else only these
    reports' (a pairwise-only study with many reports reads just the compared ones)."""
    cache = analysis.__dict__.get("_issue16_loaded", {})
    if "judge_card_words" in cache:
        return {pk: words for pk, words in cache["judge_card_words"].values()}
    return report_words(report_ids)


def _score_judges(analysis) -> list[ScoreInput]:
    from ..alignment import judge_names

    if not JudgeScore.objects.filter(report__question__study_id=analysis.study_id).exists():
        return []
    options = replace(analysis.options, judge=None)
    lengths = _study_words(analysis)
    out = []
    for name in judge_names(analysis.study_id, options):
        opts = replace(options, judge=name)
        frame = analysis.loaded(opts)[0]
        out.append(ScoreInput(name, frame, analysis.report_of(opts, notes=False), lengths))
    return out


def _compute(analysis):
    rounds, seed = _kit.rounds(analysis), analysis.options.seed
    cards: dict[str, list[dict]] = {}
    tests: list[dict] = []
    has_pairwise = JudgePairwise.objects.filter(left__question__study_id=analysis.study_id).exists()
    scores = _score_judges(analysis)
    coverage = None
    if (_kit.has(RubricCoverage, analysis.study_id)
            and JudgeCoverage.objects.filter(report__question__study_id=analysis.study_id).exists()):  # fmt: skip
        coverage = coverage_data(analysis)
    deepscholar = None
    if JudgeDeepScholarLabel.objects.filter(question__study_id=analysis.study_id).exists():
        from . import registered  # every section discovered (Table 3's among them)

        table3 = next(s for s in registered() if s.key == "deepscholar_agreement")
        deepscholar = analysis.result(table3)
    records = run_records(analysis.study_id)
    if not has_pairwise and not scores and coverage is None and not deepscholar and not records:
        return None  # no judge: nothing to show
    names = {s.name for s in scores} | set(coverage.judges if coverage is not None else ())
    ds_labels = deepscholar_judge_labels(analysis.study_id) if deepscholar else []
    names |= {row[0] for row in ds_labels}
    pairwise_result = None
    if has_pairwise:
        data = _kit.loaded(analysis, "pairwise",
                           lambda: load_pairwise(analysis.study_id, _kit.settings(analysis)))  # fmt: skip
        # None: no expert pairwise preference, so no agreement (the judge's own figures stay)
        pairwise_result = _kit.loaded(analysis, "pairwise_result",
                                      lambda: result_of(analysis)) or {}  # fmt: skip
        data = restrict(data, analysis.options.systems, analysis.options.exclude_systems)
        names |= set(data.judges)
    identity = judge_identity(names | set(records))
    family = families(identity)
    if has_pairwise:
        lengths = _words_of(analysis, set(data.report_a.tolist()) | set(data.report_b.tolist()))
        medal = medal_iaa = None
        if (
            not data.h_item.size
            and MedalRanking.objects.filter(study_id=analysis.study_id).exists()
        ):
            frame = analysis.loaded()[0]
            report_of = {k: v[0] for k, v in _study_words(analysis).items()}
            medal = medal_rows(data, frame, report_of)
            medal_iaa = iaa_figure(analysis.report)
        cards.update(pairwise_cards(data, pairwise_result, lengths, family, rounds, seed,
                                    medal, medal_iaa))  # fmt: skip
        if medal is not None:
            tests += medal_tests(data, medal, rounds, seed)
        tests += pairwise_tests(pairwise_result)
    if coverage is not None:
        lengths = _words_of(analysis, coverage.report.tolist())
        for name, more in coverage_cards(coverage, lengths, family, rounds, seed).items():
            cards.setdefault(name, []).extend(more)
    for name, more in deepscholar_cards(deepscholar, ds_labels, family, rounds, seed).items():
        cards.setdefault(name, []).extend(more)
    for name, more in score_cards(scores, family, rounds, seed).items():
        cards.setdefault(name, []).extend(more)
    tests += score_tests(scores, rounds, seed)
    out = judge_cards(cards, identity, records, tests)
    if analysis.options.human_signal is not None:  # never silently ignored (ANALYSES §0)
        out["human_signal"] = {"mode": analysis.options.human_signal, "applies": True,
                               "note": SIGNAL_NOTE}  # fmt: skip
    return out


#: What of the card follows the ``human_signal`` option (docs/ANALYSES.md §0, §13).
SIGNAL_NOTE = (
    "The score judges' agreement is the agreement report's and the pairwise judges' the "
    "pairwise section's (or the experts' medal decisions): they follow the human signal. The "
    "label judges' agreement (rubric coverage, DeepScholar) and the experts' length and tie "
    "figures compare a judge with each expert's own labels: the signal does not apply to them."
)


#: The card table's ``runs`` of a judge without a run record (its verdicts were imported).
IMPORTED = "imported"


def runs_cell(judge: dict, card: dict) -> str:
    """The card table's ``runs``: the judges whose verdicts are runs of this one, or
    ``imported`` when the study holds no run of it (``judge_operations`` says 0 runs:
    the table said ``runs=o3-mini`` beside it). Several imported verdict sets (compared for
    self-agreement) are named after it."""
    names = list(card.get("runs") or ())
    if (judge.get("operations") or {}).get("runs"):
        return ", ".join(names)
    others = [n for n in names if n != judge["judge"]]
    return f"{IMPORTED}: {', '.join(names)}" if others else IMPORTED


def rows(result) -> list[dict]:
    """One row per judge and protocol: every figure as value, low, high, note."""
    out = []
    for judge in (result or {}).get("judges", []):
        for card in judge["protocols"]:
            row = {"judge": judge["judge"], "protocol": card["protocol"], "kind": card["kind"],
                   "verdicts": card["verdicts"], "threshold": card["threshold"],
                   "runs": runs_cell(judge, card)}  # fmt: skip
            for name in FIGURES:
                fig = figure_of(card, name)
                row.update({name: fig.get("value"), f"{name}_low": fig.get("low"),
                            f"{name}_high": fig.get("high"), f"{name}_note": fig.get("note")})  # fmt: skip
            row["line"] = card["line"]
            out.append(row)
    return out


CARD_COLUMNS = ["judge", "protocol", "kind", "verdicts", "threshold", "runs",
                *[f"{n}{s}" for n in FIGURES for s in ("", "_low", "_high", "_note")], "line"]  # fmt: skip


def _tables(result, entry):
    if not result:
        return {}
    ops = [{"judge": j["judge"], **j["operations"]} for j in result["judges"]]
    return {
        "judge_card": (rows(result), CARD_COLUMNS),
        "judge_operations": (ops, ["judge", *OPERATIONS]),
        "judge_card_tests": (result["tests"], ["protocol", *DIFF_COLUMNS]),
    }


def _draw(result, entry):
    if not result:
        return None
    shown = []
    for judge in result["judges"]:
        for card in judge["protocols"]:
            shown.append((f"{judge['judge']} {card['protocol']}: agreement", card["agreement"]))
            if card["self_agreement"].get("value") is not None:
                shown.append((f"{judge['judge']} {card['protocol']}: self-agreement",
                              card["self_agreement"]))  # fmt: skip
    return _kit.intervals_figure(shown, "agreement with the experts / with its own rerun")


def _context(result, entry):
    return {"judge_card_rows": rows(result)}


#: Why the card is left out when the study has judge results but none of them meets an
#: expert label (a benchmark's judge files imported before any annotation): the card
#: compares judges with the experts, the scoreboard shows the judges' own figures.
NO_CARD = (
    "no judge verdict meets an expert label or a live run in this selection yet: the card "
    "compares each judge with the experts (the benchmark scoreboards show the judges' own "
    "figures; docs/ANALYSES.md §13)."
)


def _absent(result, entry) -> str | None:
    """One line instead of empty tables (issue 26, "Reports that fit the protocol")."""
    return NO_CARD if result and not result["judges"] else None


def _text(result) -> str:
    if not result:
        return "judge card: no judge verdict in this selection"
    if not result["judges"]:
        return f"judge card: {NO_CARD}"
    lines = ["judge card:"]
    for judge in result["judges"]:
        lines.append(f"  {judge['judge']}")
        lines += [f"    {card['line']}" for card in judge["protocols"]]
        ops = judge["operations"]
        if ops["runs"]:
            lines.append(f"    operations: {ops['parsed']} / {ops['requested']} parsed, "
                         f"{ops['refused']} refused, {ops['failed']} failed, "
                         f"cost per 1,000 {ops['cost_per_1000']}, seconds per 1,000 "
                         f"{ops['seconds_per_1000']}")  # fmt: skip
        else:
            lines.append(f"    operations: {ops['note']}")
    return "\n".join(lines)


register(Section(
    key="judge_card", title=PAIRWISE_SECTION,
    compute=_compute, template="metaeval/sections/judge_card.html", tables=_tables,
    figures=(FigureSpec("judge-card", "Judges: agreement and self-agreement", _draw),),
    context=_context, text=_text, serializer=JudgeCardAnalysisSerializer, order=55,
    absent=_absent, unavailable=lambda analysis: _kit.without_judge(analysis.study_id),
))  # fmt: skip
