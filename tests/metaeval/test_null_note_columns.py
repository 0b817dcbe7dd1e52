"""Tables whose figures can be null carry a note column saying why (METHODS: a figure
that is not defined is null with a note): the system τ-b table had none, so an empty
``tau_b`` or interval cell of its CSV said nothing while report.json said why; and a
coverage row of one question names its missing binarised interval."""

import numpy as np

from metaeval.analyses.coverage import _binary_block
from metaeval.exports import report_tables
from metaeval.sections.coverage_alignment import _judge_rows
from metaeval.stats.bootstrap import too_few_clusters_note
from metaeval.uncertainty import NO_TAU_INTERVAL


def _system_tau(system: dict) -> tuple[dict, list]:
    (row,), columns = report_tables({"system": system})["system_tau"]
    return row, columns


def test_a_null_system_tau_says_why_in_its_table():
    why = "System τ-b undefined: 1 system with judgments; τ-b needs at least 2."
    row, columns = _system_tau({"tau_b": None, "systems": [], "notes": {"tau_b": why}})
    assert "note" in columns and row["tau_b"] is None and row["note"] == why


def test_a_tau_without_its_interval_says_why():
    ci = {"tau_b": [None, None], "rounds": 100, "level": 0.95, "note": NO_TAU_INTERVAL}
    row, _ = _system_tau({"tau_b": 0.4, "systems": [], "ci": ci})
    assert row["ci_tau_b_low"] is None and row["note"] == NO_TAU_INTERVAL
    row, _ = _system_tau({"tau_b": 0.4, "systems": [], "ci": {"tau_b": [0.1, 0.8]}})
    assert row["note"] is None  # every figure defined: nothing to say


def test_a_binary_judge_row_of_one_question_names_its_missing_interval():
    h, j, q = np.array([2.0, 3, 1]), np.array([1.0, 1, 0]), np.zeros(3)
    block = _binary_block(h, j, q, 100, 0)
    (row,) = _judge_rows({"judges": [{"judge": "rb", "scale": "binary", "all": block}]})
    assert row["binarised"] == 1.0 and row["binarised_low"] is None
    assert f"binarised: {too_few_clusters_note(1)}" in row["note"]
