"""A list filter naming an object that does not exist, or that is of no study the caller
reads (of the ``study`` filtered by, when one is), is a 400 naming the parameter, as the
exports refuse a value naming nothing in the study. Found by a researcher with a token:
``/api/judgments/metric-scores/?system=99999`` answered an empty list, which a script
cannot tell from an empty selection."""

from __future__ import annotations

import pytest

from annotation.models import Annotator
from judges.models import Judge, JudgeScore
from tests.builders import world as f
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    mine, theirs = f.study("Mine"), f.study("Theirs")
    researcher = make_user("named_researcher", "researcher")
    mine.researchers.add(researcher)
    q_mine, q_theirs = f.question(mine), f.question(theirs)
    s_mine, s_theirs = f.system(mine, "alpha"), f.system(theirs, "beta")
    r_mine = f.report(q_mine, s_mine, sections=1, paragraphs=1)
    r_theirs = f.report(q_theirs, s_theirs, sections=1, paragraphs=1)
    judge = Judge.objects.create(name="mine-judge")
    JudgeScore.objects.create(judge=judge, report=r_mine, metric="overall", value=0.5)
    hidden = Judge.objects.create(name="their-judge")
    JudgeScore.objects.create(judge=hidden, report=r_theirs, metric="overall", value=0.5)
    annotator = make_user("named_annotator", "annotator", annotator=True).annotator
    f.assignment(annotator, q_mine)
    stranger = Annotator.objects.create(pseudonym="Stranger-1")
    return {"client": token_client(researcher), "mine": mine, "theirs": theirs,
            "q_mine": q_mine, "q_theirs": q_theirs, "s_mine": s_mine, "s_theirs": s_theirs,
            "r_mine": r_mine, "r_theirs": r_theirs, "judge": judge, "hidden": hidden,
            "annotator": annotator, "stranger": stranger}  # fmt: skip


@pytest.mark.parametrize(
    "path, name, bad",
    [
        ("/api/judgments/metric-scores/", "system", 99999),
        ("/api/judgments/metric-scores/", "system", "s_theirs"),
        ("/api/judgments/pairwise-preferences/", "question", "q_theirs"),
        ("/api/judgments/pairwise-preferences/", "annotator", "stranger"),
        ("/api/reports/", "system", "s_theirs"),
        ("/api/reports/", "question", 99999),
        ("/api/judge-scores/", "judge", "hidden"),
        ("/api/judge-scores/", "report", "r_theirs"),
        ("/api/assignments/", "annotator", 99999),
    ],
)
def test_a_filter_naming_nothing_readable_is_a_400_naming_it(setup, path, name, bad):
    value = bad if isinstance(bad, int) else setup[bad].pk
    got = setup["client"].get(path, {name: value})
    assert got.status_code == 400, (got.status_code, got.content[:300])
    assert name in got.json() and f"No {name} {value} in" in str(got.json()[name])


@pytest.mark.parametrize(
    "path, name, good",
    [
        ("/api/judgments/metric-scores/", "system", "s_mine"),
        ("/api/judgments/pairwise-preferences/", "question", "q_mine"),
        ("/api/judgments/pairwise-preferences/", "annotator", "annotator"),
        ("/api/reports/", "system", "s_mine"),
        ("/api/judge-scores/", "judge", "judge"),
        ("/api/judge-scores/", "report", "r_mine"),
    ],
)
def test_a_filter_naming_a_readable_object_still_lists(setup, path, name, good):
    got = setup["client"].get(path, {name: setup[good].pk})
    assert got.status_code == 200, got.content[:300]


def test_an_object_of_another_study_than_the_one_filtered_is_refused(setup):
    """``study`` and ``question`` of two readable studies: no question of that study."""
    other = f.study("Mine too")
    other.researchers.add(*setup["mine"].researchers.all())
    got = setup["client"].get("/api/reports/", {"study": other.pk,
                                                "question": setup["q_mine"].pk})  # fmt: skip
    assert got.status_code == 400
    assert f"No question {setup['q_mine'].pk} in study {other.pk}" in str(got.json()["question"])
