"""Every file download answers HEAD and OPTIONS one way (concord.download_methods): HEAD is
GET without the body, OPTIONS 200 with ``Allow``, any other method 405 with ``Allow``.

Found by testers with a researcher's API token: the study exports answered HEAD and OPTIONS
with 405 (``require_GET``), while the report files ran the whole download for HEAD,
OPTIONS and even POST (an OPTIONS got the report itself)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.importers.registry import FORMATS
from concord.throttles import throttle_cache
from tests.builders.ranked import ranked_study
from tests.builders.users import make_user
from tests.builders.users import token_client as client_with_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_client():
    throttle_cache().clear()
    user = make_user("methods_researcher", "researcher")
    study = ranked_study(3)
    study.researchers.add(user)
    client = client_with_token(user, api=False)
    return client, study


def download_urls(study) -> list[str]:
    example = next(fmt for key, fmt in sorted(FORMATS.items()) if not fmt.directory)
    return [
        reverse("metaeval:json", args=[study.pk]),
        reverse("metaeval:offline", args=[study.pk]),
        reverse("metaeval:table", args=[study.pk, "system", "csv"]),
        reverse("metaeval:figure", args=[study.pk, "system", "svg"]),
        reverse("studies:export_judgments", args=[study.pk, "csv"]),
        reverse("studies:export_pairwise", args=[study.pk]),
        reverse("studies:export_format", args=[study.pk, "questions", "jsonl"]),
        reverse("studies:progress_csv", args=[study.pk]),
        reverse("format_example", args=[example.kind, example.name, example.example.file]),
    ]


def test_head_is_get_without_the_body_on_every_download(token_client):
    client, study = token_client
    for url in download_urls(study):
        got = client.get(url)
        assert got.status_code == 200, (url, got.content[:200])
        head = client.head(url)
        assert head.status_code == 200, url
        assert (b"".join(head.streaming_content) if head.streaming else head.content) == b"", url
        for header in ("Content-Type", "Content-Disposition"):
            assert head[header] == got[header], (url, header)
        body = b"".join(got.streaming_content) if got.streaming else got.content
        assert int(head["Content-Length"]) == len(body), url


def test_options_says_what_every_download_allows_and_other_methods_are_405(token_client):
    client, study = token_client
    for url in download_urls(study):
        options = client.options(url)
        assert options.status_code == 200, url
        assert options.content == b"", url
        assert {m.strip() for m in options["Allow"].split(",")} == {"GET", "HEAD", "OPTIONS"}, url
        for method in ("post", "put", "delete"):
            refused = getattr(client, method)(url)
            assert refused.status_code == 405, (url, method)
            assert "HEAD" in refused["Allow"], (url, method)


def test_options_and_head_need_a_signed_in_user_as_get_does(token_client):
    _, study = token_client
    for url in download_urls(study):
        for method in ("options", "head"):
            assert getattr(Client(), method)(url).status_code == 302, (url, method)  # sign in
            bad = client_with_token(key="not-a-real-token", api=False)
            assert getattr(bad, method)(url).status_code == 401, (url, method)


def test_every_download_refuses_a_parameter_it_does_not_read(token_client, admin_user):
    """``progress.csv?x=1`` was the whole file, as if ``x`` had chosen it: a parameter no
    download reads is a 400 naming it (JSON to a token client, text to a browser), where
    the download's methods are checked; the report files and exports refuse theirs by
    their options' declaration. HEAD is refused as GET is; OPTIONS still says Allow."""
    client, study = token_client
    for url in download_urls(study):
        response = client.get(f"{url}?zzz=1")
        assert response.status_code == 400, (url, response.content[:300])
        assert "zzz" in response.content.decode(), url
        assert client.head(f"{url}?zzz=1").status_code == 400, url
        assert client.options(f"{url}?zzz=1").status_code == 200, url
    progress = reverse("studies:progress_csv", args=[study.pk])
    [error] = client.get(f"{progress}?x=1").json()["errors"]
    assert error["field"] == "x" and "unknown parameter(s): x; known: none" in error["message"]
    browser = Client()
    browser.force_login(admin_user)
    for name in ("progress_csv", "questions_csv", "quality_csv"):
        url = reverse(f"studies:{name}", args=[study.pk])
        assert browser.get(url).status_code == 200, url
        refused = browser.get(f"{url}?x=1")
        assert refused.status_code == 400, url
        assert refused.content.decode() == "x: unknown parameter(s): x; known: none\n"


def test_a_refused_method_says_why_in_the_one_error_body(token_client):
    """A 405 of a download had an empty body: it says which methods are allowed, in the
    one error body to an API client (concord.error_body)."""
    client, study = token_client
    for url in download_urls(study):
        refused = client.post(url)
        assert refused.status_code == 405, url
        body = refused.json()
        assert "method POST is not allowed" in body["detail"], url
        assert "GET, HEAD, OPTIONS" in body["errors"][0]["message"], url


def test_an_unknown_judgments_format_names_the_formats_there_are(token_client):
    """``judgments.txt`` answered 404 "unknown format 'txt'" without saying which exist."""
    from annotation.exporters import JUDGMENT_FORMATS

    client, study = token_client
    answer = client.get(reverse("studies:export_judgments", args=[study.pk, "txt"]))
    assert answer.status_code == 404
    error = answer.json()["errors"][0]
    assert error["field"] == "fmt" and "'txt'" in error["message"]
    assert all(fmt in error["message"] for fmt in JUDGMENT_FORMATS)


def test_a_refused_method_is_the_json_405_even_where_csrf_is_enforced(token_client):
    """A token script's POST or DELETE to a download got Django's HTML CSRF 403 page (the
    test client skips CSRF unless asked): it is the JSON 405 naming the allowed methods,
    and a signed-in browser's POST without a CSRF token is a 405 as well, not a change."""
    from django.test import Client as DjangoClient

    _, study = token_client
    from rest_framework.authtoken.models import Token

    key = Token.objects.get(user__username="methods_researcher").key
    script = DjangoClient(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {key}")
    for url in download_urls(study):
        for method in ("post", "delete"):
            refused = getattr(script, method)(url)
            assert refused.status_code == 405, (url, method, refused.content[:200])
            body = refused.json()
            assert f"method {method.upper()} is not allowed" in body["detail"], url
            assert "GET, HEAD, OPTIONS" in body["errors"][0]["message"], url
            assert {m.strip() for m in refused["Allow"].split(",")} == {"GET", "HEAD", "OPTIONS"}
    browser = DjangoClient(enforce_csrf_checks=True)
    browser.force_login(study.researchers.get())
    url = reverse("studies:export_pairwise", args=[study.pk])
    assert browser.post(url).status_code == 405
