"""Medal ranking page: autosave, conflicts, idempotent submit, server validation, blinding."""

import pytest
from django.urls import reverse

from annotation.annotate.medal_ranking import ranking_problems
from annotation.models import Assignment, DraftVersion, Medal, MedalRanking, Report
from annotation.rendering import forget_page_reports
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    question = make_question(study, hostile=True)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    return study, question, assignment, client


def public_ids(assignment):
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    return [by_pk[pk] for pk in assignment.report_order]


def form(assignment, version, medals=("gold", "silver", "bronze"), reasoning="A is clearer."):
    data = {"version": str(version), "reasoning": reasoning}
    for pid, medal in zip(public_ids(assignment), medals, strict=False):
        if medal:
            data[f"medal-{pid}"] = medal
    return data


def urls(a):
    return (
        reverse("annotate:task", args=[a.pk]),
        reverse("annotate:autosave", args=[a.pk]),
        reverse("annotate:submit", args=[a.pk]),
    )


# --- pure rules --------------------------------------------------------------------------

LABELS = {"x": "Report A", "y": "Report B", "z": "Report C"}


def rules(medals, final=True, ties=True, three=False):
    return ranking_problems(medals, LABELS, ties_allowed=ties, three_way_allowed=three, final=final)


def test_rules_accept_a_two_way_tie_and_refuse_a_three_way_tie():
    assert not rules({"x": "gold", "y": "silver", "z": "silver"}).errors
    assert "three-way tie" in rules({"x": "gold", "y": "gold", "z": "gold"}).errors[0]
    assert not rules({"x": "gold", "y": "gold", "z": "gold"}, three=True).errors


def test_rules_refuse_ties_when_the_study_refuses_them_and_need_a_gold():
    assert rules({"x": "gold", "y": "gold", "z": "bronze"}, ties=False).errors
    assert "gets gold" in rules({"x": "silver", "y": "bronze", "z": "bronze"}).errors[0]


def test_rules_in_a_draft_are_warnings_but_bad_values_are_errors():
    draft = rules({"x": "gold", "y": "gold", "z": "gold"}, final=False)
    assert not draft.errors and draft.warnings
    assert rules({"x": "platinum"}, final=False).errors
    assert rules({"nope": "gold"}, final=False).errors


# --- page --------------------------------------------------------------------------------


def test_page_is_blinded_and_sanitized(setup):
    study, question, assignment, client = setup
    Report.objects.update(source_format="secret_run_file.jsonl")
    response = client.get(urls(assignment)[0])
    html = response.content.decode()
    assert response.status_code == 200
    assert "secret_run_file" not in html
    assert "Report A" in html and "Report C" in html and "Query 1 of 1" in html
    assert "SecretSystem" not in html
    for report in Report.objects.all():
        assert report.public_id in html
        assert f'medal-{report.pk}"' not in html and f'value="{report.pk}"' not in html
    assert "<script>window" not in html and "onerror=" not in html and "javascript:" not in html


def test_report_order_is_stable_and_follows_the_assignment(setup):
    study, question, assignment, client = setup
    first = client.get(urls(assignment)[0]).content.decode()
    ids = public_ids(assignment)
    positions = [first.index(f'data-report="{pid}"') for pid in ids]
    assert positions == sorted(positions)
    assert client.get(urls(assignment)[0]).content.decode().count("Report B") == first.count(
        "Report B"
    )


def test_empty_report_order_is_drawn_once_and_kept(setup):
    study, question, assignment, client = setup
    Assignment.objects.filter(pk=assignment.pk).update(report_order=[])
    client.get(urls(assignment)[0])
    order = Assignment.objects.get(pk=assignment.pk).report_order
    assert sorted(order) == sorted(question.reports.values_list("pk", flat=True))
    client.get(urls(assignment)[0])
    assert Assignment.objects.get(pk=assignment.pk).report_order == order


def test_autosave_keeps_the_latest_version_and_resumes(setup):
    study, question, assignment, client = setup
    page, save, _ = urls(assignment)
    client.get(page)
    r1 = client.post(save, form(assignment, 0, ("gold", "", ""), ""))
    assert r1.status_code == 200 and "version 1" in r1.content.decode()
    r2 = client.post(save, form(assignment, 1, ("gold", "silver", ""), "draft"))
    assert r2.status_code == 200
    # an unchanged payload does not make a new version
    assert (
        client.post(save, form(assignment, 2, ("gold", "silver", ""), "draft")).status_code == 200
    )
    history = list(
        DraftVersion.objects.filter(assignment=assignment).values_list("version", "kind")
    )
    assert history == [(2, "draft")]  # saves within a minute coalesce (issue 12)
    version = DraftVersion.objects.get(assignment=assignment, version=2)
    assert version.author == assignment.annotator and version.payload["reasoning"] == "draft"
    html = client.get(page).content.decode()
    assert (
        'value="gold" checked' in html
        and 'value="silver" checked' in html
        and ">draft</textarea>" in html
    )
    assignment.refresh_from_db()
    assert assignment.status == "in_progress" and assignment.started_at is not None


def test_stale_version_is_refused_with_409_and_changes_nothing(setup):
    study, question, assignment, client = setup
    _, save, submit = urls(assignment)
    assert client.post(save, form(assignment, 0, ("gold", "", ""))).status_code == 200
    # second tab still holds version 0
    response = client.post(save, form(assignment, 0, ("bronze", "", "")))
    assert response.status_code == 409
    assert "another tab" in response.content.decode()
    assert client.post(submit, form(assignment, 0), HTTP_HX_REQUEST="true").status_code == 409
    assert assignment.draft.__class__.objects.get(assignment=assignment).payload["medals"] == {
        public_ids(assignment)[0]: "gold"
    }
    assert not MedalRanking.objects.exists()


def test_submit_writes_the_ranking_and_is_idempotent(setup):
    study, question, assignment, client = setup
    _, save, submit = urls(assignment)
    response = client.post(submit, form(assignment, 0), HTTP_HX_REQUEST="true")
    assert response.status_code == 204 and response["HX-Redirect"] == reverse("annotate:queue")
    again = client.post(submit, form(assignment, 0), HTTP_HX_REQUEST="true")
    assert again.status_code == 204
    ranking = MedalRanking.objects.get()
    assert ranking.reasoning == "A is clearer." and ranking.assignment == assignment
    medals = dict(Medal.objects.values_list("report__public_id", "medal"))
    assert medals == dict(zip(public_ids(assignment), ["gold", "silver", "bronze"], strict=True))
    assert DraftVersion.objects.filter(assignment=assignment, kind="submit").count() == 1
    assignment.refresh_from_db()
    assert assignment.status == "submitted" and assignment.submitted_at is not None
    # different answers after submission are refused, autosave too
    changed = form(assignment, 1, ("bronze", "silver", "gold"))
    assert client.post(submit, changed).status_code == 409
    assert client.post(save, changed).status_code == 409
    assert Medal.objects.get(report__public_id=public_ids(assignment)[0]).medal == "gold"


@pytest.mark.django_db(transaction=True)
def test_two_tabs_submitting_different_answers_at_once_one_is_saved_the_other_a_409(setup):
    """Both tabs hold version 0; one submit is saved, the other is the ordinary 409, never a
    503. On SQLite the second transaction failed with "database is locked" when it went to
    write while the first held the lock (a read first, then the lock: settings.py's
    transaction_mode takes it at BEGIN and waits for it)."""
    from django.test import Client

    from tests.concurrency import at_once, database_file

    study, question, assignment, first = setup
    second = Client()
    second.force_login(assignment.annotator.user)
    _, _, submit = urls(assignment)
    tabs = [
        (first, form(assignment, 0)),
        (second, form(assignment, 0, ("bronze", "silver", "gold"))),
    ]

    def send(index: int) -> int:
        client, answers = tabs[index]
        return client.post(submit, answers, HTTP_HX_REQUEST="true").status_code

    with database_file():
        statuses = at_once(2, send)
        assert sorted(statuses) == [204, 409], statuses
        assert MedalRanking.objects.count() == 1  # the saved tab's answers, whole
        first_report = Medal.objects.get(report__public_id=public_ids(assignment)[0]).medal
    assert first_report == ("gold" if statuses[0] == 204 else "bronze")


@pytest.mark.parametrize(
    ("medals", "reasoning", "message"),
    [
        (("gold", "gold", "gold"), "why", "three-way tie"),
        (("gold", "silver", "bronze"), "  ", "Reasoning"),
        (("gold", "silver", ""), "why", "give a medal to Report C"),
        (("gold", "silver", "diamond"), "why", "not a medal"),
    ],
)
def test_invalid_submissions_are_refused_and_change_nothing(setup, medals, reasoning, message):
    study, question, assignment, client = setup
    submit = urls(assignment)[2]
    response = client.post(submit, form(assignment, 0, medals, reasoning), HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not MedalRanking.objects.exists() and not DraftVersion.objects.exists()
    assignment.refresh_from_db()
    assert assignment.status != "submitted"


def test_forged_report_id_is_refused(setup):
    study, question, assignment, client = setup
    other = make_question(study)
    data = form(assignment, 0)
    data[f"medal-{other.reports.first().public_id}"] = "gold"
    assert client.post(urls(assignment)[1], data).status_code == 422
    assert client.post(urls(assignment)[2], data).status_code == 422
    assert not DraftVersion.objects.exists()


def test_three_way_tie_allowed_when_the_study_allows_it(setup):
    study, question, assignment, client = setup
    study.config = {"three_way_tie_allowed": True}
    study.save()
    response = client.post(urls(assignment)[2], form(assignment, 0, ("gold",) * 3))
    assert response.status_code == 302
    assert set(Medal.objects.values_list("medal", flat=True)) == {"gold"}


def test_another_annotators_assignment_is_404(setup, other_annotator_user):
    study, question, assignment, client = setup
    client.force_login(other_annotator_user)
    for url in urls(assignment):
        assert client.get(url).status_code in (404, 405)
    assert client.post(urls(assignment)[1], form(assignment, 0)).status_code == 404
    assert client.post(urls(assignment)[2], form(assignment, 0)).status_code == 404
    assert not DraftVersion.objects.exists()


def test_disabled_task_is_404(setup):
    study, question, assignment, client = setup
    study.tasks = ["pairwise"]
    study.save()
    assert client.get(urls(assignment)[0]).status_code == 404


def test_time_on_task_grows_with_saves(setup):
    from datetime import timedelta

    from annotation.models import Draft

    study, question, assignment, client = setup
    client.get(urls(assignment)[0])
    draft = Draft.objects.get(assignment=assignment)
    Draft.objects.filter(pk=draft.pk).update(
        last_activity_at=draft.last_activity_at - timedelta(seconds=42)
    )
    client.post(urls(assignment)[1], form(assignment, 0, ("gold", "", "")))
    assignment.refresh_from_db()
    assert 42 <= assignment.seconds_on_task < 60


def test_non_htmx_submit_error_rerenders_the_page_with_the_posted_answers(setup):
    study, question, assignment, client = setup
    response = client.post(
        urls(assignment)[2], form(assignment, 0, ("gold", "gold", "gold"), "kept")
    )
    html = response.content.decode()
    assert response.status_code == 422 and "three-way tie" in html and ">kept</textarea>" in html


@pytest.mark.parametrize(("n_reports", "paragraphs"), [(2, 3), (3, 60)])
def test_page_renders_in_a_constant_number_of_queries(
    annotator_user, client, django_assert_num_queries, n_reports, paragraphs
):
    study = make_study()
    question = make_question(study, n_reports=n_reports, paragraphs=paragraphs)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    url = urls(assignment)[0]
    client.get(url)  # first visit creates the draft
    forget_page_reports()
    # +1: a never-saved draft reads the stored judgments (ranking; drafts.answers_of)
    with django_assert_num_queries(12):
        assert client.get(url).status_code == 200
    with django_assert_num_queries(9):  # the reports' renderings kept by the process
        assert client.get(url).status_code == 200
