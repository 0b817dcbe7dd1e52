"""The question-authoring section (issue 16; docs/ANALYSES.md §12) on the page, in the API
(typed), in `manage.py analysis --kind question_authoring --json`, in a CSV download and in
the offline HTML; its figures change when one more authored question is added."""

import pytest

from annotation.models import (
    Annotator,
    Medal,
    MedalRanking,
    Question,
    Report,
    Rubric,
    RubricItem,
    System,
)
from tests.builders.analysis import analysis_world

from . import world_additions
from .section_checks import check_kind, command, csv_rows

pytestmark = pytest.mark.django_db


def _authored_world():
    """ann1 wrote two questions (NLP, 30 and 10 characters); the first has a rubric of
    three items, a report and a medal ranking; the second nothing yet."""
    study, _ = analysis_world(1, "auth")
    ann1 = Annotator.objects.get(pseudonym="auth-ann1")
    first = Question.objects.create(study=study, external_id="authored-1-1", field="NLP",
                                    text="x" * 30, origin="expert_authored", authored_by=ann1,
                                    review="accepted")  # fmt: skip
    Question.objects.create(study=study, external_id="authored-1-2", field="NLP", text="y" * 10,
                            origin="expert_authored", authored_by=ann1, review="pending")  # fmt: skip
    rubric = Rubric.objects.create(question=first, kind="hybrid")
    for n in range(3):
        RubricItem.objects.create(rubric=rubric, position=n, text=f"item {n}")
    report = Report.objects.create(question=first, system=System.objects.get(study=study,
                                                                             name="alpha"))  # fmt: skip
    ranking = MedalRanking.objects.create(study=study, question=first, annotator=ann1)
    Medal.objects.create(ranking=ranking, report=report, medal="gold")
    return study


def test_question_authoring_section(client, researcher_user):
    study = _authored_world()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = check_kind(client, study, "question_authoring", "authoring_by_annotator",
                     "question-authoring", {"total", "by_annotator", "by_field", "questions"},
                     lambda: world_additions.authored_question(study))  # fmt: skip
    total = got["total"]
    assert total["questions"] == 2 and total["accepted"] == 1 and total["pending"] == 1
    assert total["mean_chars"] == 20.0 and total["mean_rubric_items"] == 1.5
    assert total["with_rubric"] == 1 and total["with_reports"] == 1 and total["judged"] == 1
    assert [a["annotator"] for a in got["by_annotator"]] == ["auth-ann1"]
    assert [(f["field"], f["questions"]) for f in got["by_field"]] == [("NLP", 2)]
    # the added question reaches the download: a second author and a second field
    rows = csv_rows(client, study, "authoring_by_field")
    assert {r["field"]: r["questions"] for r in rows} == {"NLP": "2", "Robotics": "1"}
    # the analysis world's imported questions (origin other, no author) are not counted
    assert all(not q["question"].startswith("q") for q in got["questions"])
    # a human signal is never silently ignored: the section says it does not apply
    signal = command(study, "question_authoring", "--human-signal=majority")["human_signal"]
    assert signal["applies"] is False and signal["mode"] == "majority"
