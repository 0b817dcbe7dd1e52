"""An ``exclude_systems`` that leaves one system of the study has nothing to rank or
compare: the system τ-b, the preference table and the sections over the comparisons say
so, naming what remains, instead of "no human judgment" (tester's report: the study has
two experts' rankings of three systems on every question)."""

import re
from html import unescape

import pytest
from django.core.cache import cache
from django.test import Client

from metaeval import sections
from metaeval.reports import ReportOptions
from tests.builders.ranked import ranked_study

pytestmark = pytest.mark.django_db

LEFT_ONE = ("exclude_systems (alpha, beta) leaves one system of this study (gamma); "
            "ranking systems, or comparing two reports, needs two")  # fmt: skip


@pytest.fixture
def study():
    cache.clear()
    yield ranked_study(3)  # systems alpha, beta, gamma, two experts, one judge
    cache.clear()


def test_the_report_names_the_one_system_left(study):
    report = sections.report(study.pk, ReportOptions(exclude_systems=("alpha", "beta")))
    assert report["selection"]["systems_left"] == ["gamma"]
    assert report["system"]["notes"]["tau_b"] == f"System τ-b undefined: {LEFT_ONE}."
    assert report["preference"] is None
    assert f"preference is null: {LEFT_ONE}." in report["notes"]
    assert not [n for n in report["notes"] if "no human judgment" in str(n)]


def test_a_selection_with_comparisons_has_no_systems_left(study):
    """Two systems remain: comparisons, figures, and no extra field or query's answer."""
    report = sections.report(study.pk, ReportOptions(exclude_systems=("alpha",)))
    assert "systems_left" not in report["selection"]
    assert report["selection"]["n_judgments"] and report["preference"]


def test_the_page_lists_the_comparison_sections_with_that_reason(study, researcher_user):
    study.researchers.add(researcher_user)
    client = Client()
    client.force_login(researcher_user)
    html = client.get(f"/reports/{study.pk}/?exclude_systems=alpha,beta").content.decode()
    reasons = {}
    for line in re.findall(r'<p class="note section-absent">Not shown: (.*?)</p>', html):
        names, reason = line.rsplit("</span>: ", 1)
        for key in re.findall(r'data-absent="([^"]+)"', names):
            reasons[key] = unescape(reason)
    for key in ("agreement", "system", "iaa", "judges", "annotators"):
        assert reasons.get(key) == f"{LEFT_ONE}.", (key, reasons.get(key))
