"""The agreement report: one dict, the JSON contract every view, API and export presents.

Data flows one way (ARCHITECTURE.md): :mod:`metaeval.data` loads a :class:`PairFrame`,
:mod:`metaeval.stats` computes, this module shapes. Without ``compat`` every figure follows
METHODS §5; with ``compat="scholarqa-cs2"`` the figures come from :mod:`metaeval.compat`
and ``notes`` lists each quirk that changed a figure with the default figure beside it.

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
from .frame import METRICS, PairFrame
from .options import SETTINGS, option
from .stats import iaa as iaa_stats
from .stats.agreement import credit as half_credit
from .stats.calibration import MATCH_RATE, MAX_ACCURACY, calibrate
from .stats.decisions import score_decisions, tie_rate
from .stats.kendall import pair_counts, tau_b_from_counts
from .stats.system import system_tau_b, win_rates

CALIBRATIONS = {"match-rate": MATCH_RATE, "max-accuracy": MAX_ACCURACY}
TIE_STRATEGIES = ("threshold", "partial", "exclude")
COMPAT_MODES = ("scholarqa-cs2",)
PREFERENCE = "preference"

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
    settings: tuple[str, ...] = option((), "settings (assigned, near_expert, deep_expert)",
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
    bootstrap: int = option(0, "number of bootstrap rounds (0: none)", kind="int",
        interval=True, metavar="N", widget="select", label="Bootstrap", order=5)  # fmt: skip
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

    def __post_init__(self):
        if self.ties not in TIE_STRATEGIES:
            raise ValueError(f"ties: {self.ties!r} is not one of {', '.join(TIE_STRATEGIES)}")
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
        if self.compat is not None:
            self._check_compat()

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

    def _check_compat(self) -> None:
        """What the released script cannot do is refused, never ignored (METHODS §6)."""
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

    @classmethod
    def from_dict(cls, data: dict) -> ReportOptions:
        """Options from JSON/query data; unknown keys are an error naming the key."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown option(s): {', '.join(unknown)}")
        values = dict(data)
        for key in ("settings", "systems", "exclude_systems"):
            if key in values:
                raw = values[key]
                if isinstance(raw, str):
                    raw = [s for s in raw.split(",") if s.strip()]
                values[key] = tuple(str(s).strip() for s in raw)
        for key in ("threshold", "target_half_width"):
            if isinstance(values.get(key), str):
                values[key] = parse_threshold(values[key])
        return cls(**values)

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def parse_threshold(raw) -> float | None:
    """``threshold`` from text (query string, command line): a number >= 0, or none."""
    if raw is None or str(raw).strip() == "":
        return None
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ValueError(f"threshold: {raw!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"threshold: {raw!r} is not a number >= 0")
    return value


# ----------------------------------------------------------------------------- helpers


def _num(x) -> float | None:
    """JSON-safe float: NaN (undefined) becomes None."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _present(pair_scores: np.ndarray) -> np.ndarray:
    return ~np.isnan(pair_scores).any(axis=1)


def _medal_decisions(frame: PairFrame) -> np.ndarray:
    return score_decisions(frame.preference[:, 0], frame.preference[:, 1], 0.0)


def _comparison_codes(frame: PairFrame) -> np.ndarray:
    """One integer per comparison (setting, question, system A, system B)."""
    n_sys = max(len(frame.systems), 1)
    n_q = max(len(frame.questions), int(frame.question.max(initial=0)) + 1)
    key = (frame.setting.astype(np.int64) * n_q + frame.question) * n_sys + frame.system_a
    key = key * n_sys + frame.system_b
    _, codes = np.unique(key, return_inverse=True)
    return codes.ravel()


def _decision_matrix(frame: PairFrame, human: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(comparison code per row, comparisons × annotators decisions, number of annotators).

    Codes are 0..k−1, so row ``c`` of the matrix is comparison ``c``. Built once per report
    and shared by the IAA and the expert-agreed subset.
    """
    codes = _comparison_codes(frame)
    labels, _, annotators = iaa_stats.label_matrix(codes, frame.annotator, human)
    return codes, labels, len(annotators)


def expert_agreed_rows(frame: PairFrame, human: np.ndarray, matrix=None) -> np.ndarray:
    """Indices of one row per comparison whose ≥ 2 judgments all agree (METHODS §5).

    ``matrix``: the :func:`_decision_matrix` of the same frame and decisions, if at hand.
    """
    if len(frame) == 0:
        return np.zeros(0, dtype=np.int64)
    codes, labels, _ = matrix if matrix is not None else _decision_matrix(frame, human)
    agreed = iaa_stats.agreed_items(labels)
    _, first = np.unique(codes, return_index=True)
    return np.sort(first[agreed[codes[first]]])


@dataclass
class _Signal:
    """One comparison of a human signal with one judge metric, with its figures."""

    human: np.ndarray
    score_a: np.ndarray
    score_b: np.ndarray
    clusters: np.ndarray
    fit: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    judge_decisions: np.ndarray | None = None  # set by _compare, read by the bootstrap


def _compare(signal: _Signal, options: ReportOptions) -> dict:
    """Calibrate, decide and score one signal (METHODS §5 Agreement, Kendall τ-b)."""
    h, a, b = signal.human, signal.score_a, signal.score_b
    if options.ties == "exclude":
        keep = h != 0
        h, a, b, signal.clusters = h[keep], a[keep], b[keep], signal.clusters[keep]
        signal.human, signal.score_a, signal.score_b = h, a, b
    if h.size == 0:
        return {"agreement": None, "tau_b": None, "n": 0, "threshold": None,
                "human_tie_rate": None, "judge_tie_rate": None}  # fmt: skip
    if options.ties == "partial":
        threshold = 0.0
    elif options.threshold is not None:  # the "compare at a fixed threshold" view
        threshold = float(options.threshold)
    else:
        fh, fa, fb = signal.fit if signal.fit is not None else (h, a, b)
        if options.ties == "exclude":
            keep = fh != 0
            fh, fa, fb = fh[keep], fa[keep], fb[keep]
        threshold = calibrate(fh, fa, fb, method=CALIBRATIONS[options.calibration]).threshold
        if math.isnan(threshold):
            threshold = 0.0
    judge = score_decisions(a, b, threshold)
    counts = pair_counts(h, judge)
    credit = half_credit(h, judge) if options.ties == "partial" else (h == judge).astype(float)
    signal.judge_decisions = judge
    return {
        "agreement": _num(credit.mean()),
        "tau_b": _num(tau_b_from_counts(counts)),
        "n": int(h.size),
        "threshold": _num(threshold),
        "human_tie_rate": _num(tie_rate(h)),
        "judge_tie_rate": _num(tie_rate(judge)),
    }


def _signals(frame: PairFrame, options: ReportOptions, calib: PairFrame | None) -> dict:
    """The human-vs-judge signals of the report: {table: {metric: _Signal}}."""
    out: dict[str, dict[str, _Signal]] = {PREFERENCE: {}, "metric_wise": {}}
    medals = _medal_decisions(frame)
    calib_medals = _medal_decisions(calib) if calib is not None else None
    for metric in METRICS:
        judge = frame.judge.get(metric)
        if judge is None:
            continue
        for table, human_scores, calib_scores in (
            (PREFERENCE, None, None),
            ("metric_wise", frame.human.get(metric), calib.human.get(metric) if calib else None),
        ):
            if table == "metric_wise" and human_scores is None:
                continue
            rows = _present(judge)
            if human_scores is not None:
                rows &= _present(human_scores)
                human = score_decisions(human_scores[rows, 0], human_scores[rows, 1], 0.0)
            else:
                human = medals[rows]
            if not rows.any():
                continue
            fit = None
            if calib is not None and metric in calib.judge:
                cj = calib.judge[metric]
                crow = _present(cj)
                if calib_scores is not None:
                    crow &= _present(calib_scores)
                    ch = score_decisions(calib_scores[crow, 0], calib_scores[crow, 1], 0.0)
                elif calib_scores is None and table == PREFERENCE:
                    ch = calib_medals[crow]
                else:
                    crow[:] = False
                    ch = np.zeros(0, dtype=np.int8)
                if crow.any():
                    fit = (ch, cj[crow, 0], cj[crow, 1])
            out[table][metric] = _Signal(
                human, judge[rows, 0], judge[rows, 1], frame.question[rows], fit
            )
    return out


def _system_block(frame: PairFrame, threshold: float | None) -> dict:
    """Per-system win rates, human vs judge overall at its threshold; τ-b (METHODS §5)."""
    judge = frame.judge.get("overall")
    if judge is None or len(frame) == 0:
        return {"tau_b": None, "systems": []}
    rows = _present(judge)
    sa, sb = frame.system_a[rows], frame.system_b[rows]
    n_systems = len(frame.systems)
    human = win_rates(sa, sb, _medal_decisions(frame)[rows], n_systems)
    t = threshold or 0.0
    judged = win_rates(sa, sb, score_decisions(judge[rows, 0], judge[rows, 1], t), n_systems)
    counts = np.bincount(sa, minlength=n_systems) + np.bincount(sb, minlength=n_systems)
    systems = [
        {
            "system": name,
            "human_win_rate": _num(human[i]),
            "judge_win_rate": _num(judged[i]),
            "n": int(counts[i]),
        }  # fmt: skip
        for i, name in enumerate(frame.systems)
        if counts[i]
    ]
    systems.sort(key=lambda s: -(s["human_win_rate"] or 0))
    tau = system_tau_b(human, judged).statistic if len(systems) >= 2 else float("nan")
    return {"tau_b": _num(tau), "systems": systems}


def _iaa_block(frame: PairFrame, matrix=None) -> dict:
    """IAA over comparisons with ≥ 2 judgments, all annotator pairs (METHODS §5)."""
    empty = {"strict": None, "half_credit": None, "n": 0, "n_pairs": 0, "cohen_kappa": None,
             "fleiss_kappa": None, "krippendorff_alpha": None}  # fmt: skip
    if len(frame) == 0:
        return empty
    _, labels, n_annotators = (
        matrix if matrix is not None else _decision_matrix(frame, _medal_decisions(frame))
    )
    agreement = iaa_stats.pairwise_agreement(labels)
    if agreement.n_pairs == 0:
        return empty
    multi = labels[(~np.isnan(labels)).sum(axis=1) >= 2]
    cohen = iaa_stats.cohen_kappa(multi).value if n_annotators == 2 else float("nan")
    fleiss = iaa_stats.fleiss_kappa(multi, unequal="generalized").value
    alpha = iaa_stats.krippendorff_alpha(multi, "nominal").value
    return {
        "strict": _num(agreement.strict),
        "half_credit": _num(agreement.half_credit),
        "n": agreement.n_items,
        "n_pairs": agreement.n_pairs,
        "cohen_kappa": _num(cohen),
        "fleiss_kappa": _num(fleiss),
        "krippendorff_alpha": _num(alpha),
    }


# ----------------------------------------------------------------------------- builders


def build_report(
    frame: PairFrame,
    options: ReportOptions,
    *,
    calibration_frame: PairFrame | None = None,
    progress: Progress | None = None,
) -> dict:
    """The report dict for ``frame`` (already restricted to the selection's settings).

    ``calibration_frame``: rows of ``--calibrate-on`` (cross-fitted thresholds).
    """
    if options.compat:
        return _compat_report(frame, options)
    notes: list[str] = []
    medals = _medal_decisions(frame)
    matrix = _decision_matrix(frame, medals) if len(frame) else None
    iaa = _iaa_block(frame, matrix)
    if iaa["n"] == 0:
        notes.append("No IAA: no comparison has two or more judgments.")
    analysed = frame
    if options.expert_agreed:
        analysed = frame.take(expert_agreed_rows(frame, medals, matrix))
        notes.append(
            f"Expert-agreed subset: {len(analysed)} comparisons whose judgments all agree, "
            "each counted once."
        )
    signals = _signals(analysed, options, calibration_frame)
    tables = {
        table: {metric: _compare(sig, options) for metric, sig in by_metric.items()}
        for table, by_metric in signals.items()
    }
    overall = tables[PREFERENCE].get("overall", {})
    system = _system_block(analysed, overall.get("threshold"))
    if options.bootstrap:
        from .uncertainty import add_confidence_intervals

        notes += add_confidence_intervals(tables, system, signals, analysed, options, progress)
    return {
        "selection": _selection(frame, options),
        "iaa": iaa,
        "preference": tables[PREFERENCE],
        "metric_wise": tables["metric_wise"],
        "system": system,
        "notes": notes,
    }


def _selection(frame: PairFrame, options: ReportOptions) -> dict:
    return {
        **options.to_dict(),
        "n_judgments": len(frame),
        "n_questions": int(np.unique(frame.question).size),
        "n_annotators": int(np.unique(frame.annotator).size),
        "systems_present": sorted(
            {frame.systems[i] for i in np.unique(np.concatenate([frame.system_a, frame.system_b]))}
        ),
        "settings_present": sorted({frame.settings[i] for i in np.unique(frame.setting)}),
    }


def compat_setting(frame: PairFrame, options: ReportOptions) -> str:
    """The one setting a compat report computes (the script's ``--source``)."""
    present = sorted({frame.settings[i] for i in np.unique(frame.setting)})
    if options.settings:
        return options.settings[0]
    if "assigned" in present:
        return "assigned"
    return present[0] if present else "assigned"


def _compat_report(frame: PairFrame, options: ReportOptions) -> dict:
    """ScholarQA-CS2 compatibility mode (METHODS §6): figures as the released script.

    Every figure the script defines is reported; one it does not define is null with a
    note saying why (the IAA without exactly two annotator slots, or on the expert-agreed
    subset, where the script computes none).
    """
    setting = compat_setting(frame, options)
    subset = compat_mode.EXPERT_AGREED if options.expert_agreed else compat_mode.ALL
    unpaired_agreed = options.expert_agreed and setting not in compat_mode.SLOT_SETTINGS
    if unpaired_agreed:  # the script's --human_agreed leaves these settings' data as they are
        subset = compat_mode.ALL
    args = dict(subset=subset, exclude_systems=options.exclude_systems,
                only_systems=options.systems)  # fmt: skip
    choices = dict(ties=options.ties, threshold=options.threshold)
    report = {"selection": _selection(frame, options), "notes": []}
    no_iaa = {"strict": None, "half_credit": None, "n": 0, "cohen_kappa": None,
              "krippendorff_alpha": None}  # fmt: skip
    if len(frame) == 0 or setting not in frame.settings:
        report.update(iaa=_iaa_block(frame.take(np.zeros(0, dtype=np.int64))), preference={},
                      metric_wise={}, system={"tau_b": None, "systems": []})  # fmt: skip
        report["selection"]["compat_setting"] = setting
        if len(frame):
            report["notes"].append(f"No judgment in setting {setting!r}: no figure is defined.")
        return report
    released = compat_mode.is_released_agreed(frame, setting)

    def rows(table) -> dict:
        return {
            r.metric: {
                "agreement": _num(r.agreement),
                "tau_b": _num(r.tau_b),
                "n": _num(r.n),
                "threshold": _num(r.threshold),
            }  # fmt: skip
            for r in table.rows
        }

    preference = compat_mode.compat_preference_table(frame, setting, **args, **choices)
    report["preference"] = rows(preference)
    report["metric_wise"] = rows(
        compat_mode.compat_metric_wise_table(frame, setting, **args, **choices)
    )
    tau = compat_mode.compat_system_tau(frame, setting, **args)
    report["system"] = {
        "tau_b": _num(tau.tau_b),
        "per_slot": [_num(t) for t in tau.per_slot],
        "systems": sorted(
            (
                {
                    "system": s,
                    "human_win_rate": _num(tau.human_rates[s]),
                    "judge_win_rate": _num(tau.judge_rates.get(s)),
                }  # fmt: skip
                for s in tau.human_rates
            ),
            key=lambda s: -(s["human_win_rate"] or 0),
        ),
    }
    text_notes: list[str] = []
    n_slots = int(np.unique(frame.annotator[frame.setting == frame.settings.index(setting)]).size)
    if subset == compat_mode.ALL and compat_mode.two_slots(frame, setting):
        iaa = compat_mode.compat_iaa(
            frame, setting, exclude_systems=options.exclude_systems, only_systems=options.systems
        )
        report["iaa"] = {"strict": _num(iaa.strict), "half_credit": _num(iaa.half_credit),
                         "n": iaa.n, "cohen_kappa": None, "krippendorff_alpha": None}  # fmt: skip
    else:
        report["iaa"] = dict(no_iaa)
        if subset != compat_mode.ALL:
            text_notes.append(
                "IAA: null. The script computes no IAA on the expert-agreed subset "
                "(its judgments agree by construction)."
            )
        elif setting in compat_mode.SLOT_SETTINGS:
            text_notes.append(
                f"IAA: null. The script's IAA compares exactly two annotator slots per "
                f"question (METHODS §6.3); setting {setting!r} has {n_slots}. Every other "
                "figure is reported."
            )
        else:
            text_notes.append(
                f"IAA: null. The script computes IAA for the assigned setting only, not "
                f"{setting!r} (one judgment per comparison)."
            )
    if released:
        text_notes.append(
            f"Expert-agreed subset: the study's {len(frame)} released expert-agreed records "
            f"of judge {frame.judge_name!r} with their own judge scores, as the script reads "
            "them (--human_agreed)."
        )
    elif subset == compat_mode.EXPERT_AGREED:
        text_notes.append(
            "Expert-agreed subset: derived from the annotations (the study has no released "
            "expert-agreed records of this judge; import them with import_pairwise "
            "--expert-agreed to use the authors' own)."
        )
    if unpaired_agreed:
        text_notes.append(
            f"Expert-agreed: setting {setting!r} has one judgment per comparison, so every "
            "judgment is reported, as the script does with --human_agreed there."
        )
    if options.threshold is not None:
        text_notes.append(
            f"Fixed threshold {options.threshold:g} for every judge metric, not fitted"
            + (" (the script's --dont_use_thresholds)." if options.threshold == 0 else ".")
        )
    text_notes += compat_mode.paper_notes(
        setting, preference=report["preference"], metric_wise=report["metric_wise"],
        iaa=report["iaa"], **args, **choices,
    )  # fmt: skip
    report["selection"]["compat_setting"] = setting
    in_setting = frame.take(frame.setting == frame.settings.index(setting))
    report["selection"]["n_judgments"] = len(in_setting)
    report["selection"]["n_questions"] = int(np.unique(in_setting.question).size)
    report["selection"]["n_annotators"] = int(np.unique(in_setting.annotator).size)
    report["notes"] = [
        {
            "quirk": d.quirk,
            "reason": d.reason,
            "figure": d.figure,
            "compat": _num(d.compat),
            "without_quirk": _num(d.without_quirk),
            "default": _num(d.default),
        }  # fmt: skip
        for d in compat_mode.differences(frame, setting, **args, **choices)
    ] + text_notes
    return report


def load_selection(study_id: int, options: ReportOptions):
    """The rows a report reads: ``(frame, calibration_frame, judge_name)``.

    One place for the selection rules, used by :func:`agreement_report` and by the
    figures: settings (all of them in compat mode, which picks its setting's rows itself
    because near/deep are calibrated together, METHODS §6.2), the ``calibrate_on`` rows
    for cross-fitted thresholds, and system subsets (compat applies its own, §6.4).
    """
    from .data import Selection, load_expert_agreed, load_frame  # Django-dependent

    settings = () if options.compat else tuple(options.settings)
    load_settings = settings + (
        (options.calibrate_on,) if settings and options.calibrate_on else ()
    )
    exclude = () if options.compat else options.exclude_systems
    only = () if options.compat else options.systems
    frame = load_frame(
        Selection(
            study_id,
            settings=load_settings or None,
            judge=options.judge,
            systems=only or None,
            exclude_systems=exclude,
        )  # fmt: skip
    )
    judge = frame.judge_name  # the options' judge, or the study's default judge
    calib = None
    if options.calibrate_on and not options.compat:
        if options.calibrate_on not in frame.settings:
            raise ValueError(f"calibrate_on: no judgment in setting {options.calibrate_on!r}")
        calib = frame.take(frame.setting == frame.settings.index(options.calibrate_on))
    if settings:
        codes = [frame.settings.index(s) for s in settings if s in frame.settings]
        frame = frame.take(np.isin(frame.setting, codes))
    if options.compat and options.expert_agreed:
        # the script's --human_agreed reads the released agreement-only records
        setting = compat_setting(frame, options)
        agreed = load_expert_agreed(study_id, setting, judge)
        if agreed is not None:
            frame = agreed
    return frame, calib, judge


def agreement_report(
    study_id: int, options: ReportOptions, progress: Progress | None = None, *, loaded=None
) -> dict:
    """Load the selection from the database and build its report (command, API, pages).

    ``loaded``: the :func:`load_selection` of the same options, when the caller has it
    (the report page loads a selection once for the report, its figures and its judges).
    """
    frame, calib, judge = loaded if loaded is not None else load_selection(study_id, options)
    report = build_report(frame, options, calibration_frame=calib, progress=progress)
    report["selection"]["study_id"] = study_id
    report["selection"]["judge"] = judge
    return report
