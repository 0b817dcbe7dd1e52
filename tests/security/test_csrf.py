"""CSRF everywhere: every URL pattern, pages and API, refuses an unsafe request (POST, PUT,
PATCH, DELETE) from a logged-in session without the CSRF token, and nothing changes.

The user is a superuser admin, so nothing but the missing token can refuse the request; the
answer must be a 403 *naming CSRF* (Django's failure page, or DRF's "CSRF Failed").
"""

import pytest
from django.apps import apps
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

METHODS = ("post", "put", "patch", "delete")
# Swagger UI's view renders errors with its HTML template renderer, which prints a bare
# "403 Forbidden" (with the token the same request is a 405: the refusal is CSRF's).
GENERIC_403_BODY = {"/api/docs/"}


def refused_as_a_download(url: str, response) -> bool:
    """A file download (concord.download_methods) is exempt from CSRF, as it changes
    nothing: an unsafe method is its 405 naming the methods it answers, not CSRF's 403 (a
    token script got Django's HTML CSRF page). Nothing changed is still checked below."""
    from django.urls import resolve

    view = resolve(url).func
    view = view.view() if hasattr(view, "view") and callable(view.view) else view
    return (
        getattr(view, "csrf_exempt", False)
        and response.status_code == 405
        and response.get("Allow") == "GET, HEAD, OPTIONS"
    )


def named_patterns(patterns, namespace=None):
    """(view name, {kwarg names}) of every named URL pattern, namespaces included."""
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = ":".join(x for x in (namespace, p.namespace) if x) or None
            yield from named_patterns(p.url_patterns, ns)
        elif isinstance(p, URLPattern) and p.name:
            name = f"{namespace}:{p.name}" if namespace else p.name
            yield name, set(p.pattern.regex.groupindex)


def snapshot() -> dict:
    """Row counts of every table and every study's editable fields."""
    counts = {m._meta.label: m._default_manager.count() for m in apps.get_models()}
    counts.pop("sessions.Session", None)  # a failed request may touch the session row
    Study = apps.get_model("annotation", "Study")
    return {"counts": counts, "studies": list(Study.objects.values().order_by("pk"))}


@pytest.fixture
def world(db):
    admin = make_user("csrf_admin", "admin")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    annotator = make_user("csrf_annotator", "annotator", annotator=True)
    study = make_study("CSRF study")
    question = make_question(study, n_reports=2, paragraphs=2, rubric_items=2)
    assignment = make_assignment(annotator.annotator, question, "medal_ranking")
    report = question.reports.first()
    values = {
        "pk": assignment.pk,
        "object_id": str(study.pk),
        "id": admin.pk,
        "study_id": study.pk,
        "assignment_id": assignment.pk,
        "annotator_id": annotator.annotator.pk,
        "question_id": question.pk,
        "run_id": 1,
        "public_id": str(report.public_id),
        "content_type_id": 1,
        "app_label": "annotation",
        "study_name": study.name,
        "fmt": "csv",
        "format": "json",
        "name": "system",
        "task": "medal_ranking",
        "kind": "questions",
        "file_format": "jsonl",
        "judge": "csrf-judge",
        "file": "questions.jsonl",
        "uidb64": "MQ",
        "token": "set-password",
    }
    return admin, values


def urls(values) -> list[str]:
    out = set()
    for name, params in named_patterns(get_resolver().url_patterns):
        out.add(reverse(name, kwargs={k: values[k] for k in params}))
    return sorted(out)


def send(client: Client, method: str, url: str):
    """A form POST, or a JSON body for PUT/PATCH/DELETE (what the API takes)."""
    data = {"name": "changed"}
    if method == "post":
        return client.post(url, data)
    return getattr(client, method)(url, data, content_type="application/json")


def test_every_unsafe_request_without_the_token_is_refused(world):
    admin, values = world
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    targets = urls(values)
    assert len(targets) > 100  # pages, API, admin: the walk found them all
    before = snapshot()
    accepted = []
    for url in targets:
        for method in METHODS:
            response = send(client, method, url)
            body = response.content.decode(errors="replace")
            names_csrf = "CSRF" in body or url in GENERIC_403_BODY
            if refused_as_a_download(url, response):
                continue
            if response.status_code != 403 or not names_csrf:
                accepted.append(f"{method.upper()} {url} -> {response.status_code}")
    assert not accepted, "\n".join(accepted)
    assert snapshot() == before
    assert "_auth_user_id" in client.session  # not even logged out


def test_the_same_request_with_the_token_goes_through(world):
    """The control: the refusal above is CSRF's, not the view's."""
    admin, values = world
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    client.get(reverse("studies:list"))
    token = client.cookies["csrftoken"].value
    url = reverse("studies:settings", args=[values["study_id"]])
    assert client.post(url, {"name": "x"}).status_code == 403
    response = client.post(url, {"name": "x"}, HTTP_X_CSRFTOKEN=token)
    assert response.status_code != 403
    api = reverse("study-detail", args=[values["study_id"]])
    assert client.patch(api, {"name": "x"}, content_type="application/json").status_code == 403
    response = client.patch(
        api, {"name": "Renamed"}, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 200
