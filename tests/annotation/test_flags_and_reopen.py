"""Issue 15: skip and flag a task; reopen a submitted judgment (admin, or its author within
the study's window); every version stays in the history."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import (
    Assignment,
    DraftVersion,
    Flag,
    MedalRanking,
    Reopening,
    Report,
)
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def two(annotator_user, client):
    study = make_study()
    first = make_assignment(annotator_user.annotator, make_question(study), "medal_ranking", 0)
    second = make_assignment(annotator_user.annotator, make_question(study), "medal_ranking", 1)
    client.force_login(annotator_user)
    return first, second


def public_ids(assignment):
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    return [by_pk[pk] for pk in assignment.report_order]


def flag_url(a):
    return reverse("annotate:flag", args=[a.pk])


def test_flag_a_report_with_a_reason_and_stay(two, client, annotator_user):
    first, _ = two
    client.get(reverse("annotate:task", args=[first.pk]))  # draws the report order
    first.refresh_from_db()
    pid = public_ids(first)[1]
    response = client.post(flag_url(first), {"reason": "broken_report", "about": pid})
    assert response.status_code == 302 and response["Location"].endswith(f"/annotate/{first.pk}/")
    flag = Flag.objects.get()
    assert (flag.reason, flag.report.public_id, flag.skipped) == ("broken_report", pid, False)
    assert flag.annotator == annotator_user.annotator


def test_skip_moves_on_and_the_queue_says_skipped(two, client):
    first, second = two
    response = client.post(
        flag_url(first), {"reason": "outside_expertise", "about": "question", "action": "skip"}
    )
    assert response["Location"].endswith(f"/annotate/{second.pk}/")
    assert Flag.objects.get().skipped and Flag.objects.get().report is None
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert "skipped" in queue
    # the skipped task is not offered next again; it can still be opened and done
    assert client.get(reverse("annotate:task", args=[first.pk])).status_code == 200
    html = client.get(reverse("annotate:task", args=[first.pk])).content.decode()
    assert "You skipped this task" in html


@pytest.mark.parametrize(
    "data, field",
    [
        ({"reason": "boring", "about": "question"}, "reason"),
        ({"reason": "broken_report", "about": "not-a-report"}, "about"),
        ({"reason": "other", "about": "question", "note": " "}, "note"),
    ],
)
def test_bad_flags_are_refused_and_change_nothing(two, client, data, field):
    first, _ = two
    response = client.post(flag_url(first), data)
    assert response.status_code == 400
    assert f"{field}:" in response.content.decode()
    assert not Flag.objects.exists()


def test_another_annotators_task_cannot_be_flagged(two, client, other_annotator_user):
    first, _ = two
    client.force_login(other_annotator_user)
    response = client.post(flag_url(first), {"reason": "offensive", "about": "question"})
    assert response.status_code == 404
    assert not Flag.objects.exists()


def test_admins_see_the_flags_on_the_study(two, client, admin_user, annotator_user):
    first, _ = two
    client.post(flag_url(first), {"reason": "offensive", "about": "question", "note": "slur"})
    client.force_login(admin_user)
    page = client.get(reverse("studies:review", args=[first.study_id])).content.decode()
    assert "Offensive content" in page and "slur" in page
    assert annotator_user.annotator.pseudonym in page
    assert first.question.text[:40] in page
    detail = client.get(reverse("studies:detail", args=[first.study_id])).content.decode()
    assert reverse("studies:review", args=[first.study_id]) in detail
    # annotators do not
    client.force_login(annotator_user)
    assert client.get(reverse("studies:review", args=[first.study_id])).status_code == 403


def submit_ranking(client, a, version, reasoning):
    data = {"version": str(version), "reasoning": reasoning}
    for pid, medal in zip(public_ids(a), ("gold", "silver", "bronze"), strict=True):
        data[f"medal-{pid}"] = medal
    return client.post(reverse("annotate:submit", args=[a.pk]), data, HTTP_HX_REQUEST="true")


def submitted(client, a):
    client.get(reverse("annotate:task", args=[a.pk]))
    a.refresh_from_db()
    assert submit_ranking(client, a, 0, "First reasoning.").status_code == 204
    a.refresh_from_db()
    assert a.status == Assignment.Status.SUBMITTED
    return a


def test_admin_returns_for_revision_and_every_version_is_kept(two, client, admin_user,
                                                              annotator_user):  # fmt: skip
    first = submitted(client, two[0])
    client.force_login(admin_user)
    url = reverse("studies:return_for_revision", args=[first.study_id])
    response = client.post(url, {"assignment": first.pk, "reason": "Say why B beats C."})
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.status == Assignment.Status.IN_PROGRESS
    reopening = Reopening.objects.get()
    assert (reopening.version, reopening.by, reopening.by_author) == (1, admin_user, False)
    # the annotator sees why, edits and submits again
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[first.pk])).content.decode()
    assert "Returned to you for revision" in html and "Say why B beats C." in html
    assert "returned for revision" in client.get(reverse("annotate:queue")).content.decode()
    assert submit_ranking(client, first, 1, "Revised reasoning.").status_code == 204
    assert MedalRanking.objects.get().reasoning == "Revised reasoning."
    kinds = list(DraftVersion.objects.values_list("version", "kind", "payload__reasoning"))
    assert kinds == [(1, "submit", "First reasoning."), (2, "submit", "Revised reasoning.")]


def test_return_refuses_what_is_not_submitted_or_not_of_the_study(two, client, admin_user):
    first, second = two
    client.force_login(admin_user)
    url = reverse("studies:return_for_revision", args=[first.study_id])
    response = client.post(url, {"assignment": second.pk})
    assert response.status_code == 400 and "not submitted" in response.content.decode()
    other = make_assignment(second.annotator, make_question(make_study("Other")), "pairwise")
    response = client.post(url, {"assignment": other.pk})
    assert response.status_code == 400 and "assignment:" in response.content.decode()
    assert not Reopening.objects.exists()


def test_author_reopens_only_within_the_study_window(two, client):
    first = submitted(client, two[0])
    url = reverse("annotate:reopen", args=[first.pk])
    skip = {"reason": "offensive", "about": "question", "action": "skip"}
    response = client.post(flag_url(first), skip)
    assert response.status_code == 400 and "action:" in response.content.decode()
    # the default study: only an admin may return it
    response = client.post(url)
    assert response.status_code == 400 and "only an admin" in response.content.decode()
    study = first.study
    study.config = {**study.config, "reopen_hours": 2}
    study.save()
    html = client.get(reverse("annotate:task", args=[first.pk])).content.decode()
    assert "Reopen my answers for revision" in html
    Assignment.objects.filter(pk=first.pk).update(submitted_at=timezone.now() - timedelta(hours=3))
    response = client.post(url)
    assert response.status_code == 400 and "within 2 h" in response.content.decode()
    Assignment.objects.filter(pk=first.pk).update(submitted_at=timezone.now() - timedelta(hours=1))
    assert client.post(url).status_code == 302
    first.refresh_from_db()
    assert first.status == Assignment.Status.IN_PROGRESS
    assert Reopening.objects.get().by_author
    html = client.get(reverse("annotate:task", args=[first.pk])).content.decode()
    assert "You reopened this judgment" in html


def test_reopen_hours_is_a_study_setting(client, admin_user):
    from studio.studyadmin.forms import StudySettingsForm

    study = make_study()
    form = StudySettingsForm(study)
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(tasks=study.tasks, reopen_hours=6, researchers=[], compared_systems=[])
    form = StudySettingsForm(study, data)
    assert form.is_valid(), form.errors
    assert form.config()["reopen_hours"] == 6


def refused_page(response, said: str, back: str) -> None:
    """A refused form post of an HTML page: the site's 400 page, in its layout (the top bar),
    the reason shown, a link back to where the form was."""
    html = response.content.decode()
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")
    assert 'class="topbar"' in html and said in html, html[:400]
    assert f'href="{back}"' in html


def test_a_refused_flag_is_the_sites_400_page_with_a_way_back(two, client):
    first, _ = two
    response = client.post(flag_url(first), {"reason": "boring", "about": "question"})
    refused_page(response, "reason:", reverse("annotate:task", args=[first.pk]))


def test_a_refused_return_for_revision_is_the_sites_400_page(two, client, admin_user):
    first, second = two
    client.force_login(admin_user)
    url = reverse("studies:return_for_revision", args=[first.study_id])
    response = client.post(url, {"assignment": "x"})
    refused_page(response, "assignment:", reverse("studies:review", args=[first.study_id]))
    response = client.post(url, {"assignment": second.pk})
    refused_page(response, "not submitted", reverse("studies:review", args=[first.study_id]))
