"""An annotator skips a task at once, a reason optional (the skip is recorded, the draft
kept); an admin previews any task as its annotator sees it, blinded and read-only, writing
nothing (issue 26, quality-control flow)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.annotate.registry import SPECS
from annotation.models import Assignment, Draft, Flag
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_tasks(annotator_user):
    study = make_study("Skips")
    q1, q2 = make_question(study, n_reports=2), make_question(study, n_reports=2)
    first = make_assignment(annotator_user.annotator, q1, "medal_ranking", position=1)
    second = make_assignment(annotator_user.annotator, q2, "medal_ranking", position=2)
    return first, second


def test_skip_at_once_without_a_reason_is_recorded_and_moves_on(client, annotator_user, two_tasks):
    first, second = two_tasks
    client.force_login(annotator_user)
    page = client.get(reverse("annotate:task", args=[first.pk])).content.decode()
    assert 'id="skip-form"' in page
    client.post(reverse("annotate:autosave", args=[first.pk]),
                {"version": "0", "reasoning": "half-way"})  # fmt: skip
    response = client.post(reverse("annotate:flag", args=[first.pk]), {"action": "skip"})
    assert response.status_code == 302
    assert response["Location"] == reverse("annotate:task", args=[second.pk])
    flag = Flag.objects.get()
    assert (flag.skipped, flag.reason, flag.report_id) == (True, "none_given", None)
    assert flag.get_reason_display() == "Skipped without a reason"
    assert Draft.objects.get(assignment=first).payload  # the work so far is kept
    queue = client.get(reverse("annotate:queue")).content.decode()
    assert "skipped" in queue
    again = client.get(reverse("annotate:task", args=[first.pk])).content.decode()
    assert 'id="skipped-notice"' in again  # it can still be completed


def test_a_flag_still_needs_a_reason(client, annotator_user, two_tasks):
    first, _ = two_tasks
    client.force_login(annotator_user)
    url = reverse("annotate:flag", args=[first.pk])
    assert client.post(url, {"action": "flag"}).status_code == 400
    refused = client.post(url, {"action": "flag", "reason": "none_given", "about": "question"})
    assert refused.status_code == 400 and "only for a skip" in refused.content.decode()
    assert not Flag.objects.exists()


def test_admin_previews_a_task_blinded_read_only_writing_nothing(client, two_tasks):
    first, _ = two_tasks
    Assignment.objects.filter(pk=first.pk).update(report_order=[])  # not drawn yet
    admin = make_user("preview_admin", "admin")
    client.force_login(admin)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("annotate:preview", args=[first.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="preview-notice"' in html and first.annotator.pseudonym in html
    assert "SecretSystem" not in html and "Report A" in html  # blinded
    assert "hx-post" not in html and 'id="submit-btn"' not in html  # read-only
    assert '<fieldset class="panel-fields" disabled>' in html
    assert 'id="skip-form"' not in html and 'id="flag-dialog"' not in html
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes == []
    first.refresh_from_db()
    assert first.report_order == [] and first.started_at is None
    assert not Draft.objects.filter(assignment=first).exists()


def test_only_admins_preview(client, annotator_user, researcher_user, two_tasks):
    first, _ = two_tasks
    url = reverse("annotate:preview", args=[first.pk])
    for user in (annotator_user, researcher_user):
        client.force_login(user)
        assert client.get(url).status_code == 403
    client.force_login(make_user("preview_admin2", "admin"))
    assert client.get(reverse("annotate:preview", args=[999999])).status_code == 404


@pytest.mark.parametrize("task", sorted(SPECS))
def test_every_task_type_previews_without_writing(client, annotator_user, task):
    from tests.builders.content import make_adjudication, make_authoring
    from tests.builders.quality import qc_question

    study = make_study("Every preview")
    if task == "question_authoring":
        a = make_authoring(annotator_user.annotator, study)
    elif task == "relevance_adjudication":
        a = make_adjudication(annotator_user.annotator, make_question(study, n_reports=2))
    else:
        a = make_assignment(annotator_user.annotator, qc_question(study), task)
    client.force_login(make_user("preview_every", "admin"))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("annotate:preview", args=[a.pk]))
    assert response.status_code == 200, task
    html = response.content.decode()
    assert 'id="preview-notice"' in html and "SecretSystem" not in html
    writes = [q["sql"] for q in queries.captured_queries
              if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]  # fmt: skip
    assert writes == [], task
