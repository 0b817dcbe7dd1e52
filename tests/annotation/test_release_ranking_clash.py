"""Releasing gold and qualification items never gives an annotator a second ranking task
on a question they already rank (found by an annotator's walk-through).

Medal ranking and metric-wise both write the one ranking of a question and setting
(``TaskSpec.ranks``): an annotator holding a metric-wise assignment on a question who was
handed a medal-ranking qualification item there could submit only one of the two (the
other is refused, ``medal_ranking.ranking_conflict``), so they were stuck with a task
they could never finish. The release says why instead, as the planner bars the pair.
"""

from annotation.models import Assignment, MedalRanking
from studio.studyadmin import quality
from tests.annotation.test_gold_unrecognisable import ANSWERS, world  # noqa: F401
from tests.builders.content import make_assignment


def test_no_ranking_item_where_the_annotator_already_ranks_the_question(world):  # noqa: F811
    study, admin, q, others, (ua, ub) = world
    a, b = ua.annotator, ub.annotator
    for n, other in enumerate(others):
        make_assignment(a, other, "medal_ranking", position=n + 1)
        make_assignment(b, other, "medal_ranking", position=n + 1)
    make_assignment(a, q, "metric_wise", position=9)  # a ranks q by another task
    quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                         answer=ANSWERS["medal_ranking"], purpose="qualification", user=admin)  # fmt: skip
    done = quality.release(study, admin, seed=1)
    assert not Assignment.objects.filter(annotator=a, question=q, task="medal_ranking").exists()
    assert Assignment.objects.filter(annotator=b, question=q, task="medal_ranking").exists()
    assert done.created == 1
    (said,) = [m for m in done.not_added if a.pseudonym in m]
    assert f"already ranks question {q.external_id} in their metric_wise assignment" in said
    assert "could never be submitted" in said


def test_a_withdrawn_assignment_or_another_setting_is_no_clash(world):  # noqa: F811
    study, admin, q, others, (ua, _) = world
    a = ua.annotator
    make_assignment(a, others[0], "medal_ranking", position=1)
    Assignment.objects.create(study=study, annotator=a, question=q, task="metric_wise",
                              status=Assignment.Status.WITHDRAWN, position=2)  # fmt: skip
    quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                         answer=ANSWERS["medal_ranking"], purpose="qualification", user=admin)  # fmt: skip
    quality.release(study, admin, seed=1)
    assert Assignment.objects.filter(annotator=a, question=q, task="medal_ranking").exists()


def test_no_ranking_item_over_a_ranking_imported_under_their_name(world):  # noqa: F811
    study, admin, q, others, (ua, _) = world
    a = ua.annotator
    make_assignment(a, others[0], "medal_ranking", position=1)
    MedalRanking.objects.create(study=study, annotator=a, question=q)  # imported: no assignment
    quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                         answer=ANSWERS["medal_ranking"], purpose="gold", user=admin)  # fmt: skip
    done = quality.release(study, admin, seed=1)
    assert not Assignment.objects.filter(annotator=a, question=q, task="medal_ranking").exists()
    assert any("a ranking imported under their name" in m for m in done.not_added)


def _both_rankings(world, metric_wise_purpose="gold"):  # noqa: F811
    """Known answers for metric-wise medals and for medal ranking on one question, then one
    release (found by a tester: each annotator got both, and could submit only one)."""
    study, admin, q, others, people = world
    for u in people:
        for n, other in enumerate(others):
            make_assignment(u.annotator, other, "medal_ranking", position=n + 1)
    quality.mark_entered(study, task="metric_wise", question=q.external_id, unit="medals",
                         answer=ANSWERS["medal_ranking"], purpose=metric_wise_purpose,
                         user=admin)  # fmt: skip
    quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                         answer=ANSWERS["medal_ranking"], purpose="gold", user=admin)  # fmt: skip
    return quality.release(study, admin, seed=1)


def test_one_release_gives_an_annotator_one_ranking_of_a_question(world):  # noqa: F811
    study, admin, q, others, people = world
    done = _both_rankings(world)
    for u in people:
        tasks = list(
            Assignment.objects.filter(annotator=u.annotator, question=q).values_list(
                "task", flat=True
            )
        )
        assert len(tasks) == 1, tasks
        (said,) = [m for m in done.not_added if u.annotator.pseudonym in m]
        assert f"gets the {tasks[0]} item on question {q.external_id} in this release" in said
        assert "could never be submitted" in said
    assert done.created == len(people)


def test_of_two_rankings_released_together_the_qualification_item_is_kept(world):  # noqa: F811
    study, admin, q, others, people = world
    _both_rankings(world, metric_wise_purpose="qualification")
    for u in people:
        held = Assignment.objects.filter(annotator=u.annotator, question=q)
        assert list(held.values_list("task", flat=True)) == ["metric_wise"]
