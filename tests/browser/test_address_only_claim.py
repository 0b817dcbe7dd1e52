"""A claim ending at a source that is only an address (Perplexity's) is judged on the full
scale in a real browser: the claim picker (``claims.js``) takes the chip's scale ``link``
and offers Supports (1) / Does not (0); it offered the fixed "No title or snippet: 0"."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Report
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.sources import set_citation

from .test_metric_wise import panel, select_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_claim_citing_an_address_only_source_can_be_judged_supported(login, annotator_user):
    question = make_question(make_study(claims_min=2, claims_max=3), n_reports=2, paragraphs=4)
    for report in Report.objects.filter(question=question):
        set_citation(report, "(Min et al., 2021)", url="https://www.helicone.ai/blog/x")
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    select_claim(page, "A", 3)  # paragraph 3 cites the address-only source
    claim = panel(page, "A").locator(".claim").first
    expect(claim.get_by_label("Supports (1)")).to_be_visible()
    expect(claim).not_to_contain_text("Nothing to check")
    claim.get_by_label("Supports (1)").check()
    expect(claim.get_by_label("Supports (1)")).to_be_checked()


def test_a_new_claim_card_opens_an_address_only_source(login, annotator_user):
    """The card of a claim added in the page (built by ``claims.js``) shows its source as
    the tip does, with the "Open source" link: a link-only citation was a bare key there."""
    question = make_question(make_study(claims_min=2, claims_max=3), n_reports=2, paragraphs=4)
    url = "https://www.helicone.ai/blog/x"
    for report in Report.objects.filter(question=question):
        set_citation(report, "(Min et al., 2021)", url=url, title="", snippets=[])
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    select_claim(page, "A", 3)  # paragraph 3 cites the address-only source
    link = panel(page, "A").locator(".claim").first.get_by_role("link", name="Open source")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", url)
