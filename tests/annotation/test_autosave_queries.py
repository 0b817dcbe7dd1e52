"""An autosave, the most frequent request of all (issue 29: 200 annotators saving every
few seconds), costs the same queries whatever the size of the task, and its assignment
query carries nothing only the page shows (skipped flag, revision notice, guidelines link)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Flag, Guidelines, Reopening
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db

DISPLAY_ONLY = [m._meta.db_table for m in (Flag, Reopening, Guidelines)]


def autosave_queries(annotator_user, client, n_reports: int, paragraphs: int) -> list[str]:
    study = make_study(f"Study {n_reports}×{paragraphs}")
    question = make_question(study, n_reports=n_reports, paragraphs=paragraphs)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    client.get(reverse("annotate:task", args=[assignment.pk]))  # the page makes the draft
    url = reverse("annotate:autosave", args=[assignment.pk])
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url, {"version": "0", "reasoning": "First thoughts."})
    assert response.status_code == 200
    return [q["sql"] for q in ctx.captured_queries]


def test_autosave_queries_do_not_grow_with_the_task(annotator_user, client):
    small = autosave_queries(annotator_user, client, n_reports=2, paragraphs=3)
    large = autosave_queries(annotator_user, client, n_reports=3, paragraphs=60)
    assert len(small) == len(large)


def test_autosave_reads_no_display_only_state(annotator_user, client):
    for sql in autosave_queries(annotator_user, client, n_reports=3, paragraphs=5):
        for table in DISPLAY_ONLY:
            assert f'"{table}"' not in sql, sql


def test_the_page_still_shows_the_skip_notice(annotator_user, client):
    """The page itself keeps what the autosave leaves out."""
    study = make_study()
    question = make_question(study)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    Flag.objects.create(
        assignment=assignment, annotator=annotator_user.annotator, reason="other", skipped=True
    )
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert 'id="skipped-notice"' in html
