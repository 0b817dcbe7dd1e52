"""``/tasks/<id>/`` redirects the owner to ``/annotate/<id>/`` and is 404 for everyone else."""

import pytest
from django.urls import reverse

from tests.builders import world as f


@pytest.fixture
def world(annotator_user, other_annotator_user):
    return f.build_world(annotator_user, other_annotator_user)


@pytest.mark.django_db
def test_owner_is_redirected_to_the_annotate_page(client, world, annotator_user):
    a = world.own["assignment"]
    client.force_login(annotator_user)
    response = client.get(reverse("task", args=[a.pk]))
    assert response.status_code == 302
    assert response.url == reverse("annotate:task", args=[a.pk])


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
def test_post_is_refused(client, world, annotator_user):
    client.force_login(annotator_user)
    assert client.post(reverse("task", args=[world.own["assignment"].pk])).status_code == 405
