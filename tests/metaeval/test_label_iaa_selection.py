"""``label_iaa`` follows the report's selection (tester's report: ``systems=``,
``exclude_systems=`` and ``expert_agreed=true`` gave the same label IAA for every selection
while the comparison IAA followed it): only the units of the selected reports count, and a
selection that leaves no unit labelled twice makes it null with a note."""

import pytest

from annotation.models import Annotator, HumanMetricScore, Report
from metaeval import sections
from metaeval.reports import ReportOptions
from metaeval.sections.label_iaa import NO_UNIT
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored():
    """Two annotators score every report of alpha (agreeing) and beta (not); gamma's
    reports have one score each."""
    study = build_study("sel", questions=2, systems=("alpha", "beta", "gamma"))
    anns = [Annotator.objects.create(pseudonym=f"sel-{k}") for k in range(2)]
    for n, r in enumerate(Report.objects.filter(question__study=study).order_by("pk")):
        for a, ann in enumerate(anns):
            if r.system.name == "gamma" and a:
                continue
            HumanMetricScore.objects.create(study=study, annotator=ann, question=r.question,
                                            report=r, metric="overall",
                                            value=n / 8 + a * (r.system.name == "beta") / 8)  # fmt: skip
    return study


def score_row(study, **options) -> dict | None:
    """The score kind's row, with the labels the selection read (``n_labels``)."""
    got = sections.report(study.pk, ReportOptions(**options))
    block = got["label_iaa"]
    row = next(k for k in block["kinds"] if k["kind"] == "score")
    return {**row, "n_labels": block["n_labels"]}


def test_a_selection_of_systems_keeps_their_units_only(scored):
    every = score_row(scored)
    assert (every["units"], every["pairs"], every["strict"]) == (4, 4, 0.5)
    assert every["n_labels"] == 10  # gamma's two single labels too
    alpha = score_row(scored, systems=("alpha",))
    assert (alpha["units"], alpha["pairs"], alpha["strict"], alpha["n_labels"]) == (2, 2, 1.0, 4)
    no_beta = score_row(scored, exclude_systems=("beta",))
    assert (no_beta["units"], no_beta["strict"]) == (2, 1.0)


def test_a_selection_with_no_unit_labelled_twice_is_null_with_a_note(scored):
    got = sections.report(scored.pk, ReportOptions(systems=("gamma",)))
    assert got["label_iaa"] is None
    assert NO_UNIT in got["notes"]
