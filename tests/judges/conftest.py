"""Fixtures of the judge tests: the fake LLM server (the study to judge is built by
tests/builders/judged.py)."""

from __future__ import annotations

import pytest

from tests.judges.fake_llm import FakeLLM


@pytest.fixture
def fake_llm():
    server = FakeLLM(timeout_sleep=1.5).start()
    try:
        yield server
    finally:
        server.stop()
