"""``bootstrap`` is capped on every entry point (issue 12): ``?bootstrap=10**12`` once grew a
worker past 1.3 GB. Above ``CONCORD_MAX_BOOTSTRAP`` the page, the API, the report-run API and
the command refuse within a second, naming the option, and nothing is started."""

import time

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from metaeval.models import ReportRun
from metaeval.reports import ReportOptions
from tests.builders.content import make_study
from tests.builders.users import make_user

HUGE = 10**12


@pytest.fixture
def world(db):
    researcher = make_user("boot_researcher", "researcher")
    study = make_study("Bootstrap study")
    study.researchers.add(researcher)
    client = Client()
    client.force_login(researcher)
    return client, study


def quick(call):
    start = time.monotonic()
    response = call()
    assert time.monotonic() - start < 1.0
    return response


def test_the_options_refuse_above_the_cap(settings):
    settings.CONCORD_MAX_BOOTSTRAP = 500
    assert ReportOptions(bootstrap=500).bootstrap == 500
    with pytest.raises(ValueError, match="bootstrap: at most 500 rounds"):
        ReportOptions(bootstrap=501)
    with pytest.raises(ValueError, match="CONCORD_MAX_BOOTSTRAP"):
        ReportOptions.from_dict({"bootstrap": HUGE})


def test_the_default_cap_is_ten_thousand():
    ReportOptions(bootstrap=10_000)
    with pytest.raises(ValueError):
        ReportOptions(bootstrap=10_001)


def test_every_http_entry_point_refuses_within_a_second(world):
    client, study = world
    page = reverse("metaeval:report", args=[study.pk])
    answers = {
        "page GET": quick(lambda: client.get(page, {"bootstrap": HUGE})),
        "page POST": quick(lambda: client.post(f"{page}?bootstrap={HUGE}")),
        "api": quick(
            lambda: client.get(f"/api/studies/{study.pk}/agreement/", {"bootstrap": HUGE})
        ),
        "report run": quick(
            lambda: client.post(
                "/api/report-runs/",
                {"study": study.pk, "options": {"bootstrap": HUGE}},
                content_type="application/json",
            )
        ),
        "table": quick(
            lambda: client.get(
                reverse("metaeval:table", args=[study.pk, "system", "csv"]), {"bootstrap": HUGE}
            )
        ),
        "json": quick(
            lambda: client.get(reverse("metaeval:json", args=[study.pk]), {"bootstrap": HUGE})
        ),
    }
    wrong = {k: r.status_code for k, r in answers.items() if r.status_code != 400}
    assert not wrong
    for name in ("page GET", "api", "report run"):
        assert "bootstrap" in answers[name].content.decode(), name
    assert ReportRun.objects.count() == 0


def test_the_command_refuses_with_a_command_error(world):
    _, study = world
    start = time.monotonic()
    with pytest.raises(CommandError, match="bootstrap: at most"):
        call_command("agreement", "--study", study.name, "--bootstrap", str(HUGE))
    assert time.monotonic() - start < 1.0
