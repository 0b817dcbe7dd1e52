"""Issue 15: an admin uploads the study's guidelines (e.g. the released PDF); every task
page of the study links them; the study's annotators can read them, others cannot."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Guidelines
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db

PDF = (
    Path(__file__).resolve().parents[2].parent
    / "shared/data/scholarqa-cs2/Instructions_for_Model_Response_Annotations.pdf"
)


@pytest.fixture
def study():
    return make_study()


def upload(client, study, name, data):
    return client.post(
        reverse("studies:guidelines", args=[study.pk]), {"file": SimpleUploadedFile(name, data)}
    )


@pytest.mark.shared_data
def test_uploaded_pdf_is_linked_from_every_task_page(client, study, admin_user, annotator_user):
    if not PDF.exists():
        pytest.skip("the released guidelines PDF is not here")
    tasks = [
        make_assignment(annotator_user.annotator, make_question(study, rubric_items=2), task)
        for task in ("medal_ranking", "pairwise", "rubric_coverage", "query_quality")
    ]
    client.force_login(annotator_user)
    page = client.get(reverse("annotate:task", args=[tasks[0].pk])).content.decode()
    assert 'id="study-guidelines"' not in page  # nothing uploaded yet

    client.force_login(admin_user)
    data = PDF.read_bytes()
    response = upload(client, study, PDF.name, data)
    assert response.status_code == 302
    assert PDF.name in client.get(reverse("studies:guidelines", args=[study.pk])).content.decode()

    client.force_login(annotator_user)
    link = reverse("studies:guidelines_file", args=[study.pk])
    for a in tasks:
        page = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
        assert f'id="study-guidelines" href="{link}"' in page, a.task
    response = client.get(link)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert b"".join(response) == data


def test_only_the_studys_people_read_it(client, study, admin_user, annotator_user,
                                        other_annotator_user, researcher_user):  # fmt: skip
    make_assignment(annotator_user.annotator, make_question(study), "medal_ranking")
    client.force_login(admin_user)
    assert upload(client, study, "rules.md", b"# Rules\nBe fair.").status_code == 302
    link = reverse("studies:guidelines_file", args=[study.pk])
    client.force_login(annotator_user)
    assert client.get(link).status_code == 200
    client.force_login(other_annotator_user)
    assert client.get(link).status_code == 404
    client.force_login(researcher_user)
    assert client.get(link).status_code == 404
    study.researchers.add(researcher_user)
    assert client.get(link).status_code == 200


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("guide.html", b"<script>alert(1)</script>", "is not a PDF, .txt or .md"),
        ("guide.pdf", b"<html>not a pdf</html>", "does not start with %PDF-"),
        ("guide.txt", b"", "is empty"),
        ("guide.md", b"\xff\xfe\x00bad", "not UTF-8"),
    ],
)
def test_bad_uploads_are_refused_and_change_nothing(client, study, admin_user, name, data,
                                                    message):  # fmt: skip
    client.force_login(admin_user)
    response = upload(client, study, name, data)
    assert response.status_code == 400
    assert "file:" in response.content.decode() and message in response.content.decode()
    assert not Guidelines.objects.exists()


def test_only_admins_upload(client, study, annotator_user, researcher_user):
    for user in (annotator_user, researcher_user):
        client.force_login(user)
        assert upload(client, study, "g.txt", b"hello").status_code == 403
    assert not Guidelines.objects.exists()
