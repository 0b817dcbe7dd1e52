"""What a judge run costs besides its calls (issue 29): the released ScholarQA-CS2 study's
relevance + citation run was slow where the synthetic benchmark was fast, because each
chunk opened a new HTTP client and read its reports again, and the writes went through
the ORM's per-value compiling. These tests hold the fixes: a run's queries do not grow
with its units, and the chunks of a run share one client."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from judges import execution, llm, runs
from judges.models import JudgeClaimVerdict, JudgeRelevance, JudgeRun
from tests.builders.judged import build_study, make_judge


@pytest.fixture
def size_flushes(monkeypatch):
    """Batches written by size only and no heartbeat: a run's query count then depends on
    its units alone, not on how fast the calls come back."""
    monkeypatch.setattr(execution, "FLUSH_EVERY", 3600.0)
    monkeypatch.setattr(execution, "HEARTBEAT_EVERY", 3600.0)


@pytest.mark.django_db
def test_the_queries_of_a_relevance_and_citations_run_do_not_grow_with_its_units(
    fake_llm, size_flushes
):
    counts = {}
    for questions in (1, 4):
        study = build_study(f"study-{questions}", questions=questions)
        judge = make_judge(fake_llm, name=f"judge-{questions}", concurrency=4)
        run = runs.create_run(judge, study, ["relevance", "citations"])
        with CaptureQueriesContext(connection) as queries:
            assert runs.execute_run(run.pk, run.lease) == JudgeRun.Status.DONE
        run.refresh_from_db()
        assert run.done_units == run.total_units
        assert JudgeRelevance.objects.filter(judge=judge).count() == questions * 3 * 3
        assert JudgeClaimVerdict.objects.filter(judge=judge).count() == questions * 3 * 3 * 2
        counts[run.total_units] = len(queries)
    # 3 reports of 3 paragraphs of 2 claims per question: 3 relevance + 18 claim units
    assert list(counts) == [21, 84]
    assert counts[84] <= counts[21], counts  # four times the units, no more queries


@pytest.mark.django_db
def test_the_chunks_of_a_run_share_one_client_and_a_resumed_run_gets_a_new_one(
    fake_llm, monkeypatch
):
    monkeypatch.setattr(execution, "CHUNK_UNITS", 5)
    made = []

    class Counted(llm.ChatClient):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(execution, "ChatClient", Counted)
    study = build_study(questions=1)
    judge = make_judge(fake_llm)
    run = runs.create_run(judge, study, ["relevance", "citations"])
    assert run.chunks.count() == 5  # 21 units in chunks of about 5
    assert runs.execute_run(run.pk, run.lease) == JudgeRun.Status.DONE
    assert len(made) == 1
    assert made[0].sdk.is_closed()  # closed when the run completed

    # a resumed run holds a new lease: its content may have changed, nothing is reused
    again = runs.create_run(judge, study, ["relevance", "citations"], {"rejudge": True})
    first_chunk = again.chunks.order_by("number").first()
    assert execution.open_run(again.pk, again.lease)
    assert execution.execute_chunk(first_chunk.pk, first_chunk.lease) == "running"
    old_lease = again.lease
    resumed = runs.resume_run(again, force=True)  # executed at once (no broker)
    assert resumed.lease != old_lease and resumed.status == JudgeRun.Status.DONE
    assert len(made) == 3  # the first run's, the first lease's, the resumed run's
    assert all(client.sdk.is_closed() for client in made)
