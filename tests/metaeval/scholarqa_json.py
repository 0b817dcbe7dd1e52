"""Released ScholarQA-CS2 JSON records -> :class:`~metaeval.frame.PairFrame`, for tests.

The database importer and ``metaeval.data`` will build the same frame from the database;
this loader exists so that ``metaeval.compat`` can be developed and checked against the
published figures (seed 003, Tables 2-4, 6, 7) before that path exists.

The released files (``../shared/data/scholarqa-cs2/annotation/``, see its README) hold one
record per pair of reports: ``question``, ``models`` [a, b], ``preference_ranking_norm``,
``model_<metric>`` and, where collected, ``human_<metric>``. Three things change on the way
into a frame:

* systems are put in canonical order (``system_a < system_b`` by name, METHODS §5
  "Comparison"); when the file lists them the other way round, the columns of every a/b
  array of that record are swapped, so a decision keeps its meaning;
* a ``human_<metric>`` field a record lacks becomes NaN (the ``assigned`` files have no
  ``human_overall``, ``human_answer_precision``, ``human_answer_recall``), and a judge score
  of ``null`` becomes NaN;
* the file's ``answer_precision`` is Concord's ``answer_relevance`` (METHODS §3, §4).

System names are kept exactly as in the annotation files (``qwen-sqa``, not the report
folder's ``sqa-qwen3_8b_SFT_fullanswer``). Row order is file order, source after source:
the compatibility mode's IAA keeps the *last* pair read per question (METHODS §6 item 3).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from metaeval.frame import ALL_METRICS, PairFrame

#: File metric name -> Concord metric name (METHODS §3: answer relevance).
FILE_METRIC = {metric: metric for metric in ALL_METRICS}
FILE_METRIC["answer_relevance"] = "answer_precision"

#: The near- and deep-expert files carry no annotator field; their rows get this name.
UNATTRIBUTED = "unattributed"

#: (annotator, setting, split) -> file name, in the order the released script reads them.
RELEASED_FILES: dict[tuple[str, str, str], str] = {
    ("ann1", "assigned", "dev"): "pairwise_dev_assigned_ann1.json",
    ("ann2", "assigned", "dev"): "pairwise_dev_assigned_ann2.json",
    ("ann1", "assigned", "test"): "pairwise_test_assigned_ann1.json",
    ("ann2", "assigned", "test"): "pairwise_test_assigned_ann2.json",
    # Setting 2 picks questions of the test set (seed 003 §4.2); Setting 3's questions
    # were written by the experts, so they belong to no benchmark split.
    (UNATTRIBUTED, "near_expert", "test"): "pairwise_chosen.json",
    (UNATTRIBUTED, "deep_expert", "authored"): "pairwise_authored.json",
}

#: The authors' own expert-agreed subset, one file per split (157 + 178 records).
AGREEMENT_ONLY_FILES: dict[str, str] = {
    "dev": "pairwise_dev_assigned_agreement_only.json",
    "test": "pairwise_test_assigned_agreement_only.json",
}


def data_dir() -> Path:
    """Where the shared ScholarQA-CS2 data sit: ``shared/`` is beside the checkout."""
    repo = Path(__file__).resolve().parents[2]
    return repo / ".." / "shared" / "data" / "scholarqa-cs2"


def read_records(path: Path) -> list[dict]:
    """One released annotation file as a list of records."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def load_released(directory: Path | None = None) -> PairFrame:
    """All six released pairwise files as one frame (assigned, near_expert, deep_expert)."""
    annotation = (directory or data_dir()) / "annotation"
    return frame_from_records(
        {key: read_records(annotation / name) for key, name in RELEASED_FILES.items()}
    )


def _pair(record: Mapping, field: str, swap: bool) -> tuple[float, float]:
    """The record's [a, b] value as floats in canonical order; NaN when absent or null."""
    values = record.get(field)
    if values is None:
        return (np.nan, np.nan)
    if len(values) != 2:
        raise ValueError(f"record {record.get('question')!r}: field {field!r} needs 2 values")
    a, b = (np.nan if v is None else float(v) for v in values)
    return (b, a) if swap else (a, b)


def frame_from_records(
    records_by_source: Mapping[tuple[str, str, str], Sequence[Mapping]],
) -> PairFrame:
    """Build one :class:`PairFrame` from released records keyed by (annotator, setting, split).

    Label lists are in first-seen order except ``systems``, which is sorted so that the
    canonical order by name is also the order of the codes.
    """
    rows: list[tuple[str, str, str, bool, Mapping]] = []  # annotator, setting, split, swap
    system_names: set[str] = set()
    for (annotator, setting, split), records in records_by_source.items():
        for record in records:
            a, b = record["models"]
            if a == b:
                raise ValueError(f"record {record['question']!r}: a system compared to itself")
            system_names.update((a, b))
            rows.append((annotator, setting, split, b < a, record))

    systems = sorted(system_names)
    labels: dict[str, list[str]] = {"question": [], "annotator": [], "setting": [], "split": []}
    codes: dict[str, dict[str, int]] = {name: {} for name in labels}

    def code(kind: str, value: str) -> int:
        table = codes[kind]
        if value not in table:
            table[value] = len(table)
            labels[kind].append(value)
        return table[value]

    n = len(rows)
    columns = {name: np.empty(n, dtype=np.int64) for name in labels}
    system_a = np.empty(n, dtype=np.int64)
    system_b = np.empty(n, dtype=np.int64)
    preference = np.empty((n, 2))
    human = {metric: np.empty((n, 2)) for metric in ALL_METRICS}
    judge = {metric: np.empty((n, 2)) for metric in ALL_METRICS}

    for i, (annotator, setting, split, swap, record) in enumerate(rows):
        columns["question"][i] = code("question", record["question"])
        columns["annotator"][i] = code("annotator", annotator)
        columns["setting"][i] = code("setting", setting)
        columns["split"][i] = code("split", split)
        first, second = sorted(record["models"])
        system_a[i] = systems.index(first)
        system_b[i] = systems.index(second)
        if "preference_ranking_norm" not in record:
            raise ValueError(
                f"record {record['question']!r}: field 'preference_ranking_norm' is missing"
            )
        preference[i] = _pair(record, "preference_ranking_norm", swap)
        for metric in ALL_METRICS:
            human[metric][i] = _pair(record, f"human_{FILE_METRIC[metric]}", swap)
            judge[metric][i] = _pair(record, f"model_{FILE_METRIC[metric]}", swap)

    return PairFrame(
        question=columns["question"],
        system_a=system_a,
        system_b=system_b,
        annotator=columns["annotator"],
        setting=columns["setting"],
        split=columns["split"],
        preference=preference,
        human=human,
        judge=judge,
        questions=labels["question"],
        systems=systems,
        annotators=labels["annotator"],
        settings=labels["setting"],
        splits=labels["split"],
    )
