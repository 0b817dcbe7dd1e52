"""A released gold item lands anywhere among the annotator's unsubmitted work (a tester's
finding): opening a task page sets its start time, and the release placed gold only among
work nobody had opened, so an annotator who opened every unfinished task first found the
gold item last in their queue ("Query 12 of 12"), every time.
"""

from django.utils import timezone

from annotation.models import Assignment, DraftVersion, GoldItem
from studio.studyadmin import quality
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

OPEN = 8


def opened_queue(db):
    """An annotator with one submitted task (position 1) and OPEN opened, unfinished ones."""
    study = make_study("Gold anywhere", tasks=["query_quality"])
    admin = make_user("gp_admin", "admin")
    annotator = make_user("gp_a", "annotator", annotator=True).annotator
    done = make_assignment(annotator, make_question(study), "query_quality", position=1)
    Assignment.objects.filter(pk=done.pk).update(status="submitted", submitted_at=timezone.now())
    for n in range(OPEN):
        a = make_assignment(annotator, make_question(study), "query_quality", position=n + 2)
        Assignment.objects.filter(pk=a.pk).update(started_at=timezone.now())  # opened
    gold_q = make_question(study)
    quality.mark_entered(study, task="query_quality", question=gold_q.external_id,
                         unit="clarity", answer="5", purpose="gold", user=admin)  # fmt: skip
    return study, admin, annotator, done, gold_q


def test_a_gold_item_is_not_always_last_when_every_task_was_opened(db):
    study, admin, annotator, done, gold_q = opened_queue(db)
    before = {
        a.pk: (a.started_at, a.status)
        for a in Assignment.objects.filter(annotator=annotator).exclude(pk=done.pk)
    }
    places = []
    for seed in range(40):
        quality.release(study, admin, seed=seed)
        queue = list(
            Assignment.objects.filter(annotator=annotator, status__in=["not_started"])
            .order_by("position", "pk")
            .values_list("question_id", flat=True)
        )
        places.append(queue.index(gold_q.pk))
        done.refresh_from_db()
        assert done.position == 1  # a submitted item keeps its place
        positions = list(Assignment.objects.filter(annotator=annotator).values_list("position"))
        assert len(set(positions)) == len(positions)
        Assignment.objects.filter(annotator=annotator, question=gold_q).delete()  # next seed
    assert min(places) < (OPEN + 1) // 2, places  # sometimes in the first half
    assert len(set(places)) > 3, places
    after = {
        a.pk: (a.started_at, a.status)
        for a in Assignment.objects.filter(annotator=annotator).exclude(pk=done.pk)
    }
    assert after == before  # opened work keeps its id, start time and status
    assert not DraftVersion.objects.exists() and GoldItem.objects.count() == 1
