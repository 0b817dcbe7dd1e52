"""Progress bars on the command line (annotation.progress): drawn on stderr for a terminal,
never when stdout is a file or a pipe (issue 18)."""

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


def test_a_judge_run_shows_its_units_on_a_terminal_only(fake_llm, capsys):
    study = build_study(questions=1, systems=("alpha", "beta"))
    make_judge(fake_llm)
    out = Terminal()
    call_command("judge_run", study=study.name, judge="fake-judge", tasks="coverage", stdout=out)
    bar = capsys.readouterr().err
    assert "judge run" in bar and "4/4" in bar and "unit" in bar  # 2 reports × 2 batches
    assert "4/4 units done" in out.getvalue()  # the command's own output is unchanged

    piped = io.StringIO()
    call_command("judge_run", study=study.name, judge="fake-judge", tasks="pairwise", stdout=piped)
    assert capsys.readouterr().err == ""
    assert JudgeRun.objects.filter(status="done").count() == 2


def test_an_export_shows_rows_on_a_terminal_only(capsys, tmp_path):
    study = build_study(questions=2, items=3)
    call_command("export_table", "rubric_item", study=study.name, format="csv",
                 out=str(tmp_path / "items.csv"), stdout=Terminal())  # fmt: skip
    assert "exporting rubric_item" in capsys.readouterr().err
    call_command("export_table", "rubric_item", study=study.name, format="csv",
                 out=str(tmp_path / "items2.csv"), stdout=io.StringIO())  # fmt: skip
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
    with progress.shown(Terminal()), progress.bar(300, "bootstrap", "round") as shown:
        bootstrap_from_cluster_sums(sums, lambda t: t[:, 0] / t[:, 1], 300,
                                    on_rounds=shown.update)  # fmt: skip
    assert "bootstrap" in capsys.readouterr().err and not progress.enabled()
