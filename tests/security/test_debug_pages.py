"""What the zero-setup server (``make run``, ``DEBUG`` on) shows to whoever asks (issue 24).

Django's debug 404 lists every URL pattern of the site and the reason a view gave; the demo
is what a new team exposes first, so with ``DEBUG`` on the ordinary 404 is served unless
``DEBUG_404`` asks for the debug page. Also: a wrong ``target_half_width`` is refused naming
it (it was refused as ``threshold``)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.builders.content import make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db

DEBUG_PAGE = ("URLconf", "Using the URL", "Raised by", "DEBUG = True", "annotate/<int:pk>/")


@pytest.fixture
def annotator():
    client = Client()
    client.force_login(make_user("debug_annotator", "annotator", annotator=True))
    return client


@pytest.mark.parametrize("path", ["/no-such-page/", "/annotate/987654/", "/tasks/987654/"])
def test_with_debug_on_a_404_lists_no_url_and_no_reason(annotator, settings, path):
    settings.DEBUG = True
    response = annotator.get(path)
    assert response.status_code == 404
    body = response.content.decode()
    assert not [marker for marker in DEBUG_PAGE if marker in body], body[:500]
    assert "No such assignment" not in body


def test_the_debug_page_only_when_asked_for_and_slash_redirects_still_work(annotator, settings):
    settings.DEBUG = True
    assert annotator.get("/annotate").status_code == 301  # APPEND_SLASH still redirects
    settings.DEBUG_404 = True
    assert "URLconf" in annotator.get("/no-such-page/").content.decode()


def test_api_404_stays_json_with_debug_on(annotator, settings):
    settings.DEBUG = True
    response = annotator.get("/api/no-such-route/")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}


@pytest.mark.parametrize("value", ["-1", "0", "abc"])
def test_a_bad_target_half_width_is_refused_naming_it(value):
    study = make_study("Budget study")
    client = Client()
    client.force_login(make_user("budget_admin", "admin"))
    response = client.get(f"/api/studies/{study.pk}/agreement/?target_half_width={value}")
    assert response.status_code == 400
    text = response.content.decode()
    assert "target_half_width" in text and "threshold:" not in text, text
