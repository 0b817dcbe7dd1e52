"""HTML error pages with ``DEBUG`` off, as a browser sees them (a tester's finding): a 403, a
404 and a failed CSRF check are pages of the site's layout (the top bar, the navigation)
saying plainly why, with a way back, like the 400 page (``concord.errors.refused_page``).
Before: "403 Forbidden" alone on an empty page, Django's bare 404, and Django's technical CSRF
page ("Reason given for failure: CSRF token missing"). A 404 never tells whether the object
exists; ``/api/`` keeps its JSON error bodies."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse

from concord import errors
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("debug_off")]


@pytest.fixture
def debug_off():
    with override_settings(DEBUG=False):
        yield


@pytest.fixture
def world():
    owner = make_user("ep_owner", "annotator", annotator=True)
    other = make_user("ep_other", "annotator", annotator=True)
    admin = make_user("ep_admin", "admin")
    study = make_study("Error pages study")
    question = make_question(study, n_reports=2, paragraphs=1)
    assignment = make_assignment(owner.annotator, question, "medal_ranking")
    return {"owner": owner, "other": other, "admin": admin, "study": study, "task": assignment}


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def section(body: str) -> str:
    """The error page's own part (the rest is the layout)."""
    assert 'data-testid="error-page"' in body, body[:600]
    return body.split('data-testid="error-page"')[1].split("</section>")[0]


def in_layout(body: str) -> None:
    assert '<header class="topbar">' in body and 'class="brand"' in body, body[:600]


def test_a_403_is_the_sites_page_with_the_reason_and_a_way_back(world):
    client = signed_in(world["owner"])
    url = reverse("studies:quality", args=[world["study"].pk])
    response = client.get(url, HTTP_REFERER="http://testserver/annotate/")
    assert response.status_code == 403
    body = response.content.decode()
    in_layout(body)
    assert 'href="/annotate/">My queue</a>' in body  # the annotator's navigation
    mine = section(body)
    assert "Your role does not allow this page." in mine
    assert 'href="http://testserver/annotate/" data-testid="error-back">Back</a>' in mine
    # a Referer of another site is never the way back: home instead
    mine = section(client.get(url, HTTP_REFERER="https://evil.example/x").content.decode())
    assert 'href="/" data-testid="error-back"' in mine and "evil" not in mine


@pytest.mark.parametrize("how", ["missing", "someone else's"])
def test_a_404_is_the_sites_page_and_says_nothing_of_what_exists(world, how):
    client = signed_in(world["other"])
    if how == "missing":
        responses = [client.get("/annotate/99999/"), client.post("/annotate/99999/save/", {})]
    else:
        pk = world["task"].pk
        responses = [client.get(f"/annotate/{pk}/"), client.post(f"/annotate/{pk}/save/", {})]
    for response in responses:
        assert response.status_code == 404
        body = response.content.decode()
        in_layout(body)
        mine = section(body)
        assert errors.NOT_FOUND in mine and "Page not found" in mine
        assert 'href="/" data-testid="error-back">Back</a>' in mine
        assert "No such assignment" not in body and "assignment" not in mine.lower()
    # the same words for a task that does not exist and for another annotator's
    nothing = section(client.get("/annotate/99999/").content.decode())
    assert section(responses[0].content.decode()) == nothing


def test_an_unmatched_address_is_the_sites_404_too(world):
    response = signed_in(world["admin"]).get("/no-such-page/")
    assert response.status_code == 404
    in_layout(response.content.decode())
    assert 'href="/studies/">Studies</a>' in response.content.decode()


def test_a_csrf_failure_on_a_task_page_says_the_draft_is_kept(world):
    client = signed_in(world["owner"], enforce_csrf_checks=True)
    pk = world["task"].pk
    response = client.post(f"/annotate/{pk}/save/", {"text": "typed"})
    assert response.status_code == 403
    body = response.content.decode()
    in_layout(body)
    mine = section(body)
    assert "open too long" in mine and "sent from elsewhere" in mine and "Reload" in mine
    assert "Your answers are kept" in mine  # the task page autosaves
    assert f'href="/annotate/{pk}/" data-testid="error-back">Back</a>' in mine
    assert "CSRF" in mine  # Django's reason, in small print
    assert "Reason given for failure" not in body and "technical" not in body.lower()


def test_a_csrf_failure_elsewhere_says_to_copy_what_was_typed(world):
    client = signed_in(world["admin"], enforce_csrf_checks=True)
    url = reverse("studies:quality", args=[world["study"].pk])
    response = client.post(url, {"action": "settings"}, HTTP_REFERER=f"http://testserver{url}")
    assert response.status_code == 403
    mine = section(response.content.decode())
    assert "open too long" in mine and "Your answers are kept" not in mine
    assert "copy it before reloading" in mine
    assert f'href="http://testserver{url}" data-testid="error-back">Back</a>' in mine


def test_a_csrf_failure_signed_out_is_the_sites_page(db):
    response = Client(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "x", "password": "y"},
        HTTP_REFERER="http://testserver/accounts/login/",
    )  # fmt: skip
    assert response.status_code == 403
    body = response.content.decode()
    in_layout(body)
    assert 'href="http://testserver/accounts/login/" data-testid="error-back"' in section(body)


def test_the_api_keeps_its_json_error_bodies(world):
    client = signed_in(world["owner"], enforce_csrf_checks=True)
    response = client.get("/api/no-such-route/")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}
    response = client.get(f"/api/studies/{world['study'].pk}/export/")  # an annotator: refused
    assert response.status_code in (403, 404) and response["Content-Type"] == "application/json"
    response = client.post("/api/studies/", {"name": "x"})  # no CSRF token
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert "CSRF" in response.json()["detail"]


def test_the_error_views_answer_json_under_api():
    from django.core.exceptions import PermissionDenied

    request = RequestFactory().post("/api/studies/1/export/")
    refused = errors.csrf_failure(request, "CSRF token missing.")
    assert refused.status_code == 403 and refused["Content-Type"] == "application/json"
    assert b'"detail": "CSRF Failed: CSRF token missing."' in refused.content
    denied = errors.permission_denied(request, PermissionDenied("Only an admin may do this."))
    assert denied.status_code == 403 and denied["Content-Type"] == "application/json"
    assert b"Only an admin may do this." in denied.content


def test_without_the_database_the_page_still_says_why(monkeypatch):
    """The layout reads the user for its navigation; with the database away the same words
    are served without it, not a 500."""
    from django.db import OperationalError

    def away(*args, **kwargs):
        raise OperationalError("the database is away")

    monkeypatch.setattr(errors, "render", away)
    response = errors.not_found(RequestFactory().get("/annotate/5/"), None)
    assert response.status_code == 404
    body = response.content.decode()
    assert errors.NOT_FOUND in body and 'href="/">Back</a>' in body
