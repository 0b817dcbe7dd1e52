"""Rubric coverage, human and judge, 0–4 and binary → arrays (ResearchQA §3.3,
ResearcherBench §4.3; METHODS §7).

A *unit* is one (report, rubric item). Human labels: one row per annotator's judgment;
judge labels are read only for reports and items some expert labelled (two ``IN``
subqueries, so a study with millions of judge labels and a few percent of human ones
reads about those the analysis compares; the rest is dropped in numpy). Two queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress

import numpy as np

from metaeval.stats.iaa import label_matrix
from metaeval.stats.signal import Collapsed, collapse, failed_rows

from ._db import codes, fetch, floats, ints, settings_filter


@dataclass
class CoverageData:
    # units: one (report, item) with at least one human label
    report: np.ndarray
    item: np.ndarray
    question: np.ndarray  # bootstrap cluster
    field: np.ndarray  # codes into ``fields`` (the question's field; Fig. 11 per field)
    system: np.ndarray  # codes into ``systems``
    weight: np.ndarray  # rubric item weight (ResearcherBench 1–3)
    fields: list[str]
    systems: list[str]
    # human rows
    h_unit: np.ndarray
    h_annotator: np.ndarray
    h_label: np.ndarray  # 0–4, NaN when the binary variant was used
    h_covered: np.ndarray  # 0 / 1, NaN when not given
    # judge rows (only units with a human label)
    j_judge: np.ndarray  # codes into ``judges``
    j_unit: np.ndarray
    j_label: np.ndarray
    j_covered: np.ndarray
    judges: list[str]
    #: unit -> adjudicated 0–4 label / covered 0-1 (read only for the adjudicated signal)
    adj_label: dict[int, float] | None = None
    adj_covered: dict[int, float] | None = None

    def human_matrix(self, kind: str = "label") -> np.ndarray:
        """units × annotators of ``label`` (0–4) or ``covered`` (0/1), NaN = missing."""
        values = self.h_label if kind == "label" else self.h_covered
        out = np.full((self.report.size, 0), np.nan)
        ok = ~np.isnan(values)
        if not ok.any():
            return out
        mat, units, _ = label_matrix(self.h_unit[ok], self.h_annotator[ok], values[ok])
        out = np.full((self.report.size, mat.shape[1]), np.nan)
        out[np.asarray(units, dtype=int)] = mat
        return out

    def judge_vector(self, judge: str, kind: str = "label") -> np.ndarray:
        """The judge's label per unit (NaN where it gave none)."""
        out = np.full(self.report.size, np.nan)
        if judge in self.judges:
            sel = self.j_judge == self.judges.index(judge)
            values = self.j_label if kind == "label" else self.j_covered
            out[self.j_unit[sel]] = values[sel]
        return out

    def signal(self, kind: str = "label", mode: str | None = None,
               failed=frozenset()) -> Collapsed | None:  # fmt: skip
        """The human signal of ``kind`` (None, ``each``: every annotator's row), without
        the labels of ``failed`` (annotators who failed qualification)."""
        if mode in (None, "each"):
            return None
        excluded = failed_rows(self.h_annotator, failed)
        if kind == "label":
            return collapse(self.h_unit, self.h_label, mode, self.adj_label, excluded)
        return collapse(self.h_unit, self.h_covered, mode, self.adj_covered, excluded)

    def human_vs_judge(self, judge: str, kind: str = "label", signal: Collapsed | None = None):
        """Per human label: (human, judge, question, unit); every annotator's judgment is a
        row (the default human signal, METHODS §7), or one row per unit of ``signal``
        (:meth:`signal`). NaN judge where it did not label."""
        h = self.h_label if kind == "label" else self.h_covered
        unit = self.h_unit
        if signal is not None:
            h, unit = signal.label, self.h_unit[signal.rows]
        j = self.judge_vector(judge, kind)[unit]
        return h, j, self.question[unit], unit


def load_coverage(study_id: int, settings=None, adjudicated: bool = False) -> CoverageData:
    """Human rubric coverage of a study and the judges' labels of the same units; with
    ``adjudicated``, the decided rubric-coverage adjudications (one more query) mapped from
    their QC unit ``item <kind>:<position>@System`` of a question onto (report, item)."""
    from annotation.models import RubricCoverage
    from judges.models import JudgeCoverage

    human = RubricCoverage.objects.filter(study_id=study_id, **settings_filter(settings))
    h = fetch(
        human.order_by("pk").values_list(
            "report_id", "item_id", "question_id", "question__field", "report__system__name",
            "item__weight", "annotator_id", "label", "covered", "item__rubric__kind",
            "item__position",
        ),
        11,
    )  # fmt: skip
    # Two uncorrelated IN subqueries (labelled reports, labelled items), not a correlated
    # EXISTS: SQLite ran the EXISTS once per judge row (207 s on 136,000 labels); both
    # engines run these as one semi-join each. They keep a few pairs no one labelled (an
    # item labelled on another system's report), dropped below in numpy.
    j = fetch(
        JudgeCoverage.objects.filter(
            report_id__in=human.values("report_id"), item_id__in=human.values("item_id")
        )
        .order_by("pk")
        .values_list("judge__name", "report_id", "item_id", "label", "covered"),
        5,
    )
    rep, item = ints(h[0]), ints(h[1])
    keys = np.stack((rep, item), 1).reshape(-1, 2)
    uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    field_codes, fields = codes(h[3])
    system_codes, systems = codes(h[4])
    j_keys = np.stack((ints(j[1]), ints(j[2])), 1).reshape(-1, 2)
    j_unit, kept = _find_rows(uniq, j_keys)
    j = [list(compress(column, kept)) for column in j]
    j_judge, judges = codes(j[0])
    adj_label, adj_covered = None, None
    if adjudicated:
        adj_label, adj_covered = _adjudicated(study_id, h, inverse.ravel())
    return CoverageData(
        report=uniq[:, 0],
        item=uniq[:, 1],
        question=ints(h[2])[first],
        field=field_codes[first],
        system=system_codes[first],
        weight=floats(h[5])[first],
        fields=fields,
        systems=systems,
        h_unit=inverse.ravel(),
        h_annotator=ints(h[6]),
        h_label=floats(h[7]),
        h_covered=floats(h[8]),
        j_judge=j_judge,
        j_unit=j_unit,
        j_label=floats(j[3]),
        j_covered=floats(j[4]),
        judges=judges,
        adj_label=adj_label,
        adj_covered=adj_covered,
    )


def _adjudicated(study_id: int, h, unit: np.ndarray):
    """unit -> adjudicated label (0–4) and covered (yes / no) of the decided rubric-coverage
    adjudications whose unit some human labelled (others have no majority to replace)."""
    from annotation.quality.labels import parse_item, split_unit

    from .signal import decided, number

    where = {(h[2][k], h[4][k], h[9][k], h[10][k]): int(unit[k]) for k in range(len(h[0]))}
    label, covered = {}, {}
    for (_, question, qc_unit), value in decided(study_id, "rubric_coverage").items():
        what, system = split_unit(qc_unit)
        item, v = parse_item(what), number(value)
        u = None if item is None else where.get((question, system, *item))
        if u is None or v is None:
            continue
        (covered if value in ("yes", "no") else label)[u] = v
    return label, covered


def _find_rows(sorted_keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index in ``sorted_keys`` (rows of np.unique) of each wanted (report, item) that is
    there, and the mask of those wanted rows."""
    if wanted.shape[0] == 0 or sorted_keys.shape[0] == 0:
        return np.empty(0, dtype=np.int64), np.zeros(wanted.shape[0], dtype=bool)
    scale = int(max(sorted_keys[:, 1].max(initial=0), wanted[:, 1].max(initial=0))) + 1
    flat = sorted_keys[:, 0] * scale + sorted_keys[:, 1]
    want = wanted[:, 0] * scale + wanted[:, 1]
    at = np.minimum(np.searchsorted(flat, want), flat.size - 1)
    kept = flat[at] == want
    return at[kept], kept
