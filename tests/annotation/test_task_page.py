"""The task page ``/tasks/<id>/``: the owner reads the question and the blinded reports."""

import pytest
from django.urls import reverse

from annotation.models import Report
from tests.annotation import factories as f


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def world(annotator_user, other_annotator_user):
    return f.build_world(annotator_user, other_annotator_user)


@pytest.mark.django_db
def test_owner_reads_question_and_reports_in_order(client, world, annotator_user):
    a = world.own["assignment"]
    client.force_login(annotator_user)
    response = client.get(reverse("task", args=[a.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert a.question.text in html
    assert [r.pk for r in (s["report"] for s in response.context["reports"])] == a.report_order
    for label in ("Report A", "Report B", "Report C"):
        assert label in html
    assert "Paragraph 4 says something" in html
    assert "Title only paper" in html and "title only" in html.lower()
    assert "Bare citation" in html
    for name in f.SYSTEM_NAMES:
        assert name not in html
    for r in Report.objects.filter(question=a.question):
        assert f"/reports/{r.pk}" not in html


@pytest.mark.django_db
def test_report_order_is_followed(client, world, annotator_user):
    a = world.own["assignment"]
    a.report_order = list(reversed(a.report_order))[:2]
    a.save()
    client.force_login(annotator_user)
    response = client.get(reverse("task", args=[a.pk]))
    assert [s["report"].pk for s in response.context["reports"]] == a.report_order
    assert "Report C" not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["other_annotator", "researcher", "admin"])
def test_anyone_else_gets_404(
    client, world, who, other_annotator_user, researcher_user, admin_user
):
    user = {
        "other_annotator": other_annotator_user,
        "researcher": researcher_user,
        "admin": admin_user,
    }[who]
    client.force_login(user)
    assert client.get(reverse("task", args=[world.own["assignment"].pk])).status_code == 404


@pytest.mark.django_db
def test_missing_assignment_is_404(client, annotator_user):
    client.force_login(annotator_user)
    assert client.get(reverse("task", args=[987654])).status_code == 404


@pytest.mark.django_db
def test_anonymous_is_sent_to_login(client, world):
    url = reverse("task", args=[world.own["assignment"].pk])
    response = client.get(url)
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.django_db
def test_queries_do_not_grow_with_the_report(
    client, world, annotator_user, django_assert_max_num_queries
):
    a = world.own["assignment"]
    client.force_login(annotator_user)
    with django_assert_max_num_queries(12):
        assert client.get(reverse("task", args=[a.pk])).status_code == 200
    bigger = f.question(world.study)
    for s in world.systems:
        f.report(bigger, s, sections=5, paragraphs=6)
    b = f.assignment(annotator_user.annotator, bigger)
    with django_assert_max_num_queries(12):
        assert client.get(reverse("task", args=[b.pk])).status_code == 200
