"""Expertise triage and rubric comparison pages."""

import pytest
from django.urls import reverse

from annotation.models import (
    ExpertiseRating,
    Rubric,
    RubricAssessment,
    RubricComparison,
    RubricItem,
)
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


def post(client, a, data, name="submit"):
    return client.post(reverse(f"annotate:{name}", args=[a.pk]), data, HTTP_HX_REQUEST="true")


def test_triage_writes_the_expertise_rating(annotator_user, client):
    study = make_study()
    a = make_assignment(
        annotator_user.annotator, make_question(study, n_reports=0), "expertise_triage"
    )
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert 'data-keys="wno"' in html
    assert post(client, a, {"version": "0", "level": "expert"}).status_code == 422
    assert post(client, a, {"version": "0"}).status_code == 422
    assert post(client, a, {"version": "0", "level": "near"}).status_code == 204
    assert ExpertiseRating.objects.get().level == "near"


@pytest.fixture
def comparison(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=3, rubric_items=2)
    for kind in ("survey", "parametric"):
        rubric = Rubric.objects.create(question=question, kind=kind)
        RubricItem.objects.create(rubric=rubric, position=0, text=f"{kind} item", weight=2)
    a = make_assignment(annotator_user.annotator, question, "rubric_comparison")
    client.force_login(annotator_user)
    return a, client


def full(a, medals=("gold", "silver", "bronze"), reasoning="A covers more."):
    from annotation.annotate.page import TaskPage

    page = TaskPage(assignment=a, annotator=a.annotator)
    data = {"version": "0", "reasoning": reasoning}
    for rubric, medal in zip(page.rubrics, medals, strict=True):
        data[f"rmedal.{rubric.public_id}"] = medal
        data[f"rnote.{rubric.public_id}.strengths"] = "Good coverage"
        data[f"rnote.{rubric.public_id}.weaknesses"] = "Too vague"
    return data, page


def test_rubric_comparison_is_blinded_and_stable(comparison, django_assert_max_num_queries):
    a, client = comparison
    url = reverse("annotate:task", args=[a.pk])
    client.get(url)
    with django_assert_max_num_queries(15):
        first = client.get(url).content.decode()
    assert "Rubric A" in first and "Rubric C" in first
    assert "survey rubric" not in first and "parametric" not in first.replace("parametric item", "")
    assert client.get(url).content.decode().index("survey item") == first.index("survey item")


def test_rubric_comparison_submit_and_rules(comparison):
    a, client = comparison
    data, page = full(a, medals=("gold", "gold", "gold"))
    response = post(client, a, data)
    assert response.status_code == 422 and "three-way tie" in response.content.decode()
    data, page = full(a)
    data.pop(f"rnote.{page.rubrics[1].public_id}.weaknesses")
    response = post(client, a, data)
    assert (
        response.status_code == 422
        and "Rubric B: What are its weaknesses?" in response.content.decode()
    )
    data, page = full(a)
    assert post(client, a, data).status_code == 204
    comparison_row = RubricComparison.objects.get()
    assert comparison_row.reasoning == "A covers more."
    medals = {x.rubric_id: x.medal for x in RubricAssessment.objects.all()}
    assert medals[page.rubrics[0].pk] == "gold" and medals[page.rubrics[2].pk] == "bronze"
