"""An autosave, the most frequent request of all (issue 29: 200 annotators saving every
few seconds), costs the same queries whatever the size of the task, its assignment query
carries nothing only the page shows (skipped flag, revision notice, guidelines link), and
it reuses the reports this process rendered for a save of the last minute (the submit
reads them afresh)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation import rendering
from annotation.models import Flag, Guidelines, Paragraph, Reopening
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


def _captured(client, url, data) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(url, data)
    assert response.status_code in (200, 302), response.content  # a submit redirects
    return [q["sql"] for q in ctx.captured_queries]


def _reads_paragraphs(queries: list[str]) -> bool:
    return any(f'FROM "{Paragraph._meta.db_table}"' in sql for sql in queries)


@pytest.fixture
def task(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=5)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    client.get(reverse("annotate:task", args=[assignment.pk]))
    return assignment


def _medals(assignment) -> dict:
    from annotation.models import Report

    ids = dict(Report.objects.values_list("pk", "public_id"))
    return {
        f"medal-{ids[pk]}": m
        for pk, m in zip(assignment.report_order, ["gold", "silver", "bronze"], strict=True)
    }


def test_the_first_autosave_reuses_the_reports_its_page_read(client, task):
    save = reverse("annotate:autosave", args=[task.pk])
    assert not _reads_paragraphs(_captured(client, save, {"version": "0", "reasoning": "One."}))


def test_a_second_autosave_reuses_the_reports_and_a_submit_reads_them_afresh(client, task):
    rendering._recent.clear()  # the page was served by another process
    save = reverse("annotate:autosave", args=[task.pk])
    first = _captured(client, save, {"version": "0", "reasoning": "One."})
    second = _captured(client, save, {"version": "1", "reasoning": "One, two."})
    assert _reads_paragraphs(first) and not _reads_paragraphs(second)
    assert len(second) < len(first)
    body = {"version": "2", "reasoning": "One, two, three.", **_medals(task)}
    submit = _captured(client, reverse("annotate:submit", args=[task.pk]), body)
    assert _reads_paragraphs(submit)


def test_reused_reports_expire(client, task, monkeypatch):
    monkeypatch.setattr(rendering, "RECENT_REPORT_SECONDS", 0)
    rendering._recent.clear()  # what the page kept before the patch
    save = reverse("annotate:autosave", args=[task.pk])
    _captured(client, save, {"version": "0", "reasoning": "One."})
    assert _reads_paragraphs(_captured(client, save, {"version": "1", "reasoning": "Two."}))
