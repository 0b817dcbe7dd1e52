"""The released data under ``../shared/data``: read by tests from there, never copied."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def shared(*parts: str) -> Path:
    """A released file or folder; skipped locally when absent, a failure under CI."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"../shared/data/{'/'.join(parts)} is missing")
        pytest.skip(f"../shared/data/{'/'.join(parts)} not available")
    return path
