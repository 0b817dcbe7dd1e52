"""A ResearcherBench study rated 0–4 by experts with the benchmark's own binary judge
(tester's study): the judge is compared on the binarised scale wherever coverage is
(METHODS §7: {0, 1} not covered, {2, 3, 4} covered), every judge of the report has a
page, and every null figure, missing interval or count says why. Every expected figure
is computed by hand from the builder's labels."""

import csv
import io

import numpy as np
import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.builders.binary_judge import COVERED, GRADED, HUMAN, binary_judge_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(client, researcher_user):
    cache.clear()
    study = binary_judge_study()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    return study


def _by_hand(field_questions=None):
    """Share of expert labels whose binarised value equals the binary judge's verdict."""
    same = [(label >= 2) == COVERED[unit] for unit, labels in HUMAN.items()
            for label in labels if label is not None
            and (field_questions is None or unit[0] in field_questions)]  # fmt: skip
    return sum(same) / len(same), len(same)


def _api(client, study, query=""):
    return client.get(reverse("api-agreement", args=[study.pk]) + query).json()


def test_the_binary_judge_is_compared_on_the_binarised_scale(client, study):
    got = _api(client, study, "?bootstrap=100")
    judges = {j["judge"]: j for j in got["coverage_alignment"]["judges"]}
    assert set(judges) == {"cov-graded", "rb-binary"}  # the binary judge was left out
    binary = judges["rb-binary"]
    share, n = _by_hand()
    assert binary["scale"] == "binary" and binary["all"]["n"] == n == 30
    assert binary["all"]["binarised"]["value"] == pytest.approx(share)
    assert binary["all"]["binarised"]["low"] is not None
    for name in ("exact", "weighted_kappa", "pearson", "mean_difference"):
        fig = binary["all"][name]
        assert fig["value"] is None and "binary covered" in fig["note"], name
    assert binary["fields"]["NLP"]["binarised"]["value"] == pytest.approx(_by_hand({"q1", "q2"})[0])
    # rows: the experts' 0–4 label; columns: the judge's not covered / covered
    confusion = np.array(binary["all"]["confusion"])
    assert confusion.shape == (5, 2) and confusion.sum() == 30
    assert judges["cov-graded"]["scale"] == "0-4"
    # the judge card compares it with the binarised labels and says so
    cards = {j["judge"]: j for j in got["judge_card"]["judges"]}
    card = cards["rb-binary"]["protocols"][0]
    assert card["protocol"] == "covered" and "binarised" in card["agreement_reference"]
    assert card["agreement"]["value"] == pytest.approx(share)
    # its page exists and shows the figure
    page = client.get(reverse("metaeval:judge", args=[study.pk, "rb-binary"]))
    assert page.status_code == 200 and 'data-protocol="covered"' in page.content.decode()
    # the judge-alignment API lists it too, with notes for the 0–4 figures
    rows = {r["judge"]: r for r in
            client.get(reverse("api-judge-alignment", args=[study.pk])).json()["coverage"]}  # fmt: skip
    assert rows["rb-binary"]["binarised"] == pytest.approx(share)
    assert rows["rb-binary"]["pearson"] is None and rows["rb-binary"]["notes"]["pearson"]
    graded = [(h, GRADED[u]) for u, labels in HUMAN.items() for h in labels if h is not None]
    assert rows["cov-graded"]["binarised"] == pytest.approx(
        np.mean([(h >= 2) == (j >= 2) for h, j in graded])
    )


def test_every_judge_of_the_report_has_a_page(client, researcher_user):
    """A judge on the scoreboard whose verdicts meet no expert label has a page saying
    why it has no card; an unknown judge is a 404 page that names it."""
    from judges.models import JudgeCoverage

    cache.clear()
    study = binary_judge_study("rb-alone")
    # its S_c per report stays (the scoreboard), its verdicts per item are gone
    JudgeCoverage.objects.filter(judge__name="rb-binary").delete()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    page = client.get(reverse("metaeval:judge", args=[study.pk, "rb-binary"]))
    text = page.content.decode()
    assert page.status_code == 200 and 'data-no-card="rb-binary"' in text
    assert "no verdict of rb-binary meets an expert label" in text and "scoreboard (" in text
    assert 'data-judge="cov-graded"' in text  # the other judges' cards beside it
    missing = client.get(reverse("metaeval:judge", args=[study.pk, "nobody"]))
    assert (
        missing.status_code == 404
        and "&#x27;nobody&#x27; has no verdict" in missing.content.decode()
    )


def test_judge_alignment_says_why_each_figure_is_null(client, study):
    got = client.get(reverse("api-judge-alignment", args=[study.pk])).json()
    assert got["pearson"]["matrix"] == [[None]]
    assert "No overall score in this selection: rb-binary" in got["pearson"]["note"]
    block = got["judges"][0]["all"]
    assert block["preference"] == {} and "medal ranking" in block["notes"]["preference"]
    # both hold (no medal ranking nor metric-wise score, no judge overall): the note gives
    # the first in its order (metaeval.reports._nothing_to_rank), the Pearson note the other
    assert block["system_tau_b"] is None and "no human judgment" in block["notes"]["system_tau_b"]


def _csv(client, study, table, query):
    got = client.get(reverse("metaeval:table", args=[study.pk, table, "csv"]) + query)
    assert got.status_code == 200, got.status_code
    return list(csv.DictReader(io.StringIO(got.content.decode())))


def test_inter_annotator_tables_have_intervals(client, study):
    got = _api(client, study, "?bootstrap=100")
    hh = got["coverage_alignment"]["human_vs_human"]
    assert hh["pairs"] == 24  # 6 units labelled three times (3 pairs), 6 twice
    for name in ("exact", "binarised", "weighted_kappa", "krippendorff_alpha"):
        assert hh[f"{name}_low"] <= hh[name] <= hh[f"{name}_high"], name
    (kind,) = got["label_iaa"]["kinds"]
    for name in ("strict", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"):
        assert kind[f"{name}_low"] is not None and kind[f"{name}_high"] is not None, name
    row = _csv(client, study, "coverage_human_vs_human", "?bootstrap=100")[0]
    assert row["weighted_kappa_low"] and row["weighted_kappa_high"]
    assert _csv(client, study, "label_iaa", "?bootstrap=100")[0]["krippendorff_alpha_low"]
    plain = _api(client, study)["coverage_alignment"]["human_vs_human"]
    assert plain["exact_low"] is None  # no bootstrap asked: no interval


def test_a_field_of_one_question_says_why_it_has_no_interval(client, study):
    _api(client, study, "?bootstrap=100")
    rows = {(r["judge"], r["field"]): r
            for r in _csv(client, study, "coverage_judges", "?bootstrap=100")}  # fmt: skip
    vision = rows[("cov-graded", "Vision")]  # q3 alone
    assert vision["exact"] and vision["exact_low"] == ""
    assert "at least 2 are needed" in vision["note"]
    assert rows[("cov-graded", "NLP")]["note"] == ""
    assert "binary covered" in rows[("rb-binary", "all")]["note"]
    table = _api(client, study, "?bootstrap=100&tables=true")["tables"]["coverage_judges"]
    assert "note" in table["columns"]  # the client's report.tables
    page = client.get(reverse("metaeval:report", args=[study.pk]) + "?bootstrap=100")
    html = page.content.decode()
    assert 'data-key="exact_low" data-value="" title="exact, binarised' in html


def test_the_selection_counts_what_the_report_used(client, study):
    got = _api(client, study)
    selection = got["selection"]
    assert selection["n_judgments"] == 0  # no medal ranking or metric-wise score
    assert selection["study"]["n_judgments"] == 30 and selection["study"]["n_questions"] == 3
    assert selection["study"]["by_kind"] == {"rubric coverage": 30}
    assert "comparisons of the agreement report" in selection["counts_cover"]
    notes = " ".join(got["notes"])
    assert "No IAA of the comparisons" in notes
    assert "in label_iaa: coverage (12 units)" in notes
    page = client.get(reverse("metaeval:report", args=[study.pk])).content.decode()
    assert 'data-absent="iaa">Inter-annotator agreement on comparisons<' in page
    assert 'id="section-label_iaa"' in page
