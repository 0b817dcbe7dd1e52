r"""A Markdown backslash escape is shown as its character, in a paragraph and in a claim's
text (found by a tester: a Perplexity claim in metric-wise read "\$6 million", as typed in
ResearcherBench ``user_data/Perplexity.json``, where the writer meant "$6 million"). The
claim is still stored as the annotator selected it (or as it was imported)."""

import json
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.importers import run
from annotation.models import ClaimAssessment, Paragraph, Report, ReportClaim
from annotation.rendering import render_reports, shown_claim, text_to_html
from tests.annotation.test_annotate_metric_wise import full_form, submit
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db

ESCAPED = r"DeepSeek spent only \$6 million on computing"
SHOWN = "DeepSeek spent only $6 million on computing"
DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "researcherbench" / "user_data"


def test_a_paragraph_and_a_claim_show_an_escaped_dollar_as_a_dollar():
    assert SHOWN in text_to_html(ESCAPED + " [1].") and "\\" not in text_to_html(ESCAPED)
    assert "<math" not in text_to_html(r"an escaped \$x\$ stays text")
    assert shown_claim(ESCAPED) == SHOWN
    assert shown_claim(r"a \*starred\* word") == "a *starred* word"
    assert shown_claim(r"a path C:\temp stays") == r"a path C:\temp stays"  # no escape


def test_metric_wise_shows_a_claim_as_its_paragraph_and_stores_it_as_selected(
    annotator_user, client
):
    question = make_question(make_study(), n_reports=3, paragraphs=6)
    a = make_assignment(annotator_user.annotator, question, "metric_wise")
    client.force_login(annotator_user)
    by_pk = dict(Report.objects.values_list("pk", "public_id"))
    pids = [by_pk[pk] for pk in a.report_order]
    para = Paragraph.objects.get(report__public_id=pids[0], number=1)
    key_at = para.text.index("[1]")
    Paragraph.objects.filter(pk=para.pk).update(
        text=f"{ESCAPED} {para.text[key_at:]}",
        anchors=[[len(ESCAPED) + 1, len(ESCAPED) + 4, "[1]"]],
    )
    data = full_form(pids)
    data[f"claim.{pids[0]}.c0.text"] = ESCAPED  # claims c0 and c2 are of paragraph 1
    data[f"claim.{pids[0]}.c2.text"] = "DeepSeek spent only"
    saved = client.post(reverse("annotate:autosave", args=[a.pk]), data, HTTP_HX_REQUEST="true")
    assert saved.status_code == 200
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert f'<blockquote class="claim-text claim-lines">{SHOWN}</blockquote>' in html
    assert f'value="{ESCAPED}" class="claim-text-input"' in html  # posted back as selected
    assert SHOWN in html.split('class="para-body"')[1]  # as the paragraph shows it
    data["version"] = "1"  # the autosave's
    response = submit(client, a, data)
    assert response.status_code == 204, response.content.decode()
    stored = ClaimAssessment.objects.get(report__public_id=pids[0], position=1)
    assert stored.text == ESCAPED


def test_claim_check_shows_an_imported_claim_as_its_paragraph(annotator_user, client):
    question = make_question(make_study(), n_reports=1)
    report = question.reports.get()
    para = Paragraph.objects.get(report=report, number=1)
    ReportClaim.objects.create(report=report, paragraph=para, position=0, text=ESCAPED,
                               citation_keys=["[1]"])  # fmt: skip
    a = make_assignment(annotator_user.annotator, question, "claim_check")
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert (
        f'<blockquote class="claim-text claim-text--large claim-lines">{SHOWN}</blockquote>' in html
    )
    assert ReportClaim.objects.get().text == ESCAPED


@pytest.mark.shared_data
def test_the_released_perplexity_paragraph_shows_six_million_dollars(tmp_path):
    if not DATA.is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    record = [r for r in json.loads((DATA / "Perplexity.json").read_text()) if r["id"] == 27]
    path = tmp_path / "Perplexity.json"
    path.write_text(json.dumps(record))
    run("reports", path, study="RB", format="researcherbench", system="Perplexity")
    report = Report.objects.get()
    assert any(r"\$6 million" in p.text for p in Paragraph.objects.filter(report=report))
    [rendered] = render_reports([report.pk])
    html = "".join(str(p.html) for p in rendered.paragraphs)
    assert "only $6 million on computing power" in html and r"\$" not in html
