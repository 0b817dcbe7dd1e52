"""Webhooks (issue 28): an admin registers a URL; a submitted assignment, a study's
progress crossing a step and the end of a judge run reach it as signed JSON; a failed
delivery is retried by the worker; private addresses are refused unless allowed.

The receiver is a real HTTP server on this machine, recording what it is sent.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Webhook, WebhookDelivery
from annotation.webhooks import signature
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

QUALITY = {"version": "0", "q.clarity": "4", "q.naturalness": "5", "q.relevance": "3",
           "q.variability": "semi_open", "q.comment": ""}  # fmt: skip


class Receiver:
    """A local HTTP server answering each POST with the next of ``answers`` (then 200)."""

    def __init__(self, answers=(), location: str | None = None):
        self.answers = list(answers)
        self.received: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append({"headers": dict(self.headers), "body": body})
                code = receiver.answers.pop(0) if receiver.answers else 200
                self.send_response(code)
                if location:  # a redirect's target
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.received]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


def register(study, url, events, **extra):
    from django.contrib.auth.models import User

    api = APIClient()
    api.force_authenticate(
        User.objects.filter(username="hook_admin").first() or make_user("hook_admin", "admin")
    )
    return api.post(
        "/api/webhooks/", {"study": study.pk, "url": url, "events": events, **extra}, format="json"
    )


def verified(received: dict, secret: str) -> bool:
    h = received["headers"]
    expected = signature(secret, h["X-Concord-Timestamp"], received["body"])
    return hmac.compare_digest(h["X-Concord-Signature"], expected)


@pytest.mark.django_db
def test_a_private_receiver_is_refused_unless_allowed(settings):
    study = make_study()
    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = False
    for url in ("http://127.0.0.1:9/hook", "http://10.0.0.8/hook", "http://[::1]/hook",
                "http://169.254.169.254/latest/meta-data"):  # fmt: skip
        got = register(study, url, ["assignment.submitted"])
        assert got.status_code == 400 and "url" in got.json(), (url, got.json())
    refused = register(study, "ftp://example.org/x", ["assignment.submitted"])
    assert refused.status_code == 400
    assert not Webhook.objects.exists()
    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    assert register(study, "http://127.0.0.1:9/hook", ["assignment.submitted"]).status_code == 201


@pytest.mark.django_db
def test_only_admins_see_and_register_webhooks(researcher_user, annotator_user, settings):
    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    study = make_study()
    made = register(study, "http://127.0.0.1:9/hook", ["assignment.submitted"]).json()
    assert len(made["secret"]) == 64
    for user in (researcher_user, annotator_user):
        api = APIClient()
        api.force_authenticate(user)
        assert api.get("/api/webhooks/").status_code == 403
        assert api.get(f"/api/webhooks/{made['id']}/").status_code == 403


@pytest.mark.django_db
def test_study_progress_needs_its_steps(settings):
    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    got = register(make_study(), "http://127.0.0.1:9/hook", ["study.progress"])
    assert got.status_code == 400 and "progress_steps" in got.json()


@pytest.mark.django_db
def test_submits_and_progress_reach_the_receiver_signed(
    receiver, settings, client, annotator_user, django_capture_on_commit_callbacks
):
    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    study = make_study()
    made = register(study, receiver.url, ["assignment.submitted", "study.progress"],
                    progress_steps=[0.5, 1.0]).json()  # fmt: skip
    first, second = (
        make_assignment(annotator_user.annotator, make_question(study, n_reports=0),
                        "query_quality", position=i)
        for i in range(2)
    )  # fmt: skip
    client.force_login(annotator_user)
    with django_capture_on_commit_callbacks(execute=True):
        got = client.post(reverse("annotate:submit", args=[first.pk]), QUALITY,
                          HTTP_HX_REQUEST="true")  # fmt: skip
    assert got.status_code == 204
    events = receiver.events()
    assert [e["event"] for e in events] == ["assignment.submitted", "study.progress"]
    submitted, progress = (e["data"] for e in events)
    assert submitted["assignment"] == first.pk and submitted["task"] == "query_quality"
    assert submitted["annotator"] == annotator_user.annotator.pseudonym
    assert (progress["step"], progress["submitted"], progress["total"]) == (0.5, 1, 2)
    assert all(verified(r, made["secret"]) for r in receiver.received)
    assert not verified(receiver.received[0], "another secret")
    assert receiver.received[0]["headers"]["X-Concord-Event"] == "assignment.submitted"

    # the same submit again (idempotent) sends nothing; the last one crosses 1.0
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("annotate:submit", args=[first.pk]), QUALITY, HTTP_HX_REQUEST="true")
        client.post(reverse("annotate:submit", args=[second.pk]), QUALITY,
                    HTTP_HX_REQUEST="true")  # fmt: skip
    assert [e["event"] for e in receiver.events()[2:]] == ["assignment.submitted",
                                                           "study.progress"]  # fmt: skip
    assert receiver.events()[-1]["data"]["step"] == 1.0
    assert WebhookDelivery.objects.filter(status="delivered").count() == 4


@pytest.mark.django_db
def test_a_failed_delivery_is_recorded_without_the_answers_body(
    settings, client, annotator_user, django_capture_on_commit_callbacks
):
    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    receiver = Receiver(answers=[500])
    try:
        study = make_study()
        register(study, receiver.url, ["assignment.submitted"])
        a = make_assignment(annotator_user.annotator, make_question(study, n_reports=0),
                            "query_quality")  # fmt: skip
        client.force_login(annotator_user)
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("annotate:submit", args=[a.pk]), QUALITY, HTTP_HX_REQUEST="true")
    finally:
        receiver.stop()
    (delivery,) = WebhookDelivery.objects.all()
    assert (delivery.status, delivery.response_status, delivery.attempts) == ("failed", 500, 1)
    assert delivery.error == "the receiver answered 500"


def _hook_to(study, url) -> WebhookDelivery:
    """A webhook of ``study`` at ``url`` (stored directly: the rule at registration is
    tested above) and one delivery of it, not yet sent."""
    hook = Webhook.objects.create(study=study, url=url, events=["assignment.submitted"],
                                  secret="s")  # fmt: skip
    return WebhookDelivery.objects.create(webhook=hook, event="assignment.submitted",
                                          payload={"event": "assignment.submitted"})  # fmt: skip


@pytest.mark.django_db
def test_a_receiver_whose_name_rebinds_when_connecting_is_refused(settings, monkeypatch):
    """The name answers a public address to the checks (registration, before the delivery)
    and 127.0.0.1, where a receiver listens, to the connection (DNS rebinding): the
    delivery fails saying why and nothing reaches the receiver."""
    import socket

    from annotation.webhooks import deliver, url_problem

    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = False
    receiver = Receiver()
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host != "hook.example":
            return real(host, port, *args, **kwargs)
        address = "93.184.216.34" if port is None else "127.0.0.1"  # check / connection
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        url = f"http://hook.example:{receiver.server.server_address[1]}/hook"
        assert url_problem(url) is None  # the check before the call passes
        delivery = _hook_to(make_study(), url)
        assert deliver(delivery.pk) is False
    finally:
        receiver.stop()
    delivery.refresh_from_db()
    assert receiver.received == []
    assert (delivery.status, delivery.response_status) == ("failed", None)
    assert "when connecting, to a loopback address (127.0.0.1)" in delivery.error
    assert "CONCORD_WEBHOOK_ALLOW_PRIVATE=1" in delivery.error


@pytest.mark.django_db
def test_a_redirect_is_not_followed(settings):
    """A receiver answering 302 is a failed delivery; where it points is never called."""
    from annotation.webhooks import deliver

    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    target = Receiver()
    redirecting = Receiver(answers=[302], location=target.url)
    try:
        delivery = _hook_to(make_study(), redirecting.url)
        assert deliver(delivery.pk) is False
    finally:
        target.stop(), redirecting.stop()
    delivery.refresh_from_db()
    assert (delivery.status, delivery.response_status) == ("failed", 302)
    assert delivery.error == "the receiver answered 302"
    assert len(redirecting.received) == 1 and target.received == []


@pytest.mark.django_db
def test_a_receiver_that_does_not_answer_is_a_failed_delivery(settings):
    from annotation.webhooks import deliver

    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    gone = Receiver()
    url = gone.url
    gone.stop()  # nothing listens there now
    delivery = _hook_to(make_study(), url)
    assert deliver(delivery.pk) is False
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.error.startswith("no answer: ")


@pytest.fixture
def retrying_worker_env(monkeypatch):
    """Read by the worker process when it starts (its own settings)."""
    monkeypatch.setenv("CONCORD_WEBHOOK_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("CONCORD_WEBHOOK_RETRY_DELAYS", "0.5,0.5")


@pytest.mark.celery_worker
def test_the_worker_retries_a_delivery_that_failed(retrying_worker_env, celery_worker_process,
                                                   settings):  # fmt: skip
    """A real Celery worker on Redis delivers; the receiver fails once, then takes it."""
    from annotation.webhooks import emit

    settings.CONCORD_WEBHOOK_ALLOW_PRIVATE = True
    receiver = Receiver(answers=[503])
    try:
        study = make_study()
        register(study, receiver.url, ["assignment.submitted"])
        (pk,) = emit(study.pk, "assignment.submitted", {"assignment": 1})
        from annotation.webhooks import dispatch

        dispatch([pk])  # as the commit would (this test's writes are committed)
        deadline = time.monotonic() + 60
        while len(receiver.received) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        receiver.stop()
    assert len(receiver.received) == 2, receiver.received
    first, second = receiver.received
    assert first["headers"]["X-Concord-Delivery"] == second["headers"]["X-Concord-Delivery"]
    delivery = WebhookDelivery.objects.get(pk=pk)
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("delivered", 2, 200)
    assert hashlib.sha256(second["body"]).hexdigest() == hashlib.sha256(first["body"]).hexdigest()
