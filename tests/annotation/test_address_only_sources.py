"""A source that is only an address (every source of Perplexity's ResearcherBench reports:
``[^n]: https://…``) is openable and named wherever a task shows it, and judged like any
other (found by a tester on a fresh clone with the released ResearcherBench):

* claim check: every card of a Perplexity report read "No title and no snippet." with no
  link, so annotators could not open the source and their labels were guesses;
* metric-wise: every such citation was fixed at "No title or snippet: 0", so Perplexity's
  citation precision was 0 by construction, and the wording marked the report as its.
"""

import json
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.annotate import scores
from annotation.importers import run
from annotation.links import address_title, shown_url
from annotation.models import ClaimAssessment, HumanMetricScore, Paragraph, Report, ReportClaim
from annotation.rendering import forget_page_reports, render_reports
from tests.annotation.test_annotate_metric_wise import full_form, submit
from tests.builders.content import make_assignment, make_claims, make_question, make_study
from tests.builders.sources import set_citation

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "researcherbench" / "user_data"
#: The bare source of the sample reports ("(Min et al., 2021)", cited by paragraphs 3 and
#: 6), given an address with a tracking parameter naming a system.
BARE = "(Min et al., 2021)"
URL = "https://www.helicone.ai/blog/llm-observability/?utm_source=perplexity"
SHOWN = "https://www.helicone.ai/blog/llm-observability/"


def test_the_title_of_a_source_without_one_is_its_address_host_and_path():
    assert address_title(URL) == "www.helicone.ai/blog/llm-observability"
    assert address_title("https://arxiv.org/abs/2410.05193v1") == "arxiv.org/abs/2410.05193v1"
    assert address_title("https://example.org") == "example.org"
    assert address_title("https://example.org/a%20b?q=1#x") == "example.org/a b"
    assert address_title("javascript:alert(1)") == "" and address_title("") == ""


# --- Claim check ----------------------------------------------------------------------------


@pytest.fixture
def claim_check(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=1)
    [report] = question.reports.all()
    set_citation(report, BARE, url=URL)
    claims = make_claims(question, per_report=3)  # paragraphs 1–3: [1], [2], the bare one
    a = make_assignment(annotator_user.annotator, question, "claim_check")
    client.force_login(annotator_user)
    return a, client, claims


def _cards(html: str) -> list[str]:
    evidence = html.split('<ul class="evidence">')[1:]
    return [item for ul in evidence for item in ul.split("</ul>")[0].split("<li")[1:]]


def test_a_claim_check_card_of_an_address_only_source_links_it_and_names_it(claim_check):
    a, client, _ = claim_check
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    cards = _cards(html)
    assert len(cards) == 3
    bare = next(c for c in cards if "Min et al." in c)
    assert (
        f'<a class="cite-link" href="{SHOWN}" target="_blank" '
        'rel="noopener noreferrer nofollow">Open source</a>'
    ) in bare
    assert '<strong class="cite-title">www.helicone.ai/blog/llm-observability</strong>' in bare
    assert "No title and no snippet" not in html and "utm_source" not in html
    # every card has one markup, whatever its source supplies (no kind note, no kind class)
    assert "Title only" not in html and "cite--" not in "".join(cards)
    assert all(c.count('class="cite-title"') == 1 and "cite-link" in c for c in cards)


def test_a_source_with_nothing_says_so_alike_in_every_card(claim_check):
    a, client, _ = claim_check
    set_citation(Report.objects.get(), BARE, url="")
    forget_page_reports()
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    bare = next(c for c in _cards(html) if "Min et al." in c)
    assert "No link supplied." in bare and "No snippet supplied." in bare
    assert f'<strong class="cite-title">Source {BARE}</strong>' in bare


@pytest.mark.shared_data
def test_every_card_of_the_released_perplexity_report_opens_its_source(
    annotator_user, client, tmp_path
):
    """ResearcherBench question 27, Perplexity's report as released: every claim's every
    citation card links the source's address and is titled by its host and path."""
    if not DATA.is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    record = [r for r in json.loads((DATA / "Perplexity.json").read_text()) if r["id"] == 27]
    path = tmp_path / "Perplexity.json"
    path.write_text(json.dumps(record))
    run("reports", path, study="RB", format="researcherbench", system="Perplexity")
    report = Report.objects.select_related("question__study").get()
    study = report.question.study
    study.tasks = ["claim_check"]
    study.save(update_fields=["tasks"])
    sources = {c["key"]: c for c in report.citations}
    assert sources and all(
        c["url"] and not c["title"] and not c["snippets"] for c in sources.values()
    )
    cited = Paragraph.objects.filter(report=report).exclude(anchors=[]).order_by("number")
    for n, p in enumerate(cited):
        start, _, key = p.anchors[0]
        ReportClaim.objects.create(report=report, paragraph=p, position=n,
                                   text=p.text[:start].strip(), citation_keys=[key])  # fmt: skip
    a = make_assignment(annotator_user.annotator, report.question, "claim_check")
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    cards = _cards(html)
    assert len(cards) == cited.count() > 3
    for card in cards:
        key = card.split('<span class="cite">')[1].split("</span>")[0]
        url = shown_url(sources[key]["url"])
        assert f'href="{url}" target="_blank" rel="noopener noreferrer nofollow"' in card
        assert f'<strong class="cite-title">{address_title(url)}</strong>' in card
    assert "No title and no snippet" not in html


# --- Metric-wise ----------------------------------------------------------------------------


@pytest.fixture
def metric_wise(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=6)
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    pids = [by_pk[pk] for pk in assignment.report_order]
    set_citation(Report.objects.get(public_id=pids[0]), BARE, url=URL)
    return assignment, client, pids


def _cite_bare(data, pid, support):
    """Claim c0 of report ``pid``: paragraph 3's text, ending in the bare source."""
    prefix = f"claim.{pid}.c0"
    data[f"{prefix}.paragraph"] = "3"
    data[f"{prefix}.citations"] = json.dumps([BARE])
    data[f"{prefix}.text"] = "Paragraph 3 of the answer discusses memorization"
    data[f"{prefix}.support.0"] = support


def test_an_address_only_source_is_judged_like_any_other_in_metric_wise(metric_wise):
    assignment, client, pids = metric_wise
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    # its chip asks the full scale of the claim form, which the page offers
    assert f'data-cite="{BARE}" data-kind="link"' in html.replace("&#x27;", "'")
    link_row = html.split('id="cite-template-link"')[1].split("</template>")[0]
    assert "Supports (1)" in link_row and "Does not (0)" in link_row
    assert "No title or snippet" not in html
    data = full_form(pids)
    _cite_bare(data, pids[0], "snippet_supports")
    response = submit(client, assignment, data)
    assert response.status_code == 204, response.content.decode()
    claim = ClaimAssessment.objects.get(report__public_id=pids[0], position=1)
    assert claim.citations == [{"key": BARE, "support": "snippet_supports"}]
    assert claim.supporting_credit == 1.0
    # claims c0 (the address-only source, supports), c1 ([2], title ½), c2 ([1], supports)
    precision = HumanMetricScore.objects.get(
        report__public_id=pids[0], metric="citation_precision"
    ).value
    assert precision == pytest.approx(2.5 / 3)
    assert precision == scores.citation_precision(
        [scores.Claim(("snippet_supports",), "fully"),
         scores.Claim(("title_likely_supports",), "fully"),
         scores.Claim(("snippet_supports",), "fully")]
    )  # fmt: skip


def test_only_a_source_with_nothing_to_check_is_fixed_at_zero(metric_wise):
    assignment, client, pids = metric_wise
    data = full_form(pids)
    _cite_bare(data, pids[1], "snippet_supports")  # report B's bare source has no address
    response = submit(client, assignment, data)
    assert response.status_code == 422
    assert (
        "&#x27;snippet_supports&#x27; is not allowed for this citation" in response.content.decode()
    )
    _cite_bare(data, pids[1], "none")
    assert submit(client, assignment, data).status_code == 204
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert "Nothing to check (no link, title or snippet): 0" in html


def test_a_javascript_address_is_no_link_and_nothing_to_check(metric_wise):
    assignment, client, pids = metric_wise
    set_citation(Report.objects.get(public_id=pids[0]), BARE, url="javascript:alert(1)")
    forget_page_reports()
    [rendered] = render_reports([Report.objects.get(public_id=pids[0]).pk])
    html = "".join(str(p.html) for p in rendered.paragraphs)
    assert f'data-cite="{BARE}" data-kind="bare"' in html.replace("&#x27;", "'")
    assert "javascript:" not in html


# --- Relevance and entailment cards ---------------------------------------------------------


@pytest.mark.parametrize("key", ["retrieval_relevance", "entailment", "reference_importance"])
def test_a_source_card_of_an_address_only_source_names_and_links_it(annotator_user, client, key):
    """The DeepScholar-style cards (retrieval relevance, entailment, reference importance)
    titled such a source by its key ("(Min et al., 2021)", "r0"): now by its address's host
    and path, its link opened as every card's is."""
    from annotation.models import ExemplarReference

    question = make_question(make_study(), n_reports=1, paragraphs=3)
    set_citation(question.reports.get(), BARE, url=URL)
    ExemplarReference.objects.create(question=question, key="r0", position=0, url=URL)
    a = make_assignment(annotator_user.annotator, question, key)
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert "www.helicone.ai/blog/llm-observability<" in html
    assert f'<a href="{SHOWN}" rel="noopener noreferrer nofollow" target="_blank">' in html
    assert "utm_source" not in html
