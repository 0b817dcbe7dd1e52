"""List endpoints cost a fixed number of queries whatever the number of rows.

Each list is fetched with the base world (9 reports) and again after 9 more questions
(36 reports, 12 rubrics, 10 more assignments and judgments of each kind); the counts must be
equal, and under a fixed ceiling checked with pytest-django's ``django_assert_max_num_queries``.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Report
from studio.api_urls import router
from tests.annotation.test_permissions import ENDPOINTS
from tests.builders import world as f

#: Session, user, groups, annotator profile, scope, count, rows and their prefetches.
CEILING = 12


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return len(ctx.captured_queries), len(response.json()["results"])


def with_other_kinds(world) -> None:
    """The judgment kinds the API only reads, on every assignment that has none yet."""
    from annotation.models import Assignment, QueryQuality

    done = QueryQuality.objects.values("assignment_id")
    for a in Assignment.objects.filter(study=world.study).exclude(pk__in=done):
        f.other_kinds(a)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["researcher", "annotator"])
@pytest.mark.parametrize("basename", [b for _, _, b in router.registry])
def test_list_queries_do_not_grow(
    basename,
    role,
    researcher_user,
    annotator_user,
    other_annotator_user,
    django_assert_max_num_queries,
):
    if role == "annotator" and not ENDPOINTS[basename].annotator_reads:
        pytest.skip("annotators cannot list this endpoint (test_permissions)")
    user = researcher_user if role == "researcher" else annotator_user
    world = f.build_world(annotator_user, other_annotator_user)
    world.study.researchers.add(researcher_user)
    with_other_kinds(world)
    client = APIClient()
    client.force_login(user)
    url = reverse(f"{basename}-list")

    small, small_rows = count(client, url)
    f.grow(world, 9)
    with_other_kinds(world)
    large, large_rows = count(client, url)

    assert large_rows > small_rows or basename in ("study", "system", "annotator", "judge")
    assert large == small, (
        f"{basename}: {small} queries for {small_rows} rows, {large} for {large_rows}"
    )
    with django_assert_max_num_queries(CEILING):
        client.get(url)


@pytest.mark.django_db
def test_report_counts_3_vs_30(
    researcher_user, annotator_user, other_annotator_user, django_assert_max_num_queries
):
    """The issue's own example: 3 reports and 30 reports cost the same."""
    s = f.study()
    s.researchers.add(researcher_user)
    systems = [f.system(s, n) for n in f.SYSTEM_NAMES]
    client = APIClient()
    client.force_login(researcher_user)
    counts = []
    for n_questions in (1, 9):
        for _ in range(n_questions):
            q = f.question(s)
            for sys_ in systems:
                f.report(q, sys_)
        with django_assert_max_num_queries(CEILING):
            n, rows = count(client, reverse("report-list"))
        counts.append((n, rows))
    assert [rows for _, rows in counts] == [3, 30]
    assert counts[0][0] == counts[1][0]
    assert Report.objects.count() == 30
