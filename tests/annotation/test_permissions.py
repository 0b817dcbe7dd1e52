"""Every API endpoint x every role x every operation, from one table of rules.

Adding a viewset to the router without a row here fails ``test_every_endpoint_has_a_rule``.
Roles: anonymous, annotator (A, acting on A's own object), other_annotator (B, acting on A's
object), researcher, admin. An annotator never learns that another's object exists: 404.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db import models
from django.urls import reverse
from rest_framework.test import APIClient

from judges.models import JudgeScore
from studio.api_urls import router
from tests.builders import world as f
from tests.builders.users import make_user
from tests.module_data import module_data


@dataclass(frozen=True)
class Endpoint:
    annotator_reads: bool  # annotators may list/read their own objects
    obj: Callable  # world -> the object of annotator A (or any, when annotators can't read)
    create: Callable  # world -> a valid admin POST payload
    change: tuple[str, object]  # a field and a new value for PATCH
    read_only: bool = False  # read through the API only: an admin's write is a 405
    admin_only: bool = False  # nobody else reads it either (a webhook carries its secret)


def _q3(w):
    return w.questions[2]


def _q3_reports(w):
    return list(_q3(w).reports.order_by("id"))


def _judgment(w, **extra):
    q = _q3(w)
    return {
        "study": w.study.pk,
        "annotator": w.other.annotator.pk,
        "question": q.pk,
        **extra,
    }


ENDPOINTS: dict[str, Endpoint] = {
    "study": Endpoint(
        False,
        lambda w: w.study,
        lambda w: {"name": "New study", "tasks": ["pairwise"], "config": {"claims_min": 2}},
        ("description", "changed"),
    ),
    "question": Endpoint(
        True,
        lambda w: w.own["question"],
        lambda w: {"study": w.study.pk, "external_id": "new-q", "text": "New?"},
        ("text", "Changed?"),
    ),
    "rubric": Endpoint(
        True,
        lambda w: w.own["rubric"],
        lambda w: {
            "question": _q3(w).pk,
            "kind": "hybrid",
            "items": [{"position": 1, "text": "Mentions X", "item_type": "depth", "weight": 2}],
        },
        ("kind", "survey"),
    ),
    "system": Endpoint(
        False,
        lambda w: w.systems[0],
        lambda w: {"study": w.study.pk, "name": "New system"},
        ("name", "Renamed system"),
    ),
    "report": Endpoint(
        True,
        lambda w: w.own["report"],
        lambda w: {
            "question": f.question(w.study).pk,
            "system": w.systems[0].pk,
            "source_format": "api",
            "citations": [{"key": "a", "title": "T", "snippets": ["s"]}],
            "sections": [
                {
                    "position": 1,
                    "title": "S",
                    "paragraphs": [
                        {
                            "number": 1,
                            "text": "Hello [a].",
                            "anchors": [{"citation": "a", "start": 6, "end": 9}],
                        }
                    ],
                }
            ],
        },
        ("source_format", "changed"),
    ),
    "annotator": Endpoint(
        False,
        lambda w: w.annotator.annotator,
        lambda w: {"pseudonym": "New pseudo", "degree": "PhD", "expertise_fields": ["cs"]},
        ("degree", "MSc"),
    ),
    "assignment": Endpoint(
        True,
        lambda w: w.own["assignment"],
        lambda w: {
            "study": w.study.pk,
            "annotator": w.other.annotator.pk,
            "question": _q3(w).pk,
            "task": "pairwise",
        },
        ("status", "in_progress"),
    ),
    "medal-ranking": Endpoint(
        True,
        lambda w: w.own["medal-ranking"],
        lambda w: _judgment(
            w,
            reasoning="r",
            medals=[
                {"report": _q3_reports(w)[0].public_id, "medal": "gold"},
                {"report": _q3_reports(w)[1].public_id, "medal": "silver"},
            ],
        ),
        ("reasoning", "changed"),
    ),
    "pairwise-preference": Endpoint(
        True,
        lambda w: w.own["pairwise-preference"],
        lambda w: _judgment(
            w,
            left=_q3_reports(w)[0].public_id,
            right=_q3_reports(w)[1].public_id,
            choice="tie",
            reason="Same.",
        ),
        ("choice", "both_bad"),
    ),
    "human-metric-score": Endpoint(
        True,
        lambda w: w.own["human-metric-score"],
        lambda w: _judgment(w, report=_q3_reports(w)[0].public_id, metric="overall", value=0.3),
        ("value", 0.9),
    ),
    "judge": Endpoint(
        False,
        lambda w: w.judge,
        lambda w: {"name": "judge-new", "model": "m2", "parameters": {"temperature": 0}},
        ("provider", "someone"),
    ),
    "judge-score": Endpoint(
        False,
        lambda w: JudgeScore.objects.filter(report=w.own["report"]).first(),
        lambda w: {
            "judge": w.judge.pk,
            "report": _q3_reports(w)[0].public_id,
            "metric": "answer_relevance",
            "value": 1.0,
        },
        ("value", 0.1),
    ),
}


def _webhook(w):
    from annotation.models import Webhook

    hook, _ = Webhook.objects.get_or_create(
        study=w.study,
        url="https://93.184.216.34/hook",
        defaults={"events": ["assignment.submitted"]},
    )
    return hook


ENDPOINTS["webhook"] = Endpoint(
    False,
    _webhook,
    # a literal public address: no name to resolve (the machine has no DNS for the world)
    lambda w: {"study": w.study.pk, "url": "https://93.184.216.35/new",
               "events": ["judge_run.finished"]},
    ("active", False),
    admin_only=True,
)  # fmt: skip

#: Judgment kinds the API reads only (written on the task pages): basename -> changed field.
READ_ONLY_KINDS = {
    "paragraph-relevance": ("label", "O"),
    "claim-assessment": ("notes", "changed"),
    "report-rating": ("value", 1),
    "query-quality": ("comment", "changed"),
    "rubric-item-quality": ("confidence", 1),
    "rubric-coverage": ("label", 0),
    "rubric-comparison": ("reasoning", "changed"),
    "claim-check": ("skipped", True),
    "relevance-adjudication": ("reason", "changed"),
    "deepscholar-label": ("label", "lose"),
    "expertise-rating": ("level", "outside"),
}
for _kind, _change in READ_ONLY_KINDS.items():
    ENDPOINTS[_kind] = Endpoint(
        True,
        lambda w, kind=_kind: w.own[kind],
        lambda w: _judgment(w),
        _change,
        read_only=True,
    )

ROLES = ("anonymous", "annotator", "other_annotator", "researcher", "outside_researcher", "admin")
OPERATIONS = ("list", "retrieve", "create", "update", "partial_update", "delete")
DENIED_ANONYMOUS = {401, 403}
#: Deletes an admin's plain DELETE may not do (issue 12): expert work hangs off these objects
#: (409, nothing deleted by a cascade), and a study needs ``?confirm=<its name>`` (400).
#: The world holds a judgment of every kind, so the assignment, the rubric and the judge
#: (whose disagreements an expert adjudicated) carry expert work too.
ADMIN_DELETE_REFUSED = {
    "question": 409, "report": 409, "system": 409, "study": 400,
    "assignment": 409, "rubric": 409, "judge": 409,
}  # fmt: skip
#: Changes an admin's PATCH of the world's own object may not make: the world's rubric has
#: expert labels, so its kind may not change (annotation.units.refused_changes; 400,
#: nothing written). PUT is tried on a rubric the test creates, with no labels: allowed.
ADMIN_PATCH_REFUSED = {"rubric": 400}
#: Deleting these deactivates them instead (204, the object stays).
DEACTIVATED = {"annotator"}


def viewset_of(basename: str):
    return next(v for _, v, b in router.registry if b == basename)


def detail_url(basename: str, obj) -> str:
    lookup = viewset_of(basename).lookup_field
    value = getattr(obj, "pk" if lookup == "pk" else lookup)
    return reverse(f"{basename}-detail", kwargs={lookup: value})


def expected_status(role: str, op: str, ep: Endpoint) -> set[int]:
    if role == "anonymous":
        return DENIED_ANONYMOUS
    reading = op in ("list", "retrieve")
    if ep.admin_only and role != "admin":
        return {403}
    if role == "admin":
        if ep.read_only and not reading:
            return {405}
        if op == "delete" and ep_basename(ep) in ADMIN_DELETE_REFUSED:
            return {ADMIN_DELETE_REFUSED[ep_basename(ep)]}
        if op == "partial_update" and ep_basename(ep) in ADMIN_PATCH_REFUSED:
            return {ADMIN_PATCH_REFUSED[ep_basename(ep)]}
        return {{"create": 201, "delete": 204}.get(op, 200)}
    if role == "researcher":
        return {200} if reading else {403}
    if role == "outside_researcher":  # a researcher not added to the world's study
        if not reading:
            return {403}
        study_data = viewset_of(ep_basename(ep)).study_lookup is not None
        return {404} if op == "retrieve" and study_data else {200}
    # annotators
    if not ep.annotator_reads or not reading:
        return {403}
    if role == "other_annotator" and op == "retrieve":
        return {404}  # A's object does not exist for B
    return {200}


@pytest.fixture(scope="module")
def shared(django_db_setup, django_db_blocker):
    """The users and the world, built once for the module's ~800 tests instead of once per
    test (a quarter of a second a test, the most expensive module of the suite, issue 14;
    tests/module_data.py); :func:`world` reloads the objects a test may have changed in
    memory."""

    def build():
        users = {
            "anonymous": None,
            "annotator": make_user("annotator_t", "annotator", annotator=True),
            "other_annotator": make_user("annotator_other", "annotator", annotator=True),
            "researcher": make_user("researcher_t", "researcher"),
            "outside_researcher": make_user("outside_researcher_t", "researcher"),
            "admin": make_user("admin_t", "admin"),
        }
        w = f.build_world(users["annotator"], users["other_annotator"])
        w.own.update(f.other_kinds(w.own["assignment"]))
        w.others.update(f.other_kinds(w.others["assignment"]))
        # A task that shows rubrics (rubric item quality, no reports) on each annotator's question: the API
        # gives an annotator only the rubrics their tasks show (RUBRIC_TASKS), and the world's
        # medal ranking shows none.
        for owner, target in ((users["annotator"], w.own), (users["other_annotator"], w.others)):
            f.assignment(owner.annotator, target["question"], task="rubric_item_quality", order=[])
        # The researcher reads the world's study; the outside researcher was not added.
        w.study.researchers.add(users["researcher"])
        return w, users

    yield from module_data(django_db_blocker, build)


def _instances(world) -> list[models.Model]:
    found = [world.study, world.judge, world.annotator, world.other, *world.systems]
    found += [*world.questions, *world.own.values(), *world.others.values()]
    return [o for o in found if isinstance(o, models.Model)]


@pytest.fixture
def world(shared, db):
    """The shared world, each object as the database has it (an earlier test may have
    refreshed one inside its savepoint, or cached a related object that it changed)."""
    w, users = shared
    for obj in [*_instances(w), *(u for u in users.values() if u is not None)]:
        obj._state.fields_cache.clear()
        obj.refresh_from_db()
    return w


@pytest.fixture
def users(world, shared):
    return shared[1]


@pytest.fixture
def annotator_user(users):
    return users["annotator"]


@pytest.fixture
def other_annotator_user(users):
    return users["other_annotator"]


@pytest.fixture
def researcher_user(users):
    return users["researcher"]


@pytest.fixture
def admin_user(users):
    return users["admin"]


def ep_basename(ep: Endpoint) -> str:
    return next(b for b, e in ENDPOINTS.items() if e is ep)


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def test_every_endpoint_has_a_rule():
    registered = {basename for _, _, basename in router.registry}
    assert registered == set(ENDPOINTS), "add a row to ENDPOINTS for every registered viewset"


@pytest.mark.django_db
@pytest.mark.backend_independent(
    "the policy (which role gets which status) is Python over the scoping querysets, which "
    "the SQLite pass runs for every list and both roles (test_api_queries, "
    "test_visible_reports, the tests below)"
)
@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("basename", sorted(ENDPOINTS))
def test_rule(basename, role, op, world, users):
    ep = ENDPOINTS[basename]
    obj = ep.obj(world)
    model = type(obj)
    client = client_for(users[role])
    list_url = reverse(f"{basename}-list")
    url = detail_url(basename, obj)
    field, value = ep.change
    before = model.objects.count()

    if op == "update" and ep.read_only:
        response = client.put(url, {field: value}, format="json")
    elif op == "list":
        response = client.get(list_url)
    elif op == "retrieve":
        response = client.get(url)
    elif op == "create":
        response = client.post(list_url, ep.create(world), format="json")
    elif op == "update":
        if role == "admin":  # a full PUT of a valid object, then the change
            created = client.post(list_url, ep.create(world), format="json")
            assert created.status_code == 201, created.content
            lookup = viewset_of(basename).lookup_field
            url = reverse(
                f"{basename}-detail",
                kwargs={lookup: created.data["id" if lookup == "pk" else lookup]},
            )
            payload = {**ep.create(world), field: value} if basename != "report" else None
            if payload is None:  # a report's question must stay unique per system
                payload = {**ep.create(world), field: value, "question": created.data["question"]}
        else:
            payload = {**ep.create(world), field: value}
        response = client.put(url, payload, format="json")
    elif op == "partial_update":
        response = client.patch(url, {field: value}, format="json")
    else:
        response = client.delete(url)

    assert response.status_code in expected_status(role, op, ep), (
        f"{role} {op} {basename}: {response.status_code} {response.content[:300]!r}"
    )
    # What a refused request must not have done, and what an allowed one must have.
    if response.status_code >= 400:
        assert model.objects.count() == before
        obj.refresh_from_db()
        assert getattr(obj, field) != value
    elif op == "create":
        assert model.objects.count() == before + 1
    elif op in ("update", "partial_update"):
        assert response.data[field] == value
    elif op == "delete" and basename in DEACTIVATED:
        obj.refresh_from_db()
        assert obj.user.is_active is False
    elif op == "delete":
        assert not model.objects.filter(pk=obj.pk).exists()
    elif op == "list" and role in ("researcher", "outside_researcher"):
        listed = response.json()["results"]
        key = "public_id" if viewset_of(basename).lookup_field == "public_id" else "id"
        ids = {row[key] for row in listed}
        shown = getattr(obj, "pk" if key == "id" else key) in ids
        study_data = viewset_of(basename).study_lookup is not None
        assert shown is (role == "researcher" or not study_data)
    elif op == "list" and role in ("annotator", "other_annotator"):
        listed = response.json()["results"]
        key = "public_id" if viewset_of(basename).lookup_field == "public_id" else "id"
        ids = {row[key] for row in listed}
        own_key = getattr(obj, "pk" if key == "id" else key)
        # A sees their object in the list; B does not.
        assert (own_key in ids) is (role == "annotator")
        assert listed, "each annotator has objects of their own in the world"


@pytest.mark.django_db
@pytest.mark.parametrize("basename", sorted(b for b, e in ENDPOINTS.items() if e.annotator_reads))
def test_annotator_gets_404_for_anothers_object(basename, world, annotator_user):
    """A asking for B's object by its id: 404, and so for the other direction above."""
    client = client_for(annotator_user)
    response = client.get(detail_url(basename, world.others[basename]))
    assert response.status_code == 404


@pytest.mark.django_db
def test_annotator_cannot_see_unassigned_question_reports_or_rubrics(world, annotator_user):
    client = client_for(annotator_user)
    unassigned = world.questions[2]
    assert client.get(reverse("question-detail", args=[unassigned.pk])).status_code == 404
    for r in unassigned.reports.all():
        assert client.get(detail_url("report", r)).status_code == 404
    for r in unassigned.rubrics.all():
        assert client.get(detail_url("rubric", r)).status_code == 404


@pytest.mark.django_db
def test_annotator_sees_only_the_reports_of_their_report_order(world, annotator_user):
    """A pairwise assignment listing two of three reports shows exactly those two."""
    a = world.own["assignment"]
    shown, hidden = (
        list(a.question.reports.order_by("id"))[:2],
        a.question.reports.order_by("id")[2],
    )
    a.report_order = [r.pk for r in shown]
    a.save()
    client = client_for(annotator_user)
    listed = {r["public_id"] for r in client.get(reverse("report-list")).json()["results"]}
    assert listed == {r.public_id for r in shown}
    assert client.get(detail_url("report", hidden)).status_code == 404


@pytest.mark.django_db
def test_annotator_without_profile_is_refused(world):
    """In the annotator group but with no Annotator profile: no scope, so nothing."""
    from tests.builders.users import make_user

    user = make_user("no_profile", "annotator")
    client = client_for(user)
    for basename, ep in ENDPOINTS.items():
        assert client.get(reverse(f"{basename}-list")).status_code == 403, basename
        assert client.get(detail_url(basename, ep.obj(world))).status_code == 403, basename


@pytest.mark.django_db
def test_user_without_role_is_refused(world):
    from tests.builders.users import make_user

    client = client_for(make_user("nobody", None))
    for basename, ep in ENDPOINTS.items():
        assert client.get(reverse(f"{basename}-list")).status_code == 403, basename
        assert client.get(detail_url(basename, ep.obj(world))).status_code == 403, basename


@pytest.mark.django_db
def test_api_root_requires_login(annotator_user):
    assert APIClient().get("/api/").status_code in DENIED_ANONYMOUS
    assert client_for(annotator_user).get("/api/").status_code == 200


@pytest.mark.django_db
def test_annotator_filters_cannot_single_out_a_system(world, annotator_user):
    """``?system=`` would tell which report a system wrote: refused for annotators (403
    naming the filter, the same answer for every system, so it tells nothing); it was
    silently ignored before, which read as a filter applied."""
    client = client_for(annotator_user)
    answers = set()
    for s in world.systems:
        refused = client.get(reverse("report-list"), {"system": s.pk})
        assert refused.status_code == 403
        assert "system" in refused.content.decode()
        answers.add(refused.content)
    assert len(answers) == 1
    assert client.get(reverse("report-list")).status_code == 200


@pytest.mark.django_db
def test_researcher_filters(world, researcher_user):
    world.study.researchers.add(researcher_user)
    client = client_for(researcher_user)
    s = world.systems[0]
    rows = client.get(reverse("report-list"), {"system": s.pk}).json()["results"]
    assert rows and {r["system_name"] for r in rows} == {s.name}
    assert client.get(reverse("report-list"), {"system": "x"}).status_code == 400
