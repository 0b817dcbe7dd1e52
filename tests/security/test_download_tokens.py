"""Every file download (exports, report files) answers an API token exactly as it answers the
same user's session: same status for every role, same file for the allowed ones.

The downloads are found by walking the URL configuration (every page that answers a
staff session with an attachment), on the demo study so that every report file and figure
has data. Researchers' scripts and notebooks have no browser session: before this, a token
was sent to the login page (302).
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import get_resolver, reverse
from rest_framework.authtoken.models import Token

from annotation.models import Annotator, Question, Study
from tests.builders.users import make_user, token_client
from tests.security.test_csrf import named_patterns

#: The downloads the walk must find (it may find more: a new one is checked too).
KNOWN_DOWNLOADS = {
    "studies:export_judgments",
    "studies:export_pairwise",
    "studies:export_format",
    "studies:progress_csv",
    "metaeval:json",
    "metaeval:offline",
    "metaeval:table",
    "metaeval:figure",
}
ROLES = ("annotator", "researcher", "outside_researcher", "admin")


@pytest.fixture
def world(db, demo_module):
    study = Study.objects.get(pk=demo_module)
    users = {
        "annotator": Annotator.objects.order_by("pk").first().user,
        "researcher": make_user("tok_researcher", "researcher"),
        "outside_researcher": make_user("tok_outsider", "researcher"),
        "admin": make_user("tok_admin", "admin"),
    }
    study.researchers.add(users["researcher"])
    sessions, tokens = {}, {}
    for role, user in users.items():
        sessions[role] = Client()
        sessions[role].force_login(user)
        tokens[role] = token_client(user, api=False)
    values = {
        "study_id": study.pk,
        "annotator_id": users["annotator"].annotator.pk,
        "question_id": Question.objects.filter(study=study).first().pk,
        "fmt": "csv",
        "name": "system",
        "kind": "questions",
        "file_format": "jsonl",
    }
    return values, sessions, tokens


def download_urls(values, admin: Client) -> dict[str, list[str]]:
    """name -> URLs of every page that gives an admin's session an attachment."""
    found: dict[str, list[str]] = {}
    for name, params in named_patterns(get_resolver().url_patterns):
        if name.startswith("admin:") or not params <= values.keys() | {"run_id"}:
            continue
        urls = []
        formats = {"metaeval:figure": ("svg", "png"), "metaeval:table": ("csv", "json", "xlsx"),
                   "studies:export_judgments": ("json", "jsonl", "csv", "xlsx", "parquet")}  # fmt: skip
        for fmt in formats.get(name, (values["fmt"],)):
            kwargs = {k: (fmt if k == "fmt" else values.get(k, 1)) for k in params}
            urls.append(reverse(name, kwargs=kwargs))
        urls = [u for u in urls if not u.startswith("/api/")]
        ok = [u for u in urls if "attachment" in admin.get(u).get("Content-Disposition", "")]
        if ok:
            found[name] = ok
    return found


def test_every_download_accepts_a_token_with_the_sessions_rules(world):
    values, sessions, tokens = world
    downloads = download_urls(values, sessions["admin"])
    assert downloads.keys() >= KNOWN_DOWNLOADS, KNOWN_DOWNLOADS - downloads.keys()
    wrong = []
    for urls in downloads.values():
        for url in urls:
            for role in ROLES:
                by_session = sessions[role].get(url)
                by_token = tokens[role].get(url)
                if by_token.status_code != by_session.status_code:
                    wrong.append(
                        f"{role:18} {url}: token {by_token.status_code}, "
                        f"session {by_session.status_code}"
                    )
                elif by_token.status_code == 200:
                    if by_token["Content-Type"] != by_session["Content-Type"]:
                        wrong.append(f"{role} {url}: another content type with the token")
                    if url.endswith((".csv", ".json", ".jsonl")) and (
                        by_token.content != by_session.content
                    ):
                        wrong.append(f"{role} {url}: another file with the token")
                if by_token.status_code == 302:
                    wrong.append(f"{role} {url}: token sent to {by_token['Location']}")
    assert not wrong, "\n".join(wrong)
    # The rules are the session's: the researcher of the study reads the report files and
    # exports its judgments (issue 24), the outside researcher does not see the study.
    report = reverse("metaeval:json", kwargs={"study_id": values["study_id"]})
    export = reverse("studies:export_judgments", kwargs={"study_id": values["study_id"], "fmt": "jsonl"})  # fmt: skip
    assert tokens["researcher"].get(report).status_code == 200
    assert tokens["outside_researcher"].get(report).status_code == 404
    assert tokens["annotator"].get(report).status_code == 403
    assert tokens["admin"].get(export).status_code == 200
    assert tokens["researcher"].get(export).status_code == 200
    assert tokens["outside_researcher"].get(export).status_code == 404
    assert tokens["annotator"].get(export).status_code == 403


def test_a_wrong_token_is_a_401_and_no_token_is_the_login_page(world):
    values, _, tokens = world
    url = reverse("metaeval:table", kwargs={"study_id": values["study_id"], "name": "system", "fmt": "csv"})  # fmt: skip
    bad = token_client(key="not-a-real-token", api=False).get(url)
    assert bad.status_code == 401
    assert bad["WWW-Authenticate"] == "Token"
    assert "token" in bad.json()["detail"].lower()
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and reverse("login") in anonymous["Location"]
    assert tokens["researcher"].get(url).status_code == 200


def test_pages_other_than_downloads_still_need_a_session(world):
    """The token is for fetching files; the HTML pages stay browser pages."""
    values, _, tokens = world
    page = reverse("metaeval:report", kwargs={"study_id": values["study_id"]})
    assert tokens["researcher"].get(page).status_code == 302


def test_bearer_is_a_token_and_a_wrong_token_is_a_401(world):
    """``Authorization: Bearer <key>`` reads as ``Token <key>`` on the downloads and the API
    (one list of schemes: ``TokenAuthentication.keywords``); a wrong token is a 401, never the
    login page (before, ``Bearer`` was sent to the login page). A header of another scheme
    (a proxy's ``Basic``, repeated by the browser on every request) is no token: the
    session decides, so a signed-in browser behind such a proxy still downloads."""
    values, _, tokens = world
    url = reverse("studies:export_judgments", kwargs={"study_id": values["study_id"], "fmt": "csv"})  # fmt: skip
    key = tokens["researcher"].defaults["HTTP_AUTHORIZATION"].split()[1]
    for scheme in ("Bearer", "bearer", "Token"):
        bearer = Client(HTTP_AUTHORIZATION=f"{scheme} {key}")
        answer = bearer.get(url)
        assert answer.status_code == 200, scheme
        assert answer.content == tokens["researcher"].get(url).content
        assert bearer.get(f"/api/studies/{values['study_id']}/").status_code == 200
    for header in ("Bearer not-a-real-token", "Bearer", "Token a b"):
        refused = Client(HTTP_AUTHORIZATION=header).get(url)
        assert refused.status_code == 401, header
        assert refused["WWW-Authenticate"] == "Token"
        assert refused["Content-Type"] == "application/json"
        assert refused.json()["detail"]
        assert Client(HTTP_AUTHORIZATION=header).get("/api/studies/").status_code == 401
    for header in ("Basic dXNlcjpwYXNz", "Negotiate x y"):
        anonymous = Client(HTTP_AUTHORIZATION=header).get(url)
        assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
        browser = Client(HTTP_AUTHORIZATION=header)
        browser.force_login(Token.objects.get(key=key).user)
        assert browser.get(url).status_code == 200, header
