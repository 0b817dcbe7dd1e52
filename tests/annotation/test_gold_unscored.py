"""A known answer in a task an annotator already has on its question is promised as "scored
as gold" only when their assignment shows what the answer is about.

Found by a tester on ResearcherBench: the release said an annotator "already has
medal_ranking on question 6 … their label there will be scored as gold", but their
assignment showed Claude / Perplexity / gpt-4o while the known answer ranks OpenAI /
Perplexity / gpt-4o; a ranking of other reports is no answer to it
(``annotation.quality.scoring.answers``), so gold accuracy stayed "–" with 0 answered.
"""

import pytest

from annotation.models import Assignment, Report
from studio.studyadmin import quality
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def _ranking(annotator, question, systems):
    a = make_assignment(annotator, question, "medal_ranking")
    a.report_order = [Report.objects.get(question=question, system__name=s).pk for s in systems]
    a.save()
    return a


def test_a_ranking_of_other_reports_is_said_unscored_not_promised_as_gold():
    study = make_study("Unscored gold", tasks=["medal_ranking"])
    admin = make_user("ug_admin", "admin")
    other, same, fresh = (
        make_user(f"ug_{n}", "annotator", annotator=True).annotator
        for n in ("other", "same", "fresh")
    )
    gold_q, elsewhere = make_question(study, n_reports=4), make_question(study, n_reports=4)
    s = [f"SecretSystem{i}" for i in range(4)]
    _ranking(other, gold_q, s[0:3])  # shows 0, 1, 2
    _ranking(same, gold_q, s[1:4])  # shows exactly what the answer ranks
    _ranking(fresh, elsewhere, s[0:3])
    quality.mark_entered(
        study, task="medal_ranking", question=gold_q.external_id,
        answer=f"{s[1]}=gold;{s[2]}=silver;{s[3]}=bronze", purpose="gold", user=admin,
    )  # fmt: skip

    out = quality.release(study, admin, seed=3)

    said = {n.split(" already has ")[0]: n for n in out.not_added if " already has " in n}
    assert set(said) == {other.pseudonym, same.pseudonym}
    unscored = said[other.pseudonym]
    assert f"question {gold_q.external_id}" in unscored
    assert "cannot be scored as gold" in unscored
    assert f"{s[0]}, {s[1]}, {s[2]}" in unscored  # what their assignment shows
    assert "will be scored as gold" not in unscored
    assert "will be scored as gold" in said[same.pseudonym]
    # the one without the question gets the check, showing exactly the ranked reports
    given = Assignment.objects.get(annotator=fresh, question=gold_q)
    shown = set(given.report_order)
    assert shown == set(
        Report.objects.filter(question=gold_q, system__name__in=s[1:4]).values_list("pk", flat=True)
    )
    assert out.created == 1
