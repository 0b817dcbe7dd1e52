"""Authentication: token and session; the schema and docs are public (decision below)."""

import pytest
import yaml
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.builders import world as f
from tests.builders.users import token_client


@pytest.mark.django_db
def test_obtain_token_and_use_it(researcher_user):
    f.study("Visible").researchers.add(researcher_user)
    f.study("Another lab's")  # not added: not listed
    response = APIClient().post(
        reverse("api-token"), {"username": "researcher_t", "password": "researcher_t"}
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert Token.objects.get(user=researcher_user).key == token

    client = token_client(key=token)
    listed = client.get(reverse("study-list"))
    assert listed.status_code == 200
    assert [s["name"] for s in listed.json()["results"]] == ["Visible"]


@pytest.mark.django_db
def test_wrong_password_gets_no_token(researcher_user):
    response = APIClient().post(
        reverse("api-token"), {"username": "researcher_t", "password": "wrong"}
    )
    assert response.status_code == 400
    assert "token" not in response.json()
    assert not Token.objects.exists()


@pytest.mark.django_db
def test_bad_token_is_refused(researcher_user):
    """401 as the schema documents (issue 12): TokenAuthentication comes first in settings,
    so the answer carries its WWW-Authenticate challenge (with the reason)."""
    client = token_client(key="not-a-real-token")
    response = client.get(reverse("study-list"))
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


@pytest.mark.django_db
def test_token_carries_the_role(annotator_user):
    """A token is the user: an annotator's token still cannot read studies."""
    client = token_client(annotator_user)
    assert client.get(reverse("study-list")).status_code == 403
    assert client.get(reverse("assignment-list")).status_code == 200


@pytest.mark.django_db
def test_session_auth_enforces_csrf_on_writes(admin_user):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = client.post(reverse("study-list"), {"name": "x"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


@pytest.mark.django_db
def test_schema_is_public_and_valid_openapi():
    """Decision: the schema and docs describe shapes, never data, so they are public."""
    response = APIClient().get(reverse("schema"))
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    for path in (
        "/api/studies/",
        "/api/studies/{id}/import/",
        "/api/reports/{public_id}/",
        "/api/rubrics/{public_id}/",
        "/api/assignments/{id}/",
        "/api/judgments/medal-rankings/",
        "/api/judgments/pairwise-preferences/",
        "/api/judgments/metric-scores/",
        "/api/judges/",
        "/api/judge-scores/",
        "/api/auth/token/",
    ):
        assert path in paths, path
    assert (
        "multipart/form-data"
        in paths["/api/studies/{id}/import/"]["post"]["requestBody"]["content"]
    )


def test_schema_validates_without_warnings():
    """What ``manage.py spectacular --validate --fail-on-warn`` checks."""
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    assert not GENERATOR_STATS._warn_cache, list(GENERATOR_STATS._warn_cache)
    assert not GENERATOR_STATS._error_cache, list(GENERATOR_STATS._error_cache)


@pytest.mark.django_db
def test_docs_page_is_served():
    response = APIClient().get(reverse("api-docs"))
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


@pytest.mark.django_db
def test_docs_page_loads_swagger_ui_from_our_static_files_only():
    """No CDN (issue 12): the script and styles come from drf-spectacular-sidecar's static
    files, and the page's policy allows no other origin."""
    response = APIClient().get(reverse("api-docs"))
    html = response.content.decode()
    policy = response["Content-Security-Policy"]
    assert "cdn." not in html and "https://" not in policy
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    from django.contrib.staticfiles import finders

    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
