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
