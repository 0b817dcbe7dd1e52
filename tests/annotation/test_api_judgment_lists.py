"""Judgment lists that describe themselves (``describe``) and filter server side
(``setting``, ``status``, ``system``, ``updated_since``; issue 28)."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.api import JUDGMENT_KIND_VIEWSETS
from annotation.models import HumanMetricScore, MedalRanking, PairwisePreference, Question
from tests.annotation.test_api_queries import lists_world, with_other_kinds
from tests.builders import world as f

KINDS = ["medal-rankings", "pairwise-preferences", "metric-scores", *JUDGMENT_KIND_VIEWSETS]


@pytest.fixture
def world(db):
    return lists_world("lists")


def url(kind):
    return reverse(f"{kind}-list") if kind in ("medal-rankings",) else f"/api/judgments/{kind}/"


def get(client, kind, **params):
    return client.get(f"/api/judgments/{kind}/", params)


@pytest.mark.parametrize("kind", KINDS)
def test_described_rows_cost_constant_queries(world, kind):
    w, client, _ = world

    def measure():
        with CaptureQueriesContext(connection) as ctx:
            answer = get(client, kind, study=w.study.pk, describe="true", limit=500)
        assert answer.status_code == 200, answer.content[:300]
        return len(ctx.captured_queries), answer.json()["results"]

    small, rows = measure()
    f.grow(w, 6)
    with_other_kinds(w)
    large, more = measure()
    assert len(more) > len(rows) > 0
    assert large == small
    by_id = {q.pk: q for q in w.questions}
    for row in more:
        question = by_id[row["question"]]
        assert row["question_external_id"] == question.external_id
        assert row["question_text"] == question.text
        assert row["annotator_pseudonym"]
        assert "body" not in row and "sections" not in row  # no report text


def test_described_rows_name_their_systems(world):
    w, client, _ = world
    pref = PairwisePreference.objects.filter(study=w.study).order_by("pk").first()
    rows = {r["id"]: r for r in get(client, "pairwise-preferences", describe=1).json()["results"]}
    assert rows[pref.pk]["systems"] == [pref.left.system.name, pref.right.system.name]
    assert rows[pref.pk]["system"] is None
    score = HumanMetricScore.objects.filter(study=w.study).order_by("pk").first()
    rows = {r["id"]: r for r in get(client, "metric-scores", describe=1).json()["results"]}
    assert rows[score.pk]["system"] == score.report.system.name
    assert rows[score.pk]["annotator_pseudonym"] == score.annotator.pseudonym
    ranking = MedalRanking.objects.filter(study=w.study).order_by("pk").first()
    rows = {r["id"]: r for r in get(client, "medal-rankings", describe=1).json()["results"]}
    medals = ranking.medals.order_by("id")
    assert rows[ranking.pk]["systems"] == [m.report.system.name for m in medals]
    rows = get(client, "query-quality", describe=1).json()["results"]
    assert rows and all(r["systems"] == [] and r["system"] is None for r in rows)


def test_filters_by_system_setting_status_and_time(world):
    w, client, _ = world
    system = w.systems[1]
    rows = get(client, "metric-scores", system=system.pk).json()["results"]
    expected = HumanMetricScore.objects.filter(report__system=system)
    assert sorted(r["id"] for r in rows) == sorted(expected.values_list("pk", flat=True))
    rows = get(client, "pairwise-preferences", system=system.pk).json()["results"]
    both = PairwisePreference.objects.filter(left__system=system) | PairwisePreference.objects.filter(right__system=system)  # fmt: skip
    assert sorted(r["id"] for r in rows) == sorted(both.values_list("pk", flat=True))
    rows = get(client, "medal-rankings", system=system.pk).json()["results"]
    assert len(rows) == MedalRanking.objects.filter(medals__report__system=system).distinct().count()  # fmt: skip

    assert get(client, "metric-scores", setting="near_expert").json()["results"] == []
    assert len(get(client, "metric-scores", setting="assigned").json()["results"]) == 2

    first = HumanMetricScore.objects.order_by("pk").first()
    first.assignment.status = "submitted"
    first.assignment.save()
    rows = get(client, "metric-scores", status="submitted").json()["results"]
    assert [r["id"] for r in rows] == [first.pk]

    later = timezone.now() + dt.timedelta(seconds=1)
    assert get(client, "metric-scores", updated_since=later.isoformat()).json()["results"] == []
    HumanMetricScore.objects.filter(pk=first.pk).update(updated_at=later + dt.timedelta(seconds=5))
    rows = get(client, "metric-scores", updated_since=later.isoformat()).json()["results"]
    assert [r["id"] for r in rows] == [first.pk]


@pytest.mark.parametrize(
    ("since", "expected"),
    [
        ("2024-06-01T11:00:00", "late"),  # naive: the server's time, 09:00 UTC
        ("2024-06-01T11:00", "late"),
        ("2024-06-01T09:00:00Z", "late"),  # an offset is kept as given
        ("2024-06-01T12:30:00+02:00", "none"),
        ("2024-06-01", "all"),  # a date: its midnight in the server's time, 22:00 UTC before
        ("2024-06-02", "none"),
        ("2000-01-01T00:00:00", "all"),
    ],
)
def test_updated_since_without_an_offset_or_as_a_date_is_read_in_the_servers_time_zone(
    world, settings, since, expected
):
    """Before the fix a naive time was a 500 (``timezone.utc`` is gone in Django 5), and so
    was a bare date (Django 5's ``parse_datetime`` reads it, so the date branch never ran)."""
    w, client, _ = world
    settings.TIME_ZONE = "Europe/Paris"  # +02:00 in June
    scores = HumanMetricScore.objects.filter(study=w.study).order_by("pk")
    late = scores.first()
    scores.update(updated_at=dt.datetime(2024, 6, 1, 8, 0, tzinfo=dt.UTC))
    scores.filter(pk=late.pk).update(updated_at=dt.datetime(2024, 6, 1, 10, 0, tzinfo=dt.UTC))
    answer = get(client, "metric-scores", study=w.study.pk, updated_since=since)
    assert answer.status_code == 200, answer.content[:300]
    ids = sorted(r["id"] for r in answer.json()["results"])
    want = {"late": [late.pk], "none": [], "all": sorted(scores.values_list("pk", flat=True))}
    assert len(want["all"]) > 1
    assert ids == want[expected]


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("metric-scores", {"setting": "lab"}, "setting"),
        ("metric-scores", {"status": "done"}, "status"),
        ("metric-scores", {"updated_since": "yesterday"}, "updated_since"),
        ("metric-scores", {"updated_since": "2024-13-01"}, "updated_since"),
        ("metric-scores", {"updated_since": "2024-06-01T25:00:00"}, "updated_since"),
        ("metric-scores", {"updated_since": "0001-01-01T00:00:00+05:00"}, "updated_since"),
        ("metric-scores", {"updated_since": "9999-12-31T23:59:59-05:00"}, "updated_since"),
        ("metric-scores", {"system": "x"}, "system"),
        ("query-quality", {"system": "1"}, "system"),
        ("metric-scores", {"describe": "maybe"}, "describe"),
        ("metric-scores", {"setting": ["assigned", "near_expert"]}, "setting"),
        ("metric-scores", {"study": ["1", "2"]}, "study"),
        ("query-quality", {"question": ["1", "2"]}, "question"),
        ("medal-rankings", {"system": ["1", "2"]}, "system"),
        ("metric-scores", {"updated_since": ["2024-06-01", "2024-06-02"]}, "updated_since"),
    ],
)
def test_bad_filter_values_are_a_400_naming_the_field(world, kind, params, field):
    _, client, _ = world
    answer = get(client, kind, **params)
    assert answer.status_code == 400
    assert field in answer.json()


def test_annotators_get_a_blinded_description_and_no_system_filter(world):
    w, _, own = world
    rows = get(own, "metric-scores", describe="true").json()["results"]
    assert rows and all(r["question_text"] and r["annotator_pseudonym"] for r in rows)
    assert not {"systems", "system", "question_external_id"} & {k for r in rows for k in r}
    # a filter not theirs is refused naming it (it was ignored: an unfiltered list that
    # looked filtered), the same answer whatever the value
    for params in ({"system": w.systems[1].pk}, {"system": "x"}, {"annotator": 1}):
        refused = get(own, "metric-scores", **params)
        assert refused.status_code == 403, params
        said = refused.json()["detail"]
        assert f"'{next(iter(params))}'" in said and "study, question" in said
    assert get(own, "metric-scores", setting="assigned").status_code == 200
    assert get(own, "metric-scores", question=w.questions[0].pk).status_code == 200


def test_an_annotator_reads_the_question_text_as_the_task_page_shows_it(world):
    """Blinding: a tracking parameter or text fragment in an address of the question's
    text is not in an annotator's described rows (the one rule of ``annotation.links``);
    researchers read the text as stored."""
    w, client, own = world
    question_pk = get(own, "metric-scores", describe="true").json()["results"][0]["question"]
    question = Question.objects.get(pk=question_pk)
    question.text = f"See https://a.org/p?utm_source=openai#:~:text=a,b first. {question.text}"
    question.save(update_fields=["text"])
    rows = get(own, "metric-scores", describe="true").json()["results"]
    shown = {r["question_text"] for r in rows if r["question"] == question.pk}
    assert shown == {question.text.replace("?utm_source=openai#:~:text=a,b", "")}
    rows = get(client, "metric-scores", describe="true", study=w.study.pk).json()["results"]
    assert {r["question_text"] for r in rows if r["question"] == question.pk} == {question.text}


def test_a_filter_given_twice_with_one_value_still_filters(world):
    w, client, _ = world
    system = w.systems[1].pk
    once = get(client, "metric-scores", system=system).json()["results"]
    assert get(client, "metric-scores", system=[system, system]).json()["results"] == once


def test_schema_documents_the_options():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for kind in KINDS:
        names = {p["name"] for p in schema["paths"][f"/api/judgments/{kind}/"]["get"]["parameters"]}
        assert {"describe", "setting", "status", "system", "updated_since"} <= names, kind


def test_list_columns_declare_what_their_lists_hold(world):
    """A list column declares its ``items`` (a type, or ``{field: type}`` for objects), so a
    client types it with no row to read (parquet ``list<string>``, a list of structs); any
    other JSON value declares none and stays JSON text."""
    w, client, _ = world

    def declared(kind):
        page = get(client, kind, study=w.study.pk, describe="true").json()
        return {c["name"]: c for c in page["columns"]}

    medals = declared("medal-rankings")
    assert medals["medals"] == {"name": "medals", "type": "json",
                                "items": {"report": "string", "medal": "string"}}  # fmt: skip
    assert medals["systems"]["items"] == "string" and "items" not in medals["id"]
    assert declared("rubric-item-quality")["flags"]["items"] == "string"  # JudgmentKind.lists
    assert "items" not in declared("claim-checks")["citation_supports"]  # an object
