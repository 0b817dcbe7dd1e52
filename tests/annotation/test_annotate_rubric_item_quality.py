"""Rubric-item quality: emphasis, necessity, confidence, flags per item."""

import pytest
from django.urls import reverse

from annotation.models import RubricItemQuality
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=0, rubric_items=3)
    assignment = make_assignment(annotator_user.annotator, question, "rubric_item_quality")
    client.force_login(annotator_user)
    return assignment, client


def full(**over):
    data = {"version": "0"}
    for pos in range(3):
        data[f"iq.{pos}.emphasis"] = "sentence"
        data[f"iq.{pos}.necessity"] = "minor_degradation"
        data[f"iq.{pos}.confidence"] = "4"
    data.update(over)
    return data


def test_submit_with_flags(setup):
    assignment, client = setup
    form = full()
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]),
        {**form, "iq.1.flag": ["unclear", "error"]},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 204, response.content.decode()
    rows = {r.item.position: r for r in RubricItemQuality.objects.select_related("item")}
    assert len(rows) == 3 and rows[1].flags == ["error", "unclear"] and rows[0].flags == []
    assert rows[2].emphasis == "sentence" and rows[2].confidence == 4


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"iq.0.emphasis": "huge"}, "not an emphasis level"),
        ({"iq.0.necessity": "fatal"}, "not a necessity level"),
        ({"iq.0.confidence": "9"}, "not from 1 to 5"),
        ({"iq.2.confidence": ""}, "Item 3: choose confidence"),
        ({"iq.7.emphasis": "none"}, "no item"),
        ({"iq.0.flag": "bogus"}, "unknown error flag"),
    ],
)
def test_invalid(setup, over, message):
    assignment, client = setup
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]), full(**over), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422 and message in response.content.decode()
    assert not RubricItemQuality.objects.exists()


def test_page_renders_and_resumes(setup, django_assert_max_num_queries):
    assignment, client = setup
    client.post(
        reverse("annotate:autosave", args=[assignment.pk]),
        {"version": "0", "iq.1.flag": "unclear", "iq.1.emphasis": "none"},
    )
    with django_assert_max_num_queries(14):
        html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert 'name="iq.1.flag" value="unclear" checked' in html
    assert 'name="iq.1.emphasis" value="none" data-key="1" checked' in html
