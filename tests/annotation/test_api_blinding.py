"""Blinding: nothing an annotator can get from the API or the task page names a system.

The factories hide each system's name in the report's source format, a citation's metadata
and the judge's rationale, so a serializer that leaks any of them fails here.
"""

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Report, System
from studio.api_urls import router
from tests.builders import world as f

FORBIDDEN_KEYS = {"system", "system_id", "system_name", "source_format", "report_order", "metadata"}


def walk(value):
    """Every dict inside a JSON value."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def crawl(client, world) -> dict[str, bytes]:
    """Every body the annotator can fetch: the root, every list (with every filter), every
    detail the lists lead to, the other annotator's objects, the task pages."""
    bodies: dict[str, bytes] = {}

    def get(url, params=None):
        response = client.get(url, params or {})
        bodies[f"{url} {params or ''}"] = response.content
        return response

    get("/api/")
    filters = {
        "study": [world.study.pk],
        "question": [q.pk for q in world.questions],
        "system": [s.pk for s in world.systems],
        "annotator": [world.annotator.annotator.pk, world.other.annotator.pk],
    }
    for _, viewset, basename in router.registry:
        list_url = reverse(f"{basename}-list")
        response = get(list_url)
        for name, values in filters.items():
            for v in values:
                get(list_url, {name: v})
        if response.status_code != 200:
            continue
        lookup = viewset.lookup_field
        for row in response.json()["results"]:
            key = row["id" if lookup == "pk" else lookup]
            get(reverse(f"{basename}-detail", kwargs={lookup: key}))
        other = world.others.get(basename)
        if other is not None:
            get(
                reverse(
                    f"{basename}-detail",
                    kwargs={lookup: getattr(other, "pk" if lookup == "pk" else lookup)},
                )
            )
    for a in world.annotator.annotator.assignments.all():
        get(reverse("task", args=[a.pk]))
        get(reverse("annotate:task", args=[a.pk]))
    for a in world.other.annotator.assignments.all():
        get(reverse("task", args=[a.pk]))
        get(reverse("annotate:task", args=[a.pk]))
    return bodies


@pytest.mark.django_db
def test_no_system_name_in_any_annotator_response(annotator_user, other_annotator_user):
    world = f.build_world(annotator_user, other_annotator_user)
    client = APIClient()
    client.force_login(annotator_user)
    bodies = crawl(client, world)

    names = list(System.objects.values_list("name", flat=True))
    assert len(names) == 3 and len(bodies) > 50
    for url, body in bodies.items():
        text = body.decode().lower()
        for name in names:
            assert name.lower() not in text, f"{name} leaked in {url}"


@pytest.mark.django_db
def test_no_system_or_report_db_id_in_annotator_json(annotator_user, other_annotator_user):
    world = f.build_world(annotator_user, other_annotator_user)
    client = APIClient()
    client.force_login(annotator_user)
    report_ids = set(Report.objects.values_list("id", flat=True))
    seen_reports = 0
    for url, body in crawl(client, world).items():
        if not url.startswith("/api/"):
            continue
        data = json.loads(body)
        for obj in walk(data):
            leaked = FORBIDDEN_KEYS & set(obj)
            assert not leaked, f"{url}: {leaked}"
        if url.startswith(reverse("report-list")):
            for obj in walk(data):
                if "public_id" in obj:
                    seen_reports += 1
                    assert "id" not in obj, f"{url}: a report's database id"
        if url.startswith(reverse("assignment-list")) and "results" in data:
            for row in data["results"]:
                assert row["reports"] and all(isinstance(r, str) for r in row["reports"])
                assert not set(row["reports"]) & {str(i) for i in report_ids}
        if url.startswith(reverse("rubric-list")) and "results" in data:
            for row in data["results"]:
                assert set(row) == {"public_id", "question", "items"}  # no id, no kind
    assert seen_reports >= 3


@pytest.mark.django_db
def test_researcher_does_see_systems(researcher_user, annotator_user, other_annotator_user):
    """The scan above would pass vacuously if the names were never served at all."""
    f.build_world(annotator_user, other_annotator_user).study.researchers.add(researcher_user)
    client = APIClient()
    client.force_login(researcher_user)
    body = client.get(reverse("report-list")).content.decode()
    for name in f.SYSTEM_NAMES:
        assert name in body
