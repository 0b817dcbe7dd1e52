"""The batched writes of judge runs (judges/writes.py) and the thread pools chunks borrow
(judges/pools.py), on whichever database the tests run (PostgreSQL's single statements,
SQLite's ORM path)."""

from __future__ import annotations

import threading

import pytest
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from judges import pools, runs, writes
from judges.models import JudgeRun, JudgeUnit, LLMResponse
from tests.builders.judged import build_study, make_judge


def _settled(unit, ok=True, attempts=1, error=""):
    return writes.Settled(unit, ok, attempts, False, 10, 2, 0.5, error)


@pytest.mark.django_db
def test_settle_writes_only_pending_units_once(fake_llm):
    run = runs.create_run(make_judge(fake_llm), build_study(questions=1), ["coverage"])
    first, second, third = run.units.order_by("pk")[:3]
    JudgeUnit.objects.filter(pk=third.pk).update(status=JudgeUnit.Status.DONE)
    batch = [_settled(first), _settled(second, ok=False, error="boom"), _settled(third)]
    now = timezone.now()

    with transaction.atomic():
        assert writes.settle(batch, now) == {first.pk, second.pk}  # third was settled
    with transaction.atomic():
        assert writes.settle(batch, now) == set()  # a second execution: nothing

    first.refresh_from_db()
    second.refresh_from_db()
    third.refresh_from_db()
    assert (first.status, first.attempts, first.prompt_tokens, first.cost) == ("done", 1, 10, 0.5)
    assert (second.status, second.error, second.finished_at) == ("failed", "boom", now)
    assert third.attempts == 0 and third.finished_at is None  # untouched


@pytest.mark.django_db
def test_upsert_updates_on_conflict_or_keeps_the_row():
    def answer(content):
        return LLMResponse(key="k" * 64, model="m", content=content)

    writes.upsert(LLMResponse, [answer("first")], ["key"], None)
    writes.upsert(LLMResponse, [answer("second")], ["key"], None)  # kept
    assert LLMResponse.objects.get().content == "first"
    writes.upsert(LLMResponse, [answer("third")], ["key"], ["content"])  # updated
    row = LLMResponse.objects.get()
    assert row.content == "third" and row.created_at is not None


@pytest.mark.django_db
def test_upsert_refuses_a_value_too_long_for_its_column():
    too_long = LLMResponse(key="k" * 65, model="m", content="x")  # key: varchar(64)
    if transaction.get_connection().vendor != "postgresql":
        pytest.skip("SQLite does not enforce varchar lengths")
    with pytest.raises((DataError, IntegrityError)), transaction.atomic():
        writes.upsert(LLMResponse, [too_long], ["key"], None)
    assert not LLMResponse.objects.exists()  # not cut to 64 characters and stored


def test_a_pool_given_back_is_lent_again_and_an_errored_one_is_not():
    with pools.borrowed("test-pool", 3) as pool:
        assert pool.submit(threading.get_ident).result()
    with pools.borrowed("test-pool", 3) as again:
        assert again is pool  # kept, threads and all
    with pytest.raises(RuntimeError), pools.borrowed("test-pool", 3) as failing:
        raise RuntimeError("a chunk failed")
    with pools.borrowed("test-pool", 3) as after:
        assert after is not failing  # shut down, not lent again
    pools.discard_all()


@pytest.mark.django_db
def test_runs_still_complete_with_reused_pools(fake_llm):
    judge = make_judge(fake_llm)
    study = build_study(questions=1)
    for _ in range(2):  # the second run's chunks borrow the first one's pools
        run = runs.start_run(judge, study, ["coverage"], {"rejudge": True})
        run.refresh_from_db()
        assert run.status == JudgeRun.Status.DONE and run.done_units == run.total_units > 0
