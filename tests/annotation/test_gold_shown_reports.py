"""A known answer shows the reports ordinary work shows; gold goes only to annotators who can
sign in; a failed annotator's queue says their qualification is with the study admin.

Found by a red team on the released ScholarQA-CS2 data: a medal-ranking known answer of 2
reports on a question no ordinary ranking had reached was released among 3-report rankings;
a deep-expert ranking naming ``falcon`` (a textless placeholder of the pairwise import) was
offered under "Mark as known answer" and released as "Report C — This report is empty.";
the imported pseudonyms (``deep-expert``) got gold they could never do; and a failed
annotator saw "2 of 2 submitted" and nothing else.
"""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import (
    Annotator,
    Assignment,
    GoldItem,
    Paragraph,
    QualificationResult,
    Report,
)
from studio.studyadmin import planning, quality
from tests.builders.content import make_question, make_study
from tests.builders.quality import (
    S0,
    S1,
    failed_annotator_world,
    label,
    qc_question,
)
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def textless(question, system: str) -> Report:
    """The question's report of ``system`` as the pairwise import's placeholder: no text."""
    report = Report.objects.get(question=question, system__name=system)
    Paragraph.objects.filter(report=report).delete()
    return report


def test_a_ranking_of_fewer_reports_than_ordinary_rankings_show_is_refused():
    study = make_study("Shown reports")
    admin = make_user("sr_admin", "admin")
    people = [make_user(f"sr_{n}", "annotator", annotator=True).annotator for n in "ab"]
    gold_q, *others = [make_question(study, n_reports=4) for _ in range(4)]
    spec = planning.PlanSpec(task="medal_ranking", overlap=2, seed=1,
                             annotators=tuple(p.pk for p in people))  # fmt: skip
    planning.commit(study, spec)
    # the gold question has no ordinary ranking of its own (as sqa-127db876ced3c735)
    Assignment.objects.filter(question=gold_q).delete()
    shown = {len(a.report_order) for a in Assignment.objects.filter(study=study)}
    assert shown == {3}
    with pytest.raises(quality.QualityError) as refused:
        quality.mark_entered(study, task="medal_ranking", question=gold_q.external_id,
                             answer=f"{S0}=gold;{S1}=silver", purpose="gold", user=admin)  # fmt: skip
    said = str(refused.value)
    assert "rank 3 reports" in said and gold_q.external_id in said and "not 2" in said
    assert not GoldItem.objects.exists()
    # three reports, as ordinary work shows: accepted, and released with three
    quality.mark_entered(study, task="medal_ranking", question=gold_q.external_id,
                         answer=f"{S0}=gold;{S1}=silver;SecretSystem2=bronze", purpose="gold",
                         user=admin)  # fmt: skip
    assert quality.release(study, admin, seed=2).created == 2
    gold = Assignment.objects.filter(question=gold_q)
    assert {len(a.report_order) for a in gold} == {3}


def test_a_ranking_naming_a_textless_report_is_not_offered_nor_marked_nor_released():
    study = make_study("Textless", tasks=["medal_ranking"])
    admin = make_user("tl_admin", "admin")
    q = qc_question(study)  # SecretSystem0 and SecretSystem1
    deep = Annotator.objects.create(pseudonym="deep-expert")  # imported: no account
    label("medal_ranking", deep, q)  # S0=gold;S1=silver
    textless(q, S1)
    unit = quality.unit_key(("medal_ranking", q.pk, ""))
    # the quality page does not offer it, and says why
    client = Client()
    client.force_login(admin)
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    row = page[page.index(f'data-unit="{unit}"') :].split("</tr>")[0]
    assert "Mark as known answer" not in row
    assert "cannot be a known answer" in row and S1 in row and q.external_id in row
    # a forged post is refused naming the question and the report
    with pytest.raises(quality.QualityError) as refused:
        quality.mark_from_judgment(study, unit=unit, annotator_id=str(deep.pk),
                                   purpose="gold", user=admin)  # fmt: skip
    said = str(refused.value)
    assert f"report of {S1} on question {q.external_id} has no text" in said
    assert not GoldItem.objects.exists()
    # a known answer stored before (or by another way) is released to no one
    a = make_user("tl_a", "annotator", annotator=True).annotator
    other = qc_question(study)
    label("medal_ranking", a, other)
    GoldItem.objects.create(study=study, task="medal_ranking", question=q, unit="",
                            answer=f"{S0}=gold;{S1}=silver", purpose="gold")  # fmt: skip
    done = quality.release(study, admin, seed=1)
    assert done.created == 0 and not Assignment.objects.filter(annotator=a, question=q)
    assert any(S1 in why and q.external_id in why for why in done.not_added)


def test_known_answers_go_only_to_annotators_who_can_sign_in():
    study = make_study("Sign in", tasks=["medal_ranking"], qualification_required=True)
    admin = make_user("si_admin", "admin")
    q, other = qc_question(study), qc_question(study)
    a = make_user("si_a", "annotator", annotator=True).annotator
    gone = make_user("si_gone", "annotator", annotator=True)
    gone.is_active = False
    gone.save()
    deep = Annotator.objects.create(pseudonym="deep-expert")  # imported: cannot sign in
    for person in (a, gone.annotator, deep):
        label("medal_ranking", person, other)
    quality.mark_entered(study, task="medal_ranking", question=q.external_id,
                         answer=f"{S0}=gold;{S1}=silver", purpose="qualification", user=admin)  # fmt: skip
    done = quality.release(study, admin, seed=1)
    holders = set(Assignment.objects.filter(question=q).values_list("annotator_id", flat=True))
    assert holders == {a.pk}
    assert any(w.startswith("deep-expert (no account") for w in done.left_out)
    assert any(
        w.startswith(f"{gone.annotator.pseudonym} (account deactivated") for w in done.left_out
    )
    # the release message names them; the qualification table does not list them pending
    client = Client()
    client.force_login(admin)
    page = client.post(reverse("studies:quality", args=[study.pk]), {"action": "release"},
                       follow=True).content.decode()  # fmt: skip
    assert "cannot sign in" in page and "deep-expert (no account" in page
    pending = {r.annotator_id for r in quality.refresh_qualification(study) if r.passed is None}
    assert pending == {a.pk}


def test_a_failed_annotator_s_queue_says_plainly_they_did_not_qualify():
    """After a decided fail the queue says so plainly (not "being reviewed", which misled
    a tester into waiting for a review that was over), and still reveals no answer."""
    w = failed_annotator_world("medal_ranking", prefix="fq")
    answer = f"{S0}=gold;{S1}=silver"
    GoldItem.objects.create(study=w.study, task="medal_ranking", question=w.question, unit="",
                            answer=answer, purpose="qualification")  # fmt: skip
    QualificationResult.objects.get_or_create(study=w.study, annotator=w.good)
    w.qualify(w.bad, False)
    w.qualify(w.good, True)
    pages = {}
    for who in (w.bad, w.good):
        client = Client()
        client.force_login(who.user)
        pages[who] = client.get(reverse("annotate:queue")).content.decode()
    assert "You did not qualify for this study" in pages[w.bad]
    assert "being reviewed" not in pages[w.bad]
    assert "contact the study admin" in pages[w.bad]
    # neutral: no answer, no verdict, no known answer
    for secret in ("failed", "wrong", "incorrect", "gold", S0, S1):
        assert secret not in pages[w.bad].split("<h1>My queue</h1>")[1], secret
    assert "being reviewed" not in pages[w.good]
