"""bench/labelstudio.py's pure parts: the data both products get, the answer Label Studio
is sent, the table it prints. Label Studio itself is never installed or started here."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from annotation.importers import run
from annotation.models import Report
from tests.builders.sources import anchors, citations

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(
        "bench_labelstudio", ROOT / "bench/labelstudio.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_generated_reports_are_the_same_for_a_seed_and_differ_by_seed(bench):
    first, again = bench.generate_reports(4, seed=3), bench.generate_reports(4, seed=3)
    assert first == again
    assert first != bench.generate_reports(4, seed=4)
    assert set(first) == set(bench.SYSTEMS) and all(len(v) == 4 for v in first.values())


@pytest.mark.django_db
def test_every_marker_of_the_generated_reports_is_an_anchor_of_its_listed_citation(bench, tmp_path):
    """The bench claims ~10 citations per report: Concord must find and link every one."""
    import json

    records = bench.generate_reports(3, seed=1)["atlas"]
    path = tmp_path / "atlas.json"
    path.write_text(json.dumps(records))
    report = run("reports", path, study="S", format="scholarqa", system="atlas")
    assert report.created["Report"] == 3 and not report.warnings
    for stored in Report.objects.all():
        assert len(citations(pk=stored.pk)) == 10
        placed = anchors(report=stored)
        assert len(placed) == 10
        assert {key for _, _, key, _ in placed} == {str(n) for n in range(1, 11)}
    text = sum(len(s["text"]) for s in records[0]["response"]["sections"])
    assert 1500 <= text <= 2500  # "reports of ~2 KB" (issue 29)


def test_label_studio_tasks_carry_the_same_reports_and_their_references(bench):
    data = bench.generate_reports(2, seed=5)
    tasks = bench.ls_tasks(data)
    assert len(tasks) == 2
    for q, task in enumerate(tasks):
        assert task["data"]["question"] == data["atlas"][q]["question"]
        for letter, system in zip(bench.LETTERS, bench.SYSTEMS, strict=True):
            text = task["data"][f"report_{letter}"]
            for section in data[system][q]["response"]["sections"]:
                assert section["text"] in text
                for citation in section["citations"]:
                    assert f"[{citation['id']}] {citation['title']}" in text


def test_the_label_studio_answer_names_only_controls_of_its_label_config(bench):
    """A result naming a control the config lacks would be refused or stored unseen."""
    names = dict(
        re.findall(r'<(?:Choices|TextArea) name="(\w+)" toName="(\w+)"', bench.LABEL_CONFIG)
    )
    texts = set(re.findall(r'<Text name="(\w+)"', bench.LABEL_CONFIG))
    sent = {}

    class Browser:
        cookies = {}

        def post(self, url, json, headers):
            sent.update(json)
            return type("R", (), {"status_code": 201})()

    client = bench.LabelStudio.__new__(bench.LabelStudio)
    client.base, client.browser = "http://ls", Browser()
    import random

    client.submit(1, 2, random.Random(0))
    assert {r["from_name"]: r["to_name"] for r in sent["result"]} == names
    assert set(names.values()) <= texts
    medals = [r["value"]["choices"][0] for r in sent["result"] if r["type"] == "choices"]
    assert sorted(medals) == sorted(bench.MEDALS)


def test_table_prints_each_ratio_and_na_where_a_figure_is_missing(bench):
    figures = bench.Figures()
    for c, ls in ((100, 200), (120, 260), (90, 250)):
        figures.add("task page (ms)", "concord", c, c / 10)
        figures.add("task page (ms)", "labelstudio", ls, ls / 10)
    figures.single["memory (MB)"] = {"concord": 150.0, "labelstudio": None}
    rows = figures.rows()
    assert ("task page (ms)", 100, 250) in rows  # medians
    assert (
        "task page (ms), server CPU (mean)",
        pytest.approx(31 / 3),
        pytest.approx(71 / 3),
    ) in rows
    out = bench.table(rows).splitlines()
    assert out[1].split()[-1] == "0.40"
    assert out[-1].split()[-1] == "n/a"
    assert bench.ratio(1.0, 0) is None


def test_label_studio_is_never_installed_inside_the_repository(bench):
    """Its venv lives outside the tree (a cache folder), so nothing of ``make test`` or git
    ever sees it; a --venv inside the repository is refused before anything is made."""
    with pytest.raises(SystemExit, match="outside the repository"):
        bench.install_labelstudio(ROOT / "ls-venv")
    assert not (ROOT / "ls-venv").exists()
