"""Work submitted without the task page (the human judgments import, the relevance
adjudication import, the demo) opens as submitted work: its stored labels selected, the
form read-only with the submitted status line, and a submit without reopening refused as
for a page-submitted assignment, the stored judgment unchanged. Before, such a page was an
empty editable form ("Not saved yet", no history) whose submit overwrote the labels.

The labels come in through the real import (``annotation.importers.run``); the page reads
them back from the judgment rows (``TaskSpec.stored_answers``) and the draft adopts them as
its submitted version (``annotation.annotate.drafts.adopt``)."""

import json
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from annotation.annotate import review
from annotation.importers import run
from annotation.models import (
    Assignment,
    DraftVersion,
    Medal,
    MedalRanking,
    PairwisePreference,
    RelevanceAdjudication,
    Report,
    RubricCoverage,
    Study,
)
from tests.annotation.test_judgments_import_adjudication import record, study_with_verdicts
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db
T = Study.Task


class Chosen(HTMLParser):
    """The form's chosen values: checked radios and checkboxes, selected options, texts."""

    def __init__(self):
        super().__init__()
        self.values: dict[str, str] = {}
        self.texts: dict[str, str] = {}
        self._select = self._textarea = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and "checked" in a:
            self.values[a["name"]] = a.get("value")
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a.get("value")
        elif tag == "textarea":
            self._textarea = a.get("name")
            self.texts[self._textarea] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.texts[self._textarea] += data


def chosen(html: str) -> Chosen:
    parser = Chosen()
    parser.feed(html)
    return parser


def as_file(*records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def public_ids(assignment) -> dict[str, str]:
    """system name -> its report's public id, for the assignment's reports."""
    return dict(
        Report.objects.filter(pk__in=assignment.report_order).values_list(
            "system__name", "public_id"
        )
    )


def open_page(client, assignment) -> str:
    response = client.get(reverse("annotate:task", args=[assignment.pk]))
    assert response.status_code == 200
    return response.content.decode()


def assert_submitted_page(html: str) -> None:
    """Read-only as a submitted page: the status line, the disabled fields, no submit."""
    assert "Submitted · version 1" in html
    assert "Not saved yet" not in html
    assert '<fieldset class="panel-fields" disabled>' in html
    assert "Submitted. Your answers are saved" in html


def submit(client, assignment, data) -> int:
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]),
        {"version": "0", **data},
        HTTP_HX_REQUEST="true",
    )
    return response.status_code


@pytest.fixture
def me(annotator_user, client):
    client.force_login(annotator_user)
    return annotator_user.annotator


def test_imported_pairwise_preference_shows_selected_and_refuses_a_submit(me, client):
    study = make_study()
    question = make_question(study, n_reports=2, paragraphs=1, external_id="q1")
    assignment = make_assignment(me, question, T.PAIRWISE)
    run("judgments", as_file({
        "kind": "pairwise_preference", "annotator": me.pseudonym, "setting": "assigned",
        "question": "q1", "left_system": "SecretSystem0", "right_system": "SecretSystem1",
        "choice": "left", "reason": "Cites its sources.",
    }), study=study)  # fmt: skip
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED

    html = open_page(client, assignment)
    assert_submitted_page(html)
    # the pair's key is its two reports in the page's (shuffled) order: when SecretSystem0,
    # left in the file, is shown on the right, the stored "left" is shown as "right"
    shown = [Report.objects.get(pk=pk) for pk in assignment.report_order]
    key = ".".join(r.public_id for r in shown)
    expected = "left" if shown[0].system.name == "SecretSystem0" else "right"
    assert chosen(html).values[f"choice-{key}"] == expected
    assert "Cites its sources." in html

    assert submit(client, assignment, {f"choice-{key}": "both_bad",
                                       f"reason-{key}": "Overwrite."}) == 409  # fmt: skip
    stored = PairwisePreference.objects.get(annotator=me)
    assert (stored.choice, stored.reason) == ("left", "Cites its sources.")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    # the history holds the imported answers as the submitted version
    (version,) = DraftVersion.objects.filter(assignment=assignment)
    assert version.kind == DraftVersion.Kind.SUBMIT
    assert version.payload == {"pairs": {key: {"choice": expected, "reason": "Cites its sources."}}}


def test_imported_medal_ranking_shows_selected_and_refuses_a_submit(me, client):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=1, external_id="q1")
    assignment = make_assignment(me, question, T.MEDAL_RANKING)
    medals = {"SecretSystem0": "gold", "SecretSystem1": "bronze", "SecretSystem2": "silver"}
    run("judgments", as_file(*(
        {"kind": "medal", "annotator": me.pseudonym, "setting": "assigned", "question": "q1",
         "system": s, "medal": m, "reasoning": "Only one report is complete."}
        for s, m in medals.items()
    )), study=study)  # fmt: skip
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED

    html = open_page(client, assignment)
    assert_submitted_page(html)
    ids = public_ids(assignment)
    page = chosen(html)
    assert {f"medal-{ids[s]}": m for s, m in medals.items()}.items() <= page.values.items()
    assert page.texts["reasoning"].strip() == "Only one report is complete."

    posted = {f"medal-{ids[s]}": "gold" for s in medals} | {"reasoning": "All equal."}
    assert submit(client, assignment, posted) == 409
    stored = dict(Medal.objects.values_list("report__system__name", "medal"))
    assert stored == medals


def test_imported_rubric_coverage_shows_selected_and_refuses_a_submit(me, client):
    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=1, rubric_items=2, external_id="q1")
    assignment = make_assignment(me, question, T.RUBRIC_COVERAGE)
    labels = {0: 3, 1: 0}
    run("judgments", as_file(*(
        {"kind": "rubric_coverage", "annotator": me.pseudonym, "setting": "assigned",
         "question": "q1", "system": "SecretSystem0", "rubric": "default", "item": item,
         "label": label, "covered": None}
        for item, label in labels.items()
    )), study=study)  # fmt: skip

    html = open_page(client, assignment)
    assert_submitted_page(html)
    pid = public_ids(assignment)["SecretSystem0"]
    page = chosen(html)
    assert page.values[f"cov.{pid}.0"] == "3" and page.values[f"cov.{pid}.1"] == "0"

    assert submit(client, assignment, {f"cov.{pid}.0": "4", f"cov.{pid}.1": "4"}) == 409
    stored = dict(RubricCoverage.objects.values_list("item__position", "label"))
    assert stored == labels


def test_imported_relevance_adjudication_shows_selected_and_refuses_a_submit(me, client):
    study = study_with_verdicts()
    run("judgments", as_file(record(annotator=me.pseudonym)), study=study)
    assignment = Assignment.objects.get(study=study, annotator=me)
    assert assignment.status == Assignment.Status.SUBMITTED

    html = open_page(client, assignment)
    assert_submitted_page(html)
    adjudication = RelevanceAdjudication.objects.get()
    pid = adjudication.disagreement.public_id
    assert chosen(html).values[f"adj.{pid}.decision"] == "switch"
    assert "I misread it." in html

    assert submit(client, assignment, {f"adj.{pid}.decision": "keep"}) == 409
    adjudication.refresh_from_db()
    assert (adjudication.decision, adjudication.final_label) == ("switch", "R")


def test_an_autosave_on_imported_work_is_refused(me, client):
    study = make_study()
    question = make_question(study, n_reports=2, paragraphs=1, external_id="q1")
    assignment = make_assignment(me, question, T.PAIRWISE)
    run("judgments", as_file({
        "kind": "pairwise_preference", "annotator": me.pseudonym, "setting": "assigned",
        "question": "q1", "left_system": "SecretSystem0", "right_system": "SecretSystem1",
        "choice": "tie", "reason": "Same.",
    }), study=study)  # fmt: skip
    response = client.post(
        reverse("annotate:autosave", args=[assignment.pk]), {"version": "0"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert response.status_code == 409
    assert "already submitted" in response.content.decode()
    assert PairwisePreference.objects.get().choice == "tie"


def test_returned_for_revision_the_imported_answers_are_the_draft(me, client, admin_user):
    """Reopened without the page ever opened (an admin's return for revision): the draft
    holds the imported answers, the page is editable and prefilled."""
    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=1, rubric_items=1, external_id="q1")
    assignment = make_assignment(me, question, T.RUBRIC_COVERAGE)
    run("judgments", as_file({
        "kind": "rubric_coverage", "annotator": me.pseudonym, "setting": "assigned",
        "question": "q1", "system": "SecretSystem0", "rubric": "default", "item": 0,
        "label": 2, "covered": None,
    }), study=study)  # fmt: skip
    assignment.refresh_from_db()
    review.reopen(assignment, by=admin_user, by_author=False, reason="Check item 1.")

    html = open_page(client, assignment)
    pid = public_ids(assignment)["SecretSystem0"]
    assert chosen(html).values[f"cov.{pid}.0"] == "2"
    assert '<fieldset class="panel-fields" disabled>' not in html
    assert submit(client, assignment, {"version": "1", f"cov.{pid}.0": "4"}) == 204  # submitted
    assert RubricCoverage.objects.get().label == 4


def test_demo_annotator3_submitted_work_opens_submitted(demo, client):
    """The demo's submitted assignments (written without a draft): annotator3's medal
    ranking shows its medals and reasoning, read-only; its metric-wise one is read-only
    too; a submit of either without reopening is refused, the ranking unchanged."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="annotator3")
    client.force_login(user)
    mine = Assignment.objects.filter(study=demo, annotator__user=user, status="submitted")
    ranking_task = mine.filter(task=T.MEDAL_RANKING).order_by("pk").first()
    metric_task = mine.filter(task=T.METRIC_WISE).order_by("pk").first()
    assert ranking_task and metric_task

    html = open_page(client, ranking_task)
    assert_submitted_page(html)
    ranking = MedalRanking.objects.get(assignment=ranking_task)
    medals = {m.report.public_id: m.medal for m in ranking.medals.select_related("report")}
    page = chosen(html)
    assert {f"medal-{pid}": m for pid, m in medals.items()}.items() <= page.values.items()
    assert page.texts["reasoning"].strip() == ranking.reasoning

    assert submit(client, ranking_task, {f"medal-{pid}": "bronze" for pid in medals}) == 409
    assert {m.report.public_id: m.medal for m in ranking.medals.all()} == medals

    html = open_page(client, metric_task)
    assert_submitted_page(html)
    assert submit(client, metric_task, {}) == 409


def test_imported_rubric_item_quality_shows_selected_and_refuses_a_submit(me, client):
    from annotation.models import RubricItemQuality

    study = make_study()
    question = make_question(study, n_reports=1, paragraphs=1, rubric_items=1, external_id="q1")
    assignment = make_assignment(me, question, T.RUBRIC_ITEM_QUALITY)
    run("judgments", as_file({
        "kind": "rubric_item_quality", "annotator": me.pseudonym, "setting": "assigned",
        "question": "q1", "rubric": "default", "item": 0, "emphasis": "sentence",
        "necessity": "no_change", "confidence": 4, "flags": ["unclear"],
    }), study=study)  # fmt: skip

    html = open_page(client, assignment)
    assert_submitted_page(html)
    page = chosen(html)
    assert (page.values["iq.0.emphasis"], page.values["iq.0.necessity"]) == (
        "sentence", "no_change",
    )  # fmt: skip
    assert page.values["iq.0.confidence"] == "4" and page.values["iq.0.flag"] == "unclear"

    assert submit(client, assignment, {"iq.0.emphasis": "paragraph_plus"}) == 409
    assert RubricItemQuality.objects.get().emphasis == "sentence"
