"""``label_iaa`` covers the four doubly annotated kinds it left out (issue 27): 5-point
report ratings (ordinal α), human metric scores (interval α), paragraph relevance R / U / O
(nominal) and rubric-item confidence (ordinal); each α equals the ``krippendorff``
package's on the same reliability data, built here from what the test wrote."""

import krippendorff
import numpy as np
import pytest

from annotation.models import (
    Annotator,
    HumanMetricScore,
    Paragraph,
    ParagraphRelevance,
    Report,
    ReportRating,
    RubricItem,
    RubricItemQuality,
)
from metaeval import sections
from metaeval.reports import ReportOptions
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db

# per annotator, the label of each unit in order (None: not labelled)
RATINGS = [[5, 4, 2, 3, 1, 4], [4, 4, 1, 3, 2, None], [5, 3, 2, None, 1, 4]]
SCORES = [[0.5, 0.75, 0.25, 1.0], [0.5, 1.0, 0.0, 0.75], [None, 0.75, 0.25, 0.5]]
RELEVANCE = [["R", "U", "O", "R", "R"], ["R", "R", "O", "U", "R"], ["U", "R", "O", None, "R"]]
CONFIDENCE = [[5, 4, 3, 2], [4, 4, 2, 2], [5, 3, None, 1]]


def _alpha(rows, level, code=float):
    data = np.array([[np.nan if v is None else code(v) for v in r] for r in rows], dtype=float)
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level)


def test_the_four_kinds_at_their_level_equal_krippendorff():
    study = build_study("kinds", questions=2, systems=("alpha", "beta"))
    anns = [Annotator.objects.create(pseudonym=f"kinds-{k}") for k in range(3)]
    reports = list(Report.objects.filter(question__study=study).order_by("pk"))
    paragraphs = list(Paragraph.objects.filter(report__question__study=study).order_by("pk"))
    items = list(RubricItem.objects.filter(rubric__question__study=study).order_by("pk"))
    dims = ("organization", "flow", "content")
    for a, ann in enumerate(anns):
        common = {"study": study, "annotator": ann}
        for u, v in enumerate(RATINGS[a]):  # unit u: (report u // 3, dimension u % 3)
            if v is not None:
                r = reports[u // 3]
                ReportRating.objects.create(**common, question=r.question, report=r,
                                            dimension=dims[u % 3], value=v)  # fmt: skip
        for u, v in enumerate(SCORES[a]):  # unit u: (report u // 2, metric u % 2)
            if v is not None:
                r = reports[u // 2]
                HumanMetricScore.objects.create(**common, question=r.question, report=r,
                                                metric=("answer_recall", "overall")[u % 2],
                                                value=v)  # fmt: skip
        for u, v in enumerate(RELEVANCE[a]):
            if v is not None:
                p = paragraphs[u]
                ParagraphRelevance.objects.create(**common, question=p.report.question,
                                                  paragraph=p, label=v)  # fmt: skip
        for u, v in enumerate(CONFIDENCE[a]):
            if v is not None:
                item = items[u]
                RubricItemQuality.objects.create(**common, question=item.rubric.question,
                                                 item=item, emphasis="sentence",
                                                 necessity="no_change", confidence=v)  # fmt: skip
    kinds = {k["kind"]: k for k in
             sections.report(study.pk, ReportOptions())["label_iaa"]["kinds"]}  # fmt: skip
    expected = {
        "rating": ("ordinal", _alpha(RATINGS, "ordinal")),
        "score": ("interval", _alpha(SCORES, "interval")),
        "paragraph_relevance": ("nominal", _alpha(RELEVANCE, "nominal",
                                                  {"O": 0, "U": 1, "R": 2}.get)),
        "confidence": ("ordinal", _alpha(CONFIDENCE, "ordinal")),
    }  # fmt: skip
    for kind, (level, alpha) in expected.items():
        assert kinds[kind]["level"] == level, kind
        assert kinds[kind]["krippendorff_alpha"] == pytest.approx(alpha), kind
    assert kinds["rating"]["units"] == 6  # units labelled twice or more (all six)


def test_a_kind_with_no_label_at_all_is_left_out_and_one_labelled_once_stays():
    """Issue 26: a ResearcherBench study labelled yes/no only listed graded coverage with
    "No unit has two labels." and an n/a figure; a kind of which the study holds no label
    is no row. A kind labelled once still is one, with that note."""
    from metaeval.analyses.iaa import analyse_iaa

    nan = np.nan
    sets = {
        "coverage": np.array([[nan, nan], [nan, nan]]),  # every unit labelled yes/no only
        "coverage_binary": np.array([[1.0, 1.0], [0.0, 1.0]]),
        "clarity": np.array([[4.0, nan]]),  # one label: a kind of the study, no pair
        "preference": np.full((0, 0), nan),
    }
    got = {k["kind"]: k for k in analyse_iaa(sets)}
    assert set(got) == {"coverage_binary", "clarity"}
    assert got["coverage_binary"]["pairs"] == 2
    assert got["clarity"]["pairs"] == 0 and got["clarity"]["note"] == "No unit has two labels."
