"""Every section a study's protocol offers and the selection cannot compute is listed under
"Not shown" with its reason, and its downloads answer that reason (a tester's findings on
the report page):

- a DeepScholar study whose one judge (gpt-4.1) has reference-importance labels only lost
  its scoreboard without a word, and ``tables/scoreboard.csv`` answered Django's bare HTML
  404; its Selection line said "Judge —" while the selector showed gpt-4.1;
- a study with expert rankings and no judge showed the "Tie calibration" and "Human vs
  judge decisions" headings over nothing;
- ``report.html`` wrote "Every figure as one table (the scoreboard download):" followed by
  nothing (the download links are left out offline).
"""

import csv
import io
import re
from html import unescape

import pytest
from django.core.cache import cache
from django.test import Client

from judges.models import Judge, JudgeDeepScholarLabel, JudgeScore
from metaeval import sections, views
from metaeval.formatting import report_context
from metaeval.reports import ReportOptions
from metaeval.sections import _kit
from metaeval.sections.base import NO_JUDGE_SCORES, Section
from tests.builders.deepscholar import synthetic_study
from tests.builders.ranked import ranked_study
from tests.builders.users import token_client

pytestmark = pytest.mark.django_db

REFERENCE_ONLY = (
    "no judge has report-level labels (organization, nugget support, retrieval relevance, "
    "entailment) for this study: import them or run a judge"
)


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _not_shown(html: str) -> dict[str, str]:
    """Section key -> the reason of its "Not shown" line, as the page prints them."""
    out = {}
    for line in re.findall(r'<p class="note section-absent">Not shown: (.*?)</p>', html):
        names, reason = line.rsplit("</span>: ", 1)
        for key in re.findall(r'data-absent="([^"]+)"', names):
            out[key] = unescape(reason)
    return out


@pytest.fixture
def reference_only(researcher_user, annotator_user):
    """The DeepScholar builder's study with one judge, gpt-4.1, whose labels are all
    reference importance (question-level: they rank no system)."""
    study = synthetic_study(annotator_user.annotator)
    JudgeDeepScholarLabel.objects.filter(judge__name="always-first").delete()
    JudgeDeepScholarLabel.objects.exclude(kind="reference_importance").delete()
    Judge.objects.filter(name="always-first").delete()
    Judge.objects.filter(name="gpt-4o").update(name="gpt-4.1")
    study.researchers.add(researcher_user)
    return study


def test_a_deepscholar_scoreboard_without_report_labels_is_listed_with_its_reason(
    reference_only, researcher_user
):
    html = _client(researcher_user).get(f"/reports/{reference_only.pk}/").content.decode()
    assert 'id="section-scoreboard"' not in html
    reason = _not_shown(html)["scoreboard"]
    assert reason.startswith(REFERENCE_ONLY), reason
    assert "(reference importance)" in reason
    assert 'id="section-deepscholar_agreement"' in html  # Table 3 is still shown


def test_the_selection_line_names_the_judge_the_sections_read(reference_only, researcher_user):
    """No judge has scores, so the agreement report names none; the sections read
    gpt-4.1's labels and the Judge selector shows it: the line says so."""
    html = _client(researcher_user).get(f"/reports/{reference_only.pk}/").content.decode()
    assert 'Judge <strong data-key="judge">gpt-4.1</strong> (no judge has scores' in html
    assert re.search(r'<option value="gpt-4.1"[^>]*>gpt-4.1</option>', html)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_scoreboard_download_says_why_it_is_not_given(reference_only, researcher_user, fmt):
    got = _client(researcher_user).get(f"/reports/{reference_only.pk}/tables/scoreboard.{fmt}")
    assert got.status_code == 404
    assert got["Content-Type"].startswith("text/plain")
    assert got.content.decode().startswith("table: Benchmark scoreboards")
    assert REFERENCE_ONLY in got.content.decode()
    figure = _client(researcher_user).get(f"/reports/{reference_only.pk}/figures/scoreboard.svg")
    assert figure.status_code == 404 and REFERENCE_ONLY in figure.content.decode()


def test_the_scoreboard_json_download_and_an_api_client_get_the_reason_as_json(
    reference_only, researcher_user
):
    for client, path in ((_client(researcher_user), "json"),
                         (token_client(researcher_user, api=False), "csv")):  # fmt: skip
        got = client.get(f"/reports/{reference_only.pk}/tables/scoreboard.{path}")
        assert got.status_code == 404
        [error] = got.json()["errors"]
        assert error["field"] == "table" and REFERENCE_ONLY in error["message"]


def test_an_unknown_table_is_named_in_the_404(reference_only, researcher_user):
    got = _client(researcher_user).get(f"/reports/{reference_only.pk}/tables/nope.csv")
    assert got.status_code == 404
    assert got.content.decode() == "table: 'nope' is not a table of this report\n"


@pytest.fixture
def no_judge(researcher_user):
    """The ranked study's expert rankings without its judge's scores."""
    study = ranked_study(3)
    JudgeScore.objects.filter(report__question__study=study).delete()
    Judge.objects.filter(name="ranked-judge").delete()
    study.researchers.add(researcher_user)
    return study


def test_without_a_judge_no_heading_is_empty_each_section_says_why(no_judge, researcher_user):
    html = _client(researcher_user).get(f"/reports/{no_judge.pk}/").content.decode()
    for key in ("calibration", "confusion", "scoreboard", "judge_card"):
        assert f'id="section-{key}"' not in html, key
    reasons = _not_shown(html)
    assert reasons["calibration"] == reasons["confusion"] == NO_JUDGE_SCORES
    assert reasons["scoreboard"] == reasons["judge_card"] == _kit.NO_JUDGE
    assert 'Judge <strong data-key="judge">—</strong>' in html


def test_the_offline_report_has_the_scoreboard_table(researcher_user):
    study = ranked_study(3)
    study.researchers.add(researcher_user)
    client = _client(researcher_user)
    html = client.get(f"/reports/{study.pk}/report.html").content.decode()
    table = re.search(r'<table[^>]*id="table-scoreboard".*?</table>', html, re.S)
    assert table is not None, "the offline file names the scoreboard table and has none"
    assert "Every figure as one table" in table.group(0)
    rows = re.findall(r"<tr><td", table.group(0))
    download = client.get(f"/reports/{study.pk}/tables/scoreboard.csv").content.decode()
    expected = list(csv.DictReader(io.StringIO(download)))
    assert expected and len(rows) == len(expected)
    assert f'data-value="{expected[0]["metric"]}"' in table.group(0)


def test_any_section_can_say_why_it_is_not_computed(no_judge):
    """The framework's part, for any section: a None result with an ``unavailable``
    reason is listed under "Not shown"; without one it is left out without a line."""
    said = "this study's protocol offers it; import what it reads."
    sections.register(Section(key="probe_offered", title="Probe offered",
                              compute=lambda analysis: None, table_names=("probe_table",),
                              unavailable=lambda analysis: said, order=999))  # fmt: skip
    sections.register(Section(key="probe_silent", title="Probe silent",
                              compute=lambda analysis: None, order=999))  # fmt: skip
    try:
        entry = views.build_entry(no_judge.pk, ReportOptions())
        shown = {s["section"].key: s for s in report_context(entry, ReportOptions())["sections"]}
        assert shown["probe_offered"]["absent"] == said
        assert shown["probe_silent"]["absent"] is None
        assert sections.table_not_shown("probe_table", entry) == (
            f"Probe offered is not shown for this selection: {said}"
        )
    finally:
        sections.unregister("probe_offered")
        sections.unregister("probe_silent")
