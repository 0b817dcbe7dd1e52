"""The one report path: select -> decide -> calibrate -> tables -> system -> IAA.

Every agreement figure Concord reports, in the default mode (METHODS §5) and in the
ScholarQA-CS2 compatibility mode (METHODS §6), is computed here, once. What differs
between the modes is a :class:`Policy`: a small set of switches each step reads. The
default report runs ``Policy()``, every switch off; :meth:`metaeval.compat.Mode.policy`
turns the script's named quirks on. So an option (ties, fixed threshold, system subsets,
expert-agreed subset) goes through the same code in both modes, and a quirk changes one
step, never a second copy of the path.

The steps (pure functions over a :class:`~metaeval.frame.PairFrame`, no Django):

:func:`select`
    The rows analysed: one setting (the script's ``--source``) or every row; the
    expert-agreed subset (METHODS §5); the system filters as row masks; the annotator
    slots (one pooled slot unless ``slot_average``, §6.1).
:func:`threshold` (decide + calibrate)
    The judge tie threshold of one signal: 0 for ``partial`` (exact comparison), the fixed
    ``threshold`` when given, else fitted: cross-fitted on a calibration frame, on the
    script's pools (``calibration_pool``, §6.2), or on the judgments analysed (§5); with the
    script's grid and tie target (``grid``, ``tie_target``, §6.2) or exactly.
:func:`table_row`
    Agreement and Kendall τ-b of human vs judge decisions per slot, averaged over slots.
:func:`system_figures`
    Win rates per system and their τ-b (judge decisions at the overall threshold, or exact
    with ``exact_win_rates``, §6.5; the subset kept or not, §6.4).
:func:`iaa_all_pairs` / :func:`iaa_per_question`
    Inter-annotator agreement over all pairs (§5) or the script's per question (§6.3).

``Policy.script_records`` is not a quirk of a figure but how the records are read: as the
script reads its JSON files (one setting with near/deep side by side for calibration, the
``human_<metric>`` field whatever it holds, expert-agreed records carrying the mean human
values, a table row for every metric the setting has a human field for, and IAA only
where the script computes one). It is on in every compat mode, off in the default mode.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .frame import METRICS, PairFrame
from .stats import iaa as iaa_stats
from .stats.agreement import credit as half_credit
from .stats.calibration import MATCH_RATE, MAX_ACCURACY, calibrate, calibrate_match_rate
from .stats.decisions import score_decisions, tie_rate
from .stats.kendall import pair_counts, tau_b_from_counts
from .stats.system import system_tau_b, win_rates

PREFERENCE = "preference"
METRIC_WISE = "metric_wise"
TABLES = (PREFERENCE, METRIC_WISE)
TIE_STRATEGIES: tuple[str, ...] = ("threshold", "partial", "exclude")
#: The script's threshold grid, ``numpy.arange(0.01, 0.16, 0.01)`` (METHODS §6.2).
SCRIPT_GRID: tuple[float, ...] = tuple(np.arange(0.01, 0.16, 0.01).tolist())
#: Settings whose figures the script computes per annotator slot (METHODS §6.1).
SLOT_SETTINGS: tuple[str, ...] = ("assigned",)
#: Settings the script calibrates together, whichever of them is analysed (METHODS §6.2).
POOLED_CALIBRATION: tuple[str, ...] = ("near_expert", "deep_expert")
#: Annotator label of expert-agreed records (one row per agreed comparison).
AGREED_ANNOTATOR = "expert_agreed"


@dataclass(frozen=True)
class Policy:
    """The switches of the report path; every one off is METHODS §5 (the default report).

    One field per step that can follow the script instead (:class:`metaeval.compat.Mode`
    names and documents each): ``slot_average`` (tables, system), ``grid`` (calibrate on
    this grid with raw float ties; ``None`` = exact candidates), ``tie_target`` and
    ``calibration_pool`` (calibrate), ``iaa_per_question`` (IAA),
    ``ranking_ignores_subset`` (select, system), ``exact_win_rates`` (system),
    ``degenerate_tau_zero`` (tables), ``script_records`` (select: see the module doc).
    """

    slot_average: bool = False
    grid: tuple[float, ...] | None = None
    tie_target: bool = False
    calibration_pool: bool = False
    iaa_per_question: bool = False
    ranking_ignores_subset: bool = False
    exact_win_rates: bool = False
    degenerate_tau_zero: bool = False
    script_records: bool = False


@dataclass(frozen=True)
class Choices:
    """What the user asked for, as the pipeline reads it (a report's options).

    ``setting``: the one setting analysed (``None``: every row of the frame, already
    restricted by the loader). ``calibration``: a :mod:`metaeval.stats.calibration` method.
    """

    setting: str | None = None
    expert_agreed: bool = False
    exclude_systems: tuple[str, ...] = ()
    only_systems: tuple[str, ...] = ()
    ties: str = "threshold"
    threshold: float | None = None
    calibration: str = MATCH_RATE

    def check(self) -> None:
        """Refuse what cannot apply (never ignore it silently)."""
        if self.ties not in TIE_STRATEGIES:
            raise ValueError(f"ties: {self.ties!r} is not one of {', '.join(TIE_STRATEGIES)}")
        t = self.threshold
        if t is None:
            return
        if not math.isfinite(t) or t < 0:
            raise ValueError(f"threshold: {t!r} must be a finite number >= 0")
        if self.ties == "partial" and t != 0:
            raise ValueError(
                "threshold: ties=partial compares judge scores exactly (the script drops "
                f"its thresholds), so a threshold of {t} cannot apply; use 0 or none"
            )


# --------------------------------------------------------------------------- helpers


def present(values: np.ndarray) -> np.ndarray:
    """Rows where both sides of a (n, 2) score column are known."""
    return ~np.isnan(values).any(axis=1)


def decide(values: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    """Decisions from (n, 2) scores: 0 when ``|s_A - s_B| <= threshold`` (METHODS §5)."""
    return score_decisions(values[:, 0], values[:, 1], threshold)


def rows_of(frame: PairFrame, settings: Sequence[str]) -> np.ndarray:
    codes = [frame.settings.index(s) for s in settings if s in frame.settings]
    return np.isin(frame.setting, codes)


def _code(labels: Sequence[str], name: str, what: str) -> int:
    try:
        return list(labels).index(name)
    except ValueError:
        raise ValueError(f"{what} {name!r} is not in the frame ({list(labels)})") from None


def system_mask(
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


def tie_field(frame: PairFrame, metric: str) -> np.ndarray:
    """The ``human_<metric>`` field as the script reads it (METHODS §6.2).

    In the ``assigned`` files ``human_citation_*`` hold rank-like values; the importer
    keeps them as ``rank_<metric>`` so they never pass for metric-wise scores, but the
    script reads them all the same. A metric-wise score wins where present.
    """
    values = frame.human.get(metric)
    rank = frame.human.get(f"rank_{metric}")
    if values is None:
        return rank if rank is not None else np.full((len(frame), 2), np.nan)
    if rank is None:
        return values
    return np.where(np.isnan(values), rank, values)


def signal_values(frame: PairFrame, table: str, metric: str, policy: Policy):
    """The human values a table compares with judge ``metric`` (None: no such signal)."""
    if table == PREFERENCE:
        return frame.preference
    if policy.script_records:
        return tie_field(frame, metric)
    return frame.human.get(metric)


def comparison_codes(frame: PairFrame) -> np.ndarray:
    """One integer per comparison (setting, question, system A, system B), 0..k-1."""
    n_sys = max(len(frame.systems), 1)
    n_q = max(len(frame.questions), int(frame.question.max(initial=0)) + 1)
    key = (frame.setting.astype(np.int64) * n_q + frame.question) * n_sys + frame.system_a
    key = key * n_sys + frame.system_b
    _, codes = np.unique(key, return_inverse=True)
    return codes.ravel()


def decision_matrix(frame: PairFrame, human: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(comparison code per row, comparisons x annotators decisions, number of annotators)."""
    codes = comparison_codes(frame)
    labels, _, annotators = iaa_stats.label_matrix(codes, frame.annotator, human)
    return codes, labels, len(annotators)


# --------------------------------------------------------------------------- select


def agreed_rows(frame: PairFrame, human: np.ndarray) -> np.ndarray:
    """Indices of the first row of each comparison whose >= 2 judgments all agree (§5)."""
    if len(frame) == 0:
        return np.zeros(0, dtype=np.int64)
    codes, labels, _ = decision_matrix(frame, human)
    agreed = iaa_stats.agreed_items(labels)
    _, first = np.unique(codes, return_index=True)
    return np.sort(first[agreed[codes[first]]])


def agreed_records(frame: PairFrame, setting: str) -> PairFrame:
    """The expert-agreed subset of ``setting`` as the authors' ``*_agreement_only`` files.

    Comparisons where every judgment of the preference agrees, counted once (METHODS §5);
    each kept row carries the judge scores of its first row and the mean over the
    judgments of the human values, in the first rows' order; annotator
    ``AGREED_ANNOTATOR``.
    """
    rows = np.flatnonzero(rows_of(frame, [setting]))
    local = frame.take(rows)
    first = agreed_rows(local, decide(local.preference))
    codes = comparison_codes(local)
    members = [np.flatnonzero(codes == codes[i]) for i in first]
    out = local.take(first)

    def mean_over(values: np.ndarray) -> np.ndarray:
        return np.stack([values[m].mean(axis=0) for m in members]) if members else values[first]

    annotators = list(frame.annotators)
    if AGREED_ANNOTATOR not in annotators:
        annotators.append(AGREED_ANNOTATOR)
    out.annotator = np.full(len(first), annotators.index(AGREED_ANNOTATOR), dtype=np.int64)
    out.annotators = annotators
    out.preference = mean_over(local.preference)
    out.human = {metric: mean_over(values) for metric, values in local.human.items()}
    out.judge_name = None
    return out


def is_released_agreed(frame: PairFrame, setting: str) -> bool:
    """Every row of ``setting`` is an expert-agreed record (annotator ``AGREED_ANNOTATOR``).

    Such a frame holds the released ``*_agreement_only`` records, which the script reads
    for ``--human_agreed`` instead of deriving them.
    """
    rows = rows_of(frame, [setting])
    if not rows.any() or AGREED_ANNOTATOR not in frame.annotators:
        return False
    return bool((frame.annotator[rows] == frame.annotators.index(AGREED_ANNOTATOR)).all())


@dataclass
class Selected:
    """The rows one report analyses (output of :func:`select`).

    ``frame``: the judgments analysed (the expert-agreed subset when asked); ``base``: its
    rows of the analysed setting; ``keep``/``rank_keep``: rows whose systems the tables /
    the system ranking keep; ``slots``: the annotator slots, each a row mask.
    """

    frame: PairFrame
    setting: str | None
    agreed: bool
    base: np.ndarray
    keep: np.ndarray
    rank_keep: np.ndarray
    slots: list[np.ndarray]


def slot_masks(frame: PairFrame, base: np.ndarray) -> list[np.ndarray]:
    """One row mask per annotator of ``base`` rows."""
    return [base & (frame.annotator == a) for a in np.unique(frame.annotator[base])]


def select(frame: PairFrame, choices: Choices, policy: Policy) -> Selected:
    """Step 1: the rows analysed, their system masks and annotator slots."""
    setting, data = choices.setting, frame
    if choices.expert_agreed:
        if policy.script_records:
            if setting not in SLOT_SETTINGS:
                raise ValueError(f"the expert-agreed subset needs two annotators ({SLOT_SETTINGS})")
            if not is_released_agreed(frame, setting):  # released records: the subset itself
                data = agreed_records(frame, setting)
        else:
            data = frame.take(agreed_rows(frame, decide(frame.preference)))
    base = rows_of(data, [setting]) if setting is not None else np.ones(len(data), dtype=bool)
    if setting is not None and not rows_of(frame, [setting]).any():
        # an empty expert-agreed subset is no refusal: its figures are undefined, which
        # the report says (metaeval.reports.build_report)
        raise ValueError(f"no judgments in setting {setting!r}")
    keep = system_mask(data, choices.exclude_systems, choices.only_systems)
    rank_only = () if policy.ranking_ignores_subset else choices.only_systems
    rank_keep = system_mask(data, choices.exclude_systems, rank_only)
    slotted = policy.slot_average and setting in SLOT_SETTINGS
    slots = (slot_masks(data, base) if slotted else []) or [base]  # empty: one empty slot
    return Selected(data, setting, choices.expert_agreed, base, keep, rank_keep, slots)


# --------------------------------------------------------------------------- calibrate


def fit_threshold(
    frame: PairFrame,
    rows: np.ndarray,
    values: np.ndarray,
    metric: str,
    policy: Policy,
    method: str = MATCH_RATE,
) -> float:
    """One threshold fitted on ``rows`` for judge ``metric`` vs human ``values``.

    METHODS §5: target the tie rate of the signal compared, candidates ``{0} ∪ {|s_A -
    s_B|}`` exactly (or max-accuracy). ``tie_target`` (§6.2): target the tie rate of the
    field ``human_<metric>`` over the records having it (0 when none has it), judge ties
    over every record with the score. ``grid`` (§6.2): candidates on that grid, raw floats.
    NaN when nothing can be fitted.
    """
    judge = frame.judge[metric]
    human = None
    if policy.tie_target:
        field = tie_field(frame, metric)
        has_human = rows & present(field)
        target = float(np.mean(decide(field[has_human]) == 0)) if has_human.any() else 0.0
        fit = rows & present(judge)
    else:
        fit = rows & present(values) & present(judge)
        human = decide(values[fit])
        target = tie_rate(human)
    a, b = judge[fit, 0], judge[fit, 1]
    diffs = np.abs(a - b)
    if policy.grid is not None:
        if diffs.size == 0:  # the script: every distance is |0 - 0|, so the first wins
            return float(policy.grid[0])
        return calibrate_match_rate(diffs, target, np.asarray(policy.grid), tol=0.0).threshold
    if method == MAX_ACCURACY and human is not None:
        return calibrate(human, a, b, method=MAX_ACCURACY).threshold
    if diffs.size == 0 or math.isnan(target):
        return math.nan
    return calibrate_match_rate(diffs, target).threshold


def _pooled_threshold(sel: Selected, values: np.ndarray, metric: str, policy: Policy) -> float:
    """The script's calibration pools (§6.2): all systems, before any tie is dropped."""
    frame = sel.frame
    if sel.agreed:  # the script calibrates on an empty list there: its first candidate
        return float((policy.grid or SCRIPT_GRID)[0])
    if sel.setting in POOLED_CALIBRATION:
        return fit_threshold(frame, rows_of(frame, POOLED_CALIBRATION), values, metric, policy)
    if sel.setting in SLOT_SETTINGS:
        slots = slot_masks(frame, sel.base)
        return sum(fit_threshold(frame, s, values, metric, policy) for s in slots) / len(slots)
    return fit_threshold(frame, sel.base, values, metric, policy)


def _cross_fitted(
    calib: PairFrame, table: str, metric: str, choices: Choices, policy: Policy
) -> float | None:
    """The threshold fitted on the ``calibrate_on`` rows (None: they have no such signal)."""
    values = signal_values(calib, table, metric, policy)
    if values is None or metric not in calib.judge:
        return None
    rows = present(values) & present(calib.judge[metric])
    if not rows.any():
        return None
    if choices.ties == "exclude":
        rows &= decide(np.where(np.isnan(values), 0.0, values)) != 0
    return fit_threshold(calib, rows, values, metric, policy, choices.calibration)


def threshold(
    sel: Selected,
    table: str,
    metric: str,
    analysed: np.ndarray,
    choices: Choices,
    policy: Policy,
    calib: PairFrame | None = None,
) -> float:
    """Step 2: the judge tie threshold applied to the ``analysed`` rows of one slot."""
    if choices.ties == "partial":  # exact comparison (the script sets it to None)
        return 0.0
    if choices.threshold is not None:  # the "compare at a fixed threshold" view
        return float(choices.threshold)
    values = signal_values(sel.frame, table, metric, policy)
    t = None if calib is None else _cross_fitted(calib, table, metric, choices, policy)
    if t is None and policy.calibration_pool:
        t = _pooled_threshold(sel, values, metric, policy)
    if t is None:
        t = fit_threshold(sel.frame, analysed, values, metric, policy, choices.calibration)
    return 0.0 if math.isnan(t) else t


# --------------------------------------------------------------------------- tables


@dataclass
class Signal:
    """One slot's human and judge decisions, kept for the bootstrap (uncertainty.py)."""

    human: np.ndarray
    judge_decisions: np.ndarray
    clusters: np.ndarray


@dataclass
class Row:
    """One table row: human ``signal`` vs judge ``metric``, figures averaged over slots
    (one slot = the figures themselves). The report's tables and compat mode's
    (:data:`metaeval.compat.CompatRow`, the same type) are rows of this one type.

    ``n`` is the number of judgments (the mean over slots when slot-averaged, as the
    script prints it); ``threshold`` the judge tie threshold applied (the mean over
    slots), ``thresholds`` the threshold applied per slot.
    """

    agreement: float
    tau_b: float
    n: float
    threshold: float
    human_tie_rate: float
    judge_tie_rate: float
    thresholds: list[float]
    empty: list[bool]
    signals: list[Signal | None]
    signal: str = PREFERENCE
    metric: str = ""


def _slot_figures(
    sel: Selected,
    table: str,
    metric: str,
    slot: np.ndarray,
    choices: Choices,
    policy: Policy,
    calib: PairFrame | None,
) -> tuple:
    """(agreement, tau, n, threshold, human ties, judge ties, signal) of one slot."""
    frame = sel.frame
    values, judge = signal_values(frame, table, metric, policy), frame.judge[metric]
    analysed = slot & sel.keep & present(values) & present(judge)
    if choices.ties == "exclude":  # human ties dropped, nothing else
        human_all = np.zeros(len(frame), dtype=np.int8)
        human_all[analysed] = decide(values[analysed])
        analysed &= human_all != 0
    t = threshold(sel, table, metric, analysed, choices, policy, calib)
    n = int(analysed.sum())
    if n == 0:  # the script reports 0 for an empty table; METHODS §5 has no value
        empty = 0.0 if policy.degenerate_tau_zero else math.nan
        return empty, empty, 0, t, math.nan, math.nan, None
    human, judged = decide(values[analysed]), decide(judge[analysed], t)
    tau = tau_b_from_counts(pair_counts(human, judged))
    if math.isnan(tau) and policy.degenerate_tau_zero:
        tau = 0.0
    partial = choices.ties == "partial"
    credit = half_credit(human, judged) if partial else (human == judged).astype(float)
    signal = Signal(human, judged, frame.question[analysed])
    return float(credit.mean()), tau, n, t, tie_rate(human), tie_rate(judged), signal


def table_row(
    sel: Selected,
    table: str,
    metric: str,
    choices: Choices,
    policy: Policy,
    calib: PairFrame | None = None,
) -> Row:
    """Step 3: agreement and Kendall τ-b of one signal, per slot then averaged (§5, §6.1)."""
    results = [_slot_figures(sel, table, metric, s, choices, policy, calib) for s in sel.slots]
    mean = [sum(r[k] for r in results) / len(results) for k in range(6)]
    return Row(*mean, [r[3] for r in results], [r[2] == 0 for r in results],
               [r[6] for r in results], PREFERENCE if table == PREFERENCE else metric,
               metric)  # fmt: skip


def has_row(sel: Selected, table: str, metric: str, policy: Policy) -> bool:
    """Whether a table has a row for judge ``metric``.

    The script prints one for every metric whose human field the setting has (0 when no
    judgment is left); the default mode one for every signal with a judged comparison.
    """
    frame = sel.frame
    values = signal_values(frame, table, metric, policy)
    if metric not in frame.judge or values is None:
        return False
    if policy.script_records:
        return table == PREFERENCE or bool(present(values)[sel.base].any())
    return bool((present(values) & present(frame.judge[metric]) & sel.base).any())


def tables(
    sel: Selected, choices: Choices, policy: Policy, calib: PairFrame | None = None
) -> dict[str, dict[str, Row]]:
    """Both tables: {PREFERENCE | METRIC_WISE: {metric: Row}}, metrics in METRICS order."""
    return {
        table: {
            metric: table_row(sel, table, metric, choices, policy, calib)
            for metric in METRICS
            if has_row(sel, table, metric, policy)
        }
        for table in TABLES
    }


# --------------------------------------------------------------------------- system


@dataclass
class SystemFigures:
    """System-level τ-b with the win rates behind it, averaged over slots (§5, §6.1)."""

    tau_b: float
    per_slot: list[float]
    human_rates: np.ndarray
    judge_rates: np.ndarray
    games: np.ndarray
    #: The judge has an overall score in the selection (the frame holds an ``overall``
    #: column, NaN, for a judge that never gave one: its coverage-only scores rank nothing).
    judge_scored: bool = True


def system_figures(sel: Selected, overall: Row | None, policy: Policy) -> SystemFigures | None:
    """Step 4: win rates, human vs judge overall (at the overall row's threshold, or
    exactly with ``exact_win_rates``), and their τ-b. None without judge overall."""
    frame = sel.frame
    judge = frame.judge.get("overall")
    if judge is None:
        return None
    n_systems = len(frame.systems)
    taus, human_rates, judge_rates, games = [], [], [], np.zeros(n_systems, dtype=np.int64)
    for k, slot in enumerate(sel.slots):
        rows = slot & sel.rank_keep & present(frame.preference) & present(judge)
        t = 0.0
        if not policy.exact_win_rates and overall is not None and not overall.empty[k]:
            t = overall.thresholds[k]
        sa, sb = frame.system_a[rows], frame.system_b[rows]
        h = win_rates(sa, sb, decide(frame.preference[rows]), n_systems)
        j = win_rates(sa, sb, decide(judge[rows], t), n_systems)
        taus.append(system_tau_b(h, j).statistic)
        human_rates.append(h)
        judge_rates.append(j)
        games += np.bincount(sa, minlength=n_systems) + np.bincount(sb, minlength=n_systems)
    return SystemFigures(float(np.mean(taus)), [float(t) for t in taus],
                         np.mean(human_rates, axis=0), np.mean(judge_rates, axis=0), games,
                         bool(np.isfinite(judge).any()))  # fmt: skip


# --------------------------------------------------------------------------- IAA


@dataclass
class IAAFigures:
    """Preference IAA. ``n`` counts what was compared (questions per question, annotator
    pairs over all pairs); ``n_items`` comparisons judged twice or more; ``n_half_credit``
    the denominator of ``half_credit``. The chance-corrected figures are §5 only."""

    strict: float
    half_credit: float
    n: int
    n_half_credit: int
    n_items: int = 0
    cohen_kappa: float = math.nan
    fleiss_kappa: float = math.nan
    krippendorff_alpha: float = math.nan


def iaa_all_pairs(frame: PairFrame) -> IAAFigures:
    """METHODS §5 IAA: every pair of judgments of every comparison judged at least twice."""
    if len(frame) == 0:
        return IAAFigures(math.nan, math.nan, 0, 0)
    _, labels, _ = decision_matrix(frame, decide(frame.preference))
    agreement = iaa_stats.pairwise_agreement(labels)
    if agreement.n_pairs == 0:
        return IAAFigures(math.nan, math.nan, 0, 0)
    multi = labels[(~np.isnan(labels)).sum(axis=1) >= 2]
    return IAAFigures(
        agreement.strict,
        agreement.half_credit,
        agreement.n_pairs,
        agreement.n_pairs,
        agreement.n_items,
        iaa_stats.mean_pairwise_cohen_kappa(multi).value,  # mean over annotator pairs
        iaa_stats.fleiss_kappa(multi, unequal="generalized").value,
        iaa_stats.krippendorff_alpha(multi, "nominal").value,
    )


def iaa_per_question(frame: PairFrame, slots: list[np.ndarray], keep: np.ndarray) -> IAAFigures:
    """The script's IAA (§6.3): the last decision read per question and slot, two slots;
    half credit leaves opposite decisions out of its denominator."""
    if len(slots) != 2:
        raise ValueError(f"IAA per question needs exactly two annotator slots, got {len(slots)}")
    decisions = decide(frame.preference)
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
    return IAAFigures(
        float(np.mean(strict)) if strict else math.nan,
        float(np.mean(half)) if half else math.nan,
        len(strict),
        len(half),
    )


def two_slots(frame: PairFrame, setting: str | None) -> bool:
    """The setting has exactly two annotator slots, which the script's IAA needs (§6.3)."""
    rows = rows_of(frame, [setting]) if setting is not None else np.zeros(len(frame), bool)
    return setting in SLOT_SETTINGS and np.unique(frame.annotator[rows]).size == 2


def iaa_rows(frame: PairFrame, choices: Choices) -> PairFrame:
    """The judgments §5's IAA reads: the setting's, of the systems kept (every judgment
    whatever the human signal: ``frame`` is the uncollapsed one, :func:`run`)."""
    base = rows_of(frame, [choices.setting]) if choices.setting else np.ones(len(frame), bool)
    return frame.take(base & system_mask(frame, choices.exclude_systems, choices.only_systems))


def iaa(frame: PairFrame, choices: Choices, policy: Policy) -> IAAFigures | None:
    """Step 5: preference IAA on ``frame``, or None where none is defined on the selection.

    None with the expert-agreed subset, in every mode: the subset keeps each comparison
    whose judgments all agree *once* (METHODS §5), and IAA is defined on comparisons with
    two judgments or more (§5), so it has none to compare; over the subset's judgments
    before they are counted once it would be 1 by construction. The default report computed
    it over every judgment instead, beside figures of the subset (a researcher's
    ``expert_agreed=true``: IAA 0.558 over 600 pairs, with no note); the report says why
    it is null (:data:`metaeval.reports.NO_IAA_EXPERT_AGREED`). Also None where the script
    computes none (compat: not two slots of ``assigned``, METHODS §6.3)."""
    if choices.expert_agreed:
        return None
    if policy.script_records and not two_slots(frame, choices.setting):
        return None
    if policy.iaa_per_question:
        base = rows_of(frame, [choices.setting]) if choices.setting else np.ones(len(frame), bool)
        keep = system_mask(frame, choices.exclude_systems, choices.only_systems)
        return iaa_per_question(frame, slot_masks(frame, base), keep)
    return iaa_all_pairs(iaa_rows(frame, choices))


# --------------------------------------------------------------------------- the path


@dataclass
class Figures:
    """Everything one run of the path computes (reports.py shapes it into the dict)."""

    selected: Selected
    tables: dict[str, dict[str, Row]]
    system: SystemFigures | None
    iaa: IAAFigures | None


def run(
    frame: PairFrame, choices: Choices, policy: Policy, calib: PairFrame | None = None
) -> Figures:
    """select -> decide/calibrate -> tables -> system -> IAA, under one policy."""
    choices.check()
    sel = select(frame, choices, policy)
    rows = tables(sel, choices, policy, calib)
    system = system_figures(sel, rows[PREFERENCE].get("overall"), policy)
    # IAA compares annotators: it reads every judgment whatever the human signal (ANALYSES
    # §0); a collapsed frame's preference is NaN where only a metric had a majority
    each = frame if frame.each is None else frame.each
    return Figures(sel, rows, system, iaa(each, choices, policy))
