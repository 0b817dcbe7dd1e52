"""Every file download answers HEAD and OPTIONS one way (concord.download_methods): HEAD is
GET without the body, OPTIONS 200 with ``Allow``, any other method 405 with ``Allow``.

Found by testers with a researcher's API token: the study exports answered HEAD and OPTIONS
with 405 (``require_GET``), while the report files ran the whole download for HEAD,
OPTIONS and even POST (an OPTIONS got the report itself)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from annotation.importers.registry import FORMATS
from concord.throttles import throttle_cache
from tests.builders.ranked import ranked_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_client():
    throttle_cache().clear()
    user = make_user("methods_researcher", "researcher")
    study = ranked_study(3)
    study.researchers.add(user)
    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
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
            bad = Client(HTTP_AUTHORIZATION="Token not-a-real-token")
            assert getattr(bad, method)(url).status_code == 401, (url, method)
