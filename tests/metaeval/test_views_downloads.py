"""Downloads: every table as CSV, XLSX and JSON; every figure as SVG and PNG; the JSON of
the whole report equal to the command's."""

import csv
import io
import json

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from metaeval import views
from metaeval.reports import ReportOptions
from tests.metaeval.test_views import _empty_cache, command_json, demo  # noqa: F401

pytestmark = pytest.mark.django_db
TABLES = ["iaa", "preference", "metric_wise", "system", "system_tau", "notes", "calibration",
          "confusion", "annotator_judge", "annotator_self"]  # fmt: skip


@pytest.fixture
def researcher(client, researcher_user):
    client.force_login(researcher_user)
    return client


def test_every_table_in_every_format(researcher, demo):  # noqa: F811
    entry = views.cached_entry(demo.pk, ReportOptions())
    tables = views.all_tables(entry)
    assert set(TABLES) <= set(tables)
    for name in tables:
        rows, columns = tables[name]
        base = reverse("metaeval:table", args=[demo.pk, name, "csv"])
        response = researcher.get(base)
        assert response.status_code == 200, name
        assert "attachment" in response["Content-Disposition"]
        got = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert len(got) == len(rows) and list(got[0] if got else columns) == columns
        data = json.loads(researcher.get(base.replace(".csv", ".json")).content)
        assert data == json.loads(json.dumps([{c: r.get(c) for c in columns} for r in rows]))
        xlsx = researcher.get(base.replace(".csv", ".xlsx"))
        sheet = load_workbook(io.BytesIO(xlsx.content)).active
        assert [c.value for c in sheet[1]] == columns
        assert sheet.max_row == len(rows) + 1


def test_table_numbers_equal_the_command_json(researcher, demo):  # noqa: F811
    report = command_json(demo)
    path = reverse("metaeval:table", args=[demo.pk, "preference", "json"])
    rows = json.loads(researcher.get(path).content)
    assert {r["metric"]: r["agreement"] for r in rows} == {
        m: f["agreement"] for m, f in report["preference"].items()
    }
    whole = json.loads(researcher.get(reverse("metaeval:json", args=[demo.pk])).content)
    assert whole == report


def test_options_reach_the_downloads(researcher, demo):  # noqa: F811
    report = command_json(demo, "--ties", "partial")
    path = reverse("metaeval:table", args=[demo.pk, "preference", "json"]) + "?ties=partial"
    rows = json.loads(researcher.get(path).content)
    assert {r["metric"]: r["agreement"] for r in rows} == {
        m: f["agreement"] for m, f in report["preference"].items()
    }


@pytest.mark.backend_independent(
    "matplotlib drawing figures whose data the other tests of this module read on both backends"
)
def test_every_figure_as_svg_and_png(researcher, demo):  # noqa: F811
    for name in ("system", "calibration-preference", "calibration-metric_wise",
                 "confusion-preference", "confusion-metric_wise", "annotator-judge",
                 "annotator-self"):  # fmt: skip
        svg = researcher.get(reverse("metaeval:figure", args=[demo.pk, name, "svg"]))
        assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml", name
        assert b"<svg" in svg.content and b'xmlns="http://www.w3.org/2000/svg"' in svg.content
        png = researcher.get(reverse("metaeval:figure", args=[demo.pk, name, "png"]))
        assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n", name


def test_unknown_names_are_404(researcher, demo):  # noqa: F811
    assert (
        researcher.get(reverse("metaeval:figure", args=[demo.pk, "nope", "svg"])).status_code == 404
    )
    assert (
        researcher.get(reverse("metaeval:figure", args=[demo.pk, "system", "gif"])).status_code
        == 404
    )
    assert (
        researcher.get(reverse("metaeval:table", args=[demo.pk, "nope", "csv"])).status_code == 404
    )
    assert (
        researcher.get(reverse("metaeval:table", args=[demo.pk, "iaa", "txt"])).status_code == 404
    )
