"""The budget section (issue 17 part 3 on the report): answers only when the report asks
for a target CI half-width, on the page, the API (typed), the command and the downloads."""

import pytest
from django.urls import reverse

from tests.builders.ranked import ranked_study

from .section_checks import assert_typed, command, csv_rows

pytestmark = pytest.mark.django_db


def test_budget_section_answers_a_target(client, researcher_user):
    study = ranked_study(4)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    url = reverse("api-agreement", args=[study.pk])
    assert client.get(url).json().get("budget") is None  # no target: nothing computed
    got = client.get(url + "?target_half_width=0.01").json()["budget"]
    assert got["target_half_width"] == 0.01
    assert {r["route"] for r in got["routes"]} <= {"new_questions", "more_annotators"}
    assert got["pilot"] is None or got["pilot"]["figure"] == "agreement"
    assert command(study, "budget", "--target-half-width=0.01") == got
    assert_typed("budget", {"routes", "pilot", "cheapest"})
    if got["routes"]:
        assert csv_rows(client, study, "budget_routes", "?target_half_width=0.01")
    page = client.get(reverse("metaeval:report", args=[study.pk]) + "?target_half_width=0.01")
    assert 'id="section-budget"' in page.content.decode()
