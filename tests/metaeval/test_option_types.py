"""Options are checked the same way over GET and POST, and a selection the report cannot
honour is refused naming its options (tester's reports):

* ``POST /api/report-runs/`` took ``{"bootstrap": true}`` (one round: a bool is an int in
  Python) and ``{"seed": 1.5}`` (seed 1), which a GET refuses;
* ``?bootstrap=1`` gave a "95 %" interval [0.037, 0.037] around 0.074;
* ``?systems=atlas-dr&exclude_systems=atlas-dr`` answered 200 with an empty report.
"""

import pytest
from rest_framework.exceptions import ValidationError

from metaeval import options as report_options
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions
from metaeval.stats.bootstrap import MIN_ROUNDS
from tests.builders.ranked import SYSTEMS, researcher_api


@pytest.fixture
def api(researcher_user):
    return researcher_api(researcher_user)


@pytest.mark.parametrize(
    "option, value",
    [
        ("bootstrap", True),
        ("bootstrap", 150.0),
        ("seed", 1.5),
        ("seed", False),
        ("seed", [1]),
        ("expert_agreed", 1),
        ("expert_agreed", "maybe"),
        ("judge", 7),
        ("systems", 5),
        ("threshold", True),
    ],
)
def test_a_json_value_of_the_wrong_type_is_refused_naming_the_option(option, value):
    with pytest.raises(ValidationError) as caught:
        report_options.from_query({option: value})
    assert option in caught.value.detail


def test_json_and_query_strings_give_the_same_options():
    """The one declaration of each option's type serves both."""
    typed = {"bootstrap": 200, "seed": 3, "expert_agreed": True, "systems": ["a", "b"],
             "threshold": 0.1, "judge": "j"}  # fmt: skip
    text = {"bootstrap": "200", "seed": "3", "expert_agreed": "true", "systems": "a,b",
            "threshold": "0.1", "judge": "j"}  # fmt: skip
    assert report_options.from_query(typed) == report_options.from_query(text)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "option, value", [("bootstrap", True), ("seed", 1.5), ("bootstrap", 100.0)]
)
def test_a_report_run_checks_types_as_a_get_does(api, option, value):
    client, study = api
    body = {"study": study.pk, "options": {option: value}}
    response = client.post("/api/report-runs/", body, format="json")
    assert response.status_code == 400, response.content
    assert option in response.json()
    assert not ReportRun.objects.exists()
    got = client.get(f"/api/studies/{study.pk}/agreement/?{option}={value}")
    assert got.status_code == 400 and option in str(got.json())


@pytest.mark.parametrize("rounds", [1, 2, MIN_ROUNDS - 1])
def test_too_few_bootstrap_rounds_are_refused(rounds):
    with pytest.raises(ValueError, match=f"bootstrap: 0 .* at least {MIN_ROUNDS}"):
        ReportOptions(bootstrap=rounds)
    assert ReportOptions(bootstrap=MIN_ROUNDS).bootstrap == MIN_ROUNDS
    assert ReportOptions(bootstrap=0).bootstrap == 0


@pytest.mark.django_db
def test_the_api_refuses_one_bootstrap_round(api):
    client, study = api
    response = client.get(f"/api/studies/{study.pk}/agreement/?bootstrap=1&tables=true")
    assert response.status_code == 400 and "bootstrap:" in str(response.json())
    response = client.post("/api/report-runs/", {"study": study.pk, "options": {"bootstrap": 1}},
                           format="json")  # fmt: skip
    assert response.status_code == 400 and "bootstrap:" in str(response.json())


def test_a_system_both_selected_and_excluded_is_refused():
    with pytest.raises(ValueError, match="systems, exclude_systems: 'b' is both"):
        ReportOptions(systems=("a", "b"), exclude_systems=("b",))


@pytest.mark.django_db
def test_the_api_refuses_a_contradictory_or_empty_selection(api):
    client, study = api
    name = sorted(SYSTEMS)[0]
    for query in (f"systems={name}&exclude_systems={name}",
                  f"exclude_systems={','.join(SYSTEMS)}"):  # fmt: skip
        response = client.get(f"/api/studies/{study.pk}/agreement/?{query}")
        assert response.status_code == 400, (query, response.content[:300])
        text = str(response.json())
        assert "exclude_systems" in text and "systems" in text.replace("exclude_systems", "")
    ok = client.get(f"/api/studies/{study.pk}/agreement/?exclude_systems={name}")
    assert ok.status_code == 200
