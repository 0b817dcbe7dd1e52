"""An admin edits a report's sources (``Report.citations``) and a paragraph's anchors
(``Paragraph.anchors``) as JSON on the admin pages (issue 29: they are no longer rows).
A malformed value is refused naming the item and field, and nothing is stored; a good one
is stored and the report reads differently (its content version moves)."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Paragraph, Report
from tests.builders.content import make_question, make_study


@pytest.fixture
def admin(admin_user):
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    return client


@pytest.fixture
def report(db):
    return make_question(make_study("Admin sources"), n_reports=1, paragraphs=2).reports.get()


def _report_form(report, citations) -> dict:
    return {
        "question": report.question_id,
        "system": report.system_id,
        "public_id": report.public_id,
        "source_format": report.source_format,
        "original": json.dumps(report.original),
        "citations": json.dumps(citations),
    }


@pytest.mark.parametrize(
    ("citations", "message"),
    [
        ({"key": "1"}, "expected a list of citations"),
        ([{"key": "1"}, {"key": "1"}], "citations[1].key: &#x27;1&#x27; is listed twice"),
        ([{"key": "1", "snippets": "one"}], "citations[0].snippets: expected list"),
        ([{"key": "1", "snippets": [3]}], "citations[0].snippets: expected a list of strings"),
        ([{"key": "1", "urls": ""}], "citations[0]: unknown field &#x27;urls&#x27;"),
        ([{"key": ""}], "citations[0].key: 1 to 300 characters"),
        ([{"key": "1", "url": "x" * 2001}], "citations[0].url: longer than 2000"),
    ],
)
def test_malformed_sources_are_refused_naming_the_item(admin, report, citations, message):
    before = Report.objects.values_list("citations", "content_version").get(pk=report.pk)
    url = reverse("admin:annotation_report_change", args=[report.pk])
    response = admin.post(url, _report_form(report, citations))
    assert response.status_code == 200  # the form again, with its error
    assert message in response.content.decode()
    after = Report.objects.values_list("citations", "content_version").get(pk=report.pk)
    assert after == before


def test_good_sources_are_stored_and_the_report_reads_differently(admin, report):
    before = Report.objects.get(pk=report.pk)
    sources = [*before.citations, {"key": "9", "title": "Added", "snippets": ["s"]}]
    url = reverse("admin:annotation_report_change", args=[report.pk])
    assert admin.post(url, _report_form(report, sources)).status_code == 302
    after = Report.objects.get(pk=report.pk)
    assert after.citations == sources
    assert after.content_version == before.content_version + 1


def _paragraph_form(paragraph, anchors) -> dict:
    return {
        "section": paragraph.section_id,
        "report": paragraph.report_id,
        "number": paragraph.number,
        "text": paragraph.text,
        "anchors": json.dumps(anchors),
    }


@pytest.mark.parametrize(
    ("anchors", "message"),
    [
        ([[0, 10**6, "[1]"]], "is outside the text"),
        ([[0, 3, "[404]"]], "the report cites no source &#x27;[404]&#x27;"),
        ([[0, 3, "[1]"], [2, 5, "[2]"]], "overlaps the anchor before it"),
        ([["0", 3, "[1]"]], "expected [start, end, key]"),
    ],
)
def test_malformed_anchors_are_refused_naming_the_item(admin, report, anchors, message):
    paragraph = report.paragraphs.order_by("number").first()
    before = list(Paragraph.objects.values_list("anchors", flat=True).filter(pk=paragraph.pk))
    url = reverse("admin:annotation_paragraph_change", args=[paragraph.pk])
    response = admin.post(url, _paragraph_form(paragraph, anchors))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert list(Paragraph.objects.values_list("anchors", flat=True).filter(pk=paragraph.pk)) == (
        before
    )


def test_good_anchors_are_stored(admin, report):
    paragraph = report.paragraphs.order_by("number").first()
    url = reverse("admin:annotation_paragraph_change", args=[paragraph.pk])
    assert admin.post(url, _paragraph_form(paragraph, [[0, 3, "[2]"]])).status_code == 302
    assert Paragraph.objects.get(pk=paragraph.pk).anchors == [[0, 3, "[2]"]]
