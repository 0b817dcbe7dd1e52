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


# ------------------------------------------- every section whose signal reads labels


def _fail(study, *pseudonyms):
    """``study`` requires the round and the annotators ``pseudonyms`` failed it."""
    from annotation.models import Annotator, QualificationResult

    study.config = {**(study.config or {}), "qualification_required": True}
    study.save(update_fields=["config"])
    for annotator in Annotator.objects.filter(pseudonym__in=pseudonyms):
        QualificationResult.objects.create(study=study, annotator=annotator, items=1,
                                           answered=1, passed=False)  # fmt: skip


def _nugget_labels(study, judge):
    """Nugget importance as the world's other labels: q0 vital, vital, non-vital; q1 vital,
    non-vital; the judge says vital."""
    from annotation.models import Annotator, DeepScholarLabel, Question
    from judges.models import JudgeDeepScholarLabel

    anns = list(Annotator.objects.filter(pseudonym__startswith="signal-ann").order_by("pk"))
    for q, labels in zip(Question.objects.filter(study=study).order_by("external_id"),
                         (("vital", "vital", "non_vital"), ("vital", "non_vital")),
                         strict=True):  # fmt: skip
        for ann, value in zip(anns, labels, strict=False):
            DeepScholarLabel.objects.create(study=study, question=q, annotator=ann,
                                            kind="nugget_importance", unit="n1", label=value)  # fmt: skip
        JudgeDeepScholarLabel.objects.create(judge=judge, question=q, kind="nugget_importance",
                                             unit="n1", label="vital")  # fmt: skip


def _nugget_agreement(r):
    kinds = r["judges"][0]["kinds"]
    return next(k for k in kinds if k["kind"] == "nugget_importance")["agreement"]["value"]


#: section -> (the figure, under majority with everyone counted, with ann1 and ann2 failed)
FLIPPED = {
    "ratings": (lambda r: r["dimensions"][0]["by_system"]["alpha"]["mean"], 4.0, 2.0),
    "claim_support": (lambda r: r["judges"][0]["all"]["claim_support"]["agreement"]["value"],
                      1.0, 0.0),
    "rubric_comparison": (lambda r: next(s for s in r["sources"]
                                         if s["source"] == "hybrid")["win_rate"], 1.0, 0.0),
    "deepscholar_agreement": (_nugget_agreement, 1.0, 0.0),
}  # fmt: skip


@pytest.mark.parametrize("key", sorted(FLIPPED))
@pytest.mark.parametrize("signal", ["majority", "adjudicated"])
def test_failed_annotators_flip_no_majority(key, signal):
    """``tests.builders.signal``'s q0: ann1 and ann2 give one label (rating 4, claim
    supported, hybrid rubric first, nugget vital), ann3 the other; q1 (ann1, ann2) ties.
    With ann1 and ann2 failed, q0's majority is ann3's label and q1 has none: the figure
    against the judge (who sides with ann1 and ann2) flips. Each annotator's own figure
    (``each``) still reads everyone."""
    from metaeval import sections
    from metaeval.reports import ReportOptions
    from metaeval.sections import registry
    from tests.builders.signal import signal_world

    study, judge = signal_world()
    _nugget_labels(study, judge)
    pick, counted, flipped = FLIPPED[key]

    def figure(mode):
        analysis = sections.Analysis(study.pk, ReportOptions(human_signal=mode))
        sections.registered()
        return analysis.result(registry()[key])

    assert pick(figure(signal)) == pytest.approx(counted)
    each = figure("each")
    _fail(study, "signal-ann1", "signal-ann2")
    assert pick(figure(signal)) == pytest.approx(flipped)
    assert figure("each") == each  # their own labels still count under "each"
