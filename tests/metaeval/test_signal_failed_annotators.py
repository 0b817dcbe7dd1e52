"""The majority and adjudicated human signals leave out the labels of an annotator who
failed qualification (QUALITY.md: their labels count nowhere; consensus already left them
out): the report's adjudicated signal listed qualification-item units as "tied" between
a counted annotator and the failed one. Failing or passing someone changes the report
cache's key, so no stale report is served."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from metaeval.cache import study_fingerprint
from metaeval.stats.signal import collapse
from tests.builders.quality import failed_annotator_world

pytestmark = pytest.mark.django_db

TASK = "query_quality"


@pytest.fixture
def world(db):
    """``good`` and ``bad`` give different query-quality labels to one question."""
    return failed_annotator_world(TASK)


def _summary(client, study, signal):
    cache.clear()
    got = client.get(reverse("api-agreement", args=[study.pk]) + f"?human_signal={signal}")
    assert got.status_code == 200, got.content[:300]
    return got.json()["label_quality"]["human_signal"]["kinds"]["clarity"]


@pytest.mark.parametrize("signal", ["majority", "adjudicated"])
def test_a_failed_annotator_s_labels_make_no_tie(world, client, admin_user, signal):
    study, bad = world.study, world.bad
    client.force_login(admin_user)
    assert _summary(client, study, signal)["tied"] == 1  # undecided: their labels count
    before = study_fingerprint(study.pk, failed=True)
    world.qualify(bad, False)
    assert study_fingerprint(study.pk, failed=True) != before
    got = _summary(client, study, signal)
    assert got["tied"] == 0 and got["kept"] == 1  # good's label alone
    world.qualify(bad, True)  # a pass by hand counts them again
    assert study_fingerprint(study.pk, failed=True) == before
    assert _summary(client, study, signal)["tied"] == 1


def test_each_annotator_s_own_labels_stay_under_each():
    import numpy as np

    unit, label_, failed = np.array([1, 1]), np.array([4.0, 5.0]), np.array([False, True])
    assert collapse(unit, label_, "each", excluded=failed).rows.tolist() == [0, 1]
    assert collapse(unit, label_, "majority", excluded=failed).label.tolist() == [4.0]
    assert collapse(unit, label_, "majority").tied == 1


def test_the_medal_signal_leaves_a_failed_annotator_out():
    """The agreement report's majority frame: x and y tie on (A, B); with y failed, x's
    decision is the comparison's."""
    from metaeval.frame import with_human_signal
    from tests.metaeval.test_reports import tiny_frame

    frame = tiny_frame()
    _, counted = with_human_signal(frame, "majority")
    assert counted["tied"] == 1
    out, counted = with_human_signal(frame, "majority", failed=frozenset({"y"}))
    assert counted["tied"] == 0 and len(out) == 3
