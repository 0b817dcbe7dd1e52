"""ScholarQA-CS2 compatibility mode: every quirk of the authors' script in one place.

The published meta-evaluation figures of ScholarQA-CS2 (seed 003, Tables 2, 3, 4, 6, 7)
come from the authors' released script (allenai/ai2-scholarqa-eval,
``meta_evaluation/agreement_calculation/calculate_agreement.py``), which differs from
Concord's definitions (METHODS §5) in ways a reproduction must copy (METHODS §6). This
module reproduces that behaviour, pure functions over a :class:`~metaeval.frame.PairFrame`
(no Django import), and :func:`differences` says, figure by figure, what each quirk changed
compared with the default mode, for a report's ``notes``.

The quirks (``QUIRKS``; METHODS §6 items 1-5, plus what the script does that §6 leaves out):

``slot_average`` (§6.1)
    For two-annotator data (``assigned``) every figure is computed per annotator slot and
    the results averaged; the default pools the judgments.
``threshold_grid`` (§6.2)
    Thresholds are searched on the float grid ``numpy.arange(0.01, 0.16, 0.01)`` (no 0,
    values such as 0.15000000000000002), comparing raw float distances, smallest on equal;
    the default searches ``{0} ∪ {|s_A - s_B|}`` exactly.
``tie_target`` (§6.2)
    The target tie rate is that of the metric-wise human field of the judge metric's name
    (``human_overall`` for ``overall``), over the records that have it, 0 when none has it,
    even when the human signal compared is the preference; the judge's tie rate counts every
    record with the judge score. The default targets the signal compared, on the judgments
    analysed.
``calibration_pool`` (§6.2, §6.4)
    Which judgments a threshold is fitted on: per annotator slot then averaged
    (``assigned``); near- and deep-expert together; every threshold 0.01 on the
    expert-agreed subset (the script calibrates on an empty list there); and always all
    systems, even when a subset of systems is analysed. The default fits on the judgments
    analysed.
``iaa_per_question`` (§6.3)
    IAA keeps one decision per question and annotator slot (the last pair read), and
    half credit leaves opposite decisions out of the denominator; the default compares
    every pair of judgments of every comparison, opposite decisions scoring 0.
``ranking_ignores_subset`` (§6.4)
    ``only_systems`` (the script's ``--subselect_models``) restricts the pairs but not
    the system-level ranking. ``exclude_systems`` (``--drop_elicit``) restricts both.
``exact_win_rates`` (§6.5)
    System win rates use exact comparisons of the judge's overall score (no threshold).
``degenerate_tau_zero`` (script only)
    τ-b with a zero denominator (one side tied everywhere) is reported as 0.0, not NaN.

Signals: ``"preference"`` is the medal ranking (``frame.preference``); a metric name is the
metric-wise human score (``frame.human[metric]``). Human decisions are exact (ties on equal
values); judge decisions tie when ``|s_A - s_B| <= t``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from metaeval.frame import METRICS, PairFrame
from metaeval.stats.agreement import agreement
from metaeval.stats.calibration import calibrate_match_rate
from metaeval.stats.decisions import score_decisions
from metaeval.stats.iaa import label_matrix, pairwise_agreement
from metaeval.stats.kendall import tau_b_decisions
from metaeval.stats.system import system_tau_b, win_rates

#: The script's threshold grid, ``numpy.arange(0.01, 0.16, 0.01)``: 15 float values
#: 0.01 ... 0.15000000000000002 (METHODS §6.2). Boundary cases depend on the exact floats.
THRESHOLD_GRID: np.ndarray = np.arange(0.01, 0.16, 0.01)
#: The same grid rounded to 2 decimals. Not the released script's, but the only grid under
#: which every figure of seed 003 Table 4 reproduces: deep-expert answer recall needs the
#: pair 0.975 vs 0.825 (float |difference| 0.15000000000000002) untied at t = 0.15.
ROUND_GRID: np.ndarray = np.round(THRESHOLD_GRID, 2)

PREFERENCE = "preference"
ALL, EXPERT_AGREED = "all", "expert_agreed"
SUBSETS = (ALL, EXPERT_AGREED)
#: The script's ``--tie_strategy`` values (METHODS §5 "Ties"), applied as the script does:
#: ``threshold`` ties the judge within the fitted threshold, full credit only; ``partial``
#: compares judge scores exactly (the script drops its thresholds) and gives half credit
#: when exactly one side ties; ``exclude`` drops the judgments the human ties, thresholds
#: unchanged.
TIE_STRATEGIES: tuple[str, ...] = ("threshold", "partial", "exclude")

#: Settings whose figures are computed per annotator slot and averaged (METHODS §6.1).
SLOT_SETTINGS: tuple[str, ...] = ("assigned",)
#: Settings calibrated together, once, whichever of them is analysed (METHODS §6.2).
POOLED_CALIBRATION: tuple[str, ...] = ("near_expert", "deep_expert")
#: Label of the rows of :func:`expert_agreed` (one row per agreed comparison).
AGREED_ANNOTATOR = "expert_agreed"

QUIRKS: dict[str, str] = {
    "slot_average": "METHODS §6.1: figures per annotator slot, then averaged",
    "threshold_grid": "METHODS §6.2: float grid numpy.arange(0.01, 0.16, 0.01), raw float ties",
    "tie_target": "METHODS §6.2: target tie rate of the metric-wise human field of that name",
    "calibration_pool": (
        "METHODS §6.2: thresholds per slot averaged / near+deep together / 0.01 when "
        "expert-agreed / fitted on all systems"
    ),
    "iaa_per_question": (
        "METHODS §6.3: IAA one decision per question and slot; half credit without "
        "opposite decisions"
    ),
    "ranking_ignores_subset": "METHODS §6.4: a subset of systems does not restrict the ranking",
    "exact_win_rates": "METHODS §6.5: system win rates from exact judge overall comparisons",
    "degenerate_tau_zero": "script: tau-b with a zero denominator reported as 0.0",
}


@dataclass(frozen=True)
class Mode:
    """Which quirks are on (``True`` = the script's behaviour, ``False`` = METHODS §5).

    ``grid`` is the threshold grid used when ``threshold_grid`` is on.
    """

    slot_average: bool = True
    threshold_grid: bool = True
    tie_target: bool = True
    calibration_pool: bool = True
    iaa_per_question: bool = True
    ranking_ignores_subset: bool = True
    exact_win_rates: bool = True
    degenerate_tau_zero: bool = True
    grid: tuple[float, ...] = tuple(THRESHOLD_GRID.tolist())

    def without(self, quirk: str) -> Mode:
        if quirk not in QUIRKS:
            raise ValueError(f"unknown quirk {quirk!r}; expected one of {sorted(QUIRKS)}")
        return replace(self, **{quirk: False})


COMPAT = Mode()
DEFAULT = Mode(**{quirk: False for quirk in QUIRKS})


@dataclass(frozen=True)
class CompatRow:
    """One row of a table: human ``signal`` vs judge ``metric``.

    ``n`` is the number of judgments (the mean over slots when slot-averaged, as the
    script prints it); ``threshold`` the judge tie threshold applied.
    """

    signal: str
    metric: str
    agreement: float
    tau_b: float
    n: float
    threshold: float


@dataclass(frozen=True)
class CompatTable:
    """Seed 003 Table 3 / Table 4 shaped result: one row per judge metric."""

    setting: str
    subset: str
    rows: tuple[CompatRow, ...]

    def row(self, metric: str) -> CompatRow:
        for row in self.rows:
            if row.metric == metric:
                return row
        raise KeyError(metric)


@dataclass(frozen=True)
class SystemTau:
    """System-level τ-b (seed 003 Table 2) with the win rates behind it.

    ``per_slot`` holds one τ per annotator slot (a single value when pooled);
    ``human_rates``/``judge_rates`` map system name -> win rate, averaged over slots.
    """

    tau_b: float
    per_slot: tuple[float, ...]
    human_rates: dict[str, float]
    judge_rates: dict[str, float]


@dataclass(frozen=True)
class CompatIAA:
    """Inter-annotator agreement on preference decisions (seed 003 Table 2, fn. 7).

    ``n`` counts what was compared (questions in compat mode, annotator pairs otherwise);
    ``n_half_credit`` the denominator of ``half_credit``.
    """

    strict: float
    half_credit: float
    n: int
    n_half_credit: int


@dataclass(frozen=True)
class Difference:
    """A figure a quirk changed: compat value, value with only that quirk off, default.

    ``default`` is the METHODS §5 value (every quirk off).
    """

    quirk: str
    reason: str
    figure: str
    compat: float
    without_quirk: float
    default: float


# --------------------------------------------------------------------------- selection


def _code(labels: Sequence[str], name: str, what: str) -> int:
    try:
        return list(labels).index(name)
    except ValueError:
        raise ValueError(f"{what} {name!r} is not in the frame ({list(labels)})") from None


def _rows_of(frame: PairFrame, settings: Iterable[str]) -> np.ndarray:
    codes = [_code(frame.settings, s, "setting") for s in settings if s in frame.settings]
    return np.isin(frame.setting, codes)


def _system_mask(
    frame: PairFrame, exclude_systems: Sequence[str] = (), only_systems: Sequence[str] = ()
) -> np.ndarray:
    """Rows whose two systems pass the filters (names must exist in the frame)."""
    keep = np.ones(len(frame), dtype=bool)
    for name in exclude_systems:
        code = _code(frame.systems, name, "system")
        keep &= (frame.system_a != code) & (frame.system_b != code)
    if only_systems:
        codes = [_code(frame.systems, name, "system") for name in only_systems]
        keep &= np.isin(frame.system_a, codes) & np.isin(frame.system_b, codes)
    return keep


def _signal(frame: PairFrame, signal: str) -> np.ndarray:
    """The human values compared: the medal scores, or the field ``human_<metric>``.

    Like the script, a metric's field is read whatever it holds: in the ``assigned``
    files ``human_citation_*`` are rank-like values, which the importer keeps as
    ``rank_<metric>`` and the script's metric-wise table compares all the same.
    """
    if signal == PREFERENCE:
        return frame.preference
    if signal not in frame.human and f"rank_{signal}" not in frame.human:
        raise ValueError(f"unknown human signal {signal!r}")
    return _tie_field(frame, signal)


def _tie_field(frame: PairFrame, metric: str) -> np.ndarray:
    """The human field the script takes its tie target from (METHODS §6.2).

    In the ``assigned`` files ``human_citation_*`` hold rank-like values; the importer
    keeps them as ``rank_<metric>`` so they never pass for metric-wise scores, but the
    script's tie target reads them all the same. A metric-wise score wins where present.
    """
    values = frame.human.get(metric)
    rank = frame.human.get(f"rank_{metric}")
    if values is None:
        return rank if rank is not None else np.full((len(frame), 2), np.nan)
    if rank is None:
        return values
    return np.where(np.isnan(values), rank, values)


def _present(values: np.ndarray) -> np.ndarray:
    return ~np.isnan(values).any(axis=1)


def _decide(values: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    return score_decisions(values[:, 0], values[:, 1], threshold)


def _comparison_keys(frame: PairFrame) -> np.ndarray:
    """One key per row naming its comparison (setting, split, question, A, B)."""
    return np.stack(
        [frame.setting, frame.split, frame.question, frame.system_a, frame.system_b], axis=1
    )


def _slots(frame: PairFrame, setting: str, mode: Mode) -> list[np.ndarray]:
    """Row masks of the annotator slots (one pooled mask unless slot-averaging)."""
    rows = _rows_of(frame, [setting])
    if not rows.any():
        raise ValueError(f"no judgments in setting {setting!r}")
    if setting in SLOT_SETTINGS and mode.slot_average:
        return [rows & (frame.annotator == a) for a in np.unique(frame.annotator[rows])]
    return [rows]


def expert_agreed(frame: PairFrame, setting: str = "assigned") -> PairFrame:
    """The expert-agreed subset, derived: comparisons where every slot gives one decision.

    METHODS §5 "Expert-agreed subset": comparisons where every judgment of the preference
    agrees, counted once. Like the authors' ``*_agreement_only`` files, each kept row
    carries the judge scores of the first slot's row and the mean over slots of the human
    values (preference and metric-wise), in the first slot's row order; its annotator is
    ``AGREED_ANNOTATOR``.
    """
    rows = np.flatnonzero(_rows_of(frame, [setting]))
    keys = _comparison_keys(frame)[rows]
    decisions = _decide(frame.preference[rows])
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, key in zip(rows, map(tuple, keys), strict=True):
        groups.setdefault(key, []).append(int(i))
    kept: list[list[int]] = []
    position = {int(r): k for k, r in enumerate(rows)}
    for members in groups.values():
        first = decisions[position[members[0]]]
        if len(members) >= 2 and all(decisions[position[m]] == first for m in members):
            kept.append(members)
    kept.sort(key=lambda members: members[0])
    first_rows = np.array([members[0] for members in kept], dtype=np.int64)
    out = frame.take(first_rows)

    def mean_over(values: np.ndarray) -> np.ndarray:
        stacked = np.stack([values[members].mean(axis=0) for members in kept]) if kept else None
        return stacked if stacked is not None else values[first_rows]

    annotators = list(frame.annotators)
    if AGREED_ANNOTATOR not in annotators:
        annotators.append(AGREED_ANNOTATOR)
    return PairFrame(
        question=out.question,
        system_a=out.system_a,
        system_b=out.system_b,
        annotator=np.full(len(first_rows), annotators.index(AGREED_ANNOTATOR), dtype=np.int64),
        setting=out.setting,
        split=out.split,
        preference=mean_over(frame.preference),
        human={metric: mean_over(values) for metric, values in frame.human.items()},
        judge=out.judge,
        questions=frame.questions,
        systems=frame.systems,
        annotators=annotators,
        settings=frame.settings,
        splits=frame.splits,
    )


# --------------------------------------------------------------------------- thresholds


def _calibrate(frame: PairFrame, rows: np.ndarray, signal: str, metric: str, mode: Mode) -> float:
    """One threshold fitted on ``rows``: tie target and candidates per ``mode``."""
    judge = frame.judge[metric]
    if mode.tie_target:
        # The script: target from the metric-wise field of the same name over the records
        # having it (0 when none has it); judge ties over every record with the score.
        human = _tie_field(frame, metric)
        has_human = rows & _present(human)
        target = float(np.mean(_decide(human[has_human]) == 0)) if has_human.any() else 0.0
        fit = rows & _present(judge)
    else:
        values = _signal(frame, signal)
        fit = rows & _present(values) & _present(judge)
        target = float(np.mean(_decide(values[fit]) == 0)) if fit.any() else math.nan
    diffs = np.abs(judge[fit, 0] - judge[fit, 1])
    if mode.threshold_grid:
        if diffs.size == 0:  # the script: every distance is |0 - 0|, so the first wins
            return float(mode.grid[0])
        return calibrate_match_rate(diffs, target, np.asarray(mode.grid), tol=0.0).threshold
    if diffs.size == 0 or math.isnan(target):
        return math.nan
    return calibrate_match_rate(diffs, target).threshold


def _threshold(
    frame: PairFrame,
    setting: str,
    subset: str,
    signal: str,
    metric: str,
    mode: Mode,
    analysed: np.ndarray,
) -> float:
    """The threshold applied to ``analysed`` rows (of one slot, or pooled)."""
    if not mode.calibration_pool:
        return _calibrate(frame, analysed, signal, metric, mode)
    if subset == EXPERT_AGREED:
        return float(mode.grid[0]) if mode.threshold_grid else float(THRESHOLD_GRID[0])
    if setting in POOLED_CALIBRATION:
        return _calibrate(frame, _rows_of(frame, POOLED_CALIBRATION), signal, metric, mode)
    rows = _rows_of(frame, [setting])
    if setting in SLOT_SETTINGS:
        slots = [rows & (frame.annotator == a) for a in np.unique(frame.annotator[rows])]
        return sum(_calibrate(frame, s, signal, metric, mode) for s in slots) / len(slots)
    return _calibrate(frame, rows, signal, metric, mode)


def compat_thresholds(
    frame: PairFrame,
    setting: str = "assigned",
    *,
    subset: str = ALL,
    signal: str = PREFERENCE,
    mode: Mode = COMPAT,
) -> dict[str, float]:
    """Judge tie threshold per metric, as the script fits them (METHODS §6.2).

    With the quirks on, ``signal`` does not matter (the target comes from the metric-wise
    human field), and the thresholds are those of every table of the setting.
    """
    data, setting = _prepare(frame, setting, subset)
    rows = _rows_of(data, [setting])
    return {m: _threshold(data, setting, subset, signal, m, mode, rows) for m in METRICS}


# --------------------------------------------------------------------------- figures


def _prepare(frame: PairFrame, setting: str, subset: str) -> tuple[PairFrame, str]:
    if subset not in SUBSETS:
        raise ValueError(f"unknown subset {subset!r}; expected one of {SUBSETS}")
    if subset == EXPERT_AGREED:
        if setting not in SLOT_SETTINGS:
            raise ValueError(f"the expert-agreed subset needs two annotators ({SLOT_SETTINGS})")
        if is_released_agreed(frame, setting):  # the authors' own records: the subset itself
            return frame, setting
        return expert_agreed(frame, setting), setting
    return frame, setting


def is_released_agreed(frame: PairFrame, setting: str) -> bool:
    """Every row of ``setting`` is an expert-agreed record (annotator ``AGREED_ANNOTATOR``).

    Such a frame holds the released ``*_agreement_only`` records, which the script reads
    for ``--human_agreed`` instead of deriving them (their judge scores differ: null
    citation scores where the ann1/ann2 files have 0.0).
    """
    rows = _rows_of(frame, [setting])
    if not rows.any() or AGREED_ANNOTATOR not in frame.annotators:
        return False
    return bool((frame.annotator[rows] == frame.annotators.index(AGREED_ANNOTATOR)).all())


def _check_choices(ties: str, threshold: float | None) -> None:
    """Refuse what the script cannot do (never ignore it silently)."""
    if ties not in TIE_STRATEGIES:
        raise ValueError(f"ties: {ties!r} is not one of {', '.join(TIE_STRATEGIES)}")
    if threshold is not None:
        if not math.isfinite(threshold) or threshold < 0:
            raise ValueError(f"threshold: {threshold!r} must be a finite number >= 0")
        if ties == "partial" and threshold != 0:
            raise ValueError(
                "threshold: ties=partial compares judge scores exactly (the script drops "
                f"its thresholds), so a threshold of {threshold} cannot apply; use 0 or none"
            )


def _tau(human: np.ndarray, judge: np.ndarray, mode: Mode) -> float:
    tau = tau_b_decisions(human, judge)
    return 0.0 if math.isnan(tau) and mode.degenerate_tau_zero else tau


def _row(
    frame: PairFrame,
    setting: str,
    subset: str,
    signal: str,
    metric: str,
    keep: np.ndarray,
    mode: Mode,
    ties: str = "threshold",
    threshold: float | None = None,
) -> CompatRow:
    values, judge = _signal(frame, signal), frame.judge[metric]
    slots = _slots(frame, setting, mode)
    results = []
    for slot in slots:
        analysed = slot & keep & _present(values) & _present(judge)
        if ties == "exclude":  # the script skips a judgment the human ties, nothing else
            human_all = np.zeros(len(frame), dtype=np.int8)
            human_all[analysed] = _decide(values[analysed])
            analysed &= human_all != 0
        if ties == "partial":  # the script sets its threshold to None: exact comparison
            t = 0.0
        elif threshold is not None:
            t = float(threshold)
        else:
            t = _threshold(frame, setting, subset, signal, metric, mode, analysed)
        n = int(analysed.sum())
        if n == 0:  # the script reports 0 for an empty table; METHODS §5 has no value
            empty = 0.0 if mode.degenerate_tau_zero else math.nan
            results.append((empty, empty, 0, t))
            continue
        human = _decide(values[analysed])
        decided = _decide(judge[analysed], t)
        rate = agreement(human, decided, "partial" if ties == "partial" else "threshold").value
        results.append((rate, _tau(human, decided, mode), n, t))
    rate, tau, n, t = (sum(r[k] for r in results) / len(results) for k in range(4))
    return CompatRow(signal, metric, rate, tau, n, t)


def _table(
    frame: PairFrame,
    setting: str,
    signal_of: dict[str, str],
    subset: str,
    exclude_systems: Sequence[str],
    only_systems: Sequence[str],
    mode: Mode,
    ties: str = "threshold",
    threshold: float | None = None,
) -> CompatTable:
    _check_choices(ties, threshold)
    data, setting = _prepare(frame, setting, subset)
    keep = _system_mask(data, exclude_systems, only_systems)
    rows = tuple(
        _row(data, setting, subset, signal_of[m], m, keep, mode, ties, threshold)
        for m in METRICS
        if signal_of[m] == PREFERENCE
        or _present(_tie_field(data, m))[_rows_of(data, [setting])].any()
    )
    return CompatTable(setting, subset, rows)


def compat_preference_table(
    frame: PairFrame,
    setting: str = "assigned",
    *,
    subset: str = ALL,
    exclude_systems: Sequence[str] = (),
    only_systems: Sequence[str] = (),
    mode: Mode = COMPAT,
    ties: str = "threshold",
    threshold: float | None = None,
) -> CompatTable:
    """Human preference vs each judge metric (seed 003 Table 3, Table 4 top, Tables 6-7).

    ``exclude_systems`` drops every pair with one of those systems (the script's
    ``--drop_elicit``); ``only_systems`` keeps the pairs of those systems only
    (``--subselect_models``). Thresholds are fitted on all systems either way (§6.2).
    ``ties`` is the script's ``--tie_strategy``; ``threshold`` a fixed judge threshold for
    every metric instead of the fitted ones (0 is the script's ``--dont_use_thresholds``).
    """
    signal_of = dict.fromkeys(METRICS, PREFERENCE)
    return _table(
        frame, setting, signal_of, subset, exclude_systems, only_systems, mode, ties, threshold
    )


def compat_metric_wise_table(
    frame: PairFrame,
    setting: str,
    *,
    subset: str = ALL,
    exclude_systems: Sequence[str] = (),
    only_systems: Sequence[str] = (),
    mode: Mode = COMPAT,
    ties: str = "threshold",
    threshold: float | None = None,
) -> CompatTable:
    """Metric-wise human score vs the judge metric of the same name (Table 4 bottom).

    Metrics without any metric-wise human score in the setting are left out (the
    ``assigned`` files have none for overall, answer relevance, answer recall).
    ``ties`` and ``threshold`` as in :func:`compat_preference_table`.
    """
    signal_of = {m: m for m in METRICS}
    return _table(
        frame, setting, signal_of, subset, exclude_systems, only_systems, mode, ties, threshold
    )


def compat_system_tau(
    frame: PairFrame,
    setting: str = "assigned",
    *,
    subset: str = ALL,
    exclude_systems: Sequence[str] = (),
    only_systems: Sequence[str] = (),
    mode: Mode = COMPAT,
) -> SystemTau:
    """System-level τ-b between preference and judge-overall win rates (Table 2).

    Compat: per slot (§6.1), judge wins from exact comparisons of ``overall`` (§6.5),
    ``only_systems`` ignored by the ranking (§6.4), ``exclude_systems`` honoured.
    """
    data, setting = _prepare(frame, setting, subset)
    keep = _system_mask(data, exclude_systems, () if mode.ranking_ignores_subset else only_systems)
    judge = data.judge["overall"]
    n_systems = len(data.systems)
    taus, human_rates, judge_rates = [], [], []
    for slot in _slots(data, setting, mode):
        analysed = slot & keep & _present(data.preference) & _present(judge)
        if mode.exact_win_rates:
            t = 0.0
        else:
            t = _threshold(data, setting, subset, PREFERENCE, "overall", mode, analysed)
        h = win_rates(
            data.system_a[analysed], data.system_b[analysed],
            _decide(data.preference[analysed]), n_systems,
        )  # fmt: skip
        j = win_rates(
            data.system_a[analysed], data.system_b[analysed],
            _decide(judge[analysed], t), n_systems,
        )  # fmt: skip
        taus.append(system_tau_b(h, j).statistic)
        human_rates.append(h)
        judge_rates.append(j)

    def named(rates: list[np.ndarray]) -> dict[str, float]:
        mean = np.mean(rates, axis=0)
        return {s: float(r) for s, r in zip(data.systems, mean, strict=True) if not np.isnan(r)}

    return SystemTau(
        float(np.mean(taus)), tuple(float(t) for t in taus), named(human_rates), named(judge_rates)
    )


def _iaa_per_question(frame: PairFrame, slots: list[np.ndarray], keep: np.ndarray) -> CompatIAA:
    """The script's IAA: the last decision read per question and slot, two slots."""
    if len(slots) != 2:
        raise ValueError(f"IAA per question needs exactly two annotator slots, got {len(slots)}")
    decisions = _decide(frame.preference)
    choice: dict[int, list[int | None]] = {}
    for k, slot in enumerate(slots):
        for i in np.flatnonzero(slot & keep):  # file order: the last pair read wins
            choice.setdefault(int(frame.question[i]), [None, None])[k] = int(decisions[i])
    strict, half = [], []
    for first, second in choice.values():
        strict.append(1.0 if first == second else 0.0)
        if first == second:
            half.append(1.0)
        elif first == 0 or second == 0:  # opposite decisions are left out
            half.append(0.5)
    return CompatIAA(
        float(np.mean(strict)) if strict else math.nan,
        float(np.mean(half)) if half else math.nan,
        len(strict),
        len(half),
    )


def _iaa_all_pairs(frame: PairFrame, rows: np.ndarray) -> CompatIAA:
    """METHODS §5 IAA: every pair of judgments of every comparison judged at least twice."""
    idx = np.flatnonzero(rows)
    labels, _, _ = label_matrix(
        map(tuple, _comparison_keys(frame)[idx].tolist()),
        frame.annotator[idx].tolist(),
        _decide(frame.preference[idx]),
    )
    result = pairwise_agreement(labels)
    return CompatIAA(result.strict, result.half_credit, result.n_pairs, result.n_pairs)


def compat_iaa(
    frame: PairFrame,
    setting: str = "assigned",
    *,
    exclude_systems: Sequence[str] = (),
    only_systems: Sequence[str] = (),
    mode: Mode = COMPAT,
) -> CompatIAA:
    """Preference IAA (seed 003 Table 2 header, footnote 7, Tables 6-7).

    Compat (§6.3): one decision per question and slot, the last pair read, so 200
    questions rather than 600 pairs; half credit leaves opposite decisions out.
    """
    keep = _system_mask(frame, exclude_systems, only_systems)
    rows = _rows_of(frame, [setting])
    if mode.iaa_per_question:
        slots = [rows & (frame.annotator == a) for a in np.unique(frame.annotator[rows])]
        return _iaa_per_question(frame, slots, keep)
    return _iaa_all_pairs(frame, rows & keep)


# --------------------------------------------------------------------------- differences


def two_slots(frame: PairFrame, setting: str) -> bool:
    """The setting has exactly two annotator slots, which the script's IAA needs (§6.3)."""
    rows = _rows_of(frame, [setting])
    return setting in SLOT_SETTINGS and np.unique(frame.annotator[rows]).size == 2


def _figures(
    frame: PairFrame,
    setting: str,
    subset: str,
    exclude_systems: Sequence[str],
    only_systems: Sequence[str],
    mode: Mode,
    ties: str = "threshold",
    threshold: float | None = None,
) -> dict[str, float]:
    """Every figure the compat mode publishes for one analysis, by name."""
    out: dict[str, float] = {}
    args = dict(subset=subset, exclude_systems=exclude_systems, only_systems=only_systems)
    choices = dict(ties=ties, threshold=threshold)
    tables = [compat_preference_table(frame, setting, mode=mode, **args, **choices)]
    tables.append(compat_metric_wise_table(frame, setting, mode=mode, **args, **choices))
    for table in tables:
        for row in table.rows:
            name = f"{row.signal} vs judge {row.metric}"
            out[f"agreement: {name}"] = row.agreement
            out[f"tau_b: {name}"] = row.tau_b
    out["system tau_b"] = compat_system_tau(frame, setting, mode=mode, **args).tau_b
    if subset == ALL and two_slots(frame, setting):
        iaa = compat_iaa(
            frame, setting, exclude_systems=exclude_systems, only_systems=only_systems, mode=mode
        )
        out["IAA strict"] = iaa.strict
        out["IAA half credit"] = iaa.half_credit
    return out


def _same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-12


def differences(
    frame: PairFrame,
    setting: str = "assigned",
    *,
    subset: str = ALL,
    exclude_systems: Sequence[str] = (),
    only_systems: Sequence[str] = (),
    mode: Mode = COMPAT,
    ties: str = "threshold",
    threshold: float | None = None,
) -> list[Difference]:
    """For each quirk that changes a figure: the compat figure beside the default one.

    A quirk "changes" a figure when switching that quirk alone off (the others on) gives
    a different value; ``default`` is the figure with every quirk off (METHODS §5). The
    list is what a report shows in its ``notes`` (METHODS §6: "a report should list").
    """
    args = (frame, setting, subset, exclude_systems, only_systems)
    compat = _figures(*args, mode, ties, threshold)
    default = _figures(*args, DEFAULT, ties, threshold)
    out = []
    for quirk, reason in QUIRKS.items():
        if not getattr(mode, quirk):
            continue
        without = _figures(*args, mode.without(quirk), ties, threshold)
        for name, value in compat.items():
            if not _same(value, without[name]):
                out.append(Difference(quirk, reason, name, value, without[name], default[name]))
    return out


# --------------------------------------------------------------------------- the paper


@dataclass(frozen=True)
class PaperFigure:
    """A figure seed 003 prints differently from the released script (issue 13).

    Compat mode copies the script (METHODS §6.2 stands), so for these the report says
    both values. ``table``/``metric``/``figure`` locate the value in the report dict;
    ``setting`` and ``systems`` the selection the paper's table shows.
    """

    where: str
    table: str
    metric: str | None
    figure: str
    setting: str
    systems: tuple[str, ...]
    paper: float
    why: str


_EXACT_015 = (
    "the paper's figure needs the last threshold candidate to be exactly 0.15; the script's "
    "numpy.arange(0.01, 0.16, 0.01) gives 0.15000000000000002, which ties the deciding pair "
    "(answer recall 0.825 vs 0.975)"
)
PAPER_DIFFERS: tuple[PaperFigure, ...] = (
    PaperFigure("Table 4 deep-expert, preference vs judge answer recall, tau-b",
                "preference", "answer_recall", "tau_b", "deep_expert", (), 0.09, _EXACT_015),
    PaperFigure("Table 4 deep-expert, metric-wise answer recall, agreement",
                "metric_wise", "answer_recall", "agreement", "deep_expert", (), 0.600,
                _EXACT_015),
    PaperFigure("Table 7 two distinct systems (sqa, perplexity), IAA",
                "iaa", None, "strict", "assigned", ("perplexity", "sqa"), 0.731,
                "no option of the script gives the paper's figure"),
)  # fmt: skip


def paper_notes(
    setting: str,
    *,
    preference: dict,
    metric_wise: dict,
    iaa: dict,
    subset: str = ALL,
    exclude_systems: Sequence[str] = (),
    only_systems: Sequence[str] = (),
    ties: str = "threshold",
    threshold: float | None = None,
) -> list[str]:
    """Notes for the figures of this selection that the paper prints differently.

    Only on the selection of the paper's table (all judgments, the threshold strategy,
    fitted thresholds), where the script's figure and the paper's should be the same.
    """
    if subset != ALL or exclude_systems or ties != "threshold" or threshold is not None:
        return []
    tables = {"preference": preference, "metric_wise": metric_wise}
    out = []
    for p in PAPER_DIFFERS:
        if p.setting != setting or tuple(sorted(only_systems)) != p.systems:
            continue
        value = iaa.get(p.figure) if p.table == "iaa" else (
            tables[p.table].get(p.metric) or {}).get(p.figure)  # fmt: skip
        if value is None:
            continue
        if p.figure == "tau_b":
            shown = f"the paper prints {p.paper:.2f}, the script (and this report) {value:.3f}"
        else:
            shown = (
                f"the paper prints {100 * p.paper:.1f} %, the script (and this report) "
                f"{100 * value:.1f} %"
            )
        out.append(f"Seed 003 {p.where}: {shown}; {p.why}.")
    return out
