"""An expert's DeepScholar judgments reach Table 3 (seed 002 §8.11) in a real browser: a
study whose judge has labelled every unit; for each of the six DeepScholar task types the
annotator submits one assignment with the keyboard, and the report page's Table 3 figure
of that label kind changes (and the other kinds' figures do not)."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.models import DeepScholarLabel
from annotation.models.deepscholar import LABELS
from judges.models import Judge, JudgeDeepScholarLabel
from metaeval.sections.deepscholar import figure_name
from tests.annotation.test_annotate_deepscholar import KEYS, deepscholar_question
from tests.builders.content import make_assignment, make_study

from .helpers import press_keys, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLOW = 60_000  # a new selection computes the report and draws its figures


def judged_world(annotator_user, researcher_user):
    """One question with DeepScholar content, an assignment of each task type, and a judge
    label of every unit those assignments show (the first label of each kind)."""
    study = make_study("DeepScholar to Table 3")
    study.researchers.add(researcher_user)
    question = deepscholar_question(study)
    judge = Judge.objects.create(name="table3-judge")
    assignments = {}
    for key in KEYS:
        a = make_assignment(annotator_user.annotator, question, key)
        assignments[key] = a
        units = SPECS[key].units(TaskPage(a, a.annotator))
        JudgeDeepScholarLabel.objects.bulk_create(
            JudgeDeepScholarLabel(judge=judge, kind=key, question=question,
                                  report_id=u.report_pk, unit=u.key, label=LABELS[key][0])
            for u in units
        )  # fmt: skip
    return study, assignments


def figures(page, study) -> dict[str, str]:
    page.goto(f"/reports/{study.pk}/", timeout=SLOW)
    out = {}
    for kind in KEYS:
        svg = page.locator(f"#figure-{figure_name(kind)} svg")
        expect(svg).to_be_visible(timeout=SLOW)
        out[kind] = svg.inner_html()
    return out


def submit_with_the_keyboard(page, a):
    spec = SPECS[a.task]
    units = spec.units(TaskPage(a, a.annotator))
    page.goto(reverse("annotate:task", args=[a.pk]))
    cards = page.locator("[data-ds-card]")
    expect(cards.nth(0)).to_be_visible()
    cards.nth(0).locator("input").first.focus()
    for n in range(len(units)):  # a label's key labels the unit and moves on
        expect(cards.nth(n)).to_be_visible()
        press_keys(page, spec.options[n % len(spec.options)][2])
    wait_saved(page)
    press_keys(page, "Control+Enter")
    expect(page.get_by_text("Submitted. Thank you!")).to_be_visible()
    assert DeepScholarLabel.objects.filter(kind=a.task).count() == len(units)


def test_each_deepscholar_submission_moves_its_table3_figure(login, annotator_user,
                                                             researcher_user, shot):  # fmt: skip
    study, assignments = judged_world(annotator_user, researcher_user)
    report = login(researcher_user).new_page()
    before = figures(report, study)
    assert all("n/a" in svg for svg in before.values())  # no expert label yet: undefined
    annotate = login(annotator_user).new_page()
    for key in KEYS:
        submit_with_the_keyboard(annotate, assignments[key])
        after = figures(report, study)
        moved = {k for k in KEYS if after[k] != before[k]}
        assert moved == {key}, (key, moved)
        before = after
    expect(report.locator('[data-section="deepscholar_agreement"]')).to_be_visible()
    shot(report, "table3")
    table = report.locator("#table-deepscholar_agreement")
    for key in KEYS:  # every kind now has matched units
        row = table.locator("tr", has=report.locator(f'td[data-key="kind"][data-value="{key}"]'))
        expect(row.locator('td[data-key="agreement_value"]')).not_to_have_attribute(
            "data-value", ""
        )
