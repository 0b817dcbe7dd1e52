"""An API URL that matches no route answers JSON 404, not Django's HTML page."""

import pytest
from rest_framework.test import APIClient

from tests.builders.users import make_user


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["/api/studies/-3/agreement/", "/api/studies/-3/judge-alignment/", "/api/no-such-thing/"],
)
def test_an_unmatched_api_url_is_a_json_404(url):
    client = APIClient()
    client.force_authenticate(make_user("nf_admin", "admin"))
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}


@pytest.mark.django_db
def test_an_unmatched_page_url_stays_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
