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
from tests.builders.users import make_user
from tests.module_data import module_data

#: Session, user, groups, annotator profile, scope, count, rows and their prefetches.
CEILING = 12


def count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return len(ctx.captured_queries), len(response.json()["results"])


def lists_world(prefix: str):
    """A world every judgment kind fills, shared with a researcher: ``(world, the
    researcher's client, the annotator's client)``; users named ``<prefix>_…``."""
    researcher = make_user(f"{prefix}_researcher", "researcher")
    annotator = make_user(f"{prefix}_annotator", "annotator", annotator=True)
    other = make_user(f"{prefix}_other", "annotator", annotator=True)
    w = f.build_world(annotator, other)
    w.study.researchers.add(researcher)
    with_other_kinds(w)
    client = APIClient()
    client.force_login(researcher)
    own = APIClient()
    own.force_login(annotator)
    return w, client, own


def with_other_kinds(world) -> None:
    """The judgment kinds the API only reads, on every assignment that has none yet, and a
    task that shows rubrics beside each (rubric item quality, no reports): an annotator
    reads through the API only the rubrics their tasks show."""
    from annotation.models import Assignment, QueryQuality

    done = QueryQuality.objects.values("assignment_id")
    mine = Assignment.objects.filter(study=world.study).exclude(task="rubric_item_quality")
    for a in mine.exclude(pk__in=done):
        f.other_kinds(a)
    shown = set(
        Assignment.objects.filter(study=world.study, task="rubric_item_quality").values_list(
            "annotator_id", "question_id"
        )
    )
    for a in mine:
        if (a.annotator_id, a.question_id) not in shown:
            f.assignment(a.annotator, a.question, task="rubric_item_quality", order=[])
            shown.add((a.annotator_id, a.question_id))


LISTS = [(b, role) for _, _, b in router.registry for role in ("researcher", "annotator")]


@pytest.fixture(scope="module")
def measured(django_db_setup, django_db_blocker):
    """Every list's (queries, rows), small world then grown, measured once for the module:
    building and growing the world for each of the ~50 lists was most of this module's time
    (issue 14; tests/module_data.py). The tests run on the grown world, with the clients
    logged in here."""

    def build():
        researcher = make_user("queries_researcher", "researcher")
        annotator = make_user("queries_annotator", "annotator", annotator=True)
        other = make_user("queries_other", "annotator", annotator=True)
        world = f.build_world(annotator, other)
        world.study.researchers.add(researcher)
        with_other_kinds(world)
        clients = {"researcher": APIClient(), "annotator": APIClient()}
        clients["researcher"].force_login(researcher)
        clients["annotator"].force_login(annotator)
        readable = [
            (b, r)
            for b, r in LISTS
            if not ENDPOINTS[b].admin_only and (r == "researcher" or ENDPOINTS[b].annotator_reads)
        ]
        url = {b: reverse(f"{b}-list") for b, _ in LISTS}
        small = {(b, r): count(clients[r], url[b]) for b, r in readable}
        f.grow(world, 9)
        with_other_kinds(world)
        large = {(b, r): count(clients[r], url[b]) for b, r in readable}
        return small, large, clients, url

    yield from module_data(django_db_blocker, build)


@pytest.mark.django_db
@pytest.mark.parametrize(("basename", "role"), LISTS, ids=[f"{b}-{r}" for b, r in LISTS])
def test_list_queries_do_not_grow(basename, role, measured, django_assert_max_num_queries):
    if role == "annotator" and not ENDPOINTS[basename].annotator_reads:
        pytest.skip("annotators cannot list this endpoint (test_permissions)")
    if ENDPOINTS[basename].admin_only:
        pytest.skip("admins only (test_permissions); its list is one query of a few rows")
    small_measure, large_measure, clients, url = measured
    small, small_rows = small_measure[basename, role]
    large, large_rows = large_measure[basename, role]

    assert large_rows > small_rows or basename in ("study", "system", "annotator", "judge")
    assert large == small, (
        f"{basename}: {small} queries for {small_rows} rows, {large} for {large_rows}"
    )
    with django_assert_max_num_queries(CEILING):
        clients[role].get(url[basename])


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
    assert Report.objects.filter(question__study=s).count() == 30
