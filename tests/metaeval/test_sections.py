"""The report-section framework (issue 14 item 7): one registration reaches the page, the
API, the command, the downloads and the offline HTML; a page computes its report once."""

import csv
import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse

from metaeval import reports, sections
from metaeval.sections import FigureSpec, Section
from tests.builders.ranked import ranked_study

pytestmark = pytest.mark.django_db


def _dummy_compute(analysis):
    # reads the selection the page loaded (no second load) and computes from it
    frame, _, judge = analysis.loaded()
    present = analysis.report["selection"]["systems_present"]
    return {"judge": judge, "rows": [{"system": s, "rank": i + 1} for i, s in enumerate(present)],
            "n": len(frame)}  # fmt: skip


def _dummy_figure(result, entry):
    from metaeval.plots import _figure

    fig = _figure(2, 2)
    fig.subplots().bar([r["system"] for r in result["rows"]], [r["rank"] for r in result["rows"]])
    return fig


@pytest.fixture
def dummy():
    section = sections.register(Section(
        key="dummy_analysis", title="Dummy analysis", compute=_dummy_compute,
        tables=lambda result, entry: {"dummy_ranks": (result["rows"], ["system", "rank"])},
        figures=(FigureSpec("dummy-ranks", "Dummy ranks", _dummy_figure),),
        text=lambda result: f"dummy analysis: {len(result['rows'])} systems",
        order=75,
    ))  # fmt: skip
    cache.clear()
    yield section
    sections.unregister(section.key)
    cache.clear()


@pytest.fixture
def study(client, researcher_user):
    study = ranked_study(4)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    return study


def test_the_built_in_sections_are_registered_in_page_order():
    keys = [s.key for s in sections.registered()]
    built_in = [s.key for s in sections.registered() if s.in_report]
    assert built_in[:4] == ["selection", "iaa", "agreement", "system"]
    # each benchmark's own scoreboard (judge results alone) opens the page (issue 26)
    assert keys[:2] == ["selection", "scoreboard"]
    assert {"judges", "annotators", "calibration", "confusion", "notes"} <= set(keys)


def test_a_registered_section_reaches_every_output(client, study, dummy, tmp_path):
    expected = ["alpha", "beta", "gamma"]
    # the page, with its table and its figure
    html = client.get(reverse("metaeval:report", args=[study.pk])).content.decode()
    assert 'id="section-dummy_analysis"' in html and "Dummy analysis" in html
    assert 'id="table-dummy_ranks"' in html and 'id="figure-dummy-ranks"' in html
    assert html.index('id="section-confusion"') < html.index('id="section-dummy_analysis"')
    # the API
    api = client.get(reverse("api-agreement", args=[study.pk])).json()
    assert [r["system"] for r in api["dummy_analysis"]["rows"]] == expected
    # the command: JSON, text and XLSX
    out = io.StringIO()
    call_command("agreement", "--study", study.name, "--json", stdout=out)
    assert json.loads(out.getvalue())["dummy_analysis"] == api["dummy_analysis"]
    out = io.StringIO()
    call_command("agreement", "--study", study.name, stdout=out)
    assert "dummy analysis: 3 systems" in out.getvalue()
    path = tmp_path / "r.xlsx"
    call_command("agreement", "--study", study.name, "--xlsx", str(path), stdout=io.StringIO())
    from openpyxl import load_workbook

    assert "dummy_ranks" in load_workbook(path).sheetnames
    # the downloads: CSV table, SVG figure, report.json
    got = client.get(reverse("metaeval:table", args=[study.pk, "dummy_ranks", "csv"]))
    rows = list(csv.DictReader(io.StringIO(got.content.decode())))
    assert [r["system"] for r in rows] == expected
    svg = client.get(reverse("metaeval:figure", args=[study.pk, "dummy-ranks", "svg"]))
    assert svg.status_code == 200 and b"<svg" in svg.content
    whole = json.loads(client.get(reverse("metaeval:json", args=[study.pk])).content)
    assert whole["dummy_analysis"] == api["dummy_analysis"]
    # the offline HTML
    offline = client.get(reverse("metaeval:offline", args=[study.pk])).content.decode()
    assert 'id="section-dummy_analysis"' in offline and 'id="table-dummy_ranks"' in offline


def test_without_extra_sections_the_report_is_the_agreement_report(study):
    """The sections add keys and change none; on this study (medal rankings, human metric
    scores and a score judge) those with data are the judge card (issue 27), the
    benchmark's scoreboard and the label IAA of its metric scores (issues 26, 27)."""
    options = reports.ReportOptions()
    got = sections.report(study.pk, options)
    base = reports.agreement_report(study.pk, options)
    assert got.pop("scoreboard")["boards"]  # its judge's scores: the benchmark board
    assert got.pop("label_iaa")["kinds"]  # its human metric scores, doubly annotated
    assert set(got) - set(base) == {"judge_card"}
    # the selection says what its counts cover and counts every judgment kind beside them
    # (tester: "n_judgments: 0" beside figures from 568 coverage labels); nothing changes
    study_counts = got["selection"].pop("study")
    assert study_counts["n_judgments"] >= got["selection"]["n_judgments"]
    assert "comparisons" in got["selection"].pop("counts_cover")
    assert {k: got[k] for k in base} == base


def test_the_schema_types_a_section_by_its_serializer(dummy):
    from rest_framework import serializers

    from concord.report_schema import AgreementReportSerializer, agreement_report_serializer

    class Ranks(serializers.Serializer):
        n = serializers.IntegerField()

    untyped = [s for s in sections.registered() if s.serializer is None]  # built-in + dummy
    assert agreement_report_serializer(untyped) is AgreementReportSerializer
    typed = sections.register(Section(key="typed", title="Typed", compute=lambda a: {"n": 1},
                                      serializer=Ranks))  # fmt: skip
    try:
        shape = agreement_report_serializer(sections.registered())
        assert isinstance(shape().fields["typed"], Ranks)
    finally:
        sections.unregister(typed.key)


def test_a_page_loads_its_selection_once_and_computes_each_report_once(client, study, monkeypatch):
    """Today's page loaded the selection 1 + 1 + 2 × judges times and computed the report
    1 + 2 × judges times; now: one load per judge, and the page's report is the judge
    table's "all data" column of its judge."""
    loads, builds = [], []
    real_load, real_build = reports.load_selection, reports.build_report
    monkeypatch.setattr(reports, "load_selection",
                        lambda *a, **k: loads.append(1) or real_load(*a, **k))  # fmt: skip
    monkeypatch.setattr(reports, "build_report",
                        lambda *a, **k: builds.append(1) or real_build(*a, **k))  # fmt: skip
    html = client.get(reverse("metaeval:report", args=[study.pk]) + "?ties=partial").content
    assert b'id="section-judges"' in html
    n_judges = 1
    assert len(loads) == n_judges
    assert len(builds) == 2 * n_judges  # all data + expert-agreed, per judge
    loads.clear(), builds.clear()
    client.get(reverse("metaeval:report", args=[study.pk]) + "?ties=partial")
    assert loads == [] and builds == []  # cached
