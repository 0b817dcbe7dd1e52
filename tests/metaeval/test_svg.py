"""Issue 14: the page's figures are inline SVG written directly (metaeval.svg), one per
figure of every registered section, each carrying its data's points and interval
whiskers; the page path never imports matplotlib (drawing through it was most of an
uncached page's time)."""

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.core.cache import cache

from metaeval import charts, figures, sections, svg
from metaeval.reports import ReportOptions, build_report
from tests.metaeval.test_reports import tiny_frame

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def entry():
    frame = tiny_frame()
    report = build_report(frame, ReportOptions())
    alignment = {"pearson": {"judges": ["j1", "j2"], "matrix": [[1.0, -0.4], [-0.4, 1.0]],
                             "n": 3}}  # fmt: skip
    return {"report": report, "figures": figures.report_figures(frame, report, ReportOptions()),
            "alignment": alignment}  # fmt: skip


def _parse(text: str) -> ET.Element:
    root = ET.fromstring(text)  # well-formed XML, inlined without namespace
    assert root.tag == "svg" and root.get("role") == "img" and root.get("viewBox")
    ids = root.get("aria-labelledby").split()
    assert [root.find(tag).get("id") for tag in ("title", "desc")] == ids  # accessible name
    assert root.find("title").text and root.find("desc").text
    assert "style" not in text  # the page's CSP allows no inline style
    assert "http" not in text  # names no outside address
    return root


def _all(root, tag, cls):
    return [e for e in root.iter(tag) if cls in (e.get("class") or "").split()]


def _texts(root) -> list[str]:
    return [e.text for e in root.iter("text")]


def _floats(elements, attr):
    return sorted(float(e.get(attr)) for e in elements if e.get(attr))


def test_intervals_carry_every_point_and_whisker_of_their_data():
    rows = [("gpt-4o (direct)", {"value": 0.75, "low": 0.6, "high": 0.9}),
            ("human vs majority", {"value": None, "note": "no majority"}),
            ("binarised PA", {"value": 0.5}),
            ("claude", {"value": 0.25, "low": 0.1, "high": 0.4})]  # fmt: skip
    root = _parse(svg.render(charts.intervals(rows, "agreement", "12 comparisons"),
                             name="t", title="Agreement"))  # fmt: skip
    points = _all(root, "circle", "point")
    assert _floats(points, "data-value") == [0.25, 0.5, 0.75]
    whiskers = _all(root, "line", "whisker")
    assert sorted((float(w.get("data-low")), float(w.get("data-high"))) for w in whiskers) == [
        (0.1, 0.4), (0.6, 0.9)]  # fmt: skip
    # each point sits on its row, inside its whisker, on the x scale the axis shows
    for w in whiskers:
        (p,) = [p for p in points if p.get("cy") == w.get("y1")]
        assert float(w.get("x1")) < float(p.get("cx")) < float(w.get("x2"))
    texts = _texts(root)
    assert {"gpt-4o (direct)", "human vs majority", "n/a", "agreement", "12 comparisons"} <= set(
        texts)  # fmt: skip
    assert "0.0" in texts and "1.0" in texts  # tick labels of xlim (0, 1)
    assert root.find("title").text == "Agreement"
    assert "gpt-4o (direct): 0.75 [0.6, 0.9]" in root.find("desc").text


def test_intervals_fit_the_axis_to_the_data_without_xlim():
    rows = [("a", {"value": 1505.0, "low": 1400.0, "high": 1600.0}), ("b", {"value": 1244.0})]
    root = _parse(svg.render(charts.intervals(rows, "Elo", xlim=None)))
    xs = [float(p.get("cx")) for p in _all(root, "circle", "point")]
    width = float(root.get("viewBox").split()[2])
    assert all(0 < x < width for x in xs) and xs[0] != xs[1]
    assert charts.intervals([], "x") is None


def test_system_has_a_point_per_system_and_judge(entry):
    block = entry["report"]["system"]
    root = _parse(svg.render(charts.build("system", entry)))
    human = [p for p in root.iter() if p.get("data-series") == "human"]
    judge = [p for p in root.iter() if p.get("data-series") == "judge"]
    want = block["systems"]
    assert _floats(human, "data-value") == sorted(s["human_win_rate"] for s in want)
    assert _floats(judge, "data-value") == sorted(s["judge_win_rate"] for s in want)
    assert {s["system"] for s in want} <= set(_texts(root))
    assert "win rate (win 1, tie ½, loss 0)" in _texts(root)


def test_calibration_marks_the_threshold_and_human_tie_rate(entry):
    curves = entry["figures"]["calibration"]["preference"]
    root = _parse(svg.render(charts.build("calibration-preference", entry)))
    panels = _all(root, "g", "panel")
    assert [p.get("data-metric") for p in panels] == list(curves)
    for panel, c in zip(panels, curves.values(), strict=True):
        (point,) = _all(panel, "circle", "point")
        assert float(point.get("data-value")) == c["judge_tie_rate_at_threshold"]
        assert float(point.get("data-threshold")) == c["threshold"]
        (ref,) = _all(panel, "line", "reference")
        assert float(ref.get("data-value")) == c["human_tie_rate"]
        steps = {p.get("data-series"): p.get("d") for p in _all(panel, "path", "curve")}
        # one horizontal run per threshold of the curve (a where="post" step line)
        assert steps["judge_tie_rate"].count("H") == len(c["thresholds"]) - 1
        assert {"threshold t", "rate"} <= set(_texts(panel))


def test_heatmaps_have_a_cell_per_value(entry):
    cm = entry["figures"]["confusion"]["preference"]["overall"]["matrix"]
    root = _parse(svg.render(charts.build("confusion-preference", entry)))
    cells = _all(root, "rect", "cell")
    assert [int(float(c.get("data-value"))) for c in cells] == [v for row in cm for v in row]
    assert {"human", "judge", "A better", "tie", "B better"} <= set(_texts(root))

    root = _parse(svg.render(charts.build("cross-judge", entry)))
    assert [float(c.get("data-value")) for c in _all(root, "rect", "cell")] == [1, -0.4, -0.4, 1]
    assert {"Pearson r", "-0.40", "j1", "j2"} <= set(_texts(root))

    grid = {"annotators": ["ann1", "ann2"], "metrics": ["overall", "answer_recall"],
            "tau_b": [[0.5, None], [-1.0, 0.25]]}  # fmt: skip
    root = _parse(svg.render(charts.alignment(grid)))
    values = [c.get("data-value") for c in _all(root, "rect", "cell")]
    assert values == ["0.5", "", "-1.0", "0.25"]  # a cell without data is drawn "–"
    assert {"Kendall τ-b", "Overall", "Answer recall", "–"} <= set(_texts(root))


def test_both_renderers_draw_the_same_declaration(entry):
    for name in charts.FIGURE_TITLES:
        chart = charts.build(name, entry)
        if chart is None:
            continue
        assert svg.render(chart, name=name).startswith("<svg")
        from metaeval import plots

        assert plots.draw(chart) is not None  # the download's matplotlib figure
    assert charts.build("calibration-metric_wise", entry) is None  # no data: no figure
    with pytest.raises(ValueError, match="chart kind"):
        charts.Chart("pie")


@pytest.mark.django_db
def test_every_section_figure_is_drawn_as_svg_without_matplotlib():
    """Every registered section's figure gives a Chart (drawn by metaeval.svg), on a
    study with a judgment of every kind."""
    from tests.builders.analysis import analysis_world

    cache.clear()
    study, _ = analysis_world(3)
    analysis = sections.Analysis(study.pk, ReportOptions(bootstrap=100, target_half_width=0.05))
    entry = sections.build_entry(analysis)
    drawn = 0
    for name, (section, spec) in sections.figure_specs().items():
        got = spec.draw(sections.section_result(entry, section), entry)
        assert got is None or isinstance(got, charts.Chart), (name, type(got))
        if got is not None:
            drawn += 1
            _parse(entry["svgs"][name])
    assert drawn >= 10, sorted(entry["svgs"])
    with_whiskers = [n for n, s in entry["svgs"].items() if 'class="whisker"' in s]
    assert with_whiskers  # the bootstrap intervals reach the page's figures


PAGE_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    import django
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    call_command("migrate", verbosity=0)
    settings.DEBUG = True
    call_command("demo", verbosity=0)
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["*"]
    from django.contrib.auth import get_user_model
    from django.test import Client
    from annotation.models import Study
    study = Study.objects.get()
    user = get_user_model().objects.create_user("r", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(user)
    before = "matplotlib" in sys.modules
    page = client.get(f"/reports/{study.pk}/")
    change = client.get(f"/reports/{study.pk}/?ties=partial", headers={"HX-Request": "true"})
    print(json.dumps({"before": before, "after": "matplotlib" in sys.modules,
                      "status": [page.status_code, change.status_code],
                      "svgs": [page.content.count(b"<svg"), change.content.count(b"<svg")]}))
    """
)


@pytest.mark.backend_independent("its process makes and uses a SQLite database of its own")
def test_the_report_page_does_not_import_matplotlib(tmp_path):
    """In a fresh process (this one may have imported matplotlib already): the page and a
    selector change, uncached, draw every figure without loading matplotlib."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'page.sqlite3'}",
           "DJANGO_SETTINGS_MODULE": "concord.settings", "PYTHONPATH": str(ROOT)}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", PAGE_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["status"] == [200, 200]
    assert min(got["svgs"]) >= 5, got  # the figures were drawn
    assert got == {**got, "before": False, "after": False}, got
