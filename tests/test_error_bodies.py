"""Every error answer of the API has one shape (``concord.error_body``, README "Error
answers"): a string ``detail`` always; when about records or fields, ``errors`` whose items
all have the keys ``file``, ``record``, ``field``, ``message``.

Before, a client met four shapes: ``{"detail"}`` (a 403, a 404), ``{"errors"}`` without
``detail`` (a refused import, with file and record; a refused download, without), a bare
``{field: [messages]}`` (a validation error on a create, an unknown ``?format=``, the plan's
form), and ``{"options": …}`` (a report option). Each test below walks one endpoint that
answered one of them. The report page (``/reports/{id}/``) ignored ``?format=``; it is a 400
now, as the API's unknown ``?format=`` is.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from annotation.models import Question, Study
from tests.builders.content import make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db

#: The keys of every item of ``errors``: an importer's problem's (written out, not imported).
ITEM_KEYS = {"file", "record", "field", "message"}


def assert_one_shape(response, *, per_field: bool) -> dict:
    """``response`` is JSON with a non-empty string ``detail`` and, when ``per_field``,
    ``errors`` items with exactly :data:`ITEM_KEYS`; returns the body."""
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert isinstance(body.get("detail"), str) and body["detail"].strip(), body
    if per_field:
        assert isinstance(body.get("errors"), list) and body["errors"], body
        for item in body["errors"]:
            assert set(item) == ITEM_KEYS, item
            assert isinstance(item["message"], str) and item["message"]
            assert item["field"] is None or isinstance(item["field"], str)
            assert item["record"] is None or isinstance(item["record"], int)
    return body


def api_as(role: str, name: str) -> tuple[APIClient, object]:
    user = make_user(name, role)
    client = APIClient()
    client.force_authenticate(user)
    return client, user


def token_client(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")


# --- formerly {"errors": [...]} without detail -------------------------------------------------


def test_a_malformed_import_names_each_record_under_errors_with_a_detail():
    admin, _ = api_as("admin", "err_import")
    study = make_study("Malformed import")
    bad = b'{"id": "q1", "text": "fine"}\n{"id": "q2"}\n'  # the second has no text
    response = admin.post(
        f"/api/studies/{study.pk}/import/",
        {"kind": "questions", "format": "jsonl",
         "file": SimpleUploadedFile("questions.jsonl", bad)},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert any(e["record"] == 2 and e["file"] == "questions.jsonl" for e in body["errors"])
    assert "questions.jsonl" in body["detail"] and "record 2" in body["detail"]
    assert not Question.objects.filter(study=study).exists()


def test_an_import_form_field_it_does_not_read_is_named_under_errors():
    admin, _ = api_as("admin", "err_import_field")
    study = make_study("Stray field")
    response = admin.post(
        f"/api/studies/{study.pk}/import/",
        {"kind": "questions", "format": "jsonl", "dryrun": "true",
         "file": SimpleUploadedFile("q.jsonl", b'{"id": "q1", "text": "t"}\n')},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert [e["field"] for e in body["errors"]] == ["dryrun"]
    assert "dryrun" in body["detail"]


def test_a_refused_download_answers_a_token_the_same_shape():
    researcher = make_user("err_download", "researcher")
    study = make_study("Download refusal")
    study.researchers.add(researcher)
    response = token_client(researcher).get(f"/studies/{study.pk}/progress.csv?x=1")
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert [e["field"] for e in body["errors"]] == ["x"]


# --- formerly a bare {field: [messages]} ------------------------------------------------------


def test_a_validation_error_on_a_create_has_a_detail_and_errors_per_field():
    admin, _ = api_as("admin", "err_create")
    response = admin.post("/api/studies/", {"name": ""}, format="json")
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert "name" in {e["field"] for e in body["errors"]}
    assert "name" in body["detail"]
    assert body["name"], "the field's own key stays for clients that read it"
    assert not Study.objects.exists()


def test_an_unknown_format_is_a_detail_and_an_error_on_format():
    researcher, _ = api_as("researcher", "err_format")
    response = researcher.get("/api/studies/?format=csv")
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert [e["field"] for e in body["errors"]] == ["format"]
    assert "'csv'" in body["detail"]


def test_an_unknown_parameter_is_a_detail_and_an_error_per_parameter():
    researcher, _ = api_as("researcher", "err_param")
    for url in ("/api/studies/?settting=x&stauts=y", "/api/version/?fields=x"):
        response = researcher.get(url)
        assert response.status_code == 400, url
        body = assert_one_shape(response, per_field=True)
        named = [e["field"] for e in body["errors"]]
        assert named == (["settting", "stauts"] if "settting" in url else ["fields"]), url


def test_a_bad_page_limit_is_a_detail_and_an_error_on_limit():
    researcher, _ = api_as("researcher", "err_limit")
    response = researcher.get("/api/studies/?limit=0")
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert [e["field"] for e in body["errors"]] == ["limit"]


def test_the_plan_form_refusal_has_the_shape():
    admin, _ = api_as("admin", "err_plan")
    study = make_study("Plan refusal")
    response = admin.post(f"/api/studies/{study.pk}/plan/",
                          {"task": "medal_ranking", "overlap": -3}, format="json")  # fmt: skip
    assert response.status_code == 400
    assert_one_shape(response, per_field=True)


# --- formerly {"options": ...} ------------------------------------------------------------------


def test_a_refused_report_option_is_a_detail_and_an_error_on_it():
    researcher, user = api_as("researcher", "err_options")
    study = make_study("Options refusal")
    study.researchers.add(user)
    response = researcher.post("/api/report-runs/",
                               {"study": study.pk, "options": {"bootstrap": 10**9}},
                               format="json")  # fmt: skip
    assert response.status_code == 400
    body = assert_one_shape(response, per_field=True)
    assert any(e["field"] and e["field"].startswith("options") for e in body["errors"]), body


# --- formerly {"detail"} alone: still so, with no errors ---------------------------------------


def test_refusals_of_permission_and_scope_have_a_detail():
    researcher, _ = api_as("researcher", "err_perm")
    created = researcher.post("/api/studies/", {"name": "Not mine"}, format="json")
    assert created.status_code == 403
    assert "errors" not in assert_one_shape(created, per_field=False)
    other = make_study("Not theirs")
    hidden = researcher.get(f"/api/studies/{other.pk}/")
    assert hidden.status_code == 404
    assert_one_shape(hidden, per_field=False)
    unrouted = researcher.get("/api/no-such-thing/")
    assert unrouted.status_code == 404
    assert_one_shape(unrouted, per_field=False)


def test_a_body_over_the_limit_is_a_detail_and_names_the_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    user = make_user("err_big", "admin")
    response = token_client(user).post("/api/studies/", data='{"name": "' + "x" * 5000 + '"}',
                                       content_type="application/json")  # fmt: skip
    assert response.status_code == 413
    body = assert_one_shape(response, per_field=False)
    assert body["limit"] == 1000


def test_a_suspicious_request_to_the_api_is_a_detail_in_json(settings):
    """A 400 Django raises itself (a host not allowed) answered its HTML page under /api/."""
    settings.DEBUG = False
    response = Client(HTTP_HOST="evil.example").get("/api/version/")
    assert response.status_code == 400
    assert_one_shape(response, per_field=False)
    page = Client(HTTP_HOST="evil.example").get("/accounts/login/")
    assert page.status_code == 400 and not page["Content-Type"].startswith("application/json")


@pytest.fixture
def two_reports_a_minute(monkeypatch):
    from concord.throttles import forget_counts

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"reports": "2/min"})
    forget_counts()


def test_a_throttled_report_has_a_detail_from_the_api_and_a_download(two_reports_a_minute):
    from tests.builders.ranked import ranked_study

    user = make_user("err_throttle", "researcher")
    study = ranked_study(3)
    study.researchers.add(user)
    downloads = token_client(user)
    base = f"/reports/{study.pk}"
    assert downloads.get(f"{base}/report.json?seed=1").status_code == 200
    assert downloads.get(f"{base}/report.json?seed=2").status_code == 200
    refused = downloads.get(f"{base}/report.json?seed=3")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "THROTTLE_REPORTS" in assert_one_shape(refused, per_field=False)["detail"]
    api = APIClient()
    api.force_authenticate(user)
    answer = api.get(f"/api/studies/{study.pk}/agreement/?seed=4")
    assert answer.status_code == 429
    assert_one_shape(answer, per_field=False)


# --- the report page's ?format= -----------------------------------------------------------------


def test_the_report_page_refuses_a_format_it_does_not_serve():
    """The page is HTML; ``?format=csv`` answered it as if a CSV were on its way."""
    user = make_user("err_page_format", "researcher")
    study = make_study("Page format")
    study.researchers.add(user)
    browser = Client()
    browser.force_login(user)
    refused = browser.get(f"/reports/{study.pk}/?format=csv")
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "&#x27;csv&#x27;" in page or "'csv'" in page
    assert "report.json" in page
    by_name = browser.get(f"/reports/{study.name}/?format=xlsx", follow=True)
    assert by_name.status_code == 400
    for fine in ("", "?format=html", "?format="):
        assert browser.get(f"/reports/{study.pk}/{fine}").status_code == 200, fine


# --- the declaration: the schema and the client ---------------------------------------------------


def test_the_schema_documents_one_error_body_on_every_error_answer():
    import yaml
    from django.core.management import call_command

    out = __import__("io").StringIO()
    call_command("spectacular", stdout=out)
    schema = yaml.safe_load(out.getvalue())
    components = schema["components"]["schemas"]
    assert components["Error"]["required"] == ["detail"]
    assert components["Error"]["properties"]["detail"]["type"] == "string"
    assert set(components["ErrorItem"]["required"]) == ITEM_KEYS
    ref = {"$ref": "#/components/schemas/Error"}
    seen = 0
    for item in schema["paths"].values():
        for operation in item.values():
            for code, response in operation.get("responses", {}).items():
                if str(code).startswith("4"):
                    assert response["content"]["application/json"]["schema"] == ref, code
                    seen += 1
    assert seen


def test_the_client_shows_the_servers_detail():
    import sys
    from pathlib import Path

    import requests

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))
    from concord_client import ConcordError

    def answer(status: int, body: str):
        made = requests.Response()
        made.status_code, made._content = status, body.encode()
        made.headers["Content-Type"] = "application/json"
        return made

    refused = ConcordError.from_answer("GET x answered 400",
                                       answer(400, '{"detail": "bad format", "errors": '
                                              '[{"file": null, "record": null, "field": '
                                              '"format", "message": "csv?"}]}'))  # fmt: skip
    assert refused.detail == "bad format"
    assert str(refused).splitlines()[0] == "GET x answered 400: bad format"
    assert refused.errors[0]["field"] == "format"


# --- gaps a tester found: a refusal about a parameter names it; no field is "" ---------------


def test_an_annotators_refused_filter_names_it_under_errors():
    """``/api/reports/?study=2`` by an annotator: a 403 about the ``study`` parameter, whose
    body had no ``errors`` item naming it."""
    annotator = APIClient()
    annotator.force_authenticate(make_user("err_filter", "annotator", annotator=True))
    study = make_study("Filter refusal")
    response = annotator.get(f"/api/reports/?study={study.pk}")
    assert response.status_code == 403
    body = assert_one_shape(response, per_field=True)
    assert [e["field"] for e in body["errors"]] == ["study"]
    assert "'study' is not a filter an annotator may use" in body["detail"]


def test_nothing_to_export_has_a_null_field():
    """An empty ``pairwise.zip`` or ``judgments.csv``: a 404 whose one item is about the
    request as a whole, ``"field": null`` (it was ``""``)."""
    researcher = make_user("err_empty", "researcher")
    study = make_study("Empty export")
    study.researchers.add(researcher)
    client = token_client(researcher)
    for url in (f"/studies/{study.pk}/export/pairwise.zip",
                f"/studies/{study.pk}/export/judgments.csv"):  # fmt: skip
        response = client.get(url)
        assert response.status_code == 404, url
        body = assert_one_shape(response, per_field=True)
        assert [e["field"] for e in body["errors"]] == [None], (url, body)
        assert "nothing to export" in body["errors"][0]["message"]


def test_an_unknown_judge_is_an_error_on_judge():
    """The agreement and judge alignment APIs named ``options`` for an unknown judge, where
    the parameter given was ``judge`` (as the downloads already said)."""
    researcher, user = api_as("researcher", "err_judge")
    study = make_study("Judge refusal")
    study.researchers.add(user)
    for url in (f"/api/studies/{study.pk}/agreement/?judge=no-such-judge",
                f"/api/studies/{study.pk}/judge-alignment/?judge=no-such-judge"):  # fmt: skip
        response = researcher.get(url)
        assert response.status_code == 400, (url, response.content[:300])
        body = assert_one_shape(response, per_field=True)
        assert [e["field"] for e in body["errors"]] == ["judge"], (url, body)
        assert "'no-such-judge' has no score in this study" in body["errors"][0]["message"]
