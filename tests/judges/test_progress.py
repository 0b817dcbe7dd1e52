"""Progress bars on the command line (annotation.progress): drawn on the command's stderr
when it is a terminal, never when stderr is a file, a pipe or a 0×0 pty (issues 18, 28)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import call_command

from annotation import progress
from judges.models import JudgeRun
from metaeval.stats.bootstrap import bootstrap_from_cluster_sums
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_judge_run_shows_one_bar_on_a_terminal_only(fake_llm, monkeypatch):
    """One bar for the run, however many chunks it has (it was one bar per chunk: 59 bars
    for 5,852 units, issue 28); the command's output on stdout is unchanged."""
    from judges import execution

    monkeypatch.setattr(execution, "CHUNK_UNITS", 1)  # 4 units: 4 chunks
    study = build_study(questions=1, systems=("alpha", "beta"))
    make_judge(fake_llm)
    out, err = io.StringIO(), Terminal()
    call_command("judge_run", study=study.name, judge="fake-judge", tasks="coverage",
                 stdout=out, stderr=err)  # fmt: skip
    bar = err.getvalue()
    assert "judge run" in bar and "4/4" in bar and "unit" in bar  # 2 reports × 2 batches
    lines = [line.rpartition("\r")[2] for line in bar.split("\n") if line]
    runs = [line for line in lines if line.startswith("judge run")]
    assert len(runs) == 1 and "4/4" in runs[0], bar  # one bar of the run, closed once
    assert JudgeRun.objects.get().chunks.count() == 4
    assert "4/4 units done" in out.getvalue()

    piped = io.StringIO()
    call_command("judge_run", study=study.name, judge="fake-judge", tasks="pairwise",
                 stdout=Terminal(), stderr=piped)  # fmt: skip
    assert piped.getvalue() == ""  # stderr is not a terminal: no bar, whatever stdout is
    assert JudgeRun.objects.filter(status="done").count() == 2


def test_no_bar_on_a_pty_of_size_0x0():
    """A pty opened without a size (0×0) made tqdm write a line per update (issue 28)."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    try:
        stream = os.fdopen(follower, "w", closefd=False)
        for rows, cols, drawn in ((0, 0, False), (24, 80, True)):
            fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            assert progress.is_terminal(stream) is drawn
            with progress.shown(stream) as on:
                assert on is drawn
    finally:
        os.close(leader)
        os.close(follower)


def test_an_export_shows_rows_on_a_terminal_only(capsys, tmp_path):
    study = build_study(questions=2, items=3)
    err = Terminal()
    call_command("export_table", "rubric_item", study=study.name, format="csv",
                 out=str(tmp_path / "items.csv"), stderr=err)  # fmt: skip
    assert "exporting rubric_item" in err.getvalue()
    call_command("export_table", "rubric_item", study=study.name, format="csv",
                 out=str(tmp_path / "items2.csv"), stderr=io.StringIO())  # fmt: skip
    assert capsys.readouterr().err == ""
    assert (tmp_path / "items.csv").read_text() == (tmp_path / "items2.csv").read_text()


def test_bars_are_silent_outside_commands_and_the_bootstrap_reports_rounds(capsys):
    with progress.bar(10, "outside a command") as shown:
        shown.update(10)
    assert capsys.readouterr().err == ""
    rounds = []
    sums = np.arange(40, dtype=float).reshape(20, 2)
    bootstrap_from_cluster_sums(sums, lambda t: t[:, 0] / t[:, 1], 300, on_rounds=rounds.append)
    assert sum(rounds) == 300
    err = Terminal()
    with progress.shown(err), progress.bar(300, "bootstrap", "round") as shown:
        bootstrap_from_cluster_sums(sums, lambda t: t[:, 0] / t[:, 1], 300,
                                    on_rounds=shown.update)  # fmt: skip
    assert "bootstrap" in err.getvalue() and not progress.enabled()
