"""Rubric coverage: 0–4 per (report, item), the binary variant, constant queries at 60 items."""

import pytest
from django.urls import reverse

from annotation.annotate.rubric_coverage import coverage_problems
from annotation.models import DraftVersion, Report, RubricCoverage
from annotation.rendering import forget_page_reports
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=3, rubric_items=4)
    assignment = make_assignment(annotator_user.annotator, question, "rubric_coverage")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    return study, assignment, client, [by_pk[pk] for pk in assignment.report_order]


def full(pids, value="3", version=0, items=4):
    data = {"version": str(version)}
    for pid in pids:
        for pos in range(items):
            data[f"cov.{pid}.{pos}"] = value
    return data


def submit(client, a, data):
    return client.post(reverse("annotate:submit", args=[a.pk]), data, HTTP_HX_REQUEST="true")


def test_rules():
    labels, positions = {"x": "Report A"}, {"0", "1"}
    assert not coverage_problems(
        {"x": {"0": 4, "1": 0}}, labels, positions, binary=False, final=True
    )
    assert (
        "judge item 2"
        in coverage_problems({"x": {"0": 4}}, labels, positions, binary=False, final=True).errors[0]
    )
    assert coverage_problems({"x": {"0": 5}}, labels, positions, binary=False, final=False).errors
    assert coverage_problems(
        {"x": {"0": "yes"}}, labels, positions, binary=False, final=False
    ).errors
    assert not coverage_problems(
        {"x": {"0": "yes", "1": "no"}}, labels, positions, binary=True, final=True
    )
    assert coverage_problems({"x": {"9": 1}}, labels, positions, binary=False, final=False).errors


def test_submit_writes_every_report_and_item(setup):
    study, assignment, client, pids = setup
    assert submit(client, assignment, full(pids)).status_code == 204
    assert RubricCoverage.objects.count() == 12
    assert set(RubricCoverage.objects.values_list("label", flat=True)) == {3}
    assert submit(client, assignment, full(pids)).status_code == 204
    assert RubricCoverage.objects.count() == 12


def test_forged_coverage_5_is_refused(setup):
    study, assignment, client, pids = setup
    data = full(pids)
    data[f"cov.{pids[0]}.0"] = "5"
    for url in ("autosave", "submit"):
        response = client.post(reverse(f"annotate:{url}", args=[assignment.pk]), data)
        assert response.status_code == 422
        assert "5 is not a label from 0 to 4" in response.content.decode()
    assert not RubricCoverage.objects.exists() and not DraftVersion.objects.exists()


def test_binary_variant(setup):
    study, assignment, client, pids = setup
    study.config = {"coverage_binary": True}
    study.save()
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert 'value="yes"' in html and 'data-keys="yn"' in html
    assert submit(client, assignment, full(pids, "3")).status_code == 422
    assert submit(client, assignment, full(pids, "yes")).status_code == 204
    assert set(RubricCoverage.objects.values_list("covered", "label")) == {(True, None)}


def test_draft_resumes(setup):
    study, assignment, client, pids = setup
    client.post(
        reverse("annotate:autosave", args=[assignment.pk]),
        {"version": "0", f"cov.{pids[1]}.2": "1"},
    )
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert f'name="cov.{pids[1]}.2" value="1" data-key="1" checked' in html


def test_sixty_items_over_three_reports_constant_queries(
    annotator_user, client, django_assert_num_queries
):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=20, rubric_items=60)
    assignment = make_assignment(annotator_user.annotator, question, "rubric_coverage")
    client.force_login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    client.get(url)
    forget_page_reports()
    # +1: a never-saved draft reads the stored judgments (coverage labels; drafts.answers_of)
    with django_assert_num_queries(13):
        html = client.get(url).content.decode()
    assert html.count('class="choice-row coverage-row"') == 180
    with django_assert_num_queries(10):  # the reports' renderings kept by the process
        html = client.get(url).content.decode()
    assert html.count('class="choice-row coverage-row"') == 180


def test_expertise_matched_coverage_is_exported_in_its_setting(setup):
    """An assignment of the expertise strategy (``expertise_matched``) gives judgments of
    that setting, and every export says it: not ``assigned`` (random assignment), which
    setting-based analyses would pool it with (tester)."""
    import json

    from annotation.exporters import export_judgments, judgment_records

    study, assignment, client, pids = setup
    assignment.setting = "expertise_matched"
    assignment.save()
    assert submit(client, assignment, full(pids)).status_code == 204
    assert set(RubricCoverage.objects.values_list("setting", flat=True)) == {"expertise_matched"}
    records = judgment_records(study)
    assert records and {r["setting"] for r in records} == {"expertise_matched"}
    lines = export_judgments(study, "jsonl").splitlines()
    assert {json.loads(line)["setting"] for line in lines} == {"expertise_matched"}


def test_a_weighted_rubric_shows_every_items_weight_a_plain_one_none(setup):
    """ResearcherBench weighs its items 1–3: a weight-1 item showed no weight beside the
    others' "(weight 2.0)" and read as unweighted. Every item of a weighted rubric shows
    its weight as the benchmark writes it ("weight 1"); an unweighted rubric shows none."""
    import re

    from annotation.models import Rubric, RubricItem

    study, assignment, client, pids = setup
    url = reverse("annotate:task", args=[assignment.pk])
    # the builder's rubric: no kind with weights, every weight the default 1
    html = client.get(url).content.decode()
    assert "weight" not in " ".join(re.findall(r'<p class="rubric-text">.*?</p>', html))
    rubric = Rubric.objects.get(question=assignment.question)
    rubric.kind = "researcherbench"
    rubric.save()
    for position, weight in enumerate((1.0, 2.0, 3.0, 1.0)):
        RubricItem.objects.filter(rubric=rubric, position=position).update(weight=weight)
    html = client.get(url).content.decode()
    shown = re.findall(r'<span class="muted small item-weight">\((weight [^)]*)\)</span>', html)
    assert shown == ["weight 1", "weight 2", "weight 3", "weight 1"]
    assert "weight 2.0" not in html
    # a rubric of no weighted kind whose items carry weights shows them too
    rubric.kind = "expert"
    rubric.save()
    RubricItem.objects.filter(rubric=rubric, position=2).update(weight=1.5)
    html = client.get(url).content.decode()
    shown = re.findall(r'<span class="muted small item-weight">\((weight [^)]*)\)</span>', html)
    assert shown == ["weight 1", "weight 2", "weight 1.5", "weight 1"]


def test_submit_sends_the_browser_to_the_next_tasks_address(setup, annotator_user):
    """After Submit the address must be the next task's, not the old /annotate/<id>/: the
    htmx answer is HX-Redirect to it, which htmx 2 follows with a full navigation
    (``location.href``: the address changes; tests/browser/test_task_navigation.py checks
    it in Chromium). Without htmx, a 302 to it."""
    study, assignment, client, pids = setup
    second = make_assignment(annotator_user.annotator,
                             make_question(study, n_reports=3, rubric_items=4),
                             "rubric_coverage", position=1)  # fmt: skip
    response = submit(client, assignment, full(pids))
    assert response.status_code == 204
    assert response["HX-Redirect"] == reverse("annotate:task", args=[second.pk])
    # the second, submitted without htmx: a redirect to the queue, the last task done
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    data = full([by_pk[pk] for pk in second.report_order])
    response = client.post(reverse("annotate:submit", args=[second.pk]), data)
    assert response.status_code == 302 and response["Location"] == reverse("annotate:queue")
