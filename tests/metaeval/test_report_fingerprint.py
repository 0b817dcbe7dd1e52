"""The report cache's study fingerprint (metaeval/cache.py) changes when a judgment of any
kind a section reads is added or edited, so the page never serves the report from before
it. It once covered medal rankings, medals, metric scores and judge scores only: a pairwise
preference, a coverage label or a claim check left the page's sections stale for 24 h."""

import pytest

from annotation.models import PairwisePreference, Question, RubricCoverage
from judges.models import Judge, JudgeClaimVerdict, JudgeCoverage, JudgePairwise
from metaeval.cache import judgment_kinds, study_fingerprint
from tests.builders.analysis import analysis_world

from . import world_additions

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "add",
    [world_additions.query_quality, world_additions.rubric_comparison,
     world_additions.claim_check, world_additions.adjudication, world_additions.rating,
     world_additions.expertise_rating, world_additions.authored_question],
)  # fmt: skip
def test_a_new_judgment_of_each_kind_changes_the_fingerprint(add):
    study, _ = analysis_world(1)
    before = study_fingerprint(study.pk)
    add(study)
    assert study_fingerprint(study.pk) != before


def test_an_edit_in_place_changes_the_fingerprint():
    study, _ = analysis_world(1)
    before = study_fingerprint(study.pk)
    label = RubricCoverage.objects.filter(study=study).first()
    label.label = 1
    label.save()
    assert study_fingerprint(study.pk) != before
    before = study_fingerprint(study.pk)
    pref = PairwisePreference.objects.filter(study=study).first()
    pref.choice = "tie"
    pref.save()
    assert study_fingerprint(study.pk) != before


def test_a_self_rating_or_an_authored_question_edited_in_place_changes_it():
    """A second triage submit changes the level; an authoring resubmit rewrites the text;
    a researcher's review changes the question's state (the sections of §11, §12)."""
    from annotation.models import ExpertiseRating

    study, _ = analysis_world(1)
    world_additions.expertise_rating(study)
    world_additions.authored_question(study)
    before = study_fingerprint(study.pk)
    ExpertiseRating.objects.filter(question__study=study).update(level="outside")
    assert study_fingerprint(study.pk) != before
    authored = Question.objects.get(study=study, origin="expert_authored")
    for change in ({"text": authored.text + " In robots?"}, {"review": "rejected"}):
        before = study_fingerprint(study.pk)
        Question.objects.filter(pk=authored.pk).update(**change)
        assert study_fingerprint(study.pk) != before, change


def test_a_judge_verdict_changes_the_fingerprint():
    study, _ = analysis_world(1)
    q = Question.objects.get(study=study)
    alpha, beta = (q.reports.get(system__name=n) for n in ("alpha", "beta"))
    j2 = Judge.objects.create(name="j2")
    for add in (
        lambda: JudgePairwise.objects.create(judge=j2, left=alpha, right=beta, choice="left"),
        lambda: JudgeCoverage.objects.create(
            judge=j2, report=alpha, item=q.rubrics.get(kind="hybrid").items.first(), label=0
        ),  # fmt: skip
        lambda: JudgeClaimVerdict.objects.create(
            judge=j2, report=alpha, key="k", text="t", verdict="supported", citations=[]
        ),  # fmt: skip
    ):
        before = study_fingerprint(study.pk)
        add()
        assert study_fingerprint(study.pk) != before


def test_a_judge_verdict_relabelled_in_place_changes_the_fingerprint():
    """A re-import updates the judge's verdicts in place (``sync_rows``): same rows, same
    ids, new values; the value signature of each verdict kind must move."""
    study, _ = analysis_world(1)
    q = Question.objects.get(study=study)
    alpha, beta = (q.reports.get(system__name=n) for n in ("alpha", "beta"))
    j2 = Judge.objects.create(name="j2")
    item = q.rubrics.get(kind="hybrid").items.first()
    rows = [
        (JudgePairwise.objects.create(judge=j2, left=alpha, right=beta, choice="left"),
         "choice", "right"),
        (JudgeCoverage.objects.create(judge=j2, report=alpha, item=item, label=0), "label", 3),
        (JudgeClaimVerdict.objects.create(judge=j2, report=alpha, key="k", text="t",
                                          verdict="supported", citations=[]),
         "verdict", "unsupported"),
    ]  # fmt: skip
    for row, field, value in rows:
        before = study_fingerprint(study.pk)
        type(row).objects.filter(pk=row.pk).update(**{field: value})
        assert study_fingerprint(study.pk) != before, type(row).__name__


def test_other_studies_do_not_change_it_and_each_kind_is_one_row():
    """Another study's judgments and its judge's verdicts leave the fingerprint as it is.
    (Judges are shared between studies and have no update time: a judge created or edited
    anywhere changes every fingerprint, tests/metaeval/test_judge_secrets.py.)"""
    study, _ = analysis_world(1, name="one")
    other, judge = analysis_world(1, name="two")
    before = study_fingerprint(study.pk)
    for add in (world_additions.query_quality, world_additions.rubric_comparison,
                world_additions.claim_check, world_additions.adjudication,
                world_additions.rating, world_additions.expertise_rating,
                world_additions.authored_question):  # fmt: skip
        add(other)
    JudgePairwise.objects.filter(judge=judge).update(choice="left")  # relabelled in place
    assert study_fingerprint(study.pk) == before
    kinds = [k for k, *_ in judgment_kinds(study.pk)]
    assert len(kinds) == len(set(kinds)) and "annotation.pairwisepreference" in kinds
