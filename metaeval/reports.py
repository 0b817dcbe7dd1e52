"""The agreement report: one dict, the JSON contract every view, API and export presents.

Data flows one way (ARCHITECTURE.md): :mod:`metaeval.data` loads a :class:`PairFrame`,
:mod:`metaeval.pipeline` computes every figure on one path (select -> decide -> calibrate
-> tables -> system -> IAA) using :mod:`metaeval.stats`, this module shapes. Without
``compat`` every switch of the path is off (METHODS §5); ``compat="scholarqa-cs2"`` turns
on the script's named quirks (:class:`metaeval.compat.Mode`, METHODS §6), and ``notes``
lists each quirk that changed a figure with the default figure beside it.

Shape (issue 3)::

    {"selection": {...}, "iaa": {"strict", "half_credit", "n", "cohen_kappa",
     "fleiss_kappa", "krippendorff_alpha"}, "preference": {METRIC: {"agreement", "tau_b",
     "n", "threshold", "human_tie_rate", "judge_tie_rate", "ci"?}}, "metric_wise": {...},
     "system": {"tau_b", "systems": [{"system", "human_win_rate", "judge_win_rate", "n"}]},
     "notes": [...]}
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from . import compat as compat_mode
from .frame import PairFrame, with_human_signal
from .options import SETTINGS, option
from .pipeline import (
    METRIC_WISE,
    PREFERENCE,
    SLOT_SETTINGS,
    TIE_STRATEGIES,
    Choices,
    Figures,
    IAAFigures,
    Policy,
    Row,
    agreed_rows,
    decide,
    iaa_rows,
    present,
    rows_of,
    run,
)
from .stats import signal as signal_stats
from .stats.bootstrap import MIN_ROUNDS
from .stats.calibration import MATCH_RATE, MAX_ACCURACY

CALIBRATIONS = {"match-rate": MATCH_RATE, "max-accuracy": MAX_ACCURACY}
COMPAT_MODES = tuple(compat_mode.MODES)
#: The human signal an analysis reads (issues 16, 17; docs/ANALYSES.md §0). None: each
#: section's own definition, the one the paper's figure uses (so every figure is as before).
HUMAN_SIGNALS = signal_stats.MODES  # declared once, with the rule (metaeval.stats.signal)

Progress = Callable[[float], None]


def max_bootstrap() -> int:
    """The cap on bootstrap rounds (``CONCORD_MAX_BOOTSTRAP``): every entry point builds a
    :class:`ReportOptions`, so checking it here refuses a huge request everywhere, before any
    memory is taken."""
    from django.conf import settings

    return int(getattr(settings, "CONCORD_MAX_BOOTSTRAP", 10_000))


@dataclass(frozen=True)
class ReportOptions:
    """Everything that selects or changes a figure; part of every report's ``selection``."""

    # Each field's option(...) metadata is the one description of the option: the
    # commands' arguments, the API's parameters, the page's form and links derive from it
    # (metaeval.options).
    settings: tuple[str, ...] = option((), f"settings ({', '.join(SETTINGS)})",
        kind="names", choices=SETTINGS, flag="--setting", one=True, widget="select",
        label="Setting", empty_label="all settings", order=0)  # fmt: skip
    systems: tuple[str, ...] = option((), "keep pairs of these systems only", kind="names",
        widget="checks", label="Systems", order=9)  # fmt: skip
    exclude_systems: tuple[str, ...] = option((), "drop pairs with these systems",
        kind="names")  # fmt: skip
    expert_agreed: bool = option(False, "only comparisons whose judgments all agree",
        kind="bool", interval=True, widget="check", label="expert-agreed only", order=8)  # fmt: skip
    judge: str | None = option(None, "judge name (default: the judge with most scores)",
        widget="select", label="Judge", order=1)  # fmt: skip
    ties: str = option("threshold", " | ".join(TIE_STRATEGIES), choices=TIE_STRATEGIES,
        widget="select", label="Ties", order=2)  # fmt: skip
    calibration: str = option("match-rate", " | ".join(CALIBRATIONS), choices=tuple(CALIBRATIONS),
        widget="select", label="Calibration", order=4)  # fmt: skip
    calibrate_on: str | None = option(None, "setting to calibrate thresholds on",
        choices=SETTINGS, interval=True)  # fmt: skip
    bootstrap: int = option(0, f"number of bootstrap rounds (0: none, else at least "
        f"{MIN_ROUNDS})", kind="int", interval=True, metavar="N", widget="select",
        label="Bootstrap", order=5)  # fmt: skip
    seed: int = option(0, "bootstrap seed", kind="int", interval=True)
    compat: str | None = option(None, " | ".join(COMPAT_MODES), choices=COMPAT_MODES,
        widget="select", label="Computation", empty_label="default (METHODS §5)",
        choice_label="{} compatibility", order=6)  # fmt: skip
    threshold: float | None = option(None, "a fixed judge tie threshold for every metric "
        "instead of calibrating (0: compare exactly; with compat, the script's "
        "--dont_use_thresholds)", kind="number", metavar="T", widget="number",
        label="Threshold", placeholder="calibrated", order=3)  # fmt: skip
    target_half_width: float | None = option(None, "budget planner: the agreement CI "
        "half-width to reach (docs/ANALYSES.md §9); the report's budget section answers "
        "how many more questions or annotators it takes", kind="number", metavar="H", interval=True,
        widget="number", label="Target CI half-width", placeholder="none", order=10)  # fmt: skip
    human_signal: str | None = option(None, "the human signal: each annotator's judgment, "
        "the majority (plurality per unit, ties left out) or the adjudicated label (else "
        "the majority); default: each analysis's own (docs/ANALYSES.md §0)",
        choices=HUMAN_SIGNALS, widget="select", label="Human signal",
        empty_label="as each analysis defines", order=7)  # fmt: skip

    def __post_init__(self):
        strange = [s for s in self.settings if s not in SETTINGS]
        if strange:
            raise ValueError(
                f"settings: {', '.join(map(repr, strange))} is not one of {', '.join(SETTINGS)}"
            )
        if self.ties not in TIE_STRATEGIES:
            raise ValueError(f"ties: {self.ties!r} is not one of {', '.join(TIE_STRATEGIES)}")
        both = [s for s in self.systems if s in self.exclude_systems]
        if both:  # answered 200 with an empty report (tester's report)
            raise ValueError(
                f"systems, exclude_systems: {', '.join(map(repr, both))} is both selected and "
                "excluded; a selection cannot keep and drop a system"
            )
        if self.calibration not in CALIBRATIONS:
            raise ValueError(
                f"calibration: {self.calibration!r} is not one of {', '.join(CALIBRATIONS)}"
            )
        if self.compat is not None and self.compat not in COMPAT_MODES:
            raise ValueError(f"compat: {self.compat!r} is not one of {', '.join(COMPAT_MODES)}")
        if self.bootstrap < 0:
            raise ValueError("bootstrap: the number of rounds cannot be negative")
        if self.bootstrap > max_bootstrap():
            raise ValueError(
                f"bootstrap: at most {max_bootstrap()} rounds (CONCORD_MAX_BOOTSTRAP); "
                f"{self.bootstrap} were asked for"
            )
        self._check_threshold()
        self._check_target()
        self._check_signal()
        if self.compat is not None:
            self._check_compat()
        if 0 < self.bootstrap < MIN_ROUNDS:  # after compat, which refuses any bootstrap
            raise ValueError(
                f"bootstrap: 0 (no interval) or at least {MIN_ROUNDS} rounds; a 95 % "
                f"percentile interval from {self.bootstrap} round"
                f"{'s' if self.bootstrap != 1 else ''} means nothing (Efron & Tibshirani "
                "1993, An Introduction to the Bootstrap, §6.4; the percentile interval: ch. 13; "
                "METHODS §5)"
            )

    def _check_threshold(self) -> None:
        """A fixed judge threshold for every metric instead of a fitted one."""
        t = self.threshold
        if t is None:
            return
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise ValueError(f"threshold: {t!r} is not a number >= 0")
        if self.ties == "partial" and t != 0:
            raise ValueError(
                f"threshold: ties=partial compares judge scores exactly; a threshold of {t} "
                "cannot apply (use 0 or none)"
            )
        if self.calibrate_on:
            raise ValueError("threshold: a fixed threshold is not calibrated; drop calibrate_on")
        if self.calibration != "match-rate":
            raise ValueError(
                f"threshold: a fixed threshold is not calibrated; drop calibration "
                f"{self.calibration!r}"
            )

    def _check_target(self) -> None:
        """A CI half-width to reach is a positive number (docs/ANALYSES.md §9)."""
        h = self.target_half_width
        if h is None:
            return
        if isinstance(h, bool) or not isinstance(h, int | float) or not math.isfinite(h) or h <= 0:
            raise ValueError(f"target_half_width: {h!r} is not a number > 0")

    def _check_signal(self) -> None:
        """Combinations that cannot honour a human signal are refused (ANALYSES §0)."""
        signal = self.human_signal
        if signal is None:
            return
        if signal not in HUMAN_SIGNALS:
            raise ValueError(f"human_signal: {signal!r} is not one of {', '.join(HUMAN_SIGNALS)}")
        if self.compat is not None and signal != "each":
            raise ValueError(
                f"human_signal: compat {self.compat} reads each annotator's judgment as the "
                f"script does; {signal} cannot apply (use each or the default)"
            )
        if self.target_half_width is not None and signal != "each":
            raise ValueError(
                f"human_signal: the budget planner (target_half_width) counts each "
                f"annotator's judgment as a unit (ANALYSES §9); {signal} cannot apply"
            )

    def _check_compat(self) -> None:
        """What the released script cannot do is refused, never ignored (METHODS §6).

        The budget planner (``target_half_width``) is refused with the bootstrap, not
        computed from the compat figure: its half-widths are the pilot's percentile
        cluster-bootstrap interval of the default mode's agreement (ANALYSES §9: match-rate
        threshold on the pilot, medal decisions, no script tie rules), scaled by a variance
        model of that figure. The compat figure has no interval (the script computes none)
        and no variance model, so a plan beside it would answer for another number (a
        tester saw a pilot of 0.4908 under a compat agreement of 0.5158)."""
        mode = self.compat
        if len(self.settings) > 1:
            raise ValueError(
                f"settings: compat {mode} reports one setting at a time "
                f"(the script's --source), not {', '.join(self.settings)}"
            )
        if self.calibration != "match-rate":
            raise ValueError(
                f"calibration: compat {mode} fits thresholds by tie rate as the script does; "
                f"{self.calibration!r} is not available"
            )
        if self.calibrate_on:
            raise ValueError(
                f"calibrate_on: compat {mode} fits thresholds where the script does "
                "(METHODS §6.2); choose none"
            )
        if self.bootstrap:
            raise ValueError(
                f"bootstrap: compat {mode} has no confidence intervals (the script computes "
                "none); use 0 or the default mode"
            )
        if self.target_half_width is not None:
            raise ValueError(
                f"target_half_width: compat {mode} has no confidence intervals (the script "
                "computes none), and the budget planner's half-widths are bootstrap "
                "intervals of the default mode's agreement, not of the compat figure; "
                "plan in the default mode (drop compat)"
            )

    @classmethod
    def from_dict(cls, data: dict) -> ReportOptions:
        """Options from JSON/query data; unknown keys are an error naming the key, and the
        known one it is close to (``setting``: did you mean ``settings``?)."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            from concord.query import unknown_options

            raise ValueError(unknown_options(unknown, known))
        values = dict(data)
        for key in ("settings", "systems", "exclude_systems"):
            if key in values:
                raw = values[key]
                if isinstance(raw, str):
                    raw = [s for s in raw.split(",") if s.strip()]
                values[key] = tuple(str(s).strip() for s in raw)
        for key in ("threshold", "target_half_width"):
            if isinstance(values.get(key), str):
                values[key] = parse_threshold(values[key], key, positive=key != "threshold")
        return cls(**values)

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def parse_threshold(raw, name: str = "threshold", positive: bool = False) -> float | None:
    """A number option ``name`` from text (query string, command line): a number >= 0
    (``positive``: > 0, as a CI half-width to reach, which 0 is not), or none; a refusal
    names ``name`` (issue 24: ``target_half_width`` was refused as ``threshold``) and the
    bound it checks (``target_half_width=-1`` said ">= 0" while 0 is refused too)."""
    if raw is None or str(raw).strip() == "":
        return None
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValueError(f"{name}: {raw!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name}: {raw!r} is not a number {'>' if positive else '>='} 0")
    return value


# ----------------------------------------------------------------------------- helpers


def _num(x) -> float | None:
    """JSON-safe float: NaN (undefined) becomes None."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def expert_agreed_rows(frame: PairFrame, human: np.ndarray, matrix=None) -> np.ndarray:
    """Indices of one row per comparison whose >= 2 judgments all agree (METHODS §5).

    ``matrix`` is accepted for callers that had one; the subset is
    :func:`metaeval.pipeline.agreed_rows`.
    """
    return agreed_rows(frame, human)


def _policy(options: ReportOptions) -> Policy:
    """The switches of the one report path: all off by default, the mode's in compat."""
    return compat_mode.MODES[options.compat].policy() if options.compat else Policy()


def compat_setting(frame: PairFrame, options: ReportOptions) -> str:
    """The one setting a compat report computes (the script's ``--source``)."""
    present = sorted({frame.settings[i] for i in np.unique(frame.setting)})
    if options.settings:
        return options.settings[0]
    if "assigned" in present:
        return "assigned"
    return present[0] if present else "assigned"


def _choices(frame: PairFrame, options: ReportOptions, policy: Policy) -> Choices:
    """The options as the path reads them.

    Default mode: the loader already kept the settings and systems asked for. Compat: one
    setting, systems as row masks (the script fits thresholds on every system, §6.2,
    §6.4); expert-agreed only where there are two annotators (the script's
    ``--human_agreed`` leaves one-judgment settings as they are).
    """
    if not policy.script_records:
        return Choices(expert_agreed=options.expert_agreed, ties=options.ties,
                       threshold=options.threshold,
                       calibration=CALIBRATIONS[options.calibration])  # fmt: skip
    setting = compat_setting(frame, options)
    agreed = options.expert_agreed and setting in SLOT_SETTINGS
    return Choices(setting, agreed, tuple(options.exclude_systems), tuple(options.systems),
                   options.ties, options.threshold)  # fmt: skip


# ----------------------------------------------------------------------------- shapes


def _row(row: Row, policy: Policy) -> dict:
    """A table row of the JSON contract (the script prints four figures per row)."""
    if policy.script_records:
        return {"agreement": _num(row.agreement), "tau_b": _num(row.tau_b), "n": _num(row.n),
                "threshold": _num(row.threshold)}  # fmt: skip
    n = int(row.n)
    return {
        "agreement": _num(row.agreement),
        "tau_b": _num(row.tau_b),
        "n": n,
        "threshold": _num(row.threshold) if n else None,
        "human_tie_rate": _num(row.human_tie_rate),
        "judge_tie_rate": _num(row.judge_tie_rate),
    }


def _system(figures: Figures, policy: Policy) -> dict:
    """Per-system win rates, human vs judge, and their τ-b (METHODS §5, §6.1, §6.5)."""
    s, frame = figures.system, figures.selected.frame
    if s is None:
        return {"tau_b": None, "systems": []}
    systems = []
    for i, name in enumerate(frame.systems):
        if np.isnan(s.human_rates[i]):
            continue
        entry = {"system": name, "human_win_rate": _num(s.human_rates[i]),
                 "judge_win_rate": _num(s.judge_rates[i])}  # fmt: skip
        if not policy.script_records:
            entry["n"] = int(s.games[i])
        systems.append(entry)
    systems.sort(key=lambda e: -(e["human_win_rate"] or 0))
    if policy.script_records:
        return {"tau_b": _num(s.tau_b), "per_slot": [_num(t) for t in s.per_slot],
                "systems": systems}  # fmt: skip
    return {"tau_b": _num(s.tau_b), "systems": systems}


_NO_IAA = {"strict": None, "half_credit": None, "n": 0, "n_pairs": 0, "cohen_kappa": None,
           "fleiss_kappa": None, "krippendorff_alpha": None}  # fmt: skip


def _iaa(iaa: IAAFigures | None, policy: Policy) -> dict:
    """IAA of the JSON contract: §5's block, or the script's two figures (§6.3)."""
    if policy.script_records:
        got = {"strict": None, "half_credit": None, "n": 0}
        if iaa is not None:
            got = {"strict": _num(iaa.strict), "half_credit": _num(iaa.half_credit), "n": iaa.n}
        return {**got, "cohen_kappa": None, "krippendorff_alpha": None}
    if iaa is None or iaa.n == 0:
        return dict(_NO_IAA)
    return {
        "strict": _num(iaa.strict),
        "half_credit": _num(iaa.half_credit),
        "n": iaa.n_items,
        "n_pairs": iaa.n,
        "cohen_kappa": _num(iaa.cohen_kappa),
        "fleiss_kappa": _num(iaa.fleiss_kappa),
        "krippendorff_alpha": _num(iaa.krippendorff_alpha),
    }


def _selection(frame: PairFrame, options: ReportOptions, setting: str | None = None) -> dict:
    """The options and what the selection holds; counts over the analysed setting."""
    counted = frame if setting is None else frame.take(rows_of(frame, [setting]))
    out = {
        **options.to_dict(),
        "n_judgments": len(counted),
        "n_questions": int(np.unique(counted.question).size),
        "n_annotators": int(np.unique(counted.annotator).size),
        "systems_present": sorted(
            {frame.systems[i] for i in np.unique(np.concatenate([frame.system_a, frame.system_b]))}
        ),
        "settings_present": sorted({frame.settings[i] for i in np.unique(frame.setting)}),
    }
    if setting is not None:
        out["compat_setting"] = setting
    return out


#: The counts of :func:`_selection` that :func:`_count_agreed` restricts to the subset.
COUNTS = ("n_judgments", "n_questions", "n_annotators")


def _count_agreed(selection: dict, frame: PairFrame, selected) -> None:
    """With ``expert_agreed``, the selection's counts over the judgments of the comparisons
    the figures read (the subset ``selected`` keeps, one row per comparison), in place; the
    counts of the whole selection move to ``expert_agreed_of`` and ``expert_agreed_comparisons``
    counts the subset. The line read "27 judgments of 5 questions" over tables of 4
    comparisons (a tester's report)."""

    def keys(f: PairFrame) -> np.ndarray:
        return np.stack((f.setting, f.question, f.system_a, f.system_b), 1)

    kept = selected.frame.take(selected.base & selected.keep)
    if len(kept) and len(frame):
        agreed = {tuple(k) for k in keys(kept).tolist()}
        rows = np.array([tuple(k) in agreed for k in keys(frame).tolist()], dtype=bool)
    else:
        rows = np.zeros(len(frame), dtype=bool)
    counted = frame.take(rows)
    selection["expert_agreed_of"] = {k: selection[k] for k in COUNTS}
    selection.update(n_judgments=len(counted),
                     n_questions=int(np.unique(counted.question).size),
                     n_annotators=int(np.unique(counted.annotator).size),
                     expert_agreed_comparisons=len(kept))  # fmt: skip


def n_judged(selection: dict) -> int:
    """The judgments of the selection before any expert-agreed subset (whether it has
    comparisons at all, as opposed to an empty subset of them)."""
    return int((selection.get("expert_agreed_of") or selection).get("n_judgments") or 0)


# ----------------------------------------------------------------------------- builders


def build_report(
    frame: PairFrame,
    options: ReportOptions,
    *,
    calibration_frame: PairFrame | None = None,
    progress: Progress | None = None,
    notes: bool = True,
    systems_left: list[str] | None = None,
) -> dict:
    """The report dict for ``frame`` (already restricted to the selection's settings).

    One path for both modes (:mod:`metaeval.pipeline`); ``options.compat`` only sets its
    switches. ``calibration_frame``: rows of ``--calibrate-on`` (cross-fitted thresholds).
    ``notes`` False: no compat notes (each quirk's figures without it, about a third of
    a compat report's time), for a caller that reads the figures only (the judge table).
    ``systems_left``: the study's systems ``exclude_systems`` leaves (given when the
    selection has no comparison; ``selection.systems_left``), so that the notes can say
    that one system remains instead of "no human judgment".
    """
    policy = _policy(options)
    choices = _choices(frame, options, policy)
    if policy.script_records and choices.setting not in frame.settings:
        why = f"No judgment in setting {choices.setting!r}: no figure is defined."
        return _undefined_report(frame, options, choices.setting, why)
    figures = run(frame, choices, policy, calibration_frame)
    if policy.script_records and choices.expert_agreed and not figures.selected.base.any():
        why = _empty_agreed_why(frame, choices.setting)
        return _undefined_report(frame, options, choices.setting, why, counted=True)
    tables = {
        t: {m: _row(r, policy) for m, r in rows.items()} for t, rows in figures.tables.items()
    }
    report = {
        "selection": _selection(
            frame if frame.each is None else frame.each, options, choices.setting
        ),  # fmt: skip
        "iaa": _iaa(figures.iaa, policy),  # on every judgment (pipeline.run)
        "preference": tables[PREFERENCE],
        "metric_wise": tables[METRIC_WISE],
        "system": _system(figures, policy),
        "notes": [],
    }
    if options.expert_agreed and not policy.script_records:
        _count_agreed(report["selection"], frame, figures.selected)
    if systems_left is not None:
        report["selection"]["systems_left"] = sorted(systems_left)
    if options.compat:
        said = _compat_notes(frame, options, choices, report) if notes else []
        iaa_null = compat_mode.iaa_note(frame, choices)
        null_notes = note_null_figures(report, figures.system, iaa_null[0] if iaa_null else "",
                                       said=said)  # fmt: skip
        report["notes"] = said + null_notes if notes else []
        return report
    undefined = NO_IAA_EXPERT_AGREED if options.expert_agreed else ""
    report["notes"] = note_null_figures(
        report, figures.system, iaa_undefined=undefined
    ) + _default_notes(figures, options, report)
    note_left_out(report, figures, frame, choices)
    if not report["preference"]:  # was {} without a word
        report["preference"] = None
        why = _nothing_to_rank(report["selection"], "the judge has no score of these reports")
        report["notes"].append(f"preference is null: {why}.")
    if frame.signal is not None:
        report["selection"]["human_signal_rows"] = frame.signal
        report["notes"].append(_signal_note(frame.signal))
    if options.bootstrap:
        from .uncertainty import add_confidence_intervals, add_iaa_interval

        signals = {
            t: {m: r.signals[0] for m, r in rows.items() if r.signals[0] is not None}
            for t, rows in figures.tables.items()
        }
        report["notes"] += add_confidence_intervals(
            tables, report["system"], signals, figures.selected.frame, options, progress
        )
        each = frame if frame.each is None else frame.each  # IAA reads every judgment
        report["notes"] += add_iaa_interval(report["iaa"], iaa_rows(each, choices), options)
    return report


def note_left_out(report: dict, figures: Figures, frame: PairFrame, choices: Choices) -> None:
    """Each table row's ``n_note``, in place: what the row's ``n`` leaves out of the
    selection's comparisons (or judgments) with a human decision of its kind, and why;
    no key when nothing is left out. Under the majority and adjudicated signals the
    metric-wise rows read each metric's own majority, so their ``n`` differ: a tester read
    "Answer relevance 8, the other rows 9" with nothing saying the ninth comparison's two
    annotators split on answer relevance. Default mode (one slot of every row)."""
    sel = figures.selected
    rows, signal = sel.base & sel.keep, frame.signal
    scored = np.zeros(len(sel.frame), dtype=bool)  # a judgment with a metric-wise score
    for values in sel.frame.human.values():
        scored |= present(values)
    for table in (PREFERENCE, METRIC_WISE):
        for metric, row in (report.get(table) or {}).items():
            values = (sel.frame.preference if table == PREFERENCE
                      else sel.frame.human.get(metric))  # fmt: skip
            if values is None or metric not in sel.frame.judge:
                continue
            human = rows & present(values)
            parts: list[str] = []
            if signal is None:  # every judgment: a judgment may lack this metric's score
                what = "judgments with a medal ranking" if table == PREFERENCE else (
                    "judgments with human metric-wise scores")  # fmt: skip
                total = int((rows & (present(values) if table == PREFERENCE else scored)).sum())
                missing = total - int(human.sum())
                if missing:
                    parts.append(f"{missing} without a human score of this metric for both "
                                 "both")  # fmt: skip
            else:
                kept = signal if table == PREFERENCE else (
                    (signal.get("metric_wise") or {}).get(metric) or {})  # fmt: skip
                what = ("comparisons with a medal ranking" if table == PREFERENCE
                        else "comparisons with human scores of this metric")  # fmt: skip
                total = int(kept.get("units") or 0)
                if kept.get("tied"):
                    parts.append(
                        f"{kept['tied']} tied without adjudication" if table == PREFERENCE
                        else f"{kept['tied']} whose annotators' decisions on this metric tie "
                        "(no majority)"
                    )  # fmt: skip
            judged = human & present(sel.frame.judge[metric])
            if int((human & ~judged).sum()):
                parts.append(f"{int((human & ~judged).sum())} without the judge's score of "
                             "this metric for one report or both")  # fmt: skip
            if choices.ties == "exclude":
                ties = int((judged & (decide(np.nan_to_num(values)) == 0)).sum())
                if ties:
                    parts.append(f"{ties} human ties (ties=exclude)")
            if parts and total > row["n"]:
                row["n_note"] = f"{row['n']} of {total} {what}; left out: {', '.join(parts)}."


def _default_notes(figures: Figures, options: ReportOptions, report: dict) -> list[str]:
    notes = []
    if options.expert_agreed:
        notes.append(
            f"Expert-agreed subset: {len(figures.selected.frame)} comparisons whose judgments "
            "all agree, each counted once."
            + (" The same under every human signal." if options.human_signal else "")
        )
    return notes


# ----------------------------------------------------------------------------- null figures
#
# "A figure that is not defined is null with a note, never a number" (METHODS §7, last
# bullet). Every block of the report (a table row, the IAA, the system ranking, a system's
# row) whose figure is null carries ``"notes": {figure: why}``, and the report's ``notes``
# list says each reason once with the figures it concerns, so the page's and the offline
# HTML's Notes section and the notes table (CSV/XLSX/JSON) say it too. A constant judge gave
# ``tau_b: null`` everywhere with ``"notes": []`` (tester's report).

#: How the report's notes name a figure.
FIGURE_LABELS = {
    "agreement": "agreement", "tau_b": "τ-b", "threshold": "threshold",
    "human_tie_rate": "human tie rate", "judge_tie_rate": "judge tie rate",
    "strict": "strict", "half_credit": "half credit", "cohen_kappa": "Cohen's κ",
    "fleiss_kappa": "Fleiss' κ", "krippendorff_alpha": "Krippendorff's α",
    "per_slot": "τ-b per annotator slot", "human_win_rate": "human win rate",
    "judge_win_rate": "judge win rate",
}  # fmt: skip
NOTHING_COMPARED = (
    "Undefined: no judgment is left to compare (none of the selection has both a human and "
    "a judge value, or ties=exclude dropped every one)."
)
NO_IAA = ("No IAA of the comparisons (medal rankings, metric-wise scores): no comparison "
          "has two or more judgments.")  # fmt: skip
#: Why the default report's IAA is null with ``expert_agreed`` (:func:`pipeline.iaa`).
NO_IAA_EXPERT_AGREED = (
    "IAA undefined on the expert-agreed subset: it keeps each comparison whose judgments all "
    "agree once (METHODS §5), so no comparison of it has two judgments to compare (and its "
    "judgments agree by construction); without expert_agreed the IAA reads every judgment."
)
UNDEFINED = "Undefined on this selection."
COMPAT_NO_KAPPA = (
    "Cohen's κ and Krippendorff's α are null in compat mode: the released script computes "
    "neither (METHODS §6.3); the default mode reports them."
)


def _tau_b_why(row: dict) -> str:
    """Why a table row's τ-b is null while it has judgments: τ-b needs both sides to
    decide at least one pair ((N − T_h)(N − T_m) > 0, METHODS §5)."""
    human, judge = row.get("human_tie_rate"), row.get("judge_tie_rate")
    if human == 1 and judge == 1:
        return "τ-b undefined: the experts and the judge tie every pair (neither side varies)."
    if judge == 1:
        return ("τ-b undefined: the judge ties every pair (equal scores, or within its tie "
                "threshold), so its side has no variance.")  # fmt: skip
    if human == 1:
        return "τ-b undefined: the experts tie every pair, so their side has no variance."
    return ("τ-b undefined: on an annotator slot one side ties every pair (the slots are "
            "averaged, METHODS §6.1).")  # fmt: skip


def _row_why(row: dict) -> dict[str, str]:
    if not row.get("n"):
        return {k: NOTHING_COMPARED for k, v in row.items() if v is None}
    why = {"tau_b": _tau_b_why(row)} if row.get("tau_b") is None else {}
    return why | {k: UNDEFINED for k, v in row.items() if v is None and k not in why}


NO_HUMAN_JUDGMENT = (
    "no human judgment (a medal ranking or metric-wise score of two reports) in this selection"
)


def _nothing_to_rank(
    selection: dict, judge: str = "the judge has no overall score to rank systems by"
) -> str:
    """Why nothing in the selection can be ranked, checked in order: fewer than two
    systems selected or left by ``exclude_systems``, no human judgment, then ``judge`` (what the judge lacks). Before,
    every empty selection (``systems=sqa``, a setting without judgments) blamed the
    judge's overall score."""
    fewer = fewer_than_two_systems(selection)
    if fewer:
        return fewer
    if not n_judged(selection):
        return NO_HUMAN_JUDGMENT
    return judge


def fewer_than_two_systems(selection: dict) -> str | None:
    """Why the selection has nothing to rank or compare when it keeps fewer than two
    systems: ``systems`` names one, or ``exclude_systems`` leaves one of the study's
    (``systems_left``, set by :func:`agreement_report` when the selection has no
    comparison); None otherwise. A tester's ``exclude_systems`` that left one system read
    "no human judgment" although the study had judgments."""
    named = sorted(set(selection.get("systems") or ()))
    if named and len(named) < 2:
        return (f"the selection keeps one system ({named[0]}); ranking systems, or comparing "
                "two reports, needs two")  # fmt: skip
    left = selection.get("systems_left")
    if left is None or len(left) >= 2:
        return None
    kept = f"one system of this study ({left[0]})" if left else "no system of this study"
    return (f"exclude_systems ({', '.join(selection.get('exclude_systems') or ())}) leaves "
            f"{kept}; ranking systems, or comparing two reports, needs two")  # fmt: skip


def _system_why(figures, system: dict, selection: dict) -> dict[str, str]:
    """Why the system τ-b is null: scipy's τ-b needs two ranked systems and a ranking
    that varies on each side."""
    if figures is None or not figures.judge_scored:
        why = f"System τ-b undefined: {_nothing_to_rank(selection)}."
    else:
        h, j = figures.human_rates, figures.judge_rates
        ranked = ~(np.isnan(h) | np.isnan(j))
        k = int(ranked.sum())
        if k < 2:
            why = (f"System τ-b undefined: {k} system{'s' if k != 1 else ''} with judgments; "
                   "a ranking needs two.")  # fmt: skip
        elif np.unique(h[ranked]).size == 1:
            why = ("System τ-b undefined: the experts' ranking has no variance (every system "
                   "has the same human win rate).")  # fmt: skip
        elif np.unique(j[ranked]).size == 1:
            why = ("System τ-b undefined: the judge's ranking has no variance (every system "
                   "has the same judge win rate).")  # fmt: skip
        else:
            why = ("System τ-b undefined on an annotator slot (its human or judge win rates "
                   "are all equal); the slots are averaged (METHODS §6.1).")  # fmt: skip
    out = {"tau_b": why} if system.get("tau_b") is None else {}
    if any(t is None for t in system.get("per_slot") or ()):
        out["per_slot"] = why
    return out


def _iaa_why(iaa: dict, compat_null: str | None, default_null: str = "") -> dict[str, str]:
    """Why each null IAA figure is null (``compat_null``: None in the default mode; in
    compat, the reason the script computes no IAA here, or "" where it computes one;
    ``default_null``: in the default mode, why no IAA is defined on the selection, or "")."""
    why = {}
    if compat_null is None and default_null:
        why = {k: default_null for k, v in iaa.items() if v is None}
    elif compat_null is not None:  # the script's two figures (METHODS §6.3)
        why = {"cohen_kappa": COMPAT_NO_KAPPA, "krippendorff_alpha": COMPAT_NO_KAPPA}
        if compat_null:
            why |= {"strict": compat_null, "half_credit": compat_null}
        elif iaa.get("n") and iaa.get("half_credit") is None:
            why["half_credit"] = ("Half credit undefined: every two decisions are opposite, "
                                  "which the script leaves out (METHODS §6.3).")  # fmt: skip
    elif not iaa.get("n"):
        why = {k: NO_IAA for k, v in iaa.items() if v is None}
    else:
        if iaa.get("cohen_kappa") is None:
            why["cohen_kappa"] = (
                "Cohen's κ undefined: every two annotators gave one and the same decision on "
                "all the comparisons they share (chance agreement is 1)."
            )
        same = ("undefined: every judgment of the comparisons judged twice or more is the "
                "same decision (no variance).")  # fmt: skip
        for key, name in (("fleiss_kappa", "Fleiss' κ"), ("krippendorff_alpha",
                                                           "Krippendorff's α")):  # fmt: skip
            if iaa.get(key) is None:
                why[key] = f"{name} {same}"
    return why | {k: UNDEFINED for k, v in iaa.items() if v is None and k not in why}


def note_null_figures(
    report: dict, system_figures=None, iaa_null: str | None = None, said: list = (),
    iaa_undefined: str = "",
) -> list[str]:  # fmt: skip
    """Give every null figure of ``report`` its note, in place: ``"notes": {figure: why}``
    on its block; returns the report-level notes, one per reason naming its figures.

    ``system_figures``: the path's :class:`~metaeval.pipeline.SystemFigures` (None: no
    judge overall score); ``iaa_null``: compat only, why the script computes no IAA here
    ("" where it computes one); ``said``: the notes the report has already (a reason among
    them is not said twice); ``iaa_undefined``: default mode, why the selection defines no
    IAA (the expert-agreed subset), or "".
    """
    blocks = [(f"{table.replace('_', '-')} {metric}", row, _row_why(row))
              for table in (PREFERENCE, METRIC_WISE)
              for metric, row in (report.get(table) or {}).items()]  # fmt: skip
    iaa, system = report.get("iaa") or {}, report.get("system") or {}
    blocks.append(("IAA", iaa, _iaa_why(iaa, iaa_null, iaa_undefined)))
    blocks.append(("system", system, _system_why(system_figures, system,
                                                 report.get("selection") or {})))  # fmt: skip
    for row in system.get("systems") or ():
        why = {k: UNDEFINED for k, v in row.items() if v is None}
        blocks.append((f"system {row.get('system')}", row, why))
    reasons: dict[str, list[str]] = {}
    for place, block, why in blocks:
        if why:
            block["notes"] = why
        for key, text in why.items():
            reasons.setdefault(text, []).append(f"{place} {FIGURE_LABELS.get(key, key)}")
    return [f"{text.rstrip('.')} — null: {', '.join(places)}."
            for text, places in reasons.items() if text not in said]  # fmt: skip


def _signal_note(summary: dict) -> str:
    """The majority / adjudicated signal of the medal-ranking report (ANALYSES §0)."""
    text = (f"Human signal: {summary['mode']}, one decision per comparison and setting "
            f"({summary['kept']} of {summary['units']}; {summary['tied']} tied without "
            "adjudication left out of the preference table and figures")  # fmt: skip
    if summary["mode"] != "adjudicated":
        return text + "). IAA reads every judgment; metric-wise scores read their majority."
    text += (f"; {summary['adjudicated']} from adjudicated rankings). IAA reads every "
             "judgment; metric-wise scores read their majority, each annotator's "
             "answer_relevance (and the overall that averages it) from their paragraph labels "
             f"as relevance adjudication (A.6) left them: {_relevance_note(summary)}")  # fmt: skip
    return text


def _relevance_note(summary: dict) -> str:
    """What the relevance adjudications changed of the metric-wise scores."""
    changed = summary.get("relevance_labels_changed", 0)
    return (f"{changed} paragraph label{'' if changed == 1 else 's'} switched to the judge's, "
            f"in {summary.get('relevance_reports_changed', 0)} report scores.")  # fmt: skip


def _compat_notes(frame: PairFrame, options: ReportOptions, choices: Choices, report) -> list:
    """Each quirk that changed a figure (compat beside default), then the text notes."""
    differences = compat_mode.differences(
        frame, choices.setting, subset=compat_mode.EXPERT_AGREED if choices.expert_agreed
        else compat_mode.ALL, exclude_systems=choices.exclude_systems,
        only_systems=choices.only_systems, ties=choices.ties, threshold=choices.threshold,
    )  # fmt: skip
    rows = [
        {
            "quirk": d.quirk,
            "reason": d.reason,
            "figure": d.figure,
            "compat": _num(d.compat),
            "without_quirk": _num(d.without_quirk),
            "default": _num(d.default),
        }  # fmt: skip
        for d in differences
    ]
    return rows + compat_mode.report_notes(
        frame, choices, options.expert_agreed, preference=report["preference"],
        metric_wise=report["metric_wise"], iaa=report["iaa"],
    )  # fmt: skip


def _undefined_report(
    frame: PairFrame, options: ReportOptions, setting: str, why: str, *, counted: bool = False
) -> dict:
    """Compat with nothing to compute on (no judgment in its setting, or an empty
    expert-agreed subset): every figure is null, ``why`` in each note. ``counted``: the
    selection counts the setting's judgments (it has some)."""
    selection = {**_selection(frame, options, setting if counted else None),
                 "compat_setting": setting}  # fmt: skip
    iaa = {**_NO_IAA, "notes": {k: why for k, v in _NO_IAA.items() if v is None}}
    return {"selection": selection, "notes": [why], "iaa": iaa, "preference": {},
            "metric_wise": {}, "system": {"tau_b": None, "systems": [],
                                          "notes": {"tau_b": why}}}  # fmt: skip


def _empty_agreed_why(frame: PairFrame, setting: str) -> str:
    """Why the script's ``--human_agreed`` subset of ``setting`` is empty: it keeps the
    comparisons whose judgments all agree, which needs two judgments of one comparison."""
    n = int(np.unique(frame.annotator[rows_of(frame, [setting])]).size)
    because = (
        f"setting {setting!r} has {n} annotator, so no comparison is judged twice"
        if n < 2
        else f"no comparison of setting {setting!r} has judgments that all agree"
    )
    return (f"Expert-agreed subset empty: {because}; no figure is defined on it (without the "
            "expert-agreed option every judgment is analysed).")  # fmt: skip


def frame_signal(options: ReportOptions) -> str | None:
    """The signal :func:`load_selection` collapses the frame to (None: every judgment).

    The expert-agreed subset is one label per comparison whose judgments all agree: the
    same under every signal (its label is the unanimous majority), so it is not collapsed.
    """
    if options.human_signal in ("majority", "adjudicated") and not options.expert_agreed:
        return options.human_signal
    return None


def check_names(study_id: int, options: ReportOptions) -> None:
    """A judge with no output of any kind in the study (:func:`judges.models.judged_in`: a
    DeepScholar judge has labels, no score), or a system of ``systems`` / ``exclude_systems``
    the study does not have, is refused naming the option: it selected nothing and the
    report came back empty with no word of why (found by a researcher with a token); so is
    an ``exclude_systems`` that drops every system. Every entry point (API, downloads,
    report runs, pages, judge alignment) refuses a judge through here. One query per kind of name given; none
    for the default selection."""
    from annotation.models import System
    from judges.models import Judge, judged_in

    named = {*options.systems, *options.exclude_systems}
    if named:
        known = set(
            System.objects.filter(study_id=study_id, name__in=named).values_list("name", flat=True)
        )
        for key in ("systems", "exclude_systems"):
            missing = [n for n in getattr(options, key) if n not in known]
            if missing:
                raise ValueError(f"{key}: no system {', '.join(map(repr, missing))} in this study")
    if options.exclude_systems and not options.systems:
        left = System.objects.filter(study_id=study_id).exclude(name__in=options.exclude_systems)
        if not left.exists():  # every system dropped: nothing left to report on
            raise ValueError(
                "exclude_systems: every system of this study is excluded (and systems selects "
                "none), so the selection leaves nothing to report on"
            )
    if options.judge is not None:
        judged = Judge.objects.filter(judged_in(study_id), name=options.judge)
        if not judged.exists():  # output of any kind counts (a DeepScholar judge's labels)
            raise judge_not_scored(options.judge)


def systems_left(study_id: int, options: ReportOptions) -> list[str]:
    """The study's systems the selection keeps: those of ``systems`` (every system when it
    names none) less those of ``exclude_systems``."""
    from annotation.models import System

    left = System.objects.filter(study_id=study_id).exclude(name__in=options.exclude_systems)
    if options.systems:
        left = left.filter(name__in=options.systems)
    return sorted(left.values_list("name", flat=True))


def judge_not_scored(name: str) -> ValueError:
    """The one refusal of a ``judge`` option the study has no output of (no score, coverage,
    pairwise verdict, relevance flag, claim verdict or DeepScholar label), whether the judge
    does not exist or scored only other studies: the same words for both, so a researcher
    cannot learn which judge names exist in studies they cannot read (a tester's
    ``?judge=secret-judge-s3`` answered an empty report where a made-up name was a 400)."""
    return ValueError(f"judge: {name!r} has no score in this study")


def load_selection(study_id: int, options: ReportOptions):
    """The rows a report reads: ``(frame, calibration_frame, judge_name)``.

    The select step's database half, used by :func:`agreement_report` and by the figures.
    By default the loader keeps the settings and systems asked for, and the
    ``calibrate_on`` rows for cross-fitted thresholds. Reading records as the script does
    (``Policy.script_records``), it loads every setting and system: the path picks its
    setting's rows and masks systems itself, because near/deep are calibrated together
    and on every system (METHODS §6.2, §6.4); and the expert-agreed subset is the
    released agreement-only records when the study has them (the script's
    ``--human_agreed``).
    """
    from .data import Selection, load_expert_agreed, load_frame  # Django-dependent

    check_names(study_id, options)
    script = _policy(options).script_records
    signal = frame_signal(options)
    relevance = None
    if signal == "adjudicated":  # the paragraph labels as adjudicated (ANALYSES §0)
        from .loaders.signal import adjudicated_relevance

        relevance = adjudicated_relevance(study_id)
    settings = () if script else tuple(options.settings)
    load_settings = settings + (
        (options.calibrate_on,) if settings and options.calibrate_on else ()
    )
    frame = load_frame(
        Selection(
            study_id,
            settings=load_settings or None,
            judge=options.judge,
            systems=None if script else (options.systems or None),
            exclude_systems=() if script else options.exclude_systems,
            relevance=relevance.relevance if relevance else None,
        )  # fmt: skip
    )
    judge = frame.judge_name  # the options' judge, or the study's default judge
    calib = None
    if options.calibrate_on and not script:
        if options.calibrate_on not in frame.settings:
            raise ValueError(f"calibrate_on: no judgment in setting {options.calibrate_on!r}")
        calib = frame.take(frame.setting == frame.settings.index(options.calibrate_on))
    if settings:
        frame = frame.take(rows_of(frame, settings))
    if script and options.expert_agreed:
        agreed = load_expert_agreed(study_id, compat_setting(frame, options), judge)
        if agreed is not None:
            frame = agreed
    if signal is not None:
        medals = None
        if signal == "adjudicated":
            from .loaders.signal import adjudicated_medals

            medals = adjudicated_medals(study_id)
        from .loaders.signal import failed_pseudonyms

        failed = failed_pseudonyms(study_id)
        frame = with_human_signal(frame, signal, medals, failed)[0]
        if calib is not None:
            calib = with_human_signal(calib, signal, medals, failed)[0]
        if relevance is not None and frame.signal is not None:  # None: no comparison
            frame.signal.update(relevance.summary())
    return frame, calib, judge


def agreement_report(
    study_id: int,
    options: ReportOptions,
    progress: Progress | None = None,
    *,
    loaded=None,
    notes: bool = True,
) -> dict:
    """Load the selection from the database and build its report (command, API, pages).

    ``loaded``: the :func:`load_selection` of the same options, when the caller has it
    (the report page loads a selection once for the report, its figures and its judges).
    ``notes``: as in :func:`build_report`.
    """
    frame, calib, judge = loaded if loaded is not None else load_selection(study_id, options)
    left = None
    if options.exclude_systems and not options.compat and not len(frame):
        left = systems_left(study_id, options)  # one query, for an empty selection only
    report = build_report(frame, options, calibration_frame=calib, progress=progress,
                          notes=notes, systems_left=left)  # fmt: skip
    report["selection"]["study_id"] = study_id
    report["selection"]["judge"] = judge
    return report
