"""A body too large to read is a 413 naming the limit, never Django's technical page.

A researcher posting 70 MB of JSON to the API got the ``RequestDataTooBig`` debug page
(the traceback and the settings) from the default install, which runs with ``DEBUG`` on.
"""

import json

import pytest
from django.test import Client

from annotation.models import Study
from tests.builders.users import make_user, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def small(settings):
    settings.DEBUG = True
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000


def test_a_json_body_over_the_limit_is_a_413_naming_it(small):
    user = make_user("big_body", "admin")
    api = token_client(user, api=False)
    body = '{"name": "' + "x" * 5000 + '"}'
    response = api.post("/api/studies/", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert "UPLOAD_MAX_BYTES, 1000 bytes" in response.json()["detail"]
    assert b"Traceback" not in response.content
    assert not Study.objects.exists()
    ok = api.post("/api/studies/", data='{"name": "fits"}', content_type="application/json")
    assert ok.status_code == 201


def test_a_form_body_over_the_limit_is_a_413_in_plain_text(small):
    user = make_user("big_form", None, annotator=True)
    browser = Client()
    browser.force_login(user)
    response = browser.post(
        "/annotate/1/save/",
        "reasoning=" + "x" * 5000,
        content_type="application/x-www-form-urlencoded",
    )  # as htmx posts
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/plain")
    assert b"UPLOAD_MAX_BYTES" in response.content and b"Traceback" not in response.content


def test_a_refused_option_is_its_reason_in_plain_text_even_with_debug_on(small, researcher_user):
    """A download's refused option (a BadRequest) answered Django's technical page with
    DEBUG on, as the default install runs: traceback, local variables, settings."""
    from tests.builders.ranked import ranked_study

    study = ranked_study(3)
    study.researchers.add(researcher_user)
    browser = Client()
    browser.force_login(researcher_user)
    response = browser.get(f"/reports/{study.pk}/report.json?judge=nope")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "judge: 'nope' has no score in this study\n"


def test_an_import_file_over_the_limit_is_a_413_with_the_limit(settings):
    """An import file over ``IMPORT_MAX_BYTES`` was a 400 while a JSON body over
    ``UPLOAD_MAX_BYTES`` was a 413: both are 413, the one error body, ``limit`` in bytes."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotation.models import Question

    settings.IMPORT_MAX_BYTES = 100
    admin = make_user("big_import", "admin")
    api = token_client(admin, api=False)
    study = Study.objects.create(name="Big import")
    lines = b"".join(b'{"id": "q%d", "text": "Question %d?"}\n' % (i, i) for i in range(10))
    upload = SimpleUploadedFile("questions.jsonl", lines, content_type="application/json")
    response = api.post(f"/api/studies/{study.pk}/import/",
                        {"kind": "questions", "format": "jsonl", "file": upload})  # fmt: skip
    assert response.status_code == 413, response.content[:300]
    body = response.json()
    assert body["limit"] == 100 and "IMPORT_MAX_BYTES" in body["detail"]
    assert body["errors"][0]["file"] == "questions.jsonl"
    assert not Question.objects.filter(study=study).exists()


def test_a_chunked_import_is_a_411_saying_to_send_content_length(live_server):
    """``curl -T -`` from a pipe sends the multipart body chunked, without Content-Length:
    Django read it as empty and refused "kind: This field is required" though ``kind`` was
    sent. It is refused up front, 411, saying chunked bodies are not accepted."""
    import http.client
    from urllib.parse import urlsplit

    from rest_framework.authtoken.models import Token

    admin = make_user("chunked_admin", "admin")
    token = Token.objects.create(user=admin).key
    study = Study.objects.create(name="Chunked")
    boundary = "concordboundary"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nquestions\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\njsonl\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="q.jsonl"\r\n'
        f"Content-Type: application/json\r\n\r\n"
        '{"id": "q1", "text": "A question?"}\n'
        f"\r\n--{boundary}--\r\n"
    ).encode()
    where = urlsplit(live_server.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    connection.putrequest("POST", f"/api/studies/{study.pk}/import/")
    connection.putheader("Authorization", f"Token {token}")
    connection.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    connection.send(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    answer = connection.getresponse()
    said = json.loads(answer.read())
    connection.close()
    assert answer.status == 411, said
    assert "Content-Length" in said["detail"] and "chunked" in said["detail"].lower()
