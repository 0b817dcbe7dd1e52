"""Shared fixtures: users per role, the shared ScholarQA-CS2 data directory."""

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scholarqa-cs2"


@pytest.fixture(scope="session")
def scholarqa_dir() -> Path:
    """The released ScholarQA-CS2 data. Skipped locally when absent; a failure under CI."""
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"../shared/data/scholarqa-cs2 is missing (looked in {SHARED_DATA})")
        pytest.skip("../shared/data/scholarqa-cs2 not available")
    return SHARED_DATA


def make_user(username: str, role: str | None, *, annotator: bool = False):
    from django.contrib.auth.models import User

    from annotation import roles
    from annotation.models import Annotator

    user = User.objects.create_user(username=username, password=username)
    if role:
        roles.grant(user, role)
    if annotator:
        Annotator.objects.create(user=user, pseudonym=f"Pseudo-{username}")
    return user


@pytest.fixture
def admin_user(db):
    return make_user("admin_t", "admin")


@pytest.fixture
def researcher_user(db):
    return make_user("researcher_t", "researcher")


@pytest.fixture
def annotator_user(db):
    return make_user("annotator_t", "annotator", annotator=True)


@pytest.fixture
def other_annotator_user(db):
    return make_user("annotator_other", "annotator", annotator=True)
