"""The task page reuses the reports' renderings its process kept, only for the same content:
every writer of a report's readable content bumps ``Report.content_version`` (issue 29)."""

import pytest
from django.contrib.admin.sites import AdminSite
from django.test import RequestFactory
from django.urls import reverse

from annotation.admin import ParagraphAdmin
from annotation.importers import run
from annotation.models import Paragraph, Report, bump_content_version
from annotation.rendering import forget_page_reports, page_reports
from tests.builders.content import make_assignment, make_question, make_study

from .test_import_common import DATA, write
from .test_import_reports import good

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(annotator_user, client):
    forget_page_reports()
    question = make_question(make_study(), n_reports=3, paragraphs=4)
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    url = reverse("annotate:task", args=[assignment.pk])
    assert client.get(url).status_code == 200  # renders and keeps the three reports
    return assignment, url


def _first_paragraph(assignment) -> Paragraph:
    return Paragraph.objects.get(report_id=assignment.report_order[0], number=1)


def test_a_kept_rendering_is_shown_until_the_content_version_changes(client, page):
    assignment, url = page
    Paragraph.objects.filter(pk=_first_paragraph(assignment).pk).update(text="Rewritten text.")
    assert "Rewritten text." not in client.get(url).content.decode()  # kept: same version
    bump_content_version([assignment.report_order[0]])
    assert "Rewritten text." in client.get(url).content.decode()


def test_an_admin_edit_of_a_paragraph_shows_on_the_next_page(client, page, admin_user):
    assignment, url = page
    paragraph = _first_paragraph(assignment)
    paragraph.text = "Corrected by an admin."
    request = RequestFactory().post("/")
    request.user = admin_user
    ParagraphAdmin(Paragraph, AdminSite()).save_model(request, paragraph, None, change=True)
    assert "Corrected by an admin." in client.get(url).content.decode()


def test_a_reimport_that_changes_a_report_bumps_its_version_only(tmp_path):
    run("reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa")
    before = dict(Report.objects.values_list("public_id", "content_version"))
    run("reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa")
    assert dict(Report.objects.values_list("public_id", "content_version")) == before
    data = good()
    data[1]["response"]["sections"][0]["text"] += "\n\nA new paragraph [2]."
    run("reports", write(tmp_path, "r.json", data), study="S", format="scholarqa", system="sqa")
    after = dict(Report.objects.values_list("public_id", "content_version"))
    assert sorted(after[k] - before[k] for k in before) == [0, 1]


def test_renderings_are_kept_per_place_and_each_page_gets_its_own_copies(page):
    assignment, _ = page
    ids = assignment.report_order
    versions = {
        pk: (pid, v)
        for pk, pid, v in Report.objects.values_list("pk", "public_id", "content_version")
    }
    first = page_reports(ids, versions)
    swapped = page_reports([ids[1], ids[0], ids[2]], versions)
    assert [r.label for r in swapped] == ["Report A", "Report B", "Report C"]
    assert swapped[0].public_id == first[1].public_id and 'id="report-A"' in swapped[0].html
    first[0].controls = lambda report, paragraph: "x"
    assert page_reports(ids, versions)[0].controls is None
