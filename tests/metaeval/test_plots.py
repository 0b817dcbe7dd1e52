"""metaeval.plots: SVG and PNG for print, inline SVG without outside addresses."""

import re
import xml.etree.ElementTree as ET

import pytest

from metaeval import figures, plots
from metaeval.reports import ReportOptions, build_report
from tests.metaeval.test_reports import tiny_frame


@pytest.fixture(scope="module")
def entry():
    frame = tiny_frame()
    report = build_report(frame, ReportOptions())
    alignment = {"pearson": {"judges": ["j1", "j2"], "matrix": [[1.0, 0.8], [0.8, 1.0]], "n": 3}}
    return {"report": report, "figures": figures.report_figures(frame, report, ReportOptions()),
            "alignment": alignment}  # fmt: skip


def test_every_figure_is_valid_svg_with_text_as_text(entry):
    for name in ("calibration-preference", "confusion-preference", "annotator-judge",
                 "system", "cross-judge"):  # fmt: skip
        svg = plots.render(plots.build(name, entry), "svg")
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg"), name
        assert b"<text" in svg, f"{name}: text kept as text (svg.fonttype none)"
    svg = plots.render(plots.build("cross-judge", entry), "svg").decode()
    assert "0.80" in svg and "j2" in svg


def test_figures_are_dark_on_white(entry):
    svg = plots.render(plots.build("calibration-preference", entry), "svg").decode()
    assert re.search(r"fill:\s*#ffffff", svg), "white background"
    fills = set(re.findall(r"<text[^>]*style=\"[^\"]*fill:\s*(#[0-9a-f]{6})", svg))
    assert fills <= {"#111111", "#ffffff"}


def test_png_is_a_png(entry):
    assert plots.render(plots.build("system", entry), "png")[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        plots.render(plots.build("system", entry), "gif")


def test_the_same_data_gives_the_same_svg(entry):
    one = plots.render(plots.build("confusion-preference", entry), "svg")
    two = plots.render(plots.build("confusion-preference", entry), "svg")
    assert one == two


def test_inline_svg_names_no_address(entry):
    svg = plots.render(plots.build("system", entry), "svg")
    assert b"http" in svg  # namespaces and the DOCTYPE of the downloadable file
    inline = plots.inline_svg(svg)
    assert inline.startswith("<svg") and "http" not in inline and "<metadata" not in inline


def test_missing_data_draws_nothing(entry):
    assert plots.build("calibration-metric_wise", entry) is None
    assert plots.cross_judge(None) is None
    assert plots.system({"systems": []}) is None
    with pytest.raises(KeyError):
        plots.build("nope", entry)
    assert set(plots.figure_svgs(entry)) == {
        "calibration-preference", "confusion-preference", "annotator-judge", "system",
        "cross-judge"}  # fmt: skip
