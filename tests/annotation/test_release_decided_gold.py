"""Gold checks for an annotator whose qualification is decided (docs/QUALITY.md, "Gold,
qualification, adjudication"). A qualification item is a task on a question
(``is_qualification_task``) and an annotator has one assignment of a task on a question,
showing every unit of it there: the gold checks of the qualification item's own task on
that question are that very assignment, so a decided annotator (who must never be shown
the qualification item again) cannot get them, and the admin is told so, naming them. The
gold checks of the question's other tasks are assignments of their own: a decided
annotator receives them like anyone."""

import pytest

from annotation.models import Assignment, QualificationResult
from annotation.models.quality import is_qualification_task
from studio.studyadmin import quality
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db

S0, S1 = "SecretSystem0", "SecretSystem1"


@pytest.fixture
def world():
    admin = make_user("rdg_admin", "admin")
    study = make_study("Decided gold", tasks=["pairwise", "query_quality"],
                       qualification_required=True)  # fmt: skip
    q1, _q2, q3 = (make_question(study, n_reports=2, paragraphs=1) for _ in range(3))
    people = {}
    for name, passed in (("passed", True), ("failed", False), ("open", None)):
        person = make_user(f"rdg_{name}", "annotator", annotator=True).annotator
        make_assignment(person, q3, "pairwise")
        if passed is not None:
            QualificationResult.objects.create(study=study, annotator=person, items=1,
                                               answered=1, passed=passed, overridden=True)  # fmt: skip
        people[name] = person
    enter = {"study": study, "question": "q1", "user": admin}
    quality.mark_entered(**enter, task="query_quality", unit="clarity", answer="4",
                         purpose="qualification")  # fmt: skip
    quality.mark_entered(**enter, task="query_quality", unit="naturalness", answer="4",
                         purpose="gold")  # fmt: skip
    quality.mark_entered(**enter, task="pairwise", answer=f"{S0}>{S1}", purpose="gold")
    return study, q1, people, admin


def _tasks(person, question) -> set[str]:
    return set(Assignment.objects.filter(annotator=person, question=question)
               .values_list("task", flat=True))  # fmt: skip


def test_a_decided_annotator_gets_the_question_s_other_gold_but_never_the_qualification_item(
    world,
):
    study, q1, people, admin = world
    out = quality.release(study, admin, seed=1)
    # the qualification item's task on q1 is the qualification item itself
    assert is_qualification_task(study.pk, "query_quality", q1.pk)
    assert not is_qualification_task(study.pk, "pairwise", q1.pk)
    assert _tasks(people["open"], q1) == {"query_quality", "pairwise"}
    for who in ("passed", "failed"):
        assert _tasks(people[who], q1) == {"pairwise"}  # the ordinary gold check of q1
        said = next(r for r in out.not_added if r.startswith(people[who].pseudonym))
        assert said.endswith(
            "query_quality on question q1 would not change a decided result (only an "
            "override does); the gold check of query_quality there (naturalness) shares "
            "that assignment, so it is not given either (put a gold check for decided "
            "annotators on another question)"
        ), said
    assert out.created == 4
    # a second release gives nothing more, and still never the qualification item
    again = quality.release(study, admin, seed=2)
    assert again.created == 0
    assert _tasks(people["failed"], q1) == {"pairwise"}
