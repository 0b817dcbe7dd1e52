"""The claim-support judge (ScholarQA-CS2 citation precision) reads a source that is only an
address by its address: it was "(no title)" with nothing else (Perplexity's ResearcherBench
sources), so the judge could only find such a citation unsupported, by construction."""

from __future__ import annotations

import pytest

from annotation.models import Report
from judges import prompts, runs
from judges.models import JudgeRun
from tests.builders.judged import build_study, make_judge
from tests.builders.sources import set_citation

URL = "https://www.helicone.ai/blog/llm-observability?utm_source=perplexity"


def test_an_address_only_source_is_named_by_its_address():
    [message] = prompts.claim_messages(
        "Q?", "A claim.", [{"key": "3", "title": "", "snippets": [], "url": URL}]
    )
    assert f"Citation 3: {URL}\n  (address only)" in message["content"]
    assert "(no title)" not in message["content"]


def test_a_source_with_a_title_or_nothing_reads_as_before():
    """Their prompts, and so the verdicts cached under them, are unchanged."""
    [message] = prompts.claim_messages(
        "Q?",
        "A claim.",
        [
            {"key": "1", "title": "Paper", "snippets": ["evidence"], "url": URL},
            {"key": "2", "title": "Paper two", "snippets": [], "url": URL},
            {"key": "3", "title": "", "snippets": []},
        ],
    )
    text = message["content"]
    assert "Citation 1: Paper\n  - evidence" in text
    assert "Citation 2: Paper two\n  (title only)" in text
    assert "Citation 3: (no title)\n  (title only)" in text
    assert URL not in text


@pytest.mark.django_db
def test_a_run_gives_the_judge_the_address_without_tracking(fake_llm):
    study = build_study(questions=1, systems=("alpha",), paragraphs=1)
    report = Report.objects.get(question__study=study)
    set_citation(report, "2", title="", url=URL)
    seen = []
    default = fake_llm.responder
    fake_llm.responder = lambda p: (seen.append(p), default(p))[1]
    run = runs.start_run(make_judge(fake_llm), study, ["citations"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.errors
    claims = [p for p in seen if "Citation 2:" in p]
    assert claims and all(
        "Citation 2: https://www.helicone.ai/blog/llm-observability\n  (address only)" in p
        for p in claims
    )
