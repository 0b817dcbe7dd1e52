"""Issue 15: rubric items are numbered 1, 2, 3… on the coverage and item-quality pages (as on
rubric comparison), also when the stored positions start at 1 as imports keep them."""

import re

import pytest
from django.db.models import F
from django.urls import reverse

from annotation.models import RubricItem
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def question():
    question = make_question(make_study(), n_reports=2, rubric_items=7)
    for item in RubricItem.objects.order_by("-position"):  # positions 1..7, as imported
        RubricItem.objects.filter(pk=item.pk).update(position=F("position") + 1)
    return question


def numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<span class="item-n">(\d+)\.</span>', html)]


@pytest.mark.parametrize("task", ["rubric_coverage", "rubric_item_quality"])
def test_items_are_numbered_from_one(annotator_user, client, question, task):
    assignment = make_assignment(annotator_user.annotator, question, task)
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert numbers(html) == [1, 2, 3, 4, 5, 6, 7]
    assert "Mentions aspect 1 of memorization" in html.split('<span class="item-n">1.</span>')[1]
    # the save's messages use the same numbers
    response = client.post(reverse("annotate:autosave", args=[assignment.pk]), {"version": "0"})
    text = response.content.decode()
    assert re.search(r"\bitems? 1\b|Item 1:", text), text
    assert "8" not in re.findall(r"[Ii]tems? (\d+)", text)
