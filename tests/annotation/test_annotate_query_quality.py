"""Query quality: four judgments of the question, validated and saved once."""

import pytest
from django.urls import reverse

from annotation.models import QueryQuality
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    assignment = make_assignment(
        annotator_user.annotator, make_question(study, n_reports=0), "query_quality"
    )
    client.force_login(annotator_user)
    return assignment, client


def data(**over):
    base = {
        "version": "0",
        "q.clarity": "4",
        "q.naturalness": "5",
        "q.relevance": "3",
        "q.variability": "semi_open",
        "q.comment": " ok ",
    }
    base.update(over)
    return base


def test_submit(setup, django_assert_max_num_queries):
    assignment, client = setup
    with django_assert_max_num_queries(13):
        assert client.get(reverse("annotate:task", args=[assignment.pk])).status_code == 200
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]), data(), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 204
    qq = QueryQuality.objects.get()
    assert (qq.clarity, qq.naturalness, qq.relevance, qq.variability, qq.comment) == (
        4,
        5,
        3,
        "semi_open",
        "ok",
    )


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"q.clarity": "7"}, "not a rating from 1 to 5"),
        ({"q.variability": "wide"}, "not open-ended"),
        ({"q.naturalness": ""}, "Naturalness: choose"),
    ],
)
def test_invalid(setup, over, message):
    assignment, client = setup
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]), data(**over), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422 and message in response.content.decode()
    assert not QueryQuality.objects.exists()
