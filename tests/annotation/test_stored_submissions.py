"""Work submitted without the task page, as its annotator meets it (a tester's findings on
the demo): a metric-wise answer stored as scores only opens with nothing but what is stored
(before, every paragraph showed R, labels nobody gave) and says which parts are missing, up
front, read-only and once reopened; its history lists it before the page is opened, at
the time it was submitted (before: "0 versions" until opened, then stamped with the opening
time); an imported judgment's assignment carries the record's time.

The demo loads these through ``studio.demo`` (``HumanMetricScore`` rows only) and the
judgments import through ``annotation.importers.run``."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.annotate import review
from annotation.importers import run
from annotation.models import (
    Assignment,
    Draft,
    DraftVersion,
    HumanMetricScore,
    ParagraphRelevance,
    Study,
)
from tests.annotation.test_imported_submitted import as_file, chosen, open_page
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db
T = Study.Task


def _demo_metric_wise(demo, client, username="annotator3"):
    user = get_user_model().objects.get(username=username)
    client.force_login(user)
    a = (
        Assignment.objects.filter(
            study=demo, annotator__user=user, task=T.METRIC_WISE, status="submitted"
        )
        .order_by("pk")
        .first()
    )
    assert a is not None and HumanMetricScore.objects.filter(assignment=a).exists()
    assert not ParagraphRelevance.objects.filter(assignment=a).exists()  # scores only
    return a


def test_scores_only_metric_wise_shows_no_relevance_it_was_never_given(demo, client):
    a = _demo_metric_wise(demo, client)
    html = open_page(client, a)
    page = chosen(html)
    relevance = {k: v for k, v in page.values.items() if k.startswith("rel.")}
    assert relevance == {}  # before: every paragraph "R"
    assert 'name="rel.' in html  # the radios are there, none chosen
    assert not any(k.startswith("rate.") for k in page.values)
    notice = html.split('id="unstored-notice"')[1].split("</div>")[0]
    assert "imported as scores only" in notice
    assert "per-paragraph relevance labels, ratings and claims are not stored" in notice
    assert "shown unanswered" in notice
    # what was adopted is what is stored, nothing more
    (version,) = DraftVersion.objects.filter(assignment=a)
    assert version.payload["relevance"] == {} and version.payload["ratings"] == {}


def test_a_fresh_metric_wise_page_still_starts_at_r(demo, client):
    """R preselected is the page's default for work never submitted (the guidelines: "R —
    Relevant (default)"): unchanged."""
    user = get_user_model().objects.get(username="annotator1")
    client.force_login(user)
    a = Assignment.objects.filter(
        study=demo, annotator__user=user, task=T.METRIC_WISE, status="not_started"
    ).first()
    assert a is not None
    html = open_page(client, a)
    relevance = {k: v for k, v in chosen(html).values.items() if k.startswith("rel.")}
    assert relevance and set(relevance.values()) == {"R"}
    assert 'id="unstored-notice"' not in html


def test_reopened_scores_only_work_says_up_front_what_is_to_give(demo, client, admin_user):
    a = _demo_metric_wise(demo, client)
    open_page(client, a)
    review.reopen(a, by=admin_user, by_author=False, reason="Please add the labels.")
    html = open_page(client, a)
    assert '<fieldset class="panel-fields" disabled>' not in html  # editable
    page = chosen(html)
    assert not any(k.startswith("rel.") for k in page.values)  # still not made up
    notice = html.split('id="unstored-notice"')[1].split("</div>")[0]
    assert "imported as scores only" in notice
    assert "Before you can submit it again" in notice
    for part in ("mark the relevance of each paragraph", "on all 8 dimensions", "claims of"):
        assert part in notice, part


def test_history_lists_stored_submissions_before_they_are_opened_at_their_time(demo, client):
    a = _demo_metric_wise(demo, client)
    submitted = Assignment.objects.filter(annotator=a.annotator, status="submitted")
    n = submitted.count()
    html = client.get(reverse("my_history")).content.decode()
    assert "Nothing saved yet" not in html
    assert f"<caption>{n} version{'s' if n != 1 else ''}</caption>" in html
    assert f'data-assignment="{a.pk}" data-version="1"' in html
    shown = a.submitted_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    row = html.split(f'data-assignment="{a.pk}" data-version="1"')[1].split("</tr>")[0]
    assert shown in row and "Submitted" in row
    assert not DraftVersion.objects.filter(assignment__in=submitted).exists()  # no write

    open_page(client, a)
    (version,) = DraftVersion.objects.filter(assignment=a)
    assert version.kind == DraftVersion.Kind.SUBMIT
    assert version.created_at == a.submitted_at  # not the time it was opened
    assert Draft.objects.get(assignment=a).updated_at == a.submitted_at
    html = client.get(reverse("my_history")).content.decode()
    assert f"<caption>{n} version{'s' if n != 1 else ''}</caption>" in html  # same count
    assert html.count(f'data-assignment="{a.pk}" data-version="1"') == 1


def test_an_imported_judgment_is_submitted_at_its_record_time(annotator_user, client):
    client.force_login(annotator_user)
    me = annotator_user.annotator
    study = make_study()
    question = make_question(study, n_reports=2, paragraphs=1, external_id="q1")
    assignment = make_assignment(me, question, T.PAIRWISE)
    when = datetime(2024, 3, 2, 17, 5, tzinfo=UTC)
    run("judgments", as_file({
        "kind": "pairwise_preference", "annotator": me.pseudonym, "setting": "assigned",
        "question": "q1", "left_system": "SecretSystem0", "right_system": "SecretSystem1",
        "choice": "left", "reason": "Cites.", "task": "pairwise",
        "created_at": "2024-03-01T09:30:00+00:00", "updated_at": when.isoformat(),
    }), study=study)  # fmt: skip
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.submitted_at == when  # before: the import's time

    html = client.get(reverse("my_history")).content.decode()
    assert "2024-03-02 17:05:00" in html and "<caption>1 version</caption>" in html
    open_page(client, assignment)
    assert DraftVersion.objects.get(assignment=assignment).created_at == when


def test_history_keeps_time_order_once_some_stored_tasks_are_opened(demo, client):
    """Unopened submissions were listed before every version whatever their dates, so a
    task opened since (its version stamped with its real submission time) fell below older
    unopened ones (a tester). One list, newest first."""
    import re

    a = _demo_metric_wise(demo, client)
    open_page(client, a)  # one opened, the others still unopened
    html = client.get(reverse("my_history")).content.decode()
    table = html.split('id="versions"', 1)[1].split("</tbody>", 1)[0]
    times = re.findall(r"<tr data-assignment=\"\d+\"[^>]*>\s*<td>([^<]+)</td>", table)
    assert len(times) >= 3 and times == sorted(times, reverse=True), times
