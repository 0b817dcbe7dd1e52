"""What the report page says, checked on the demo (a tester's findings):

1. Under human_signal=majority / adjudicated the Selection line said "27 judgments" beside
   a preference table of n=12, and the metric-wise rows had n 8 and 9 with no word of
   why (the ninth comparison's two annotators split on answer relevance: no majority).
2. Internal names on the page: a table headed ``label_iaa`` with columns ``strict_low`` …,
   notes "— null: system τ-b." and "preference is null: …". The downloads keep them.
3. With a pairwise judge (sonnet-pairwise-sim) "Human vs judge" drew empty tables and the
   Not shown reason said "no judge has scores … run a judge" beside 36 parsed verdicts.
"""

import csv
import io
import re
from html import unescape

import pytest
from django.urls import reverse

from metaeval import sections
from metaeval.exports import TABLE_COLUMNS
from metaeval.reports import ReportOptions, load_selection
from metaeval.sections.label_iaa import COLUMNS as LABEL_IAA_COLUMNS

pytestmark = pytest.mark.django_db

JUDGE, PAIRWISE = "claude-sonnet-sim", "sonnet-pairwise-sim"


def _get(client, name: str, study, query: str = "", *args) -> str:
    got = client.get(reverse(f"metaeval:{name}", args=[study.pk, *args]) + query)
    assert got.status_code == 200
    return got.content.decode()


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _line(page: str) -> str:
    found = re.search(r'<p class="selection">(.*?)</p>', page, re.S)
    assert found, "no Selection line"
    return " ".join(unescape(re.sub(r"<[^>]+>", "", found.group(1))).split())


def _table(page: str, name: str) -> str:
    found = re.search(rf'<table[^>]*id="table-{name}".*?</table>', page, re.S)
    assert found, f"no table {name}"
    return found.group(0)


def _n_cells(table: str) -> dict[str, tuple[int, str | None]]:
    """metric -> (n, its n note) of a preference / metric-wise table."""
    out = {}
    for metric, row in re.findall(r'<tr data-metric="([^"]+)"[^>]*>(.*?)</tr>', table, re.S):
        cell = re.search(r'<td class="num" data-key="n" data-value="(\d+)"([^>]*)>', row)
        note = re.search(r'data-n-note="([^"]*)"', cell.group(2))
        out[metric] = (int(cell.group(1)), unescape(note.group(1)) if note else None)
    return out


def _not_shown(page: str) -> dict[str, str]:
    out = {}
    for line in re.findall(r'<p class="note section-absent">Not shown: (.*?)</p>', page):
        names, reason = line.rsplit("</span>: ", 1)
        for key in re.findall(r'data-absent="([^"]+)"', names):
            out[key] = unescape(reason)
    return out


# ----------------------------------------------------------------------------- 1. counts


@pytest.mark.parametrize("mode", ["majority", "adjudicated"])
def test_the_selection_line_says_what_the_signal_keeps(client, demo, mode):
    page = _get(client, "report", demo, f"?judge={JUDGE}&human_signal={mode}")
    signal = load_selection(demo.pk, ReportOptions(judge=JUDGE, human_signal=mode))[0].signal
    units, kept, tied = signal["units"], signal["kept"], signal["tied"]
    assert tied > 0 and kept + tied == units
    line = _line(page)
    assert (f"{units} comparisons; the {mode} signal keeps {kept} of them for the preference "
            f"table ({tied} tied without adjudication left out") in line  # fmt: skip
    # the line reconciles with the table: every preference row counts the kept comparisons
    preference = _n_cells(_table(page, "preference"))
    assert preference and {n for n, _ in preference.values()} == {kept}
    assert all(f"{kept} of {units} comparisons" in note for _, note in preference.values())
    # each annotator's judgments: no signal clause
    assert "signal keeps" not in _line(_get(client, "report", demo, f"?judge={JUDGE}"))


def test_metric_wise_rows_say_what_their_n_leaves_out(client, demo):
    page = _get(client, "report", demo, f"?judge={JUDGE}&human_signal=majority")
    rows = _n_cells(_table(page, "metric_wise"))
    signal = load_selection(demo.pk, ReportOptions(judge=JUDGE, human_signal="majority"))[0]
    per_metric = signal.signal["metric_wise"]
    assert len({n for n, _ in rows.values()}) > 1  # the rows' n differ (8 and 9)
    for metric, (n, note) in rows.items():
        units, tied = per_metric[metric]["units"], per_metric[metric]["tied"]
        assert n + tied == units, metric  # what the note accounts for is all that is left out
        if tied:
            assert note == (f"{n} of {units} comparisons with human scores of this metric; "
                            f"left out: {tied} whose annotators' decisions on this metric tie "
                            "(no majority).")  # fmt: skip
        else:
            assert note is None, metric
    footnotes = _text(re.search(r'<ul class="notes n-notes" data-n-notes="metric_wise">.*?</ul>',
                                page, re.S).group(0))  # fmt: skip
    assert "* n of Answer relev.: 8 of 9 comparisons" in footnotes
    # the report dict (API, report.json) says it on the row; the CSV keeps its columns
    report = sections.report(demo.pk, ReportOptions(judge=JUDGE, human_signal="majority"))
    assert "tie (no majority)" in report["metric_wise"]["answer_relevance"]["n_note"]
    assert "n_note" not in report["metric_wise"]["overall"]
    got = client.get(reverse("metaeval:table", args=[demo.pk, "metric_wise", "csv"])
                     + f"?judge={JUDGE}&human_signal=majority")  # fmt: skip
    assert next(csv.reader(io.StringIO(got.content.decode()))) == TABLE_COLUMNS


def test_each_annotator_has_nothing_left_out_and_no_note(client, demo):
    report = sections.report(demo.pk, ReportOptions(judge=JUDGE))
    for table in ("preference", "metric_wise"):
        assert all("n_note" not in row for row in report[table].values()), table


# ----------------------------------------------------------------------------- 2. names


def test_label_iaa_has_human_headers_on_the_page_and_offline_machine_ones_in_files(client, demo):
    query = f"?judge={JUDGE}"
    for html in (_get(client, "report", demo, query), _get(client, "offline", demo, query)):
        table = _table(html, "label_iaa")
        headers = [unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
        caption = _text(re.search(r"<caption>(.*?)</caption>", table, re.S).group(1))
        assert caption.startswith("Inter-annotator agreement per label kind")
        assert "Krippendorff's α, 95 % CI high" in headers
        assert "Cohen's κ (mean over pairs), 95 % CI low" in headers
        assert not [h for h in headers if "_" in h], headers
        assert 'data-column="krippendorff_alpha_high"' in table  # the key, for scripts
    got = client.get(reverse("metaeval:table", args=[demo.pk, "label_iaa", "csv"]) + query)
    header = next(csv.reader(io.StringIO(got.content.decode())))
    assert header == LABEL_IAA_COLUMNS
    assert {"strict_low", "cohen_kappa_low", "krippendorff_alpha_high"} <= set(header)


def test_notes_are_worded_on_the_page_and_kept_in_the_report(client, demo):
    page = _get(client, "report", demo, f"?judge={PAIRWISE}")
    notes = _text(re.search(r'<ul class="notes">(.*?)</ul>', page, re.S).group(1))
    assert "— null:" not in notes and "is null:" not in notes
    assert "(figures without a value: system τ-b)" in notes
    assert ("Expert preference vs judge scores: no figure for this selection — the judge "
            "has no score of these reports.") in notes  # fmt: skip
    report = sections.report(demo.pk, ReportOptions(judge=PAIRWISE))  # the API's contract
    assert "preference is null: the judge has no score of these reports." in report["notes"]
    assert any(" — null: system τ-b." in n for n in report["notes"])


def test_the_one_declaration_words_keys_and_notes():
    from metaeval import labels

    assert labels.column_label("strict_low") == "Strict agreement, 95 % CI low"
    assert labels.column_label("answer_relevance") == "Answer relev."
    assert labels.column_label("some_new_key") == "Some new key"
    assert labels.table_label("label_iaa") == "Inter-annotator agreement per label kind"
    assert labels.note_text("Why — null: label_iaa score Cohen's κ.") == (
        "Why (figures without a value: Inter-annotator agreement per label kind score "
        "Cohen's κ).")  # fmt: skip
    assert labels.note_text("plain words stay: system, preference.") == (
        "plain words stay: system, preference.")  # fmt: skip


# ----------------------------------------------------------------------------- 3. pairwise


def test_a_pairwise_judge_is_not_shown_empty_and_the_reason_names_where_it_is(client, demo):
    page = _get(client, "report", demo, f"?judge={PAIRWISE}")
    assert "No judgments with these scores in the selection" not in page
    for key in ("agreement", "system", "calibration", "confusion"):
        assert f'id="section-{key}"' not in page, key
    reasons = _not_shown(page)
    expected = (f"{PAIRWISE} gives pairwise preferences, not the per-report scores these "
                "sections compare with the human decisions; its agreement with the experts' "
                "preferences is in the section 'Judges: the judge card (bias, consistency, "
                "operations)'.")  # fmt: skip
    for key in ("agreement", "system", "calibration", "confusion"):
        assert reasons[key] == expected, key
    assert "run a judge" not in " ".join(reasons.values())
    assert 'id="section-judge_card"' in page  # the section the reason names is there
    card = re.search(r'<section[^>]*id="section-judge_card".*?</section>', page, re.S).group(0)
    assert f"{PAIRWISE} direct: agreement" in _text(card)
    # a score judge keeps its sections
    scored = _get(client, "report", demo, f"?judge={JUDGE}")
    for key in ("agreement", "system", "calibration", "confusion"):
        assert f'id="section-{key}"' in scored, key
