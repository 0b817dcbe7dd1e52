"""The report page under a human signal and a narrowed selection (a tester's findings):

- Human signal majority / adjudicated (``?judge=claude-sonnet-sim&human_signal=majority``
  on the demo) replaced the whole report body with "score_decisions: NaN input; mask
  missing values before deciding": a comparison whose medal rankings tie (no adjudication
  yet) is kept for a metric-wise majority with NaN medals, and the figure data decided
  them. Such a comparison is left out of the figures as of the tables (the signal note
  counts it), and a section whose computation fails is listed under "Not shown" with its
  reason while every other section renders.
- ``systems=atlas-dr`` read "0 judgments of 0 questions … systems —"; with
  ``expert_agreed`` the line counted every judgment (27) while the tables read the subset.
- The offline report wrote its options URL-encoded (``systems=atlas-dr%2Cquill-rag``).
"""

import re
from html import unescape

import numpy as np
import pytest
from django.core.cache import cache
from django.urls import reverse

from metaeval import figures, sections
from metaeval.frame import PairFrame, with_human_signal
from metaeval.reports import ReportOptions, build_report, load_selection
from metaeval.sections.base import Section

pytestmark = pytest.mark.django_db

JUDGE = "claude-sonnet-sim"


def _page(client, study, query: str) -> str:
    got = client.get(reverse("metaeval:report", args=[study.pk]) + query)
    assert got.status_code == 200
    return got.content.decode()


def _line(page: str) -> str:
    """The Selection line as text."""
    found = re.search(r'<p class="selection">(.*?)</p>', page, re.S)
    assert found, "no Selection line"
    return " ".join(unescape(re.sub(r"<[^>]+>", "", found.group(1))).split())


def _key(page: str, key: str) -> str:
    return unescape(re.search(rf'data-key="{key}"[^>]*>(.*?)</span>', page, re.S).group(1))


def _not_shown(page: str) -> dict[str, str]:
    out = {}
    for line in re.findall(r'<p class="note section-absent">Not shown: (.*?)</p>', page):
        names, reason = line.rsplit("</span>: ", 1)
        for key in re.findall(r'data-absent="([^"]+)"', names):
            out[key] = unescape(reason)
    return out


# ----------------------------------------------------------------------------- the signal


def _tied_medals_frame() -> PairFrame:
    """Two annotators, two comparisons of q0: on (a, b) they agree on medals (a better)
    and recall; on (a, c) their medals tie each other out (a vs c) while both score
    answer_recall a better: the majority keeps (a, c) for recall, with NaN medals."""
    n = 4
    return PairFrame(
        question=np.zeros(n, dtype=np.int64),
        system_a=np.zeros(n, dtype=np.int64),
        system_b=np.array([1, 1, 2, 2]),
        annotator=np.array([0, 1, 0, 1]),
        setting=np.zeros(n, dtype=np.int64),
        split=np.zeros(n, dtype=np.int64),
        preference=np.array([[1.0, 0.5], [1.0, 0.5], [1.0, 0.5], [0.5, 1.0]]),
        human={"answer_recall": np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])},
        judge={"overall": np.array([[0.9, 0.2], [0.9, 0.2], [0.8, 0.3], [0.8, 0.3]])},
        questions=["q0"], systems=["a", "b", "c"], annotators=["x", "y"],
        settings=["assigned"], splits=["test"],
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["majority", "adjudicated"])
def test_figures_leave_out_a_comparison_without_a_human_decision(mode):
    """Unit: report_figures raised "score_decisions: NaN input" on the collapsed frame."""
    frame, summary = with_human_signal(_tied_medals_frame(), mode)
    assert len(frame) == 2 and summary["tied"] == 1  # (a, c) kept for recall, medals NaN
    assert np.isnan(frame.preference[1]).all()
    options = ReportOptions(human_signal=mode)
    report = build_report(frame, options)
    data = figures.report_figures(frame, report, options)
    confusion = data["confusion"]["preference"]["overall"]
    assert confusion["n"] == 1 == report["preference"]["overall"]["n"]  # (a, b) only
    assert confusion["matrix"] == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert data["calibration"]["preference"]["overall"]["n"] == 1
    # each annotator's own recall vs their medals: the medal-less comparison left out
    assert data["annotator_self"]["n"] == [[1]]
    assert any("1 tied without adjudication left out" in n for n in report["notes"])


@pytest.mark.parametrize("mode", ["majority", "adjudicated"])
def test_the_demo_page_under_a_human_signal_shows_every_section(client, demo, mode):
    page = _page(client, demo, f"?judge={JUDGE}&human_signal={mode}")
    assert 'id="report-error"' not in page and "NaN input" not in page
    assert _line(page).startswith(f"Judge {JUDGE};")
    for key in ("agreement", "calibration", "confusion", "annotators", "system", "notes"):
        assert f'id="section-{key}"' in page, key
    assert not _not_shown(page)
    frame = load_selection(demo.pk, ReportOptions(judge=JUDGE, human_signal=mode))[0]
    tied = frame.signal["tied"]
    assert tied > 0 and f"{tied} tied without adjudication left out" in unescape(page)


def _broken(analysis):
    raise ValueError("probe: this section cannot be computed")


@pytest.fixture
def broken_section():
    sections.register(Section(key="probe_broken", title="Probe broken", compute=_broken,
                              order=25))  # fmt: skip
    cache.clear()
    yield
    sections.unregister("probe_broken")
    cache.clear()


def test_a_failing_section_is_not_shown_with_its_reason_and_the_rest_renders(
    client, demo, broken_section
):
    page = _page(client, demo, f"?judge={JUDGE}")
    assert 'id="report-error"' not in page
    reason = _not_shown(page)["probe_broken"]
    assert "probe: this section cannot be computed" in reason and "failed" in reason
    assert _line(page).startswith(f"Judge {JUDGE};")
    for key in ("agreement", "calibration", "confusion", "system"):
        assert f'id="section-{key}"' in page, key
    report = sections.report(demo.pk, ReportOptions(judge=JUDGE))  # API and command
    assert report["probe_broken"] is None
    assert any(n.startswith("Probe broken is not shown: ") for n in report["notes"])
    table = client.get(reverse("metaeval:table", args=[demo.pk, "preference", "csv"]))
    assert table.status_code == 200


# ----------------------------------------------------------------------------- the line


def test_one_system_is_named_and_its_comparisons_are_none_with_why(client, demo):
    page = _page(client, demo, f"?judge={JUDGE}&systems=atlas-dr")
    line = _line(page)
    assert _key(page, "systems") == "atlas-dr"
    assert "systems —" not in line and "0 judgments of 0 questions" not in line
    assert "none, as the selection keeps one system (atlas-dr)" in line
    two = _line(_page(client, demo, f"?judge={JUDGE}&systems=atlas-dr&systems=quill-rag"))
    assert "systems atlas-dr, quill-rag;" in two


def test_expert_agreed_counts_what_the_tables_read(client, demo):
    options = ReportOptions(judge=JUDGE, expert_agreed=True)
    frame = load_selection(demo.pk, options)[0]
    # by hand: comparisons of two or more judgments whose medal decisions all agree
    keys = list(zip(frame.setting, frame.question, frame.system_a, frame.system_b, strict=True))
    decision = np.sign(frame.preference[:, 0] - frame.preference[:, 1])
    by_key: dict = {}
    for k, d in zip(keys, decision, strict=True):
        by_key.setdefault(k, []).append(d)
    agreed = {k for k, ds in by_key.items() if len(ds) >= 2 and len(set(ds)) == 1}
    rows = [i for i, k in enumerate(keys) if k in agreed]
    assert 0 < len(rows) < len(frame)  # the subset is smaller than the selection

    report = sections.report(demo.pk, options)
    selection = report["selection"]
    assert selection["n_judgments"] == len(rows)
    assert selection["n_questions"] == len({frame.question[i] for i in rows})
    assert selection["n_annotators"] == len({frame.annotator[i] for i in rows})
    assert selection["expert_agreed_comparisons"] == len(agreed)
    assert selection["expert_agreed_of"]["n_judgments"] == len(frame)
    assert report["preference"]["overall"]["n"] <= len(agreed)

    page = _page(client, demo, f"?judge={JUDGE}&expert_agreed=true")
    assert _key(page, "n_judgments") == str(len(rows))
    assert _key(page, "expert_agreed_comparisons") == str(len(agreed))
    assert f"of the selection's {len(frame)} judgments" in _line(page)


# ----------------------------------------------------------------------------- offline


def test_the_offline_report_says_its_options_decoded(client, demo):
    got = client.get(reverse("metaeval:offline", args=[demo.pk])
                     + f"?judge={JUDGE}&systems=atlas-dr&systems=quill-rag")  # fmt: skip
    html = got.content.decode()
    options = unescape(re.search(r"options: <code>(.*?)</code>", html).group(1))
    assert options == f"systems=atlas-dr,quill-rag&judge={JUDGE}"
    assert "%2C" not in html
