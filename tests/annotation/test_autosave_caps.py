"""Autosave is bounded (issue 12): a huge field is refused and changes nothing; drafts saved
within a minute coalesce into the latest version, which always holds the last acknowledged
state; a submission keeps its own version."""

from datetime import timedelta

from django.utils import timezone

from annotation.models import Draft, DraftVersion
from tests.annotation.test_annotate_medal_ranking import form, setup, urls  # noqa: F401


def test_a_field_over_the_cap_is_refused_and_changes_nothing(setup, settings):  # noqa: F811
    _, _, assignment, client = setup
    page, save, submit = urls(assignment)
    client.get(page)
    assert client.post(save, form(assignment, 0, reasoning="kept")).status_code == 200
    before = list(DraftVersion.objects.values())
    huge = "x" * (10 * 1024 * 1024)
    for url in (save, submit):
        response = client.post(url, form(assignment, 1, reasoning=huge), HTTP_HX_REQUEST="true")
        assert response.status_code == 422
        assert "reasoning" in response.content.decode()
    assert list(DraftVersion.objects.values()) == before
    assert Draft.objects.get(assignment=assignment).payload["reasoning"] == "kept"
    settings.CONCORD_AUTOSAVE_MAX_FIELD_CHARS = 3
    response = client.post(save, form(assignment, 1, reasoning="four"))
    assert response.status_code == 422


def test_autosaves_within_a_minute_coalesce_into_the_latest_version(setup):  # noqa: F811
    _, _, assignment, client = setup
    page, save, submit = urls(assignment)
    client.get(page)
    for v in range(20):
        response = client.post(save, form(assignment, v, reasoning=f"typing {v}"))
        assert response.status_code == 200
    versions = list(DraftVersion.objects.filter(assignment=assignment))
    assert len(versions) == 1
    assert versions[0].version == 20 and versions[0].payload["reasoning"] == "typing 19"
    assert Draft.objects.get(assignment=assignment).version == 20
    # a minute later the next save starts a new version; the old one stays
    DraftVersion.objects.update(created_at=timezone.now() - timedelta(seconds=61))
    assert client.post(save, form(assignment, 20, reasoning="later")).status_code == 200
    history = list(
        DraftVersion.objects.filter(assignment=assignment).values_list("version", "payload")
    )
    assert [(v, p["reasoning"]) for v, p in history] == [(20, "typing 19"), (21, "later")]
    # submitting right after a draft still records its own version
    assert client.post(submit, form(assignment, 21, reasoning="final")).status_code == 302
    kinds = list(DraftVersion.objects.filter(assignment=assignment).values_list("version", "kind"))
    assert kinds == [(20, "draft"), (21, "draft"), (22, "submit")]


def test_the_cap_refusal_says_not_saved_once_and_names_the_field(setup, settings):  # noqa: F811
    """The 422's message reads "Not saved: the field … is longer than …", not "Not saved:
    Not saved: …" (the panel's heading already says it; found by an annotator)."""
    _, _, assignment, client = setup
    _, save, submit = urls(assignment)
    settings.CONCORD_AUTOSAVE_MAX_FIELD_CHARS = 3
    for url, said in ((save, "Not saved"), (submit, "Not submitted")):
        html = client.post(url, form(assignment, 0, reasoning="four"), HTTP_HX_REQUEST="true")
        text = " ".join(html.content.decode().split())
        assert html.status_code == 422
        assert text.count("Not saved") + text.count("Not submitted") == 1
        assert f"{said}:</strong>" in text and "the field &#x27;reasoning&#x27; is longer" in text


def test_a_version_that_is_no_number_is_refused_naming_the_field(setup):  # noqa: F811
    """A forged ``version`` is a 422 naming the field; it was a 409 "changed in another tab"
    (found by an annotator), and nothing is written either way."""
    _, _, assignment, client = setup
    page, save, submit = urls(assignment)
    client.get(page)
    assert client.post(save, form(assignment, 0, reasoning="kept")).status_code == 200
    before = list(DraftVersion.objects.values())
    for url in (save, submit):
        for bad in ("abc", "-1", "1.5", ""):
            data = {**form(assignment, 1, reasoning="forged"), "version": bad}
            response = client.post(url, data, HTTP_HX_REQUEST="true")
            assert response.status_code == 422, (url, bad)
            assert (
                "the field &#x27;version&#x27; must be a whole number" in response.content.decode()
            )
    assert list(DraftVersion.objects.values()) == before
    assert Draft.objects.get(assignment=assignment).payload["reasoning"] == "kept"


def test_the_history_page_says_how_saves_become_versions(setup, settings):  # noqa: F811
    """It promised "nothing you saved is ever changed or lost" while saves within the
    coalescing window replace the latest version's answers (found by an annotator who
    edited in two tabs): it says what is kept instead, with the window's length."""
    _, _, assignment, client = setup
    page, save, _ = urls(assignment)
    client.get(page)
    for v in range(3):
        assert client.post(save, form(assignment, v, reasoning=f"typing {v}")).status_code == 200
    html = " ".join(client.get("/history/").content.decode().split())
    assert "ever changed or lost" not in html
    assert "saves within 60 seconds of the first of them make one version" in html
    assert "typing 2" in html and "typing 0" not in html  # the one version holds the last
    settings.CONCORD_AUTOSAVE_COALESCE_SECONDS = 0
    html = " ".join(client.get("/history/").content.decode().split())
    assert "make one version" not in html and "Every save of your work is kept." in html
