"""Question authoring: a slot without a question, drafts and submit, questions pending review,
review in the study pages, then the authored strategy gives each question back to its author."""

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Assignment, Question, System
from studio.studyadmin import StudyAdminError, authoring, planning, progress
from tests.builders.content import make_authoring, make_question, make_report, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    annotator_user.annotator.expertise_fields = ["NLP"]
    annotator_user.annotator.save()
    study = make_study(authoring_max=3)
    a = make_authoring(annotator_user.annotator, study)
    client.force_login(annotator_user)
    return a, client


def post(client, a, data, name="submit"):
    return client.post(
        reverse(f"annotate:{name}", args=[a.pk]), {"version": "0", **data}, HTTP_HX_REQUEST="true"
    )


def slot(n, text, field="NLP", subdomain="", notes=""):
    return {
        f"aq.{n}.text": text,
        f"aq.{n}.field": field,
        f"aq.{n}.subdomain": subdomain,
        f"aq.{n}.notes": notes,
    }


Q1 = "How does instruction tuning change memorization of pretraining data?"
Q2 = "Which evaluation protocols detect benchmark contamination in LLMs?"


def test_the_slot_has_no_question_and_only_authoring_may(setup, annotator_user):
    a, _ = setup
    assert a.question is None and a.setting == "deep_expert"
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(study=a.study, annotator=a.annotator, task="medal_ranking")
    with pytest.raises(IntegrityError), transaction.atomic():  # one slot per study and setting
        Assignment.objects.create(
            study=a.study, annotator=a.annotator, task="question_authoring", setting="deep_expert"
        )
    q = make_question(a.study, n_reports=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            study=a.study, annotator=a.annotator, question=q, task="question_authoring",
            setting="assigned",
        )  # fmt: skip
    again = authoring.open_slots(a.study, [a.annotator])
    assert again.created == [] and again.existing == [a.annotator.pseudonym]


def test_page_queue_and_constant_queries(setup, django_assert_max_num_queries):
    a, client = setup
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert "Write new questions in your field" in queue
    url = reverse("annotate:task", args=[a.pk])
    client.get(url)
    with django_assert_max_num_queries(10):
        html = client.get(url).content.decode()
    assert html.count('name="aq.') == 3 * 4 and 'for="aq-1-text"' in html
    assert '<option value="NLP">' in html  # the annotator's fields are suggested
    a.study.config = {"authoring_max": 12}
    a.study.save()
    with django_assert_max_num_queries(10):
        html = client.get(url).content.decode()
    assert html.count('name="aq.') == 12 * 4


def test_autosave_resumes_and_submit_creates_pending_questions(setup, annotator_user):
    a, client = setup
    data = {**slot(1, Q1, notes="Must cite the extraction attacks."), **slot(2, "")}
    response = post(client, a, data, name="autosave")
    assert response.status_code == 200
    assert Q1 in client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    data = {"version": "1", **slot(1, Q1, notes="Must cite the extraction attacks."),
            **slot(2, Q2, subdomain="Evaluation")}  # fmt: skip
    assert (
        client.post(
            reverse("annotate:submit", args=[a.pk]), data, HTTP_HX_REQUEST="true"
        ).status_code
        == 204
    )
    questions = list(Question.objects.filter(study=a.study).order_by("external_id"))
    assert [q.text for q in questions] == [Q1, Q2]
    first, second = questions
    assert first.external_id == f"authored-{a.pk}-1"
    assert first.origin == "expert_authored" and first.authored_by == annotator_user.annotator
    assert first.review == "pending" and first.author_notes == "Must cite the extraction attacks."
    assert second.subdomain == "Evaluation" and second.field == "NLP"
    a.refresh_from_db()
    assert a.status == "submitted" and a.question is None
    # idempotent: the same answers again change nothing
    assert (
        client.post(
            reverse("annotate:submit", args=[a.pk]), data, HTTP_HX_REQUEST="true"
        ).status_code
        == 204
    )
    assert Question.objects.filter(study=a.study).count() == 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "write at least 1 question"),
        (slot(1, Q1, field=""), "Question 1: give its field."),
        ({**slot(1, Q1), **slot(2, Q1.upper())}, "the same as question 1"),
        ({**slot(1, Q1), **slot(2, "", notes="half done")}, "write the question, or clear"),
        (slot(9, Q1), "there is no slot &#x27;9&#x27;"),
        (slot(1, "x" * 2001), "text is longer than 2000"),
        (slot(1, Q1, field="f" * 201), "field is longer than 200"),
    ],
)
def test_invalid_submissions_change_nothing(setup, data, message):
    a, client = setup
    response = post(client, a, data)
    assert response.status_code == 422 and message in response.content.decode()
    assert not Question.objects.filter(study=a.study).exists()
    a.refresh_from_db()
    assert a.status != "submitted"


def test_another_annotators_slot_is_404(setup, other_annotator_user):
    a, client = setup
    theirs = make_authoring(other_annotator_user.annotator, a.study)
    assert client.get(reverse("annotate:task", args=[theirs.pk])).status_code == 404
    assert post(client, theirs, slot(1, Q1)).status_code == 404
    assert post(client, theirs, slot(1, Q1), name="autosave").status_code == 404
    assert not Question.objects.exists()


def test_review_then_authored_strategy_gives_the_question_back(setup, admin_user, client):
    a, annotator_client = setup
    data = {**slot(1, Q1), **slot(2, Q2)}
    assert post(annotator_client, a, data).status_code == 204
    q1, q2 = Question.objects.filter(study=a.study).order_by("external_id")
    # pending questions are planned for nobody
    system = System.objects.create(study=a.study, name="SysA")
    other = System.objects.create(study=a.study, name="SysB")
    for q in (q1, q2):
        for s in (system, other):
            make_report(q, s, paragraphs=1)  # with text: an empty report is never planned
    spec = planning.PlanSpec(task="medal_ranking", strategy="authored")
    assert planning.preview(a.study, spec).plan.assignments == ()

    client.force_login(admin_user)
    detail = client.get(reverse("studies:detail", args=[a.study.pk])).content.decode()
    assert Q1 in detail and "Pending review" in detail
    review = reverse("studies:question_review", args=[a.study.pk, q1.pk])
    assert client.post(review, {"decision": "accepted"}).status_code == 302
    assert (
        client.post(
            reverse("studies:question_review", args=[a.study.pk, q2.pk]), {"decision": "rejected"}
        ).status_code
        == 302
    )
    assert client.post(review, {"decision": "maybe"}).status_code == 400
    q1.refresh_from_db()
    assert q1.review == "accepted"

    done = planning.commit(a.study, spec)
    assert [(p.annotator, p.question) for p in done.plan.assignments] == [(a.annotator_id, q1.pk)]
    back = Assignment.objects.get(task="medal_ranking")
    assert back.setting == "deep_expert" and back.question == q1
    # a question with assignments can no longer be rejected
    with pytest.raises(StudyAdminError, match="already has assignments"):
        authoring.review(a.study, q1.pk, "rejected")
    # an imported question is not an authored one
    imported = make_question(a.study, n_reports=0)
    with pytest.raises(StudyAdminError, match="not an authored question"):
        authoring.review(a.study, imported.pk, "accepted")


def test_progress_api_and_plans_work_with_a_slot(setup, admin_user, annotator_user, client):
    a, _ = setup
    other = make_authoring(a.annotator, make_study("Second"))
    progress_now = progress.study_progress(a.study)
    assert progress_now.not_started == 1 and progress_now.double_total == 0
    api = APIClient()
    api.force_login(annotator_user)
    rows = api.get("/api/assignments/").json()["results"]
    mine = {r["id"]: r for r in rows}
    assert mine[a.pk]["question"] is None and mine[a.pk]["question_text"] is None
    assert mine[a.pk]["reports"] == [] and mine[other.pk]["task"] == "question_authoring"
    api.force_login(admin_user)
    assert api.get(f"/api/assignments/{a.pk}/").json()["question"] is None
    created = api.post(
        "/api/assignments/",
        {"study": a.study.pk, "annotator": a.annotator.pk, "task": "medal_ranking"},
        format="json",
    )
    assert created.status_code == 400 and "only question authoring" in str(created.json())
    client.force_login(admin_user)
    for name in ("studies:progress", "studies:detail"):
        assert client.get(reverse(name, args=[a.study.pk])).status_code == 200
    page = reverse("studies:annotator_progress", args=[a.study.pk, a.annotator.pk])
    assert client.get(page).status_code == 200
    data = {"task": "question_authoring", "strategy": "random", "overlap": 1, "seed": 0,
            "per_expert": 5, "action": "preview"}  # fmt: skip
    response = client.post(reverse("studies:plan", args=[a.study.pk]), data)
    assert response.status_code == 400 and "open authoring slots" in response.content.decode()


def test_study_page_opens_slots(admin_user, annotator_user, other_annotator_user, client):
    study = make_study()
    client.force_login(admin_user)
    url = reverse("studies:authoring", args=[study.pk])
    ids = [annotator_user.annotator.pk, other_annotator_user.annotator.pk]
    assert client.post(url, {"annotators": ids, "setting": "deep_expert"}).status_code == 302
    assert Assignment.objects.filter(task="question_authoring", question=None).count() == 2
    assert client.post(url, {"annotators": [], "setting": "deep_expert"}).status_code == 400
    study.tasks = ["medal_ranking"]
    study.save()
    response = client.post(url, {"annotators": ids, "setting": "deep_expert"})
    assert (
        response.status_code == 400
        and "does not enable question authoring" in response.content.decode()
    )
