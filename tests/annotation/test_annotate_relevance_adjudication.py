"""Relevance adjudication: made from finished metric-wise work, adjudicated on its page,
stored, exported, and read by the meta-evaluation."""

import json
import re

import pytest
from django.urls import reverse

from annotation import adjudication as rules
from annotation.exporters import export_judgments
from annotation.models import (
    Assignment,
    ParagraphRelevance,
    RelevanceAdjudication,
    RelevanceDisagreement,
)
from judges.models import Judge, JudgeRelevance
from metaeval.adjudication import adjudication_results
from studio.studyadmin import StudyAdminError, adjudication
from tests.builders.content import (
    make_adjudication,
    make_question,
    make_relevance_work,
    make_study,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    a = make_adjudication(annotator_user.annotator, make_question(study))
    client.force_login(annotator_user)
    return a, client


def post(client, a, data, name="submit"):
    return client.post(
        reverse(f"annotate:{name}", args=[a.pk]), {"version": "0", **data}, HTTP_HX_REQUEST="true"
    )


def decide(a, decisions, reason=""):
    return {
        **{
            f"adj.{d.public_id}.decision": v
            for d, v in zip(a.disagreements.all(), decisions, strict=False)
        },
        **{f"adj.{d.public_id}.reason": reason for d in a.disagreements.all()},
    }


def test_disagreements_are_exactly_the_paragraphs_that_disagree(setup):
    a, _ = setup
    source = Assignment.objects.get(task="metric_wise")
    labels = dict(
        ParagraphRelevance.objects.filter(assignment=source).values_list("paragraph_id", "label")
    )
    verdicts = dict(JudgeRelevance.objects.values_list("paragraph_id", "relevant"))
    expected = {p for p, label in labels.items() if rules.disagrees(label, verdicts[p])}
    got = list(a.disagreements.values_list("paragraph_id", flat=True))
    assert set(got) == expected and len(got) == 9  # 3 of 6 paragraphs in each of 3 reports
    # same annotator, question, setting and report order as the metric-wise work
    assert (a.annotator_id, a.question_id, a.setting, a.report_order) == (
        source.annotator_id,
        source.question_id,
        source.setting,
        source.report_order,
    )
    # reading order: report A first, paragraphs ascending
    first = a.disagreements.select_related("paragraph").first()
    assert first.paragraph.report_id == a.report_order[0] and first.paragraph.number == 1
    # the judge's rationale is stored blinded
    assert all("SecretSystem" not in d.judge_rationale for d in a.disagreements.all())
    assert "[a system] wrote paragraph" in first.judge_rationale


def test_committing_again_adds_nothing_and_says_so(setup):
    a, _ = setup
    with pytest.raises(StudyAdminError, match="no finished metric-wise work disagrees"):
        adjudication.commit(a.study, Judge.objects.get())
    assert Assignment.objects.filter(task="relevance_adjudication").count() == 1


def test_limit_takes_the_most_disagreements_first(annotator_user):
    study = make_study()
    few = make_question(study, n_reports=1)
    many = make_question(study, n_reports=3)
    make_relevance_work(annotator_user.annotator, few)
    _, judge = make_relevance_work(annotator_user.annotator, many)
    preview = adjudication.preview(study, judge, limit=1)
    assert [s["question_id"] for s, _ in preview.chosen] == [many.pk]
    assert preview.sources == 2 and preview.disagreements == 9


def test_refused_when_the_study_does_not_enable_it(annotator_user):
    study = make_study(tasks=["metric_wise"])
    _, judge = make_relevance_work(annotator_user.annotator, make_question(study))
    with pytest.raises(StudyAdminError, match="does not enable relevance adjudication"):
        adjudication.commit(study, judge)
    assert not RelevanceDisagreement.objects.exists()


def test_page_is_blinded_and_has_constant_queries(setup, django_assert_max_num_queries):
    a, client = setup
    url = reverse("annotate:task", args=[a.pk])
    client.get(url)
    with django_assert_max_num_queries(14):
        html = client.get(url).content.decode()
    assert "Disagreement 9" in html and 'data-keys="ksu"' in html
    assert "judge-x" not in html and "SecretSystem" not in html
    assert 'class="adj-flag" href="#adj-' in html  # disputed paragraphs are marked
    # more disagreements, same number of queries
    bigger = make_adjudication(a.annotator, make_question(a.study, paragraphs=30))
    client.get(reverse("annotate:task", args=[bigger.pk]))
    with django_assert_max_num_queries(14):
        assert client.get(reverse("annotate:task", args=[bigger.pk])).status_code == 200


def test_disputed_paragraph_text_is_shown_as_formatted_text_not_tags(setup):
    """Issue 12: the card quoted the paragraph as escaped HTML (literal ``<p>`` tags)."""
    a, client = setup
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    cards = re.findall(r'<blockquote class="claim-text adj-text">(.*?)</blockquote>', html, re.S)
    assert cards
    for card in cards:
        assert "&lt;" not in card and "&gt;" not in card
        assert card.strip().startswith("<p>")


def test_submit_writes_decisions_and_final_labels(setup):
    a, client = setup
    decisions = ["keep", "switch", "subjective"] * 3
    assert post(client, a, decide(a, decisions, reason=" Because. ")).status_code == 204
    rows = {r.disagreement_id: r for r in RelevanceAdjudication.objects.all()}
    assert len(rows) == 9
    for d, decision in zip(a.disagreements.all(), decisions, strict=True):
        row = rows[d.pk]
        assert row.decision == decision and row.reason == "Because."
        assert row.final_label == rules.final_label(decision, d.annotator_label, d.judge_relevant)
        assert (row.annotator_id, row.setting, row.assignment_id) == (
            a.annotator_id,
            a.setting,
            a.pk,
        )
    # idempotent
    assert post(client, a, decide(a, decisions, reason=" Because. ")).status_code == 204
    assert RelevanceAdjudication.objects.count() == 9


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda a: {f"adj.{a.disagreements.first().public_id}.decision": "maybe"}, "not keep"),
        (lambda a: {f"adj.{a.disagreements.first().public_id}.reason": "x" * 5001}, "longer"),
        (lambda a: {"adj.notarealid.decision": "keep"}, "not in this task"),
        (lambda a: {}, "keep, switch or subjective?"),
    ],
)
def test_invalid_submissions_change_nothing(setup, forge, message):
    a, client = setup
    data = {**decide(a, ["keep"] * 9), **forge(a)}
    if not forge(a):
        data = decide(a, ["keep"] * 8)
    response = post(client, a, data)
    assert response.status_code == 422 and message in response.content.decode()
    assert not RelevanceAdjudication.objects.exists()
    assert a.draft_versions.count() == 0


def test_another_annotators_disagreement_is_refused(setup, other_annotator_user):
    a, client = setup
    theirs = make_adjudication(other_annotator_user.annotator, make_question(a.study))
    forged = {f"adj.{theirs.disagreements.first().public_id}.decision": "keep"}
    response = post(client, a, {**decide(a, ["keep"] * 9), **forged})
    assert response.status_code == 422 and "not in this task" in response.content.decode()
    # and their assignment itself is a 404 for this annotator
    assert client.get(reverse("annotate:task", args=[theirs.pk])).status_code == 404
    assert post(client, theirs, decide(theirs, ["keep"] * 9)).status_code == 404
    assert not RelevanceAdjudication.objects.exists()


def test_draft_resumes(setup):
    a, client = setup
    data = decide(a, ["switch"] + [""] * 8)
    response = post(client, a, data, name="autosave")
    assert response.status_code == 200 and "8 open items" in response.content.decode()
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    first = a.disagreements.first().public_id
    assert f'name="adj.{first}.decision" value="switch" data-key="s" checked' in html


def test_export_and_meta_evaluation_read_the_adjudication(setup):
    a, client = setup
    decisions = ["switch", "switch", "keep", "subjective", "switch", "keep", "keep", "keep", "keep"]
    assert post(client, a, decide(a, decisions)).status_code == 204
    records = [
        r
        for r in json.loads(export_judgments(a.study, "json"))
        if r["kind"] == "relevance_adjudication"
    ]
    assert [r["decision"] for r in records] == decisions
    assert records[0]["judge"] == "judge-x" and records[0]["task"] == "relevance_adjudication"
    assert {r["final_label"] for r in records if r["decision"] == "switch"} <= {"R", "O"}

    (judge_row, total) = adjudication_results(a.study.pk)
    assert judge_row["setting"] == "assigned" and total["setting"] == "all"
    # 18 paragraphs compared (3 reports × 6), 9 disagreed, 3 switched, 1 subjective
    assert total["n"] == 18 and total["disagreements"] == 9
    assert total["pre_agreement"] == 9 / 18
    assert total["post_agreement"] == 12 / 18
    assert total["post_agreement_subjective"] == 13 / 18
    assert (total["keep"], total["switch"], total["subjective"]) == (5 / 9, 3 / 9, 1 / 9)


def test_study_page_action(setup, admin_user, client):
    a, _ = setup
    client.force_login(admin_user)
    url = reverse("studies:adjudication", args=[a.study.pk])
    response = client.post(url, {"judge": Judge.objects.get().pk})
    assert (
        response.status_code == 400 and "no finished metric-wise work" in response.content.decode()
    )
    assert client.post(url, {"judge": 987654}).status_code == 400
    study = a.study
    make_relevance_work(a.annotator, make_question(study), judge_name="judge-x")
    response = client.post(url, {"judge": Judge.objects.get().pk, "limit": 5})
    assert response.status_code == 302
    assert Assignment.objects.filter(task="relevance_adjudication").count() == 2
    detail = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert 'id="adjudication-form"' in detail


def test_plans_cannot_make_adjudication(setup, admin_user, client):
    a, _ = setup
    client.force_login(admin_user)
    data = {"task": "relevance_adjudication", "strategy": "random", "overlap": 1, "seed": 0,
            "per_expert": 5, "action": "preview"}  # fmt: skip
    response = client.post(reverse("studies:plan", args=[a.study.pk]), data)
    assert (
        response.status_code == 400 and "own finished metric-wise work" in response.content.decode()
    )


def test_the_study_page_says_when_adjudication_is_not_enabled(admin_user, client):
    """No import enables relevance adjudication (it comes from annotators' own work): the
    study page says so beside its form and its button is disabled, instead of the admin
    first learning it from a refusal (tester); once enabled, the form is usable."""
    study = make_study()
    study.tasks = [t for t in (study.tasks or []) if t != "relevance_adjudication"]
    study.save(update_fields=["tasks"])
    client.force_login(admin_user)
    url = reverse("studies:detail", args=[study.pk])
    page = client.get(url).content.decode()
    assert 'id="adjudication-disabled"' in page
    assert re.search(r'<button class="btn" type="submit" disabled[^>]*>Create adjudication', page)
    study.tasks = [*study.tasks, "relevance_adjudication"]
    study.save(update_fields=["tasks"])
    page = client.get(url).content.decode()
    assert 'id="adjudication-disabled"' not in page
    assert re.search(r'<button class="btn" type="submit">Create adjudication', page)
