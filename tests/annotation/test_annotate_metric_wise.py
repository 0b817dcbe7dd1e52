"""Metric-wise evaluation: payload parsing, validation, and the scores it writes."""

import json

import pytest
from django.urls import reverse

from annotation.models import (
    ClaimAssessment,
    DraftVersion,
    HumanMetricScore,
    Medal,
    ParagraphRelevance,
    Report,
    ReportRating,
    Study,
)
from annotation.rendering import forget_page_reports
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.sources import set_citation

pytestmark = pytest.mark.django_db

DIMENSIONS = [
    "answer_recall",
    "citation_expectations",
    "answer_quality",
    "content",
    "informativeness",
    "background",
    "organization",
    "flow",
]


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=6)
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    return study, assignment, client, [by_pk[pk] for pk in assignment.report_order]


def full_form(pids, version=0, *, recall=5, claims=3, support="snippet_supports", coverage="fully"):
    """Paragraph 1 of each sample report cites [1] (snippet), 2 cites [2] (title only)."""
    data = {"version": str(version), "reasoning": "A is best."}
    for i, pid in enumerate(pids):
        data[f"medal-{pid}"] = ("gold", "silver", "bronze")[i]
        for n in range(1, 7):
            data[f"rel.{pid}.{n}"] = "R"
        data[f"rel.{pid}.2"] = "U"
        data[f"rel.{pid}.3"] = "O"
        for dim in DIMENSIONS:
            data[f"rate.{pid}.{dim}"] = str(recall if dim == "answer_recall" else 3)
        for c in range(claims):
            prefix = f"claim.{pid}.c{c}"
            para, key, sup = (
                (1, "[1]", support) if c % 2 == 0 else (2, "[2]", "title_likely_supports")
            )
            data[f"{prefix}.paragraph"] = str(para)
            data[f"{prefix}.citations"] = json.dumps([key])
            # text of the paragraph as the page shows it (its Markdown rendered)
            data[f"{prefix}.text"] = (  # claims of one paragraph differ (no repeat)
                f"Paragraph {para} of the answer discusses memorization",
                "of the answer discusses memorization in detail",
                f"Paragraph {para} of the answer",
            )[c // 2 % 3]
            data[f"{prefix}.support.0"] = sup
            data[f"{prefix}.coverage"] = coverage
            data[f"{prefix}.notes"] = ""
    return data


def submit(client, assignment, data):
    return client.post(
        reverse("annotate:submit", args=[assignment.pk]), data, HTTP_HX_REQUEST="true"
    )


def test_page_renders_reports_with_relevance_controls(setup):
    study, assignment, client, pids = setup
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert f'name="rel.{pids[0]}.1" value="R" checked' in html
    assert 'id="claim-template"' in html and 'id="cite-template-title_only"' in html
    assert "SecretSystem" not in html


def test_submit_writes_scores_detail_and_ranking(setup):
    study, assignment, client, pids = setup
    response = submit(client, assignment, full_form(pids))
    assert response.status_code == 204, response.content.decode()
    scores = {
        (pid, metric): value
        for pid, metric, value in HumanMetricScore.objects.values_list(
            "report__public_id", "metric", "value"
        )
    }
    # relevance: 4 R + 1 U + 1 O over 6 paragraphs
    assert scores[(pids[0], "answer_relevance")] == pytest.approx(4.5 / 6)
    assert scores[(pids[0], "answer_recall")] == 1.0
    # claims: 1, 0.5, 1 credit over 3 citations
    assert scores[(pids[0], "citation_precision")] == pytest.approx(2.5 / 3)
    assert scores[(pids[0], "citation_recall")] == 1.0
    assert scores[(pids[0], "overall")] == pytest.approx((4.5 / 6 + 1 + 2.5 / 3 + 1) / 4)
    assert HumanMetricScore.objects.count() == 15
    assert ParagraphRelevance.objects.count() == 18
    assert ClaimAssessment.objects.count() == 9
    assert ReportRating.objects.count() == 24
    assert dict(Medal.objects.values_list("report__public_id", "medal"))[pids[0]] == "gold"
    claim = ClaimAssessment.objects.filter(report__public_id=pids[0]).order_by("position").first()
    assert claim.citations == [{"key": "[1]", "support": "snippet_supports"}]
    assert submit(client, assignment, full_form(pids)).status_code == 204  # idempotent
    assert HumanMetricScore.objects.count() == 15


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d, p: d.update({f"rate.{p[0]}.answer_recall": "6"}), "not a rating from 1 to 5"),
        (lambda d, p: d.update({f"rel.{p[0]}.1": "X"}), "is not R, U or O"),
        (lambda d, p: d.update({f"rel.{p[0]}.99": "R"}), "no paragraph 99"),
        (
            lambda d, p: d.update({f"claim.{p[0]}.c0.support.0": "title_likely_supports"}),
            "not allowed for this citation",
        ),
        (
            lambda d, p: d.update({f"claim.{p[0]}.c0.citations": json.dumps(["[9]"])}),
            "is not a citation of",
        ),
        (
            lambda d, p: d.update({f"claim.{p[0]}.c0.coverage": "mostly"}),
            "not fully, partially or none",
        ),
        (lambda d, p: d.pop(f"claim.{p[0]}.c0.coverage"), "cover the claim"),
        (lambda d, p: d.pop(f"rate.{p[1]}.flow"), "rate Flow"),
        (lambda d, p: d.update({"reasoning": ""}), "Reasoning"),
        (lambda d, p: d.update({"rate.forged.flow": "3"}), "not in this task"),
        (
            lambda d, p: d.update({f"claim.{p[0]}.c0.text": "INVENTED CLAIM NOT IN THE REPORT"}),
            "the claim is not text of ¶1",
        ),
        (
            lambda d, p: d.update(
                {
                    f"claim.{p[0]}.c0.citations": json.dumps(["[1]", "[1]"]),
                    f"claim.{p[0]}.c0.support.1": "none",
                }
            ),
            "citation [1] is listed more than once",
        ),
    ],
)
def test_invalid_submissions_change_nothing(setup, mutate, message):
    study, assignment, client, pids = setup
    data = full_form(pids)
    mutate(data, pids)
    response = submit(client, assignment, data)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not HumanMetricScore.objects.exists() and not DraftVersion.objects.exists()


def test_claim_count_limits(setup):
    study, assignment, client, pids = setup
    response = submit(client, assignment, full_form(pids, claims=2))
    assert (
        response.status_code == 422 and "select 3–5 claims; you have 2" in response.content.decode()
    )
    study.config = {"claims_min": 1, "claims_max": 2}
    study.save()
    assert submit(client, assignment, full_form(pids, claims=2)).status_code == 204


def test_draft_keeps_partial_work_and_reopens_it(setup):
    study, assignment, client, pids = setup
    data = {
        "version": "0",
        f"rel.{pids[0]}.2": "O",
        f"claim.{pids[0]}.cx.paragraph": "1",
        f"claim.{pids[0]}.cx.citations": json.dumps(["[1]"]),
        f"claim.{pids[0]}.cx.text": "A <b>claim</b>.",
    }
    response = client.post(reverse("annotate:autosave", args=[assignment.pk]), data)
    assert response.status_code == 200 and "open item" in response.content.decode()
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    assert f'name="rel.{pids[0]}.2" value="O" checked' in html
    assert "A &lt;b&gt;claim&lt;/b&gt;." in html
    assert f'name="claim.{pids[0]}.cx.support.0" value="snippet_supports"' in html


def test_page_queries_are_constant(annotator_user, client, django_assert_num_queries):
    study = make_study()
    question = make_question(study, n_reports=3, paragraphs=60)
    assignment = make_assignment(annotator_user.annotator, question, "metric_wise")
    client.force_login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    client.get(url)
    forget_page_reports()
    # +4: a never-saved draft reads the stored judgments (relevance, ratings, claims, ranking; drafts.answers_of)
    with django_assert_num_queries(15):
        assert client.get(url).status_code == 200
    with django_assert_num_queries(12):  # the reports' renderings kept by the process
        assert client.get(url).status_code == 200


@pytest.mark.parametrize("claims", [0, 1])
def test_claims_min_zero_is_refused_not_a_server_error(setup, claims):
    """A study saved with claims_min 0 (the API and the admin once allowed it; the form did
    not) made the submit fail with a KeyError, then citation precision over no claim: the
    submit is now refused with the study and the setting named, nothing written."""
    study, assignment, client, pids = setup
    Study.objects.filter(pk=study.pk).update(config={"claims_min": 0, "claims_max": 2})
    response = submit(client, assignment, full_form(pids, claims=claims))
    assert response.status_code == 422, response.status_code
    body = response.content.decode()
    assert "config.claims_min: 0 is not between 1 and 20" in body and study.name in body
    assert not HumanMetricScore.objects.exists() and not ClaimAssessment.objects.exists()


def test_claims_min_zero_is_refused_at_every_entry_point(setup):
    """The one rule (Study.config_problems) at the API, the model (admin) and the form."""
    from django.core.exceptions import ValidationError

    from annotation.serializers import StudySerializer
    from studio.studyadmin.forms import StudySettingsForm

    study, *_ = setup
    api = StudySerializer(study, data={"config": {"claims_min": 0}}, partial=True)
    assert not api.is_valid() and "claims_min: 0" in str(api.errors["config"])
    study.config = {"claims_min": 0}
    with pytest.raises(ValidationError, match="claims_min"):
        study.full_clean()
    form = StudySettingsForm(study, data={"claims_min": 0})
    assert not form.is_valid() and "claims_min" in form.errors
    ok = StudySerializer(study, data={"config": {"claims_min": 1, "claims_max": 2}}, partial=True)
    assert ok.is_valid(), ok.errors


@pytest.mark.parametrize(
    "text",
    [
        "discusses memorization in detail",  # Markdown's ** gone, as the page shows it
        "in detail [1]. More text",  # across the citation's marker
        "Paragraph 1 of the answer  discusses\nmemorization",  # the browser's own spacing
        "ragraph 1 of the ans",  # a selection may start or end inside a word
    ],
)
def test_a_claim_selected_in_its_paragraph_is_accepted(setup, text):
    study, assignment, client, pids = setup
    data = full_form(pids)
    data[f"claim.{pids[0]}.c0.text"] = text
    assert submit(client, assignment, data).status_code == 204


def test_a_claim_not_in_its_paragraph_is_refused_at_submit_but_its_draft_is_kept(setup):
    """A forged post's invented claim (the tester's "INVENTED CLAIM NOT IN THE REPORT") or
    the text of another paragraph: the submit is refused, naming the claim; a draft with
    it still saves (the rule never costs an annotator their draft)."""
    study, assignment, client, pids = setup
    for text in (
        "INVENTED CLAIM NOT IN THE REPORT",
        "Paragraph 2 of the answer",
        "PARAGRAPH 1 OF THE ANSWER DISCUSSES MEMORIZATION",  # the real claim, re-cased
    ):
        data = full_form(pids)
        data[f"claim.{pids[0]}.c0.text"] = text  # claim c0 is of paragraph 1
        response = submit(client, assignment, data)
        assert response.status_code == 422
        assert "Claim 1 (Report A): the claim is not text of ¶1" in response.content.decode()
        assert not ClaimAssessment.objects.exists()
    saved = client.post(reverse("annotate:autosave", args=[assignment.pk]), data,
                        HTTP_HX_REQUEST="true")  # fmt: skip
    assert saved.status_code == 200 and DraftVersion.objects.exists()


def test_a_citation_listed_twice_is_refused_even_as_a_draft(setup):
    """The page lists each citation of a claim once; ``["1"] * 5000`` was saved as a draft
    (a 2.5 MB page listing 4,999 open items) and ``["1", "1"]`` submitted two contradicting
    answers for one citation."""
    study, assignment, client, pids = setup
    data = full_form(pids)
    data[f"claim.{pids[0]}.c0.citations"] = json.dumps(["[1]"] * 5000)
    saved = client.post(reverse("annotate:autosave", args=[assignment.pk]), data,
                        HTTP_HX_REQUEST="true")  # fmt: skip
    assert saved.status_code == 422
    assert "listed more than once" in saved.content.decode()
    assert not DraftVersion.objects.exists()


def test_the_same_claim_twice_is_refused_at_submit(setup):
    """ "Add claim" pressed twice on one selection (or a forged post) made two identical
    claims, both counted towards the 3–5 asked for."""
    study, assignment, client, pids = setup
    data = full_form(pids, claims=3)
    for part in ("paragraph", "citations", "text", "support.0", "coverage", "notes"):
        data[f"claim.{pids[0]}.c2.{part}"] = data[f"claim.{pids[0]}.c0.{part}"]
    response = submit(client, assignment, data)
    assert response.status_code == 422
    assert "Claim 3 (Report A) repeats claim 1: remove one." in response.content.decode()
    data[f"claim.{pids[0]}.c2.text"] = "discusses memorization in detail"
    assert submit(client, assignment, data).status_code == 204  # another claim of ¶1


def test_a_saved_claim_card_shows_an_address_only_source_with_its_link(setup):
    """A claim's card draws each cited source as every task does (``source_html``): an
    address-only source (Perplexity's) has its "Open source" link in the card, not only in
    the tip in the report text (the card showed a bare ``[1]``)."""
    study, assignment, client, pids = setup
    url = "https://www.helicone.ai/blog/x"
    for report in Report.objects.filter(public_id=pids[0]):
        set_citation(report, "[1]", url=url, title="", snippets=[])
    data = {
        "version": "0",
        f"claim.{pids[0]}.cx.paragraph": "1",
        f"claim.{pids[0]}.cx.citations": json.dumps(["[1]"]),
        f"claim.{pids[0]}.cx.text": "Paragraph 1 of the answer",
    }
    assert client.post(reverse("annotate:autosave", args=[assignment.pk]), data).status_code == 200
    forget_page_reports()
    html = client.get(reverse("annotate:task", args=[assignment.pk])).content.decode()
    card = html[html.index('id="claim-cx"') :]
    card = card[: card.index("</fieldset>")]
    assert f'class="cite-link" href="{url}"' in card and "Open source" in card
