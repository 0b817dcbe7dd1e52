"""The expertise-triage section (issue 16; docs/ANALYSES.md §11) on the page, in the API
(typed), in `manage.py analysis --kind expertise_triage --json`, in a CSV download and in
the offline HTML; its figures change when one more self-rating is added; its agreement split
by self-rated expertise is computed by hand here."""

import pytest

from annotation.models import Annotator, ExpertiseRating, Medal, MedalRanking, Question
from metaeval import sections
from metaeval.reports import ReportOptions
from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind, csv_rows

pytestmark = pytest.mark.django_db


def _triaged_world():
    """Two questions; ann1 rates q0 within and q1 near, ann2 rates q0 outside. ann1 ranks
    alpha over beta on both (as the judge's overall scores do, 0.8 vs 0.5); ann2 ranks beta
    over alpha on q0."""
    study, _ = analysis_world(2, "tri")
    ann1, ann2 = (Annotator.objects.get(pseudonym=f"tri-{k}") for k in ("ann1", "ann2"))
    q0, q1 = Question.objects.filter(study=study).order_by("pk")
    for ann, q, level in ((ann1, q0, "within"), (ann1, q1, "near"), (ann2, q0, "outside")):
        ExpertiseRating.objects.create(annotator=ann, question=q, level=level)
    ranking = MedalRanking.objects.create(study=study, question=q0, annotator=ann2)
    Medal.objects.create(ranking=ranking, report=q0.reports.get(system__name="alpha"),
                         medal="silver")  # fmt: skip
    Medal.objects.create(ranking=ranking, report=q0.reports.get(system__name="beta"),
                         medal="gold")  # fmt: skip
    return study


def _agreement(result):
    return {(a["level"], a["reference"]): (a["value"], a["n"]) for a in result["agreement"]}


def test_expertise_triage_section(client, researcher_user):
    study = _triaged_world()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "expertise_triage", "expertise_coverage", "expertise-triage",
                     {"totals", "by_annotator", "by_question", "coverage", "agreement"},
                     lambda: world_additions.expertise_rating(study))  # fmt: skip
    assert got["totals"] == {"ratings": 3, "annotators": 2, "questions": 2, "within": 1,
                             "near": 1, "outside": 1}  # fmt: skip
    assert {a["annotator"]: (a["within"], a["near"], a["outside"]) for a in got["by_annotator"]} \
        == {"tri-ann1": (1, 1, 0), "tri-ann2": (0, 0, 1)}  # fmt: skip
    cov = {(c["level"], c["k"]): (c["questions"], c["share"]) for c in got["coverage"]}
    assert cov[("within", 1)] == (1, 0.5) and cov[("within", 2)] == (0, 0.0)
    assert cov[("within_or_near", 1)] == (2, 1.0) and cov[("outside", 1)] == (1, 0.5)
    agreement = _agreement(got)
    # ann1 (within on q0) agrees with the judge, not with ann2; ann2 (outside) with neither
    assert agreement[("within", "judge")] == (1.0, 1)
    assert agreement[("within", "consensus")] == (0.0, 1)
    assert agreement[("outside", "judge")] == (0.0, 1)
    assert agreement[("outside", "consensus")] == (0.0, 1)
    assert agreement[("near", "judge")] == (1.0, 1)
    # no other expert ranked q1: undefined, with its note
    near = next(a for a in got["agreement"] if a["level"] == "near" and a["reference"] ==
                "consensus")  # fmt: skip
    assert near["value"] is None and near["note"]
    # the added self-rating reaches the download (the figure changed in check_kind)
    rows = csv_rows(client, study, "expertise_coverage")
    within2 = next(r for r in rows if r["level"] == "within" and r["k"] == "2")
    assert within2["questions"] == "1"


def test_without_medal_rankings_the_agreement_is_null_with_a_note():
    study, _ = analysis_world(1, "norank")
    MedalRanking.objects.filter(study=study).delete()
    q = Question.objects.get(study=study)
    ExpertiseRating.objects.create(annotator=Annotator.objects.get(pseudonym="norank-ann1"),
                                   question=q, level="near")  # fmt: skip
    section = {s.key: s for s in sections.registered()}["expertise_triage"]
    got = sections.Analysis(study.pk, ReportOptions()).result(section)
    assert got["agreement"] is None and "no medal ranking" in got["agreement_note"]
    assert got["totals"]["near"] == 1 and "human_signal" not in got
    # a human signal is never silently ignored: the section says it does not apply
    majority = sections.Analysis(study.pk, ReportOptions(human_signal="majority")).result(section)
    assert majority["human_signal"]["applies"] is False and majority["human_signal"]["note"]
