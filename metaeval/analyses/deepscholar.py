"""DeepScholar-Bench Table 3 (seed 002 §8.11; METHODS §7; docs/ANALYSES.md §10): per judge
and label kind, human–judge agreement (three-way labels compared as is) and Cohen's κ, each
with a cluster-bootstrap CI over questions; a kind with no matched unit is null with a note.
"""

from __future__ import annotations

from metaeval.loaders.deepscholar import DeepScholarData
from metaeval.stats.deepscholar_agreement import KINDS, table3

#: The agreements the paper reports (Table 3), shown beside the study's own.
PAPER_AGREEMENT = {
    "organization": 0.78,
    "nugget_importance": 0.72,
    "nugget_support": 0.70,
    "retrieval_relevance": 0.70,
    "reference_importance": 0.82,
    "entailment": 0.80,
}


def analyse_deepscholar(data: DeepScholarData, rounds: int = 1000, seed: int = 0) -> dict:
    """``{"judges": [{"judge", "kinds": [{kind, agreement, kappa, n_units, n_questions,
    paper, human_labels, unmatched}]}]}`` — figures as :class:`Figure` dicts."""
    out = {"judges": []}
    for judge in data.judges:
        sel = data.judge == judge
        rows = {
            kind: (data.human[m], data.verdict[m], data.question[m])
            for kind in KINDS
            for m in [sel & (data.kind == kind)]
        }
        kinds = []
        for result in table3(rows, rounds=rounds, seed=seed):
            block = result.as_dict()
            block["paper"] = PAPER_AGREEMENT[result.kind]
            block["human_labels"] = data.n_human.get(result.kind, 0)
            block["unmatched"] = data.n_unmatched.get(result.kind, 0)
            kinds.append(block)
        out["judges"].append({"judge": judge, "kinds": kinds})
    return out
