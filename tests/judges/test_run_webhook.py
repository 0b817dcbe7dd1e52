"""A judge run that ends is sent to the study's webhooks (issue 28; annotation.webhooks)."""

import pytest

from tests.annotation.test_webhooks import Receiver, register


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


@pytest.mark.django_db
def test_a_judge_run_that_ends_is_sent(receiver, settings, fake_llm,
                                       django_capture_on_commit_callbacks):  # fmt: skip
    from django.core.management import call_command

    from tests.builders.judged import build_study, make_judge

    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    study = build_study(questions=1, systems=("alpha",))
    register(study, receiver.url, ["judge_run.finished"])
    make_judge(fake_llm)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("judge_run", study=study.name, judge="fake-judge", tasks="coverage")
    (event,) = receiver.events()
    assert event["event"] == "judge_run.finished"
    assert event["data"]["status"] == "done" and event["data"]["judge"] == "fake-judge"
    assert event["data"]["done_units"] == event["data"]["total_units"] > 0
