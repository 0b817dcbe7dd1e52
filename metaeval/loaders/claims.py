"""Claim checks (seed 003 A.5) and the judges' claim verdicts → aligned arrays. Two queries.

Join rule (docs/ANALYSES.md): an expert's check of a :class:`ReportClaim` is compared with
a judge's :class:`JudgeClaimVerdict` of the *same report* whose claim text is the same
after collapsing whitespace — claims loaded from a judge run carry the judge's extracted
text, so the two sides judge the same span. Citations are matched by citation key.
Skipped checks are left out; a judge verdict 'unknown' is NaN (excluded, METHODS §4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metaeval.stats.claim_support import VERDICT_SUPPORTED
from metaeval.stats.iaa import label_matrix

from ._db import codes, fetch, floats, ints, json_values, settings_filter


def _norm(text: str) -> str:
    return " ".join((text or "").split())


@dataclass
class ClaimData:
    # one row per (check, judge) with a matching verdict
    question: np.ndarray
    report: np.ndarray
    system: np.ndarray  # codes into ``systems``
    judge: np.ndarray  # codes into ``judges``
    human: np.ndarray  # fully supported 1 / 0 (NaN: not answered)
    verdict: np.ndarray  # judge supported 1 / 0 (NaN: unknown)
    # one row per (check, judge, citation) present on both sides
    c_question: np.ndarray
    c_system: np.ndarray
    c_judge: np.ndarray
    c_human: np.ndarray
    c_judge_supports: np.ndarray
    systems: list[str]
    judges: list[str]
    n_checks: int  # non-skipped checks read
    n_unmatched: int  # of those, with no verdict of any judge
    # every non-skipped check, matched or not (for IAA between experts)
    h_claim: np.ndarray | None = None
    h_annotator: np.ndarray | None = None
    h_supported: np.ndarray | None = None  # fully supported 1 / 0 / NaN
    # the unit of each row, for the majority / adjudicated human signal (ANALYSES §0, §5)
    claim: np.ndarray | None = None  # per (check, judge) row: the claim id
    c_unit: np.ndarray | None = None  # per citation row: a code of (claim, citation key)
    #: the adjudicated label (1 / 0) of a claim id / of a ``c_unit`` (adjudicated signal only)
    adj_claim: dict[int, float] | None = None
    adj_cite: dict[int, float] | None = None
    #: the checking expert's annotator id per (check, judge) row and per citation row (the
    #: majority / adjudicated signals leave out those who failed qualification)
    annotator: np.ndarray | None = None
    c_annotator: np.ndarray | None = None

    def human_matrix(self, claims=None) -> np.ndarray:
        """claims × annotators of "fully supported" (NaN = not checked); ``claims`` (ids;
        None: every claim): only these claims (label IAA of a selection of reports)."""
        ok = ~np.isnan(self.h_supported)
        if claims is not None:
            ok &= np.isin(self.h_claim, np.fromiter(claims, dtype=np.int64))
        if not ok.any():
            return np.full((0, 0), np.nan)
        return label_matrix(self.h_claim[ok], self.h_annotator[ok], self.h_supported[ok])[0]


def load_claims(study_id: int, settings=None, adjudicated: bool = False) -> ClaimData:
    """Claim checks and verdicts; with ``adjudicated``, the decided claim-check
    adjudications (one more query), their QC units ``claim <id>@System`` and ``claim <id>
    cites <key>@System`` mapped onto the claim and the (claim, citation) unit."""
    from annotation.models import ClaimCheck
    from judges.models import JudgeClaimVerdict

    h = fetch(
        ClaimCheck.objects.filter(study_id=study_id, skipped=False, **settings_filter(settings))
        .order_by("pk")
        .values_list("question_id", "claim__report_id", "claim__report__system__name",
                     "claim__text", "fully_supported", "citation_supports", "claim_id",
                     "annotator_id", "claim__public_id"),
        9,
    )  # fmt: skip
    j = fetch(
        JudgeClaimVerdict.objects.filter(report__question__study_id=study_id)
        .order_by("pk")
        .values_list("judge__name", "report_id", "text", "verdict", "citations"),
        5,
    )
    judge_codes, judges = codes(j[0])
    by_claim: dict[tuple[int, str], list[int]] = {}
    for row, (rep, text) in enumerate(zip(j[1], j[2], strict=True)):
        by_claim.setdefault((rep, _norm(text)), []).append(row)
    j_cites = json_values(j[4], list)
    h_cites = json_values(h[5], dict)
    system_codes, systems = codes(h[2])
    rows, cites = [], []
    cite_units: dict[tuple[int, str], int] = {}
    unmatched = 0
    for k in range(len(h[0])):
        matches = by_claim.get((h[1][k], _norm(h[3][k])), [])
        unmatched += not matches
        human = np.nan if h[4][k] is None else float(h[4][k])
        for m in matches:
            v = VERDICT_SUPPORTED.get(j[3][m])
            rows.append((h[0][k], h[1][k], system_codes[k], judge_codes[m], human,
                         np.nan if v is None else v, h[6][k], h[7][k]))  # fmt: skip
            judged = {c.get("key"): c.get("supports") for c in j_cites[m] if isinstance(c, dict)}
            for key, supports in h_cites[k].items():
                if key in judged and judged[key] is not None and supports is not None:
                    unit = cite_units.setdefault((h[6][k], key), len(cite_units))
                    cites.append((h[0][k], system_codes[k], judge_codes[m], float(supports),
                                  float(judged[key]), unit, h[7][k]))  # fmt: skip
    adj_claim = adj_cite = None
    if adjudicated:
        claims = {(h[0][k], h[2][k], h[8][k]): h[6][k] for k in range(len(h[0]))}
        adj_claim, adj_cite = _adjudicated(study_id, claims, cite_units)
    r = np.array(rows, dtype=float).reshape(-1, 8)
    c = np.array(cites, dtype=float).reshape(-1, 7)
    return ClaimData(
        question=r[:, 0].astype(np.int64),
        report=r[:, 1].astype(np.int64),
        system=r[:, 2].astype(np.int64),
        judge=r[:, 3].astype(np.int64),
        human=r[:, 4],
        verdict=r[:, 5],
        c_question=c[:, 0].astype(np.int64),
        c_system=c[:, 1].astype(np.int64),
        c_judge=c[:, 2].astype(np.int64),
        c_human=c[:, 3],
        c_judge_supports=c[:, 4],
        systems=systems,
        judges=judges,
        n_checks=len(h[0]),
        n_unmatched=int(unmatched),
        h_claim=ints(h[6]),
        h_annotator=ints(h[7]),
        h_supported=floats(h[4]),
        claim=r[:, 6].astype(np.int64),
        c_unit=c[:, 5].astype(np.int64),
        adj_claim=adj_claim,
        adj_cite=adj_cite,
        annotator=r[:, 7].astype(np.int64),
        c_annotator=c[:, 6].astype(np.int64),
    )


def _adjudicated(study_id: int, claims: dict, cite_units: dict):
    """claim id -> adjudicated "fully supported" and citation unit -> adjudicated "supports"
    (1 / 0) of the decided claim-check adjudications of claims some expert checked."""
    from annotation.quality.labels import parse_claim, split_unit

    from .signal import decided, number

    by_claim, by_cite = {}, {}
    for (_, question, qc_unit), label in decided(study_id, "claim_check").items():
        what, system = split_unit(qc_unit)
        parsed, value = parse_claim(what), number(label)
        claim = None if parsed is None else claims.get((question, system, parsed[0]))
        if claim is None or value is None:
            continue
        if parsed[1] is None:
            by_claim[int(claim)] = value
        elif (claim, parsed[1]) in cite_units:
            by_cite[cite_units[(claim, parsed[1])]] = value
    return by_claim, by_cite
