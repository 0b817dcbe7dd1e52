"""A judge run's options are checked against their one declaration (judges.run_options):
before, a misspelt option, ``"rejudge": "no"`` or a system or rubric kind the study lacks
gave a run of 0 units marked done (202). The API, the runs page and the command refuse the
same things, naming the option, and create nothing."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from judges.forms import StartRunForm
from judges.models import JudgeRun
from judges.run_options import RUN_OPTIONS
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db

WRONG = [
    ({"rejudje": True}, "rejudje", "unknown option"),
    ({"rejudge": "no"}, "rejudge", "not true or false"),
    ({"rejudge": 1}, "rejudge", "not true or false"),
    ({"systems": ["nosuch"], "rejudge": True}, "systems", "no system 'nosuch'"),
    ({"systems": "alpha"}, "systems", "not a list of names"),
    ({"questions": ["q9"]}, "questions", "no question 'q9'"),
    ({"rubric_kind": "nosuch"}, "rubric_kind", "no rubric kind 'nosuch'"),
    ({"items_per_call": 0}, "items_per_call", "whole number"),
    ({"items_per_call": "8"}, "items_per_call", "whole number"),
]


@pytest.mark.parametrize(("options", "name", "says"), WRONG)
def test_the_api_refuses_a_wrong_option_naming_it(fake_llm, admin_user, options, name, says):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm)
    api = APIClient()
    api.force_authenticate(admin_user)
    body = {"judge": judge.pk, "study": study.pk, "tasks": ["coverage"], "options": options}
    r = api.post("/api/judge-runs/", body, format="json")
    assert r.status_code == 400, r.json()
    assert says in r.json()["options"][name]
    assert not JudgeRun.objects.exists()


def test_an_option_no_task_acts_on_is_refused(fake_llm, admin_user):
    study = build_study(questions=1, systems=("alpha",))
    api = APIClient()
    api.force_authenticate(admin_user)
    body = {"judge": make_judge(fake_llm).pk, "study": study.pk, "tasks": ["relevance"],
            "options": {"rubric_kind": "researchqa"}}  # fmt: skip
    r = api.post("/api/judge-runs/", body, format="json")
    assert r.status_code == 400 and "coverage" in r.json()["options"]["rubric_kind"]
    body["tasks"] = ["ensemble"]  # the ensemble plans coverage units: it takes the option
    assert api.post("/api/judge-runs/", body, format="json").status_code == 202


def test_right_options_still_run(fake_llm, admin_user):
    study = build_study(questions=1, systems=("alpha", "beta"))
    api = APIClient()
    api.force_authenticate(admin_user)
    options = {"systems": ["alpha"], "rubric_kind": "researchqa", "rejudge": False,
               "items_per_call": 5, "questions": ["q1"]}  # fmt: skip
    body = {"judge": make_judge(fake_llm).pk, "study": study.pk, "tasks": ["coverage"],
            "options": options}  # fmt: skip
    r = api.post("/api/judge-runs/", body, format="json")
    assert r.status_code == 202, r.json()
    assert r.json()["total_units"] == 2 and r.json()["options"] == options  # 10 items / 5


def test_the_page_refuses_a_rubric_kind_the_study_lacks(fake_llm, admin_user, client):
    study = build_study(questions=1, systems=("alpha",))
    judge = make_judge(fake_llm)
    client.force_login(admin_user)
    start = reverse("judge-run-start", args=[study.pk])
    r = client.post(start, {"judge": judge.pk, "tasks": ["coverage"], "rubric_kind": "nosuch"})
    assert r.status_code == 400 and "no rubric kind &#x27;nosuch&#x27;" in r.content.decode()
    assert not JudgeRun.objects.exists()


def test_the_command_refuses_a_wrong_option(fake_llm):
    study = build_study(questions=1, systems=("alpha",))
    make_judge(fake_llm, name="cmd-judge")
    with pytest.raises(CommandError, match="--options: rejudje: unknown option"):
        call_command("judge_run", study=study.name, judge="cmd-judge", tasks="coverage",
                     options='{"rejudje": true}')  # fmt: skip
    assert not JudgeRun.objects.exists()


def test_the_pages_option_fields_are_declared_options():
    form_options = {"systems", "rubric_kind", "rejudge"}
    assert form_options <= set(StartRunForm.base_fields) and form_options <= set(RUN_OPTIONS)
    for name in form_options:
        assert StartRunForm.base_fields[name].help_text == RUN_OPTIONS[name].help
