"""The judge card (docs/ANALYSES.md §13): for every judge and every protocol it has verdicts
for, its agreement with the experts beside their agreement among themselves, position,
length and tie behaviour beside the experts', agreement with its own reruns, operations,
and a verdict line written from those figures.

Three kinds of protocol:

* **pairwise** (``direct``, ``ensemble``): the judge's verdicts on comparisons
  (:class:`metaeval.loaders.pairwise.PairwiseData`), the experts' pairwise preferences;
  agreement is ANALYSES §1's footnote-6 accuracy against the expert majority;
* **score** (one per metric, seed 003): the judge scores each report, its decision on a
  comparison is the score difference at the report's tie threshold (METHODS §5 "Judge
  decision"); the experts' decision is their medal ranking's; agreement is the agreement
  report's figure for that judge;
* **labels** (rubric coverage 0–4 / covered, DeepScholar label kinds): a label per unit,
  agreement with each expert's label; DeepScholar organization's two votes give its
  position figures.

Pure: every input is arrays or dicts the section loaded (:mod:`metaeval.sections.judge_card`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from metaeval.frame import PairFrame
from metaeval.loaders.pairwise import PairwiseData
from metaeval.stats import judge_card as jc
from metaeval.stats.decisions import score_decisions
from metaeval.stats.figure import figure, number
from metaeval.stats.judge_comparison import compare_judges

NO_POSITION_SCORE = "A score judge rates one report at a time: there is no order to swap."
NO_POSITION_ENSEMBLE = ("The ensemble verdict is stored once per comparison (it combines both "
                        "orders itself): no order to swap.")  # fmt: skip
NO_RHO_PAIRWISE = "A pairwise verdict has no score to correlate with length."
MATCHED_TIES = ("The tie threshold is calibrated to match the experts' tie rate (seed 003 "
                "§A.3; --calibration match-rate): equal by construction on the rows it was "
                "calibrated on.")  # fmt: skip
NO_RUNS = ("The study holds one run of this judge (no other judge with the same provider, "
           "model and prompt).")  # fmt: skip


def _none(note: str) -> dict:
    return figure(None, 0, note=note).as_dict()


@dataclass
class ScoreInput:
    """One score judge's rows: its frame (human medal scores, its own scores), its
    agreement report (for the figures and thresholds), report lengths by (question,
    system)."""

    name: str
    frame: PairFrame
    report: dict
    lengths: dict[tuple[str, str], int | None] = field(default_factory=dict)


# ----------------------------------------------------------------------------- pairwise


def restrict(data: PairwiseData, systems=(), exclude=()) -> PairwiseData:
    """``data`` with only the verdicts and labels of comparisons between selected systems
    (the report's ``systems`` / ``exclude_systems``); comparisons keep their indices."""
    from dataclasses import replace

    names = np.array(data.systems, dtype=object)
    ok_system = np.ones(names.size, bool)
    if systems:
        ok_system &= np.isin(names, list(systems))
    if exclude:
        ok_system &= ~np.isin(names, list(exclude))
    if ok_system.all():
        return data
    keep = ok_system[data.system_a] & ok_system[data.system_b]
    h, j = keep[data.h_item], keep[data.j_item]
    return replace(data, h_item=data.h_item[h], h_annotator=data.h_annotator[h],
                   h_label=data.h_label[h], h_setting=[x for x, k in zip(data.h_setting, h, strict=True) if k],
                   j_judge=data.j_judge[j], j_protocol=[x for x, k in zip(data.j_protocol, j, strict=True) if k],
                   j_item=data.j_item[j], j_order=data.j_order[j], j_verdict=data.j_verdict[j])  # fmt: skip


def _pairwise_rows(data: PairwiseData, judge: str, protocol: str):
    """(verdict per row, comparison per row, order per row) of a judge's protocol: a
    direct judge's two orders are two rows."""
    first, second = data.verdicts(judge, protocol)
    idx = np.arange(first.size)
    if protocol == "ensemble":
        return first, idx, np.zeros(first.size), first, second
    return (np.concatenate((first, second)), np.concatenate((idx, idx)),
            np.concatenate((np.ones(idx.size), np.full(idx.size, 2))), first, second)  # fmt: skip


def pairwise_cards(data: PairwiseData, result: dict, lengths: dict, families: dict,
                   rounds: int, seed: int, medal: tuple | None = None,
                   medal_iaa: dict | None = None) -> dict[str, list[dict]]:  # fmt: skip
    """Judge name -> its pairwise protocol cards.

    The experts are the study's pairwise preferences (``data.h_*``). A study without any
    (ScholarQA-CS2, the demo) but with medal rankings of the same reports passes
    ``medal`` = (comparison per label, decision per label): each expert's medal decision
    of the two reports; the agreement is then the exact share of equal (verdict, expert
    decision) pairs and the experts' own is ``medal_iaa`` (the report's IAA)."""
    words = np.array([[lengths.get(int(a)) or np.nan, lengths.get(int(b)) or np.nan]
                      for a, b in zip(data.report_a, data.report_b, strict=True)],
                     dtype=float).reshape(-1, 2)  # fmt: skip
    longer = jc.longer_side(words[:, 0], words[:, 1])
    q = data.question
    accuracy = {(j["judge"], j["protocol"]): j["accuracy"] for j in result.get("judges", [])}
    h_item, h_label = data.h_item, data.h_label
    by_medal = data.h_item.size == 0 and medal is not None and np.size(medal[0]) > 0
    if by_medal:
        h_item, h_label = np.asarray(medal[0], dtype=int), np.asarray(medal[1], dtype=float)
    out: dict[str, list[dict]] = {}
    for judge in data.judges:
        for protocol in ("direct", "ensemble"):
            verdict, item, _, first, second = _pairwise_rows(data, judge, protocol)
            judged = ~np.isnan(verdict)
            if not judged.any():
                continue
            on = np.zeros(q.size, bool)
            on[item[judged]] = True
            h = on[h_item]  # expert labels of the comparisons the judge judged
            card = {
                "protocol": protocol, "kind": "pairwise",
                "verdicts": int(judged.sum()), "comparisons": int(on.sum()),
                "agreement": accuracy.get((judge, protocol)) or _none("No expert majority."),
                "agreement_reference": "the expert majority (footnote-6 credit)",
                "experts_agreement": result.get("human_vs_majority") or _none("No expert label."),
                "threshold": None,
            }  # fmt: skip
            if by_medal:
                card["agreement"] = jc.label_agreement(verdict, item, h_label, h_item, q,
                                                       rounds, seed).as_dict()  # fmt: skip
                card["agreement_reference"] = "the experts' medal decisions (exact)"
                card["experts_agreement"] = medal_iaa or _none("No comparison two experts judged.")
            if protocol == "direct":
                card["position"] = jc.position_bias(first, second, q, rounds, seed)
            else:
                card["position"] = {"order_consistency": _none(NO_POSITION_ENSEMBLE),
                                    "first_shown": _none(NO_POSITION_ENSEMBLE)}  # fmt: skip
            card["length"] = jc.length_bias(
                verdict[judged], longer[item[judged]], q[item[judged]],
                h_label[h], longer[h_item[h]], q[h_item[h]], rounds, seed)  # fmt: skip
            card["length"]["judge_rho"] = _none(NO_RHO_PAIRWISE)
            card["length"]["experts_rho"] = _none(NO_RHO_PAIRWISE)
            card["ties"] = jc.tie_behaviour(verdict[judged], q[item[judged]], h_label[h],
                                            q[h_item[h]], rounds, seed)  # fmt: skip
            runs = [m for m in families.get(judge, [judge]) if m in data.judges]
            card["runs"] = runs
            if len(runs) > 1:
                arrays = [_pairwise_rows(data, m, protocol)[0] for m in runs]
                card["self_agreement"] = jc.self_agreement(arrays, q[item], rounds, seed)
            else:
                card["self_agreement"] = _none(NO_RUNS)
            out.setdefault(judge, []).append(card)
    return out


# ----------------------------------------------------------------------------- coverage

NO_ORDER_LABEL = "A label of one report's rubric item: there is no order to swap."
NO_PAIR_LABEL = "A label of one rubric item, not a choice between two reports."
COVERAGE_KINDS = {"coverage": "label", "covered": "covered"}


def coverage_cards(data, lengths: dict, families: dict, rounds: int, seed: int) -> dict:
    """Judge name -> its rubric-coverage cards (0–4 ``coverage``, binary ``covered``):
    exact agreement with every expert label beside the experts' own, ρ over reports of
    the judge's mean label with length beside the experts' mean, and self-agreement per
    (report, item); position, pairwise length preference and ties do not apply."""
    q = data.question
    words = np.array([lengths.get(int(r)) or np.nan for r in data.report], dtype=float)
    out: dict[str, list[dict]] = {}
    for protocol, kind in COVERAGE_KINDS.items():
        for judge in data.judges:
            j = data.judge_vector(judge, kind)
            if np.isnan(j).all():
                continue
            e, reference = _experts(data, kind, j)
            if e is None:
                continue
            card = {
                "protocol": protocol, "kind": "labels", "verdicts": int((~np.isnan(j)).sum()),
                "comparisons": int((~np.isnan(j)).sum()), "threshold": None,
                "agreement": jc.equal_share(j, data.h_unit, e, q, rounds, seed).as_dict(),
                "agreement_reference": reference,
                "experts_agreement": jc.experts_equal_share(data.h_unit, e, q, rounds,
                                                            seed).as_dict(),
                "position": {"order_consistency": _none(NO_ORDER_LABEL),
                             "first_shown": _none(NO_ORDER_LABEL)},
                "length": {"judge": _none(NO_PAIR_LABEL), "experts": _none(NO_PAIR_LABEL),
                           "difference": _none(NO_PAIR_LABEL)},
                "ties": {"judge": _none(NO_PAIR_LABEL), "experts": _none(NO_PAIR_LABEL),
                         "difference": _none(NO_PAIR_LABEL)},
            }  # fmt: skip
            card["length"].update(_label_rhos(data, j, e, words, rounds, seed))
            runs = [m for m in families.get(judge, [judge]) if m in data.judges]
            card["runs"] = runs
            card["self_agreement"] = (
                jc.self_agreement([data.judge_vector(m, kind) for m in runs], q, rounds, seed)
                if len(runs) > 1 else _none(NO_RUNS))  # fmt: skip
            out.setdefault(judge, []).append(card)
    return out


BINARISED_REFERENCE = ("each expert's 0–4 label binarised ({0, 1} not covered, {2, 3, 4} "
                       "covered; METHODS §7): the experts gave no binary verdict on these units")  # fmt: skip


def _experts(data, kind: str, judge: np.ndarray) -> tuple[np.ndarray | None, str]:
    """The expert labels a judge's ``kind`` verdicts are compared with, and how the card
    names them: the experts' own labels of that kind where they meet the judge's; for a
    binary judge (ResearcherBench) whose units the experts labelled 0–4 only, those labels
    binarised (tester's study: the benchmark's own judge had no card)."""
    e = data.h_label if kind == "label" else data.h_covered
    met = ~np.isnan(e) & ~np.isnan(judge[data.h_unit])
    if met.any() or (kind == "label" and not np.isnan(e).all()):
        return e, "each expert's label (exact)"
    if kind == "covered":
        from .coverage import binarised

        b = binarised(data.h_label)
        if (~np.isnan(b) & ~np.isnan(judge[data.h_unit])).any():
            return b, BINARISED_REFERENCE
    if np.isnan(e).all():
        return None, ""
    return e, "each expert's label (exact)"


def _label_rhos(data, judge, expert, words, rounds, seed) -> dict:
    """Spearman ρ over reports: the judge's mean label of a report's items with its
    length, beside the experts' mean label."""
    reports, at = np.unique(data.report, return_inverse=True)
    at = at.ravel()
    rq = np.zeros(reports.size, dtype=np.asarray(data.question).dtype)
    rq[at] = data.question
    rw = np.full(reports.size, np.nan)
    rw[at] = words

    def per_report(unit, values):
        ok = ~np.isnan(values)
        total = np.bincount(at[unit[ok]], values[ok], reports.size)
        count = np.bincount(at[unit[ok]], minlength=reports.size)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)

    units = np.arange(data.report.size)
    return {"judge_rho": jc.rank_correlation(per_report(units, judge), rw, rq, rounds, seed),
            "experts_rho": jc.rank_correlation(per_report(data.h_unit, expert), rw, rq, rounds,
                                               seed)}  # fmt: skip


# ----------------------------------------------------------------------------- DeepScholar

NO_ORDER_DS = "A label of one unit (DeepScholar): there is no order to swap."
NO_PAIR_DS = "A label of one unit, not a choice between two reports of a question."
NO_TIE_ORGANIZATION = ("Each order's vote picks the report or the exemplar (no tie); the "
                       "derived label's tie is a split between the orders (position).")  # fmt: skip
NO_EXPERTS_DS = ("Table 3 compares the judge with each expert label; the experts among "
                 "themselves are in the label_iaa section.")  # fmt: skip
ORDERS = ("report_first", "exemplar_first")


def deepscholar_cards(result: dict, labels: list[tuple], families: dict, rounds: int,
                      seed: int) -> dict:  # fmt: skip
    """Judge name -> its DeepScholar label cards, one per kind with a matched unit:
    Table 3's agreement (§10); organization, asked in both orders (seed 002 §8.3.1),
    gets its position figures from the two votes, canonical +1 the report, −1 the
    exemplar (order 1: the report shown first); self-agreement per unit over runs."""
    by_judge: dict[str, dict] = {}
    votes: dict[str, dict] = {}
    for judge, kind, q, report, unit, label in labels:
        if kind == "organization_vote":
            if unit in ORDERS:
                votes.setdefault(judge, {})[(q, report, unit)] = 1.0 if label == "report" else -1.0
        else:
            by_judge.setdefault(judge, {})[(kind, q, report, unit)] = label
    out: dict[str, list[dict]] = {}
    for block in (result or {}).get("judges", []):
        judge = block["judge"]
        for k in block["kinds"]:
            kind = k["kind"]
            if not k.get("n_units"):
                continue
            card = {
                "protocol": kind, "kind": "labels", "verdicts": int(k["n_units"]),
                "comparisons": int(k["n_units"]), "threshold": None,
                "agreement": k["agreement"], "agreement_reference": "each expert's label (Table 3)",
                "experts_agreement": _none(NO_EXPERTS_DS),
                "position": {"order_consistency": _none(NO_ORDER_DS), "first_shown": _none(NO_ORDER_DS)},
                "length": {name: _none(NO_PAIR_DS) for name in
                           ("judge", "experts", "difference", "judge_rho", "experts_rho")},
                "ties": {name: _none(NO_PAIR_DS) for name in ("judge", "experts", "difference")},
            }  # fmt: skip
            if kind == "organization" and votes.get(judge):
                mine = votes[judge]
                keys = sorted({(q, r) for q, r, _ in mine})
                first = np.array([mine.get((q, r, ORDERS[0]), np.nan) for q, r in keys])
                second = np.array([mine.get((q, r, ORDERS[1]), np.nan) for q, r in keys])
                clusters = np.array([q for q, _ in keys])
                card["position"] = jc.position_bias(first, second, clusters, rounds, seed)
                note = _none(NO_TIE_ORGANIZATION)
                card["ties"] = {"judge": note, "experts": note, "difference": note}
            runs = [m for m in families.get(judge, [judge]) if m in by_judge]
            card["runs"] = runs
            if len(runs) > 1:
                units = sorted({u for m in runs for u in by_judge[m] if u[0] == kind},
                               key=lambda u: tuple(str(x) for x in u))  # fmt: skip
                codes: dict = {}
                arrays = [np.array([codes.setdefault(by_judge[m][u], len(codes))
                                    if u in by_judge[m] else np.nan for u in units], dtype=float)
                          for m in runs]  # fmt: skip
                clusters = np.array([u[1] for u in units])
                card["self_agreement"] = jc.self_agreement(arrays, clusters, rounds, seed)
            else:
                card["self_agreement"] = _none(NO_RUNS)
            out.setdefault(judge, []).append(card)
    return out


# ----------------------------------------------------------------------------- score


def _keys(frame: PairFrame) -> list[tuple[str, str, str]]:
    return [(frame.questions[q], frame.systems[a], frame.systems[b])
            for q, a, b in zip(frame.question, frame.system_a, frame.system_b, strict=True)]  # fmt: skip


def score_decisions_by_comparison(frame: PairFrame, metric: str, threshold: float) -> dict:
    """(question, system A, system B) -> the judge's decision at ``threshold`` (one per
    comparison: every expert row of it carries the same two scores)."""
    scores = frame.judge.get(metric)
    if scores is None or len(frame) == 0:
        return {}
    ok = np.isfinite(scores).all(axis=1)
    d = np.full(len(frame), np.nan)
    if ok.any():
        d[ok] = score_decisions(scores[ok, 0], scores[ok, 1], threshold)
    return {k: v for k, v in zip(_keys(frame), d.tolist(), strict=True) if not np.isnan(v)}


def _expert_decisions(frame: PairFrame) -> np.ndarray:
    p = frame.preference
    d = np.sign(p[:, 0] - p[:, 1]) if len(frame) else np.empty(0)
    return np.where(np.isfinite(d), d, np.nan)


def _agreement_figure(row: dict) -> dict:
    ci = row.get("ci") or {}
    low, high = (ci.get("agreement") or [None, None])[:2]
    value = number(row.get("agreement"))
    return {"value": value, "n": int(row.get("n") or 0), "low": number(low), "high": number(high),
            "note": None if value is not None else "No comparison with a judge decision."}  # fmt: skip


def medal_rows(data: PairwiseData, frame: PairFrame, report_of: dict) -> tuple:
    """(comparison per label, decision per label) of the experts' medal rankings on the
    comparisons of ``data``: ``report_of`` maps (question external id, system) to the
    report id; both sides are canonical (A the system first by name)."""
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(data.report_a, data.report_b,
                                                               strict=True))}  # fmt: skip
    items, labels = [], []
    for key, d in zip(_keys(frame), _expert_decisions(frame).tolist(), strict=True):
        ra, rb = report_of.get((key[0], key[1])), report_of.get((key[0], key[2]))
        i = index.get((ra, rb))
        if i is not None and not np.isnan(d):
            items.append(i)
            labels.append(d)
    return np.array(items, dtype=int), np.array(labels, dtype=float)


def iaa_figure(report: dict) -> dict:
    iaa = report.get("iaa") or {}
    value = number(iaa.get("strict"))
    return {"value": value, "n": int(iaa.get("n_pairs") or 0), "low": None, "high": None,
            "note": ("Strict agreement of every two experts' medal decisions (the report's IAA; "
                     "no interval)") if value is not None else "No comparison two experts judged."}  # fmt: skip


class _Comparisons:
    """A frame's rows as integer keys that sort as the names do: a comparison (question,
    system A, system B) and a report (question, system) each become one int64 whose order
    is that of the name tuples, so the score cards' dicts keyed by names (one Python tuple
    per row: 150 s of a 40,000-question page, issue 29) become sorts and ``np.unique`` over
    arrays, with the same comparisons in the same order and the same values."""

    def __init__(self, frame: PairFrame, lengths: dict):
        self.frame = frame
        self.q_rank = _name_ranks(frame.questions)
        self.s_rank = _name_ranks(frame.systems)
        self.n_systems = max(len(frame.systems), 1)
        q = self.q_rank[frame.question] if len(frame) else np.zeros(0, np.int64)
        s = self.s_rank
        self.row_key = (q * self.n_systems + s[frame.system_a]) * self.n_systems + s[frame.system_b]
        self.qname = np.array(frame.questions, dtype=object)[frame.question]
        self.words = _words_matrix(frame, lengths)

    def decided(self, metric: str, threshold: float):
        """``(keys, decisions, rows)`` of the comparisons the judge decided, sorted as their
        names: :func:`score_decisions_by_comparison` as arrays (the last finite row of a
        comparison gives its decision, as the dict kept it)."""
        frame = self.frame
        scores = frame.judge.get(metric)
        if scores is None or len(frame) == 0:
            return None
        rows = np.flatnonzero(np.isfinite(scores).all(axis=1))
        if rows.size == 0:
            return None
        d = score_decisions(scores[rows, 0], scores[rows, 1], threshold).astype(float)
        keys, last = np.unique(self.row_key[rows][::-1], return_index=True)
        last = rows.size - 1 - last
        return keys, d[last], rows[last]

    def longer(self, rows: np.ndarray) -> np.ndarray:
        """:func:`jc.longer_side` of the two reports of each row (NaN: length unknown)."""
        f = self.frame
        q = f.question[rows]
        return jc.longer_side(self.words[q, f.system_a[rows]], self.words[q, f.system_b[rows]])


def _name_ranks(labels: list) -> np.ndarray:
    """Each label's position in the sorted labels (codes need not follow name order)."""
    ranks = np.empty(len(labels), dtype=np.int64)
    ranks[sorted(range(len(labels)), key=labels.__getitem__)] = np.arange(len(labels))
    return ranks


def _words_matrix(frame: PairFrame, lengths: dict) -> np.ndarray:
    """Words of the report of (question code, system code), NaN where unknown or 0 (the
    dict lookups read ``words.get(key) or NaN``)."""
    q_code = {name: i for i, name in enumerate(frame.questions)}
    s_code = {name: i for i, name in enumerate(frame.systems)}
    out = np.full((len(frame.questions), max(len(frame.systems), 1)), np.nan)
    for (question, system), (_, words) in lengths.items():
        q, s = q_code.get(question), s_code.get(system)
        if q is not None and s is not None and words:
            out[q, s] = words
    return out


def score_cards(inputs: list[ScoreInput], families: dict, rounds: int, seed: int) -> dict:
    """Judge name -> its score protocol cards (one per metric it scored)."""
    by_name = {i.name: i for i in inputs}
    out: dict[str, list[dict]] = {}
    for inp in inputs:
        frame, pref = inp.frame, (inp.report.get("preference") or {})
        comparisons = _Comparisons(frame, inp.lengths)
        expert = _expert_decisions(frame)
        qname = comparisons.qname
        el = comparisons.longer(np.arange(len(frame)))
        for metric, row in pref.items():
            threshold = number(row.get("threshold")) or 0.0
            decided = comparisons.decided(metric, threshold)
            if decided is None:
                continue
            keys, jv, rows = decided
            jq = qname[rows]
            jl = comparisons.longer(rows)
            on = np.isin(comparisons.row_key, keys)
            card = {
                "protocol": metric, "kind": "score", "verdicts": int(keys.size),
                "comparisons": int(keys.size), "agreement": _agreement_figure(row),
                "agreement_reference": "the experts' medal decisions",
                "experts_agreement": iaa_figure(inp.report), "threshold": threshold,
                "position": {"order_consistency": _none(NO_POSITION_SCORE),
                             "first_shown": _none(NO_POSITION_SCORE)},
            }  # fmt: skip
            card["length"] = jc.length_bias(jv, jl, jq, expert[on], el[on], qname[on], rounds, seed)
            card["length"].update(_rhos(comparisons, metric, rounds, seed))
            card["ties"] = jc.tie_behaviour(jv, jq, expert[on], qname[on], rounds, seed)
            sel = inp.report.get("selection") or {}
            if sel.get("threshold") is None and sel.get("calibration") == "match-rate":
                card["ties"]["judge"]["note"] = MATCHED_TIES
            runs = [m for m in families.get(inp.name, [inp.name]) if m in by_name]
            card["runs"] = runs
            if len(runs) > 1:
                comps = [(frame.questions[frame.question[i]], frame.systems[frame.system_a[i]],
                          frame.systems[frame.system_b[i]]) for i in rows.tolist()]  # fmt: skip
                arrays = []
                for m in runs:
                    other = by_name[m]
                    t = number(((other.report.get("preference") or {}).get(metric) or {})
                               .get("threshold")) or 0.0  # fmt: skip
                    d = score_decisions_by_comparison(other.frame, metric, t)
                    arrays.append(np.array([d.get(k, np.nan) for k in comps], dtype=float))
                card["self_agreement"] = jc.self_agreement(arrays, jq, rounds, seed)
            else:
                card["self_agreement"] = _none(NO_RUNS)
            out.setdefault(inp.name, []).append(card)
    return out


def _rhos(comparisons: _Comparisons, metric: str, rounds: int, seed: int) -> dict:
    """Spearman ρ over reports of the judge's score with length, and of the experts'
    mean medal value (gold 1, silver ½, bronze 0) with length.

    A report is (question, system), in name order; its judge score is the last one read
    over the rows (side A then B of each row), its medal value the mean of every one."""
    frame = comparisons.frame
    question = np.repeat(frame.question, 2)  # row i side A, row i side B, row i + 1 …
    system = np.column_stack([frame.system_a, frame.system_b]).ravel()
    key = comparisons.q_rank[question] * comparisons.n_systems + comparisons.s_rank[system]
    scores = frame.judge.get(metric)

    def reports(values: np.ndarray, mean: bool) -> tuple:
        ok = np.flatnonzero(np.isfinite(values))
        if mean:
            keys, first, inverse = np.unique(key[ok], return_index=True, return_inverse=True)
            inverse = inverse.ravel()
            x = np.bincount(inverse, weights=values[ok]) / np.bincount(inverse)
            at = ok[first]
        else:
            keys, last = np.unique(key[ok][::-1], return_index=True)
            at = ok[ok.size - 1 - last]
            x = values[at]
        q, s = question[at], system[at]
        return x, comparisons.words[q, s], np.array(frame.questions, dtype=object)[q]

    empty = np.zeros(0)
    out = {}
    for name, got in (
        ("judge_rho", reports(scores.ravel(), False) if scores is not None else None),
        ("experts_rho", reports(frame.preference.ravel(), True)),
    ):
        x, y, q = got if got is not None else (empty, empty, np.zeros(0, dtype=object))
        out[name] = jc.rank_correlation(x, y, q, rounds, seed)
    return out


def score_tests(inputs: list[ScoreInput], rounds: int, seed: int) -> list[dict]:
    """Paired permutation test between every two score judges, per metric, on the
    per-expert-row credit 1 where the judge's decision equals the expert's (the
    ``threshold`` ties strategy's agreement; METHODS §5 "Uncertainty"). A metric only one
    judge scored has no test (its credit is not computed)."""
    scored = Counter(m for inp in inputs for m in (inp.report.get("preference") or {}))
    credit: dict[str, dict] = {}
    for inp in inputs:
        metrics = [m for m in (inp.report.get("preference") or {}) if scored[m] > 1]
        if not metrics:
            continue
        keys = _keys(inp.frame)
        expert = _expert_decisions(inp.frame)
        rows = [(k, inp.frame.annotators[a], inp.frame.settings[s]) for k, a, s in
                zip(keys, inp.frame.annotator, inp.frame.setting, strict=True)]  # fmt: skip
        for metric in metrics:
            row = inp.report["preference"][metric]
            d = score_decisions_by_comparison(
                inp.frame, metric, number(row.get("threshold")) or 0.0
            )
            credit.setdefault(metric, {})[inp.name] = {
                r: float(d[r[0]] == e) for r, e in zip(rows, expert.tolist(), strict=True)
                if r[0] in d and not np.isnan(e)
            }  # fmt: skip
    out = []
    for metric, judges in credit.items():
        for a, b in combinations(sorted(judges), 2):
            units = sorted(set(judges[a]) | set(judges[b]))
            ca = np.array([judges[a].get(u, np.nan) for u in units], dtype=float)
            cb = np.array([judges[b].get(u, np.nan) for u in units], dtype=float)
            q = np.array([u[0][0] for u in units], dtype=object)
            out.append(_test_row(metric, a, b, ca, cb, q, rounds, seed))
    return out


def _test_row(protocol, a, b, ca, cb, q, rounds, seed) -> dict:
    d = compare_judges(ca, cb, q, n_rounds=max(rounds, 1), seed=seed) if q.size else None
    n = d.n_units if d else 0
    return {"protocol": protocol, "a": a, "b": b,
            "agreement_a": number(d.agreement_a) if d else None,
            "agreement_b": number(d.agreement_b) if d else None,
            "difference": number(d.difference) if d else None,
            "pvalue": number(d.pvalue) if d else None, "n": n,
            "questions": d.n_clusters if d else 0,
            "note": None if n else "The two judges share no judged unit."}  # fmt: skip


def medal_tests(data: PairwiseData, medal: tuple, rounds: int, seed: int) -> list[dict]:
    """Paired permutation test between every two pairwise judges against the experts'
    medal decisions: per (comparison, order) the share of the comparison's expert
    decisions the verdict equals (the credit :func:`jc.label_agreement` pools)."""
    e_item, e_label = medal
    counts = np.zeros((data.question.size, 3))
    ok = np.abs(e_label) <= 1
    np.add.at(counts, (e_item[ok], (e_label[ok] + 1).astype(int)), 1)
    total = counts.sum(axis=1)
    out = []
    for protocol in ("direct", "ensemble"):
        credit = {}
        for judge in data.judges:
            verdict, item, *_ = _pairwise_rows(data, judge, protocol)
            if np.isnan(verdict).all():
                continue
            v = np.where(np.isnan(verdict), 0, verdict).astype(int)
            with np.errstate(invalid="ignore", divide="ignore"):
                c = counts[item, v + 1] / total[item]
            credit[judge] = np.where(np.isnan(verdict) | (total[item] == 0), np.nan, c)
            q = data.question[item]
        for a, b in combinations(sorted(credit), 2):
            out.append(_test_row(protocol, a, b, credit[a], credit[b], q, rounds, seed))
    return out


def pairwise_tests(result: dict | None) -> list[dict]:
    """ANALYSES §7's test rows of the pairwise analysis, named by protocol."""
    out = []
    for d in (result or {}).get("judge_differences", []):
        ja, pa = d["a"].rsplit(" ", 1)
        jb, pb = d["b"].rsplit(" ", 1)
        out.append({**d, "protocol": pa if pa == pb else f"{pa} / {pb}", "a": ja, "b": jb})
    return out


# ----------------------------------------------------------------------------- operations


def operations(record: dict | None) -> dict:
    """The runs' records as the card shows them; an imported judge (no run) has every
    figure null with a note."""
    if not record:
        note = "Imported verdicts: the study holds no run record of this judge."
        return {"runs": 0, "requested": None, "parsed": None, "parsed_share": None,
                "refused": None, "failed": None, "tokens": None, "cost": None,
                "seconds": None, "tokens_per_1000": None, "cost_per_1000": None,
                "seconds_per_1000": None, "note": note}  # fmt: skip
    units = record["parsed"] + record["failed"]
    tokens = record["prompt_tokens"] + record["completion_tokens"]
    notes = []
    if record["unfinished"]:
        notes.append(f"{record['unfinished']} run(s) not finished: their time is not counted.")
    return {
        "runs": record["runs"], "requested": record["requested"], "parsed": record["parsed"],
        "parsed_share": number(record["parsed"] / record["requested"]) if record["requested"] else None,
        "refused": record["refused"], "failed": record["failed"], "tokens": tokens,
        "cost": record["cost"], "seconds": record["seconds"] if record["timed_units"] else None,
        "tokens_per_1000": jc.per_thousand(tokens, units),
        "cost_per_1000": jc.per_thousand(record["cost"], units),
        "seconds_per_1000": jc.per_thousand(record["seconds"], record["timed_units"]),
        "note": " ".join(notes) or None,
    }  # fmt: skip


# ----------------------------------------------------------------------------- the card


def judge_cards(cards: dict[str, list[dict]], identity: dict, records: dict,
                tests: list[dict]) -> dict:  # fmt: skip
    """The card of every judge and the table of all of them (one row per judge and
    protocol)."""
    judges = []
    for name in sorted(set(cards) | set(records)):  # a judge with runs only: its operations
        info = identity.get(name, {})
        protocols = sorted(cards.get(name, []), key=lambda c: (c["kind"], c["protocol"]))
        for card in protocols:
            card["line"] = jc.verdict_line(card["protocol"], card)
        judges.append({
            "judge": name, "provider": info.get("provider") or "", "model": info.get("model") or "",
            "prompt_version": info.get("prompt_version") or "",
            "parameters": info.get("parameters") or {},
            "protocols": protocols, "operations": operations(records.get(name)),
            "tests": [t for t in tests if name in (t["a"], t["b"])],
        })  # fmt: skip
    return {"judges": judges, "tests": tests}
