"""Shapes and write rules of the API: structured reports, assignments, judgments."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Assignment, Medal, Report
from tests.builders import world as f
from tests.builders.sources import anchors, citation


@pytest.fixture
def world(annotator_user, other_annotator_user, researcher_user):
    """The world of the permission tests; the researcher reads its study."""
    w = f.build_world(annotator_user, other_annotator_user)
    w.study.researchers.add(researcher_user)
    return w


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_report_structure(world, researcher_user):
    r = world.own["report"]
    body = client_for(researcher_user).get(reverse("report-detail", args=[r.public_id])).json()
    assert body["system_name"] == r.system.name and body["system"] == r.system_id
    assert [s["position"] for s in body["sections"]] == [1, 2]
    paragraphs = [p for s in body["sections"] for p in s["paragraphs"]]
    assert [p["number"] for p in paragraphs] == [1, 2, 3, 4]
    anchor = paragraphs[0]["anchors"][0]
    assert anchor["citation"] == "2" and anchor["end"] - anchor["start"] == 3
    kinds = {c["key"]: c["kind"] for c in body["citations"]}
    assert kinds == {"1": "snippet", "2": "title_only", "3": "bare"}
    snippet = next(c for c in body["citations"] if c["key"] == "1")
    assert snippet["snippets"] == ["evidence"] and snippet["title"] == "A paper"


@pytest.mark.django_db
def test_annotator_report_is_the_same_text_blinded(world, annotator_user):
    r = world.own["report"]
    body = client_for(annotator_user).get(reverse("report-detail", args=[r.public_id])).json()
    assert set(body) == {"public_id", "question", "sections", "citations"}
    assert body["sections"][0]["paragraphs"][0]["text"].startswith("Paragraph 1")
    assert {c["kind"] for c in body["citations"]} == {"snippet", "title_only", "bare"}


@pytest.mark.django_db
def test_assignment_task_url_is_absolute_and_reports_in_order(world, annotator_user):
    a = world.own["assignment"]
    rows = client_for(annotator_user).get(reverse("assignment-list")).json()["results"]
    assert [row["id"] for row in rows] == [a.pk]
    row = rows[0]
    assert row["task_url"] == f"http://testserver/annotate/{a.pk}/"
    expected = [Report.objects.get(pk=i).public_id for i in a.report_order]
    assert row["reports"] == expected
    assert row["question_text"] == a.question.text


@pytest.mark.django_db
def test_admin_creates_a_report_with_its_structure(world, admin_user):
    q = f.question(world.study)
    payload = {
        "question": q.pk,
        "system": world.systems[1].pk,
        "citations": [{"key": "x", "title": "", "snippets": []}],
        "sections": [
            {
                "position": 1,
                "title": "Only",
                "paragraphs": [
                    {
                        "number": 1,
                        "text": "See [x].",
                        "anchors": [{"citation": "x", "start": 4, "end": 7}],
                    }
                ],
            }
        ],
    }
    response = client_for(admin_user).post(reverse("report-list"), payload, format="json")
    assert response.status_code == 201, response.content
    report = Report.objects.get(public_id=response.json()["public_id"])
    [(_, _, key, _)] = anchors(pk=report.paragraphs.get().pk)
    assert citation(report, key).kind == "bare"
    # the response shows the sources as stored (keys normalised as the anchors' are)
    assert [c["key"] for c in response.json()["citations"]] == [key]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change, field",
    [
        (
            {
                "sections": [
                    {
                        "position": 1,
                        "paragraphs": [
                            {
                                "number": 1,
                                "text": "a",
                                "anchors": [{"citation": "zz", "start": 0, "end": 1}],
                            }
                        ],
                    }
                ]
            },
            "sections",
        ),
        (
            {
                "sections": [
                    {
                        "position": 1,
                        "paragraphs": [
                            {
                                "number": 1,
                                "text": "a",
                                "anchors": [{"citation": "x", "start": 0, "end": 9}],
                            }
                        ],
                    }
                ]
            },
            "sections",
        ),
        ({"citations": [{"key": "x"}, {"key": "x"}]}, "citations"),
        ({"system": "other-study"}, "system"),
    ],
)
def test_admin_report_validation(world, admin_user, change, field):
    q = f.question(world.study)
    payload = {"question": q.pk, "system": world.systems[1].pk, "citations": [{"key": "x"}]}
    if change.get("system") == "other-study":
        change = {"system": f.system(f.study(), "Elsewhere").pk}
    response = client_for(admin_user).post(
        reverse("report-list"), {**payload, **change}, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not Report.objects.filter(question=q).exists()


@pytest.mark.django_db
def test_assignment_create_draws_a_report_order(world, admin_user):
    q = world.questions[2]
    response = client_for(admin_user).post(
        reverse("assignment-list"),
        {
            "study": world.study.pk,
            "annotator": world.annotator.annotator.pk,
            "question": q.pk,
            "task": "pairwise",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    order = Assignment.objects.get(pk=response.json()["id"]).report_order
    assert sorted(order) == sorted(q.reports.values_list("id", flat=True))


@pytest.mark.django_db
def test_assignment_rules(world, admin_user):
    client = client_for(admin_user)
    other_study = f.study(tasks=["pairwise"])
    base = {"annotator": world.annotator.annotator.pk, "task": "pairwise"}
    wrong_study = client.post(
        reverse("assignment-list"),
        {**base, "study": other_study.pk, "question": world.questions[2].pk},
        format="json",
    )
    assert wrong_study.status_code == 400 and "question" in wrong_study.json()
    q = f.question(other_study)
    disabled = client.post(
        reverse("assignment-list"),
        {**base, "study": other_study.pk, "question": q.pk, "task": "medal_ranking"},
        format="json",
    )
    assert disabled.status_code == 400 and "task" in disabled.json()
    foreign = client.post(
        reverse("assignment-list"),
        {
            **base,
            "study": world.study.pk,
            "question": world.questions[2].pk,
            "report_order": [world.own["report"].pk],
        },
        format="json",
    )
    assert foreign.status_code == 400 and "report_order" in foreign.json()


@pytest.mark.django_db
def test_medal_ranking_rules(world, admin_user):
    client = client_for(admin_user)
    q = world.questions[2]
    reports = list(q.reports.order_by("id"))
    base = {"study": world.study.pk, "annotator": world.other.annotator.pk, "question": q.pk}

    def post(medals):
        return client.post(reverse("medal-ranking-list"), {**base, "medals": medals}, format="json")

    stray = post(
        [
            {"report": reports[0].public_id, "medal": "gold"},
            {"report": world.own["report"].public_id, "medal": "silver"},
        ]
    )
    assert stray.status_code == 400 and "medals" in stray.json()
    three_way = post([{"report": r.public_id, "medal": "gold"} for r in reports])
    assert three_way.status_code == 400
    one = post([{"report": reports[0].public_id, "medal": "gold"}])
    assert one.status_code == 400
    ok = post(
        [
            {"report": reports[0].public_id, "medal": "gold"},
            {"report": reports[1].public_id, "medal": "gold"},
            {"report": reports[2].public_id, "medal": "bronze"},
        ]
    )
    assert ok.status_code == 201, ok.content
    assert Medal.objects.filter(ranking_id=ok.json()["id"]).count() == 3


@pytest.mark.django_db
def test_pairwise_needs_two_reports_and_a_reason(world, admin_user):
    client = client_for(admin_user)
    q = world.questions[2]
    r1, r2 = list(q.reports.order_by("id"))[:2]
    base = {
        "study": world.study.pk,
        "annotator": world.other.annotator.pk,
        "question": q.pk,
        "choice": "left",
    }
    same = client.post(
        reverse("pairwise-preference-list"),
        {**base, "left": r1.public_id, "right": r1.public_id, "reason": "x"},
        format="json",
    )
    assert same.status_code == 400
    blank = client.post(
        reverse("pairwise-preference-list"),
        {**base, "left": r1.public_id, "right": r2.public_id, "reason": "  "},
        format="json",
    )
    assert blank.status_code == 400


@pytest.mark.django_db
def test_researcher_reads_judgments_annotator_only_own(world, researcher_user, annotator_user):
    url = reverse("medal-ranking-list")
    everyone = client_for(researcher_user).get(url).json()["results"]
    own = client_for(annotator_user).get(url).json()["results"]
    assert len(everyone) == 2
    assert [r["id"] for r in own] == [world.own["medal-ranking"].pk]
    assert {m["medal"] for m in own[0]["medals"]} == {"gold", "silver", "bronze"}


@pytest.mark.django_db
def test_judge_scores_carry_question_and_system(world, researcher_user):
    rows = (
        client_for(researcher_user)
        .get(reverse("judge-score-list"), {"judge": world.judge.pk})
        .json()["results"]
    )
    assert len(rows) == Report.objects.exclude(question=world.questions[2]).count()
    report = Report.objects.get(public_id=rows[0]["report"])
    assert rows[0]["system"] == report.system_id and rows[0]["question"] == report.question_id


@pytest.mark.django_db
def test_admin_adds_a_researcher_who_then_reads_the_study(admin_user, researcher_user):
    study = f.study("Lab study")
    detail = reverse("study-detail", args=[study.pk])
    reader = client_for(researcher_user)
    assert reader.get(detail).status_code == 404
    admin = client_for(admin_user)
    r = admin.patch(detail, {"researchers": ["researcher_t"]}, format="json")
    assert r.status_code == 200 and r.json()["researchers"] == ["researcher_t"]
    assert reader.get(detail).json()["name"] == "Lab study"
    refused = admin.patch(detail, {"researchers": ["admin_t", "nobody"]}, format="json")
    assert refused.status_code == 400 and "researchers" in refused.json()
    assert list(study.researchers.values_list("username", flat=True)) == ["researcher_t"]
    assert reader.patch(detail, {"researchers": []}, format="json").status_code == 403
