"""While an annotator's qualification in a study is failed (computed, or an admin's
override "fail"), their work there is frozen: kept and visible, but not reopened (by them
or returned by an admin), and what is unsubmitted or returned is neither saved nor
submitted (a tester's finding: a returned task still autosaved, a submitted one could be
reopened and submitted again). A pass by hand unfreezes it. And the home page says where
their round stands, as the queue does, including how many tasks wait for them."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.annotate import review
from annotation.models import (
    Assignment,
    Draft,
    DraftVersion,
    GoldItem,
    PairwisePreference,
    QualificationResult,
    Reopening,
    Report,
)
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.quality import S0, S1, label, qc_question
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


def _pair(assignment) -> str:
    ids = dict(Report.objects.filter(pk__in=assignment.report_order).values_list("pk", "public_id"))
    return ".".join(ids[pk] for pk in assignment.report_order)


@pytest.fixture
def world(db, admin_user):
    study = make_study("Gated", tasks=["pairwise"], qualification_required=True, reopen_hours=24)
    user = make_user("fz_ann", "annotator", annotator=True)
    client = Client()
    client.force_login(user)
    submitted = label("pairwise", user.annotator, qc_question(study))
    returned = label("pairwise", user.annotator, qc_question(study))
    client.get(reverse("annotate:task", args=[returned.pk]))  # adopted: version 1
    review.reopen(returned, by=admin_user, by_author=False, reason="Look again.")
    result = QualificationResult.objects.create(
        study=study, annotator=user.annotator, passed=False, overridden=True
    )
    return study, user, client, submitted, returned, result


def _save(client, assignment, action="autosave", choice="both_bad"):
    assignment.refresh_from_db()
    key = _pair(assignment)
    version = Draft.objects.get(assignment=assignment).version
    return client.post(
        reverse(f"annotate:{action}", args=[assignment.pk]),
        {"version": str(version), f"choice-{key}": choice, f"reason-{key}": "Changed my mind."},
        HTTP_HX_REQUEST="true",
    )


def test_a_failed_annotator_cannot_reopen_their_submitted_work(world):
    study, user, client, submitted, returned, result = world
    html = client.get(reverse("annotate:task", args=[submitted.pk])).content.decode()
    assert reverse("annotate:reopen", args=[submitted.pk]) not in html  # button hidden
    assert 'id="frozen-notice"' in html and "did not qualify" in html
    response = client.post(reverse("annotate:reopen", args=[submitted.pk]))
    assert response.status_code == 400
    assert "did not qualify for this study" in response.content.decode()
    submitted.refresh_from_db()
    assert submitted.status == Assignment.Status.SUBMITTED
    assert not Reopening.objects.filter(assignment=submitted).exists()


def test_a_failed_annotator_cannot_save_nor_submit_returned_work_and_keeps_it(world):
    study, user, client, submitted, returned, result = world
    before = list(DraftVersion.objects.filter(assignment=returned).values_list("pk", "payload"))
    html = client.get(reverse("annotate:task", args=[returned.pk])).content.decode()
    assert 'id="frozen-notice"' in html
    assert reverse("annotate:autosave", args=[returned.pk]) not in html  # no autosave
    assert 'id="submit-btn"' not in html

    response = _save(client, returned)
    assert response.status_code == 409
    assert "did not qualify for this study" in response.content.decode()
    response = _save(client, returned, "submit")
    assert response.status_code == 409
    assert "Not submitted" in response.content.decode()

    returned.refresh_from_db()
    assert returned.status == Assignment.Status.IN_PROGRESS  # still returned, not submitted
    assert list(DraftVersion.objects.filter(assignment=returned).values_list("pk", "payload")) == (
        before
    )  # nothing lost, nothing added
    assert PairwisePreference.objects.get(assignment=returned).choice in ("left", "right")


def test_an_admin_cannot_return_a_failed_annotator_s_work(world, admin_user):
    study, user, client, submitted, returned, result = world
    admin = Client()
    admin.force_login(admin_user)
    response = admin.post(
        reverse("studies:return_for_revision", args=[study.pk]),
        {"assignment": submitted.pk, "reason": "Look again."},
    )
    assert response.status_code == 400
    assert "pass them by hand" in response.content.decode()
    submitted.refresh_from_db()
    assert submitted.status == Assignment.Status.SUBMITTED


def test_a_pass_by_hand_unfreezes_the_work(world):
    study, user, client, submitted, returned, result = world
    QualificationResult.objects.filter(pk=result.pk).update(passed=True)
    assert _save(client, returned).status_code == 200
    html = client.get(reverse("annotate:task", args=[submitted.pk])).content.decode()
    assert reverse("annotate:reopen", args=[submitted.pk]) in html


def test_the_home_page_says_the_annotator_did_not_qualify(world):
    study, user, client, submitted, returned, result = world
    html = client.get(reverse("home")).content.decode()
    assert 'data-testid="qualification-notice"' in html
    assert "<strong>Gated:</strong> You did not qualify for this study" in html
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert "You did not qualify for this study" in queue


def test_queue_and_home_say_more_tasks_wait_while_qualifying(db):
    study = make_study("Gated", tasks=["pairwise"], qualification_required=True)
    user = make_user("fz_new", "annotator", annotator=True)
    item_q = qc_question(study)
    GoldItem.objects.create(study=study, task="pairwise", question=item_q, unit=f"{S0}~{S1}",
                            answer=S0, purpose="qualification")  # fmt: skip
    make_assignment(user.annotator, item_q, "pairwise", position=0)
    for n in range(2):  # held back until they qualify
        make_assignment(
            user.annotator, make_question(study, n_reports=2), "pairwise", position=n + 1
        )
    client = Client()
    client.force_login(user)
    said = "2 further tasks of it are waiting for you once you qualify"
    home = client.get(reverse("home")).content.decode()
    assert said in home and "<strong>Gated:</strong>" in home
    assert said in client.get(reverse("annotate:queue")).content.decode()
