"""A judgments import refuses a record whose required column is missing or names no known
thing, naming the record and field, and writes nothing (tester's report: a re-imported
export whose ``human_metric_score`` said ``"metrc"`` was stored under the metric ``''``,
one saying ``"answer_recal"`` under a new metric, both answered 200 "created"). The human
metrics are declared once (``annotation.annotate.scores.HUMAN_METRICS``); the API's write
path for metric scores checks them too."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, run
from annotation.models import HumanMetricScore
from tests.annotation.test_api_import import post, upload
from tests.annotation.test_judgments_import_values import as_file, of_kind, stored, two

pytestmark = pytest.mark.django_db
__all__ = ["two"]  # the fixture, imported for the tests here


def refused(b, lines, n: int, field: str) -> str:
    """The import's refusal of ``lines``, which must name record ``n`` and ``field`` and
    write nothing."""
    with pytest.raises(ImportFailed) as failed:
        run("judgments", as_file(lines), study=b)
    assert (n + 1, field) in [(p.record, p.field) for p in failed.value.problems], str(failed.value)
    assert stored(b) == 0
    return str(failed.value)


def test_a_misspelt_metric_is_refused_naming_the_close_one(two):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    lines[n]["metric"] = "answer_recal"
    says = refused(b, lines, n, "metric")
    assert "unknown metric 'answer_recal'; did you mean 'answer_recall'?" in says


@pytest.mark.parametrize("change", ["missing", "renamed", "null", "empty"])
def test_a_metric_score_without_its_metric_is_refused(two, change):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    metric = lines[n].pop("metric")
    if change == "renamed":
        lines[n]["metrc"] = metric
    elif change != "missing":
        lines[n]["metric"] = None if change == "null" else ""
    refused(b, lines, n, "metric")


@pytest.mark.parametrize(
    "kind, field",
    [
        ("pairwise_preference", "reason"),
        ("report_rating", "dimension"),
        ("claim_assessment", "text"),
        ("rubric_item_quality", "emphasis"),
        ("rubric_item_quality", "necessity"),
    ],
)
def test_a_missing_required_column_is_refused_not_stored_empty(two, kind, field):
    _, b, lines = two
    n = of_kind(lines, kind)
    del lines[n][field]
    assert "required" in refused(b, lines, n, field)


def test_a_missing_optional_column_still_takes_its_default(two):
    """A blank-able column (a query's comment) may be left out: stored empty, as before."""
    _, b, lines = two
    n = of_kind(lines, "query_quality")
    del lines[n]["comment"]
    run("judgments", as_file(lines), study=b)
    assert stored(b) > 0


def test_every_released_human_metric_imports(two):
    """The metrics a ScholarQA-CS2 import stores (rank-like, consensus) are known."""
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    extra = [dict(lines[n], metric="rank_citation_recall", value=1.5),  # a rank, on [1, 3]
             dict(lines[n], metric="consensus_medal_score", value=0.75)]  # fmt: skip
    run("judgments", as_file(lines + extra), study=b)
    assert set(HumanMetricScore.objects.filter(study=b).values_list("metric", flat=True)) == {
        "overall", "rank_citation_recall", "consensus_medal_score",
    }  # fmt: skip


def test_the_import_api_answers_400_naming_record_and_field(two, admin_user):
    _, b, lines = two
    n = of_kind(lines, "human_metric_score")
    lines[n]["metric"] = "answer_recal"
    response = post(admin_user, b, kind="judgments", format="jsonl",
                    file=upload("judgments.jsonl", as_file(lines)))  # fmt: skip
    assert response.status_code == 400, response.content
    assert f"record {n + 1}" in response.content.decode()
    assert "answer_recal" in response.content.decode()
    assert stored(b) == 0


def test_the_metric_score_api_refuses_an_unknown_metric(two, admin_user):
    _, b, _ = two
    q = b.questions.get()
    report = q.reports.order_by("system__name").first()
    from annotation.models import Annotator

    body = {"study": b.pk, "annotator": Annotator.objects.create(pseudonym="api-x").pk,
            "question": q.pk, "setting": "assigned", "report": report.public_id,
            "value": 0.5}  # fmt: skip
    client = APIClient()
    client.force_authenticate(admin_user)
    url = reverse("human-metric-score-list")
    response = client.post(url, {**body, "metric": "answer_recal"}, format="json")
    assert response.status_code == 400, response.content
    assert "did you mean 'answer_recall'" in str(response.json())
    assert not HumanMetricScore.objects.filter(study=b).exists()
    assert client.post(url, {**body, "metric": "answer_recall"}, format="json").status_code == 201
