"""Annotation budget planner: how many more expert judgments until a figure's CI is narrow
enough, which questions to annotate next, and the power of the judge-vs-judge test
(issue 17 part 3; METHODS §5 "Uncertainty"; docs/ANALYSES.md "Budget planner").

The model
=========
A figure θ = g(T) is a function of totals T = Σ_q Σ_r s_qr of sufficient statistics
s_qr, one row per *unit* r (an assignment: one annotator's judgment of question q, which
holds the comparisons of that question's reports) and question q (the cluster of the
bootstrap). Agreement, Kendall τ-b over decisions and the difference of two judges'
agreements are such functions of the :class:`~.kendall.PairCounts` totals (METHODS §5;
:mod:`.bootstrap`).

1. **Linearise.** With N units, the influence of unit (q, r) is
   ``φ_qr = N · ∇g(T) · s_qr`` (delta method; ∇g by central differences, so any
   vectorised statistic of totals works). g is homogeneous of degree 0 in T (a ratio of
   counts), so Σ φ_qr = 0 and ``θ̂ − θ ≈ (1/N) Σ_q Σ_r φ_qr``.
2. **Two variance components** (one-way random effects on φ, method of moments for
   unbalanced groups; Searle, Casella & McCulloch 1992, §3.5):
   ``φ_qr = β_q + ε_qr``, ``σ_b² = Var β`` (between questions: some questions are harder
   for the judge than others), ``σ_w² = Var ε`` (within a question: annotators disagree).
   MSW = Σ (φ_qr − φ̄_q)² / (N − K), MSB = Σ r_q (φ̄_q − φ̄)² / (K − 1),
   n₀ = (N − Σ r_q² / N) / (K − 1); ``σ_w² = MSW``, ``σ_b² = max(0, (MSB − MSW) / n₀)``.
   ``σ_w²`` needs a question with ≥ 2 units; otherwise only their sum is known and a
   design with another overlap than the pilot's is not predicted (null + note).
3. **Design variance.** With r_q units on question q (N = Σ r_q):
   ``V(design) = (1/N²) Σ_q (r_q² σ_b² + r_q σ_w²)``; balanced (K questions × k) this is
   ``(σ_b² + σ_w²/k) / K``: half-width ∝ 1/√K for new questions; adding annotations to the
   same K questions only removes the σ_w²/k part (floor σ_b²/K).
4. **Calibrated on the bootstrap.** The pilot's cluster bootstrap over questions (the
   report's interval, :func:`.bootstrap.bootstrap_from_cluster_sums`) gives the current
   half-width H₀; a design's predicted half-width is
   ``H = H₀ · √(V(design) / V(pilot design))``: the components only set the *shape* of the
   curve, the bootstrap its level.
5. **Cost.** Comparisons = units × comparisons per unit (the pilot's mean); expert hours =
   units × the measured seconds per unit (``Assignment.seconds_on_task`` of submitted
   work; the median, robust to a tab left open).

Which questions next (:func:`allocate`): greedily, the next unit goes to the question with
the largest ``(V − V_after) / cost_q`` — expected variance reduction per expert hour —
where adding one unit to q raises Σ by ``(2 r_q + 1) σ_b² + σ_w²`` and N by 1, and
``cost_q`` is the question's measured time shrunk to the median (two pseudo-units); a new
question (r_q = 0) adds ``σ_b² + σ_w²``. New questions therefore come first whenever
σ_b² > 0, then questions with few annotators, then the quick ones. The pooled σ_w² is
used for every question on purpose: choosing questions by their observed (dis)agreement
would make the next sample depend on the outcome and bias the pooled figure.

Power (:func:`permutation_power`): the paired permutation test of
:func:`.bootstrap.paired_permutation_test` swaps the two judges' per-question sums. With
d_q = Σ credit_A − Σ credit_B and n_q the units of question q (N = Σ n_q), Δ̂ = Σ d_q / N.
Normal approximation: under a true difference δ, Δ̂ ~ N(δ, σ₁²) with
``σ₁² = Σ_q (d_q − Δ̂ n_q)² / N²`` (cluster sandwich) and the permutation distribution
has sd ``σ₀ = √(σ₁² + δ² Σ n_q² / N²)`` (the sign flips act on the uncentred d_q), so
``power = Φ((δ − z σ₀)/σ₁) + Φ((−δ − z σ₀)/σ₁)``, z = Φ⁻¹(1 − α/2). Simulation: draw
questions with replacement from the centred d_q, shift by δ n_q, run the permutation test,
count rejections. Both scale with K questions as 1/K.

Everything undefined is ``None`` with a note (fewer than 2 questions, a constant figure,
a target the design cannot reach).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from .bootstrap import (
    agreement_of_totals,
    bootstrap_from_cluster_sums,
    pair_count_rows,
    paired_permutation_test,
    tau_b_of_totals,
)

FIGURES = ("agreement", "tau_b", "judge_difference")
#: Prior weight (in units) of the median time in a question's own (step 5).
COST_PRIOR = 2.0
#: Largest number of new questions or units a plan searches.
MAX_SEARCH = 10_000_000


def _difference_of_totals(t):
    t = np.asarray(t, float)
    return agreement_of_totals(t[..., :5]) - agreement_of_totals(t[..., 5:])


STATISTICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "agreement": agreement_of_totals,
    "tau_b": tau_b_of_totals,
    "judge_difference": _difference_of_totals,
}


@dataclass(frozen=True)
class Pilot:
    """Per-unit sufficient sums of one figure (unit = one annotator on one question)."""

    figure: str
    sums: np.ndarray  # (units, m)
    question: np.ndarray  # (units,) question codes 0..Q−1 (the bootstrap's clusters)
    comparisons: np.ndarray  # (units,) comparisons (rows) per unit
    seconds: np.ndarray  # (units,) measured seconds on task; NaN unknown

    @property
    def statistic(self) -> Callable[[np.ndarray], np.ndarray]:
        return STATISTICS[self.figure]


def pilot_from_rows(figure: str, human, judge, question, unit, judge_b=None, seconds=None) -> Pilot:
    """A :class:`Pilot` from per-comparison decisions (one row per human judgment).

    ``human``/``judge`` (/``judge_b`` for ``judge_difference``): decisions in {−1, 0, 1}
    (the judge's at its calibrated threshold); ``question`` the cluster of each row;
    ``unit`` any key of its assignment (rows with equal (question, unit) form one unit);
    ``seconds``: per row, the seconds of its unit (the same value on every row of a unit).
    """
    if figure not in STATISTICS:
        raise ValueError(f"figure: {figure!r} is not one of {', '.join(FIGURES)}")
    rows = pair_count_rows(human, judge)
    if figure == "judge_difference":
        if judge_b is None:
            raise ValueError("judge_difference needs judge_b")
        rows = np.concatenate([rows, pair_count_rows(human, judge_b)], axis=1)
    q = np.asarray(question).ravel()
    u = np.asarray(unit).ravel()
    n = q.size
    if not (u.size == n == rows.shape[0]):
        raise ValueError("human, judge, question and unit must have one value per row")
    if n == 0:
        empty = np.zeros(0)
        return Pilot(figure, np.zeros((0, rows.shape[1])), empty.astype(int), empty, empty)
    _, qcode = np.unique(q, return_inverse=True)
    _, ucode = np.unique(np.stack([qcode.ravel(), np.unique(u, return_inverse=True)[1].ravel()]),
                         axis=1, return_inverse=True)  # fmt: skip
    ucode = ucode.ravel()
    k = int(ucode.max()) + 1
    sums = np.stack([np.bincount(ucode, rows[:, j], k) for j in range(rows.shape[1])], 1)
    unit_q = np.zeros(k, dtype=np.int64)
    unit_q[ucode] = qcode.ravel()
    count = np.bincount(ucode, minlength=k).astype(float)
    secs = np.full(k, np.nan)
    if seconds is not None:
        s = np.asarray(seconds, dtype=float).ravel()
        secs[ucode] = s
    return Pilot(figure, sums, unit_q, count, secs)


# --- step 1-4: the variance model ----------------------------------------------------------


@dataclass(frozen=True)
class VarianceModel:
    """The pilot's figure, its interval, and the two variance components (module doc)."""

    figure: str
    estimate: float | None
    half_width: float | None  # percentile bootstrap (high − low) / 2
    n_questions: int
    n_units: int
    n_comparisons: int
    comparisons_per_unit: float | None
    seconds_per_unit: float | None  # median measured; None if never measured
    between: float | None  # σ_b² (φ units); None when not separable
    within: float | None  # σ_w²
    total: float | None  # Var φ (σ_b² + σ_w² when separable)
    pilot_variance: float | None  # V(pilot design) of step 3
    alpha: float = 0.05
    note: str | None = None
    #: r_q: units of each pilot question (not in :meth:`as_dict`)
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False, compare=False)

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "counts"}
        return {k: (_num(v) if isinstance(v, float) else v) for k, v in out.items()}


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def influences(sums: np.ndarray, statistic) -> np.ndarray:
    """φ_u = N ∇g(T)·s_u per unit (step 1), ∇g by central differences; NaN if undefined."""
    s = np.asarray(sums, dtype=float)
    t = s.sum(axis=0)
    m = t.size
    h = 1e-6 * np.maximum(np.abs(t), 1.0)
    probe = np.repeat(t[None, :], 2 * m, axis=0)
    probe[np.arange(m), np.arange(m)] += h
    probe[m + np.arange(m), np.arange(m)] -= h
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.asarray(statistic(probe), dtype=float)
    grad = (vals[:m] - vals[m:]) / (2 * h)
    if not np.all(np.isfinite(grad)):
        return np.full(s.shape[0], np.nan)
    return s.shape[0] * (s @ grad)


def components(phi: np.ndarray, question: np.ndarray) -> tuple[float | None, float | None, float]:
    """(σ_b², σ_w², Var φ) by the unbalanced one-way ANOVA of step 2; None if not separable."""
    phi = np.asarray(phi, dtype=float)
    _, q = np.unique(question, return_inverse=True)
    q = q.ravel()
    k, n = int(q.max()) + 1, phi.size
    r = np.bincount(q, minlength=k).astype(float)
    mean_q = np.bincount(q, phi, k) / r
    total = float(np.var(phi, ddof=1)) if n > 1 else float("nan")
    if n - k <= 0 or k < 2:
        return None, None, total
    msw = float(np.sum((phi - mean_q[q]) ** 2) / (n - k))
    msb = float(np.sum(r * (mean_q - phi.mean()) ** 2) / (k - 1))
    n0 = (n - np.sum(r**2) / n) / (k - 1)
    return max(0.0, (msb - msw) / n0), msw, total


def design_variance(units_per_question, between: float, within) -> float:
    """V = Σ_q (r_q² σ_b² + r_q σ_w,q²) / (Σ r_q)² (step 3); ``within`` scalar or per q."""
    r = np.asarray(units_per_question, dtype=float)
    n = r.sum()
    if n <= 0:
        return float("nan")
    return float(np.sum(r**2 * between + r * np.asarray(within, dtype=float)) / n**2)


def fit(pilot: Pilot, n_rounds: int = 1000, seed: int = 0, alpha: float = 0.05) -> VarianceModel:
    """The pilot's figure, bootstrap half-width and variance components (steps 1-4)."""
    sums, q = pilot.sums, pilot.question
    n_units = int(sums.shape[0])
    n_comp = int(pilot.comparisons.sum())
    measured = pilot.seconds[np.isfinite(pilot.seconds) & (pilot.seconds > 0)]
    seconds = float(np.median(measured)) if measured.size else None
    base = dict(figure=pilot.figure, n_units=n_units, n_comparisons=n_comp, alpha=alpha,
                seconds_per_unit=seconds,
                comparisons_per_unit=n_comp / n_units if n_units else None)  # fmt: skip
    n_q = int(np.unique(q).size)
    if n_units == 0:
        return VarianceModel(estimate=None, half_width=None, n_questions=0, between=None,
                             within=None, total=None, pilot_variance=None,
                             note="No judgment in the pilot: nothing to plan from.", **base)  # fmt: skip
    per_q = np.stack([np.bincount(q, sums[:, j], n_q) for j in range(sums.shape[1])], 1)
    res = bootstrap_from_cluster_sums(per_q, pilot.statistic, n_rounds, seed, alpha)
    estimate = _num(res.estimate)
    half = _num((res.high - res.low) / 2)
    if n_q < 2 or estimate is None or half is None:
        note = res.note or (
            "The figure is undefined on the pilot."
            if estimate is None
            else "The bootstrap gives no interval on the pilot."
        )
        return VarianceModel(estimate=estimate, half_width=None, n_questions=n_q, between=None,
                             within=None, total=None, pilot_variance=None, note=note, **base)  # fmt: skip
    phi = influences(sums, pilot.statistic)
    between, within, total = components(phi, q) if np.all(np.isfinite(phi)) else (None, None, None)
    r = np.bincount(q, minlength=n_q)
    if between is not None:
        pv = design_variance(r, between, within)
    elif total is not None and np.all(r == 1):
        pv = total / n_q
    else:
        pv = None
    note = None
    if between is None:
        note = ("No question has two annotators: the within-question variance is not "
                "separable, so only more questions at the pilot's overlap are planned.")  # fmt: skip
    if pv is not None and not pv > 0:
        pv, note = None, "The figure does not vary between units: no variance to plan with."
    return VarianceModel(estimate=estimate, half_width=half, n_questions=n_q, between=between,
                         within=within, total=total, pilot_variance=pv, note=note,
                         counts=r, **base)  # fmt: skip


# --- predictions and plans -----------------------------------------------------------------


def _overlap_of(model: VarianceModel) -> int:
    return max(1, round(model.n_units / model.n_questions)) if model.n_questions else 1


def _pilot_counts(model: VarianceModel, units_per_question) -> np.ndarray:
    if units_per_question is not None:
        return np.asarray(units_per_question, dtype=float)
    if model.counts.size:
        return model.counts.astype(float)
    return np.full(model.n_questions, model.n_units / max(model.n_questions, 1))


def predict_half_width(
    model: VarianceModel,
    new_questions: int = 0,
    overlap: int | None = None,
    extra_per_question: int = 0,
    units_per_question=None,
) -> float | None:
    """H = H₀ √(V(design) / V(pilot)) for the pilot plus ``new_questions`` questions of
    ``overlap`` units each (default: the pilot's) and ``extra_per_question`` more units on
    every pilot question. ``units_per_question``: the pilot's r_q (default: its mean).
    None when the design is not predictable from this pilot (see the model's note)."""
    if model.half_width is None or model.pilot_variance is None:
        return None
    k = overlap or _overlap_of(model)
    r = _pilot_counts(model, units_per_question)
    if model.between is None:
        if k != 1 or extra_per_question:
            return None
        v = model.total / (model.n_questions + new_questions)
    else:
        design = np.concatenate([r + extra_per_question, np.full(int(new_questions), float(k))])
        v = design_variance(design, model.between, model.within)
    return float(model.half_width * math.sqrt(v / model.pilot_variance))


def _smallest(predicate, limit: int = MAX_SEARCH) -> int | None:
    """Smallest x in [0, limit] with predicate(x) (monotone), by doubling and bisection."""
    if predicate(0):
        return 0
    hi = 1
    while not predicate(hi):
        hi *= 2
        if hi > limit:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if predicate(mid) else (mid, hi)
    return hi


@dataclass(frozen=True)
class Route:
    """One way to reach the target: how much more, and what it costs."""

    route: str  # "new_questions" | "more_annotators"
    new_questions: int | None
    extra_per_question: int | None
    units: int | None  # new assignments (one annotator on one question)
    comparisons: int | None
    hours: float | None
    half_width: float | None  # predicted at that size
    note: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _route(model, name, new_q, extra, units, overlap, units_per_question=None) -> Route:
    half = predict_half_width(model, new_q, overlap, extra, units_per_question)
    comps = round(units * model.comparisons_per_unit) if model.comparisons_per_unit else None
    hours = units * model.seconds_per_unit / 3600 if model.seconds_per_unit is not None else None
    note = None if hours is not None else "No submitted assignment has a measured time."
    return Route(name, new_q, extra, units, comps, hours, _num(half), note)


def plan_new_questions(model, target: float, overlap: int | None = None) -> Route:
    """More questions at ``overlap`` annotators each until H ≤ target (step 3, ∝ 1/√K)."""
    k = overlap or _overlap_of(model)
    none = Route("new_questions", None, None, None, None, None, None)
    if predict_half_width(model, 0, k) is None:
        why = model.note or "Not predictable from this pilot."
        if model.between is None and model.pilot_variance is not None and k != 1:
            why = (f"Overlap {k} cannot be planned: no pilot question has two annotators, "
                   "so the within-question variance is unknown (plan with overlap 1).")  # fmt: skip
        return Route(**{**asdict(none), "note": why})
    x = _smallest(lambda n: predict_half_width(model, n, k) <= target)
    if x is None:
        return Route(**{**asdict(none), "note": "The target is out of reach of this design."})
    return _route(model, "new_questions", x, 0, x * k, k)


def plan_more_annotators(model, target: float, max_overlap: int | None = None) -> Route:
    """More annotators on every pilot question until H ≤ target; the floor is σ_b²/K."""
    none = Route("more_annotators", None, None, None, None, None, None)
    if model.between is None or model.pilot_variance is None:
        return Route(**{**asdict(none), "note": model.note or "Not predictable from this pilot."})
    r0 = _overlap_of(model)
    limit = (max_overlap - r0) if max_overlap else MAX_SEARCH
    x = _smallest(lambda e: predict_half_width(model, 0, None, e) <= target, max(limit, 0))
    if x is None:
        floor = model.half_width * math.sqrt(
            model.between / model.n_questions / model.pilot_variance
        )
        return Route(**{**asdict(none), "note": (
            "Out of reach by annotating the pilot questions again: their between-question "
            f"variance alone leaves a half-width of {floor:.4f}; add questions instead."
            if not max_overlap else f"Out of reach with at most {max_overlap} annotators "
            "per question; add questions instead.")})  # fmt: skip
    return _route(model, "more_annotators", 0, x, x * model.n_questions, None)


def plan(model: VarianceModel, target: float, overlap: int | None = None,
         max_overlap: int | None = None) -> dict:  # fmt: skip
    """JSON-ready answer: the pilot, and both routes to half-width ``target``."""
    if not target > 0:
        raise ValueError("target half-width must be positive")
    routes = [plan_new_questions(model, target, overlap),
              plan_more_annotators(model, target, max_overlap)]  # fmt: skip
    reachable = [r for r in routes if r.units is not None]
    best = min(reachable, key=lambda r: r.units).route if reachable else None
    return {
        "figure": model.figure,
        "target_half_width": float(target),
        "pilot": model.as_dict(),
        "reached": model.half_width is not None and model.half_width <= target,
        "routes": {r.route: r.as_dict() for r in routes},
        "cheapest": best,
    }


# --- which questions next ------------------------------------------------------------------


def question_costs(seconds, question, n_questions: int, default: float) -> np.ndarray:
    """Seconds per new unit of each question: its measured mean shrunk to ``default``."""
    s = np.asarray(seconds, dtype=float)
    ok = np.isfinite(s) & (s > 0)
    q = np.asarray(question)[ok]
    total = np.bincount(q, s[ok], n_questions)
    count = np.bincount(q, minlength=n_questions)
    return (total + COST_PRIOR * default) / (count + COST_PRIOR)


def allocation_order(
    counts,
    between: float,
    within,
    cost,
    budget: int,
    max_per_question: int | None = None,
) -> list[int]:
    """The questions (indices into ``counts``) that get the next ``budget`` units, in the
    order chosen, one unit per entry: greedily by variance reduction per cost.

    ``counts``: units each candidate question already has (0 = not annotated yet);
    ``within``: σ_w² (scalar or per question); ``cost``: seconds per new unit (scalar or
    per question); ``max_per_question``: most units a question may have in all. Each step
    adds a unit to argmax_q (V − (S + Δ_q)/(N + 1)²) / cost_q with
    Δ_q = (2 r_q + 1) σ_b² + σ_w,q² (module doc); ties go to the lower index. Stops early
    when every question is full.
    """
    r = np.asarray(counts, dtype=float).copy()
    w = np.broadcast_to(np.asarray(within, dtype=float), r.shape)
    c = np.broadcast_to(np.asarray(cost, dtype=float), r.shape)
    order: list[int] = []
    s = float(np.sum(r**2 * between + r * w))
    n = float(r.sum())
    for _ in range(int(budget)):
        open_ = np.ones(r.shape, bool) if max_per_question is None else r < max_per_question
        if not open_.any():
            break
        delta = (2 * r + 1) * between + w
        after = (s + delta) / (n + 1) ** 2
        gain = (s / n**2 - after) / c if n else -delta / c
        best = int(np.argmax(np.where(open_, gain, -np.inf)))
        s += float(delta[best])
        n += 1
        r[best] += 1
        order.append(best)
    return order


def allocate(counts, between: float, within, cost, budget: int,
             max_per_question: int | None = None) -> np.ndarray:  # fmt: skip
    """New units per question (:func:`allocation_order`, counted)."""
    order = allocation_order(counts, between, within, cost, budget, max_per_question)
    return np.bincount(np.asarray(order, dtype=np.int64), minlength=np.size(counts))


# --- power of the paired permutation test --------------------------------------------------


def permutation_power(
    difference_sums,
    units,
    delta: float,
    alpha: float = 0.05,
    n_questions: int | None = None,
    method: str = "normal",
    n_sims: int = 200,
    n_rounds: int = 999,
    seed: int = 0,
) -> float | None:
    """Power of the paired permutation test to detect a true difference ``delta`` between
    two judges' agreements (module doc). ``difference_sums``: per question Σ credit_A −
    Σ credit_B; ``units``: per question the units both judged. ``n_questions``: the size
    asked about (default: the pilot's K; the variances scale as K/K'). None with fewer than
    2 questions or no variance."""
    d = np.asarray(difference_sums, dtype=float)
    n = np.asarray(units, dtype=float)
    k = d.size
    if k < 2 or n.sum() <= 0:
        return None
    total = n.sum()
    resid = d - (d.sum() / total) * n
    scale = k / (n_questions or k)
    if method == "normal":
        from scipy.stats import norm

        s1 = math.sqrt(np.sum(resid**2) / total**2 * scale)
        s0 = math.sqrt(s1**2 + delta**2 * np.sum(n**2) / total**2 * scale)
        if s1 == 0:
            return None
        z = norm.ppf(1 - alpha / 2)
        return float(norm.cdf((delta - z * s0) / s1) + norm.cdf((-delta - z * s0) / s1))
    if method != "simulation":
        raise ValueError("method: 'normal' or 'simulation'")
    if not np.any(resid):
        return None
    rng = np.random.default_rng(seed)
    size = n_questions or k
    hits = 0

    def pooled(t):
        return t[..., 0] / t[..., 1]

    for i in range(n_sims):
        pick = rng.integers(0, k, size)
        dq = resid[pick] + delta * n[pick]
        a = np.stack([dq, n[pick]], 1)
        b = np.stack([np.zeros(size), n[pick]], 1)
        res = paired_permutation_test(a, b, n_rounds, seed + 1 + i, statistic=pooled)
        hits += res.pvalue <= alpha
    return hits / n_sims


def questions_for_power(difference_sums, units, delta: float, power: float = 0.8,
                        alpha: float = 0.05) -> int | None:  # fmt: skip
    """Smallest number of questions whose normal-approximation power reaches ``power``."""
    if permutation_power(difference_sums, units, delta, alpha) is None or delta == 0:
        return None
    return _smallest(
        lambda kk: (
            kk >= 2
            and permutation_power(difference_sums, units, delta, alpha, n_questions=kk) >= power
        )
    )


def difference_by_question(pilot: Pilot) -> tuple[np.ndarray, np.ndarray]:
    """(d_q, n_q) of a ``judge_difference`` pilot: Σ agreeing_A − Σ agreeing_B, units."""
    if pilot.figure != "judge_difference":
        raise ValueError("difference_by_question needs a judge_difference pilot")
    s = pilot.sums
    agree = (s[:, 0] + s[:, 4]) - (s[:, 5] + s[:, 9])
    k = int(pilot.question.max()) + 1 if pilot.question.size else 0
    d = np.bincount(pilot.question, agree, k)
    n = np.bincount(pilot.question, s[:, :5].sum(axis=1), k)
    return d, n
