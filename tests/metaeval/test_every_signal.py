"""Every analysis accepts every human signal the options declare (issue 27: ``majority``
and ``adjudicated`` answered 400 "score_decisions: NaN input" on the demo): the agreement
report, judge alignment, the page and every registered section, on the demo and on a study
with one judgment of every kind. Units without a majority are left out and counted
(METHODS §7)."""

import pytest
from django.urls import reverse

from metaeval import sections
from metaeval.reports import HUMAN_SIGNALS, ReportOptions
from tests.builders.analysis import analysis_world

pytestmark = pytest.mark.django_db

SIGNALS = (None, *HUMAN_SIGNALS)


@pytest.mark.parametrize("signal", SIGNALS)
def test_the_demo_answers_every_signal(client, demo, signal):
    query = f"?human_signal={signal}" if signal else ""
    for name in ("api-agreement", "api-judge-alignment"):
        got = client.get(reverse(name, args=[demo.pk]) + query)
        assert got.status_code == 200, (name, got.content[:300])
    report = client.get(reverse("api-agreement", args=[demo.pk]) + query).json()
    assert report["iaa"]["n_pairs"] > 0  # IAA reads every judgment whatever the signal
    if signal in ("majority", "adjudicated"):
        rows = report["selection"]["human_signal_rows"]
        assert rows["tied"] > 0 and rows["kept"] + rows["tied"] == rows["units"]
        assert any("tied" in n for n in report["notes"])
    page = client.get(reverse("metaeval:report", args=[demo.pk]) + query)
    assert page.status_code == 200
    # A 200 is not enough (session 21: the page answered 200 with its whole body replaced
    # by "score_decisions: NaN input" under majority and adjudicated): the Selection line
    # and the comparison's sections are there, and no internal error is shown.
    html = page.content.decode()
    assert "NaN input" not in html and "Traceback" not in html
    assert "Selection" in html and "Kendall" in html


@pytest.mark.parametrize("signal", SIGNALS)
def test_every_section_takes_every_signal(signal):
    study, _ = analysis_world(2)
    report = sections.report(study.pk, ReportOptions(human_signal=signal, bootstrap=100))
    keys = {s.key for s in sections.registered() if s.payload and not s.in_report}
    absent = {"budget", "deepscholar_agreement", "expertise_triage", "question_authoring"}
    assert keys - absent <= set(report), keys - absent - set(report)
