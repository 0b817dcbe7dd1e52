"""The baseline: a straightforward pure-Python script doing METHODS §5 loops over the JSON.

What a lab writes by hand: read the records, decide every pair, try every candidate
threshold by looping over all records, count agreements, τ-b, win rates and IAA. It is
the yardstick of ``agreement_scale.py``; its figures must equal Concord's.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

FILE_METRICS = {"overall": "overall", "answer_relevance": "answer_precision",
                "answer_recall": "answer_recall", "citation_precision": "citation_precision",
                "citation_recall": "citation_recall"}  # fmt: skip


def sign(x: float) -> int:
    return (x > 0) - (x < 0)


def report(paths) -> dict:
    rows = []
    for ann, path in enumerate(paths):
        with open(path) as fh:
            for r in json.load(fh):
                a, b = r["models"]
                pa, pb = r["preference_ranking_norm"]
                scores = {m: r[f"model_{f}"] for m, f in FILE_METRICS.items()}
                if b < a:
                    a, b, pa, pb = b, a, pb, pa
                    scores = {m: [v[1], v[0]] for m, v in scores.items()}
                rows.append((ann, r["question"], a, b, sign(pa - pb), scores))
    out = {"preference": {}}
    human_ties = sum(1 for r in rows if r[4] == 0) / len(rows)
    for metric in FILE_METRICS:
        diffs = [abs(r[5][metric][0] - r[5][metric][1]) for r in rows]
        candidates = sorted({0.0, *diffs})
        # tie rate of each candidate: sort the diffs once, walk the candidates
        sd = sorted(diffs)
        best, best_dist, k = 0.0, math.inf, 0
        for t in candidates:
            while k < len(sd) and sd[k] <= t:
                k += 1
            dist = abs(k / len(sd) - human_ties)
            if dist < best_dist - 1e-12:
                best, best_dist = t, dist
        agree = c = d = th = tm = 0
        for r in rows:
            diff = r[5][metric][0] - r[5][metric][1]
            j = 0 if abs(diff) <= best else sign(diff)
            h = r[4]
            agree += h == j
            if h == 0:
                th += 1
            if j == 0:
                tm += 1
            if h and j:
                c += h == j
                d += h != j
        n = len(rows)
        tau = (c - d) / math.sqrt((n - th) * (n - tm)) if (n - th) * (n - tm) else float("nan")
        out["preference"][metric] = {"agreement": agree / n, "tau_b": tau, "threshold": best}
    # system win rates
    pts, games = defaultdict(float), defaultdict(int)
    for r in rows:
        pts[r[2]] += (1 + r[4]) / 2
        pts[r[3]] += (1 - r[4]) / 2
        games[r[2]] += 1
        games[r[3]] += 1
    out["system"] = {s: pts[s] / games[s] for s in games}
    # IAA over all annotator pairs of each comparison
    by_comparison = defaultdict(list)
    for r in rows:
        by_comparison[(r[1], r[2], r[3])].append(r[4])
    equal = pairs = 0
    for labels in by_comparison.values():
        for i in range(len(labels)):
            for j in range(i + 1, len(labels)):
                pairs += 1
                equal += labels[i] == labels[j]
    out["iaa"] = {"strict": equal / pairs if pairs else None}
    return out
