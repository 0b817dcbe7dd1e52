"""DeepScholar-Bench Table 3 (seed 002 §8.11; METHODS §7; docs/ANALYSES.md §10): per judge
and label kind, human–judge agreement (three-way labels compared as is) and Cohen's κ, each
with a cluster-bootstrap CI over questions; a kind with no matched unit is null with a note.
"""

from __future__ import annotations

import numpy as np

from metaeval.loaders.deepscholar import DeepScholarData
from metaeval.stats.deepscholar_agreement import KINDS, table3
from metaeval.stats.signal import collapse, failed_rows

#: The agreements the paper reports (Table 3), shown beside the study's own.
PAPER_AGREEMENT = {
    "organization": 0.78,
    "nugget_importance": 0.72,
    "nugget_support": 0.70,
    "retrieval_relevance": 0.70,
    "reference_importance": 0.82,
    "entailment": 0.80,
}


def _signal_rows(data: DeepScholarData, sel: np.ndarray, signal: str | None,
                 failed=frozenset()):  # fmt: skip
    """(rows, human label per row, tied units) of one judge and kind under the human signal
    (ANALYSES §0, §10): default and ``each``: every expert label; ``majority``: one label
    per unit, the strict plurality, ties left out; ``adjudicated``: the unit's adjudicated
    label (``data.adjudicated``, :func:`metaeval.loaders.deepscholar.load_deepscholar`)
    where there is one, else the majority; neither reads the labels of ``failed`` (the
    annotators who failed qualification, whose labels count nowhere, QUALITY.md)."""
    idx = np.flatnonzero(sel)
    if signal in (None, "each"):
        return idx, data.human[idx], 0, 0
    c, labels = _collapsed(data, data.unit[idx], data.human[idx], data.annotator[idx], signal,
                           failed)  # fmt: skip
    human = np.array([labels[int(k)] for k in c.label], dtype=object)
    return idx[c.rows], human, c.tied, c.adjudicated


def _collapsed(data: DeepScholarData, unit, human, annotator, signal: str, failed):
    """The majority / adjudicated signal of label rows (unit codes, string labels,
    annotator ids), and the label list its codes index."""
    adjudicated = {u: v for u, v in (data.adjudicated or {}).items()
                   if signal == "adjudicated"}  # fmt: skip
    labels = sorted(set(human.tolist()) | set(adjudicated.values()))
    codes = np.array([labels.index(x) for x in human.tolist()], dtype=float)
    c = collapse(unit, codes, signal, {u: float(labels.index(v)) for u, v in adjudicated.items()},
                 failed_rows(annotator, failed))  # fmt: skip
    return c, labels


def unmatched(data: DeepScholarData, judge: str, kind: str, signal: str | None,
              failed=frozenset()) -> int:  # fmt: skip
    """Of the kind's expert labels, those of units ``judge`` did not label, counted as the
    agreement beside it counts its units (``n_units``): default and ``each``: every expert
    label; ``majority`` / ``adjudicated``: one per unit that has a label under the signal
    (ties without an adjudication left out, failed annotators' labels read nowhere). Why:
    an ``unmatched`` of raw labels beside a majority ``n_units`` of units mixes two
    counts, and a unit of three experts would count three times against one."""
    if data.experts is None:  # built without the expert labels: the raw count
        return data.n_unmatched.get((judge, kind), 0)
    e = data.experts
    sel = (e["kind"] == kind) & ~np.isin(e["unit"], list(data.judged_units.get(judge, ())))
    idx = np.flatnonzero(sel)
    if signal in (None, "each") or not idx.size:
        return int(idx.size)
    c, _ = _collapsed(data, e["unit"][idx], e["label"][idx], e["annotator"][idx], signal, failed)
    return int(c.rows.size)


def unmatched_note(signal: str | None) -> str:
    """What ``unmatched`` counted under the human signal."""
    if signal in (None, "each"):
        return ("unmatched: expert labels of units the judge did not label (each expert "
                "label counts).")  # fmt: skip
    return (f"unmatched: units the judge did not label, one per unit under the {signal} "
            "signal (as n_units; tied units without an adjudication and the labels of "
            "annotators who failed qualification left out); human_labels counts every "
            "expert label.")  # fmt: skip


def analyse_deepscholar(data: DeepScholarData, rounds: int = 1000, seed: int = 0,
                        signal: str | None = None, failed=frozenset()) -> dict:  # fmt: skip
    """``{"judges": [{"judge", "kinds": [{kind, agreement, kappa, n_units, n_questions,
    paper, human_labels, unmatched}]}], "unmatched_note"}`` — figures as :class:`Figure`
    dicts; ``unmatched`` counted under the signal (:func:`unmatched`).
    ``signal``, ``failed``: the human side (:func:`_signal_rows`)."""
    out = {"judges": []}
    tied = used = 0
    for judge in data.judges:
        sel = data.judge == judge
        rows = {}
        for kind in KINDS:
            idx, human, t, a = _signal_rows(data, sel & (data.kind == kind), signal, failed)
            rows[kind] = (human, data.verdict[idx], data.question[idx])
            tied, used = tied + t, used + a
        kinds = []
        for result in table3(rows, rounds=rounds, seed=seed):
            block = result.as_dict()
            block["paper"] = PAPER_AGREEMENT[result.kind]
            block["human_labels"] = data.n_human.get(result.kind, 0)
            block["unmatched"] = unmatched(data, judge, result.kind, signal, failed)
            kinds.append(block)
        out["judges"].append({"judge": judge, "kinds": kinds})
    if data.judges:  # the note of the unmatched figures, when there are some
        out["unmatched_note"] = unmatched_note(signal)
    if signal is not None:
        text = ("Human signal: each expert label is a row." if signal == "each" else
                f"Human signal: {signal}, one label per unit ({tied} tied left out, over "
                "judges and kinds).")  # fmt: skip
        if signal == "adjudicated":
            text += f" {used} labels from adjudications (over judges and kinds)."
        said = unmatched_note(signal)
        text += " " + said[0].upper() + said[1:]
        out["human_signal"] = {"mode": signal, "tied": tied, "adjudicated": used, "note": text}
    return out
