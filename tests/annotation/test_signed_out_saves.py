"""A task page whose session has ended (signed out in another tab, expired) is told so.

Its background saves and submits get a 401 naming what happened and how to go on, never
the login page: the browser follows a redirect by itself, and the page had taken the
login form's 200 for an acknowledged save and dropped the answers it kept (found by an
annotator's walk-through; the browser side is in tests/browser/test_autosave_outage.py).
"""

from urllib.parse import parse_qs, urlsplit

from annotation.models import Draft, DraftVersion
from tests.annotation.test_annotate_medal_ranking import form, setup, urls  # noqa: F401


def test_a_background_save_or_submit_after_signing_out_is_refused_with_401(setup):  # noqa: F811
    _, _, assignment, client = setup
    page, save, submit = urls(assignment)
    client.get(page)
    assert client.post(save, form(assignment, 0, reasoning="kept")).status_code == 200
    before = list(DraftVersion.objects.values())
    client.logout()
    for url, said in ((save, "Not saved"), (submit, "Not submitted")):
        response = client.post(url, form(assignment, 1, reasoning="typed after"),
                               HTTP_HX_REQUEST="true")  # fmt: skip
        assert response.status_code == 401
        html = response.content.decode()
        assert f"{said} — you are signed out" in html
        assert 'id="save-status"' in html and "kept in this browser" in html
        link = html.split('href="', 1)[1].split('"', 1)[0]
        assert urlsplit(link).path == "/accounts/login/"
        assert parse_qs(urlsplit(link.replace("&amp;", "&")).query)["next"] == [page]
    assert list(DraftVersion.objects.values()) == before
    assert Draft.objects.get(assignment=assignment).payload["reasoning"] == "kept"


def test_a_plain_form_post_is_still_sent_to_the_login_page(setup):  # noqa: F811
    _, _, assignment, client = setup
    _, save, submit = urls(assignment)
    client.logout()
    for url in (save, submit):
        response = client.post(url, form(assignment, 0))
        assert response.status_code == 302
        assert urlsplit(response["Location"]).path == "/accounts/login/"
    assert not Draft.objects.filter(assignment=assignment, version__gt=0).exists()
