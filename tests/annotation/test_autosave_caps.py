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
