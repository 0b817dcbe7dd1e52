"""Every page (not the API, which ``tests/annotation/test_permissions.py`` walks, nor Django's
admin) against every role, found by walking the URL configuration.

Each named page must be in :data:`POLICY`, so a new page fails this test until someone says
who may see it. A role is either *allowed* (the page answers: 200, 302 where the page is a
redirect, 405 for a POST-only endpoint read with GET) or *refused*: anonymous users are sent
to the login page; a signed-in user without the role gets 403, or 404 where the page must
not even tell that the object exists (another annotator's task). The outside researcher has
the role but was not added to the study: every page of that study is a 404 for them. Writes to the task
endpoints by anyone but the assignment's annotator are refused and change nothing.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.apps import apps
from django.test import Client
from django.urls import get_resolver, reverse

from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user
from tests.builders.world import judgments
from tests.security.test_csrf import named_patterns

ROLES = ("anonymous", "owner", "other_annotator", "researcher", "outside_researcher", "admin")
ANY_SIGNED_IN = {"owner", "other_annotator", "researcher", "outside_researcher", "admin"}
ANNOTATORS = {"owner", "other_annotator"}
STAFF = {"researcher", "admin"}

#: page name -> (roles allowed, status for a signed-in role that is refused)
POLICY: dict[str, tuple[set[str], int]] = {
    # public: signing in and resetting a password
    "login": (set(ROLES), 403),
    "password_reset": (set(ROLES), 403),
    "password_reset_done": (set(ROLES), 403),
    "password_reset_confirm": (set(ROLES), 403),
    "password_reset_complete": (set(ROLES), 403),
    "logout": (set(ROLES), 403),  # POST only: 405 for everyone on GET
    "healthz": (set(ROLES), 403),  # load balancers: no session
    # anyone signed in
    "home": (ANY_SIGNED_IN, 403),
    "password_change": (ANY_SIGNED_IN, 403),
    "password_change_done": (ANY_SIGNED_IN, 403),
    "annotate:guidelines": (ANY_SIGNED_IN, 403),
    "account_token": (ANY_SIGNED_IN, 403),  # one's own API token
    "format_example": (ANY_SIGNED_IN, 403),  # the import formats' example files
    # annotators: the queue; one assignment's pages only for its annotator (404 for others)
    "annotate:queue": (ANNOTATORS, 404),
    "annotate:task": ({"owner"}, 404),
    "annotate:autosave": ({"owner"}, 404),
    "annotate:submit": ({"owner"}, 404),
    "task": ({"owner"}, 404),
    "annotate:flag": ({"owner"}, 404),
    "annotate:preview": ({"admin"}, 403),  # any task as its annotator sees it, read-only
    "annotate:reopen": ({"owner"}, 404),
    # an annotator's own history; anyone without an annotator profile: 404
    "my_history": (ANNOTATORS, 404),
    # one's own adjudication requests (quality control): anyone signed in sees only theirs
    # (none, said in words, without an annotator profile: an admin got a bare 404)
    "studies:my_adjudications": (ANY_SIGNED_IN, 403),
    # the study's guidelines: its annotators, its researchers, admins (404 for anyone else,
    # and for everyone while the study has no file, as here)
    "studies:guidelines_file": ({"owner", "researcher", "admin"}, 404),
    # researchers read progress, reports and judge runs
    "studies:list": (STAFF, 403),
    "studies:progress": (STAFF, 403),
    "studies:progress_csv": (STAFF, 403),
    "studies:progress_quality": (STAFF, 403),
    "studies:export_format": (STAFF, 403),  # the Download panel: researchers too, as the API
    # a study's judgments: its researchers too, blinded as in the API (issue 24)
    "studies:export_judgments": (STAFF, 403),
    "studies:export_pairwise": (STAFF, 403),
    "studies:annotator_progress": (STAFF, 403),
    "metaeval:report": (STAFF, 403),
    "metaeval:report-by-name": (STAFF, 403),  # redirects to metaeval:report
    "metaeval:run": (STAFF, 403),
    "metaeval:json": (STAFF, 403),
    "metaeval:offline": (STAFF, 403),
    "metaeval:figure": (STAFF, 403),
    "metaeval:table": (STAFF, 403),
    "metaeval:judge": (STAFF, 403),  # one judge's card
    "judge-run-list": (STAFF, 403),
    "judge-run": (STAFF, 403),
    # admins build studies
    "studies:invite": ({"admin"}, 403),
    "studies:detail": ({"admin"}, 403),
    "studies:settings": ({"admin"}, 403),
    "studies:import": ({"admin"}, 403),
    "studies:plan": ({"admin"}, 403),
    "studies:reassign": ({"admin"}, 403),
    "studies:adjudication": ({"admin"}, 403),
    "studies:quality": ({"admin"}, 403),
    "studies:quality_csv": ({"admin"}, 403),
    "studies:authoring": ({"admin"}, 403),
    "studies:question_review": ({"admin"}, 403),
    "studies:questions": ({"admin"}, 403),
    "studies:expertise": ({"admin"}, 403),
    "studies:question_fields": ({"admin"}, 403),
    "studies:questions_csv": ({"admin"}, 403),
    "studies:history": ({"admin"}, 403),
    "studies:review": ({"admin"}, 403),
    "studies:return_for_revision": ({"admin"}, 403),
    "studies:guidelines": ({"admin"}, 403),
    "judge-run-start": ({"admin"}, 403),
    "judge-scores-import": ({"admin"}, 403),
    "judge-add": ({"admin"}, 403),
}
#: GET of a POST-only endpoint answers 405 to an allowed role.
POST_ONLY = {
    "logout", "annotate:autosave", "annotate:submit", "studies:settings", "studies:import",
    "studies:reassign", "studies:adjudication", "studies:authoring", "studies:question_review",
    "annotate:flag", "annotate:reopen", "studies:question_fields", "studies:return_for_revision",
    "judge-run-start", "judge-scores-import", "judge-add",
}  # fmt: skip
#: Pages that redirect an allowed role elsewhere (the old task page, a finished reset).
REDIRECTS = {"task", "metaeval:report-by-name"}
#: Pages of one study (or one of its runs): 404 for a researcher not added to the study.
STUDY_PAGES = {
    "studies:progress", "studies:progress_csv", "studies:annotator_progress",
    "studies:progress_quality", "studies:export_format", "studies:export_judgments",
    "studies:export_pairwise", "metaeval:report", "metaeval:report-by-name", "metaeval:run", "metaeval:json", "metaeval:offline", "metaeval:figure",
    "metaeval:table", "judge-run-list", "judge-run", "studies:guidelines_file", "metaeval:judge",
}  # fmt: skip
#: Off unless a mail server is configured (concord.password_reset): 404 for everyone.
DISABLED_WITHOUT_MAIL = {"password_reset", "password_reset_done"}
#: A figure of a study without the data it draws, and a judgments download of a study
#: without judgments (README: an empty export is a 404), answer 404 after the role check.
MAY_HAVE_NO_DATA = {"metaeval:figure", "studies:guidelines_file", "studies:export_judgments"}


def is_page(name: str, url: str) -> bool:
    return not url.startswith(("/api/", "/admin/"))


@pytest.fixture
def world(db):
    from judges.models import Judge, JudgeRun
    from metaeval.models import ReportRun

    users = {
        "owner": make_user("pp_owner", "annotator", annotator=True),
        "other_annotator": make_user("pp_other", "annotator", annotator=True),
        "researcher": make_user("pp_researcher", "researcher"),
        "outside_researcher": make_user("pp_outsider", "researcher"),
        "admin": make_user("pp_admin", "admin"),
    }
    study = make_study("Permissions study")
    study.researchers.add(users["researcher"])
    question = make_question(study, n_reports=3, paragraphs=2, rubric_items=2)
    assignment = make_assignment(users["owner"].annotator, question, "medal_ranking")
    other = make_assignment(users["other_annotator"].annotator, question, "medal_ranking")
    judgments(other)  # pairwise.zip has records to write (an empty one is a 404 for all)
    judge = Judge.objects.create(name="pp-judge")
    judge_run = JudgeRun.objects.create(judge=judge, study=study, tasks=["coverage"])
    report_run = ReportRun.objects.create(study=study)
    values = {
        "pk": assignment.pk,
        "assignment_id": assignment.pk,
        "study_id": study.pk,
        "study_name": study.name,
        "question_id": question.pk,
        "annotator_id": users["owner"].annotator.pk,
        "run_id": None,  # per page below
        "fmt": "csv",
        "name": "system",
        "task": "medal_ranking",
        "kind": "questions",  # the Download panel: a writer the study has data for
        "file_format": "jsonl",
        "uidb64": "MQ",
        "token": "set-password",
    }
    runs = {"judge-run": judge_run.pk, "metaeval:run": report_run.pk}
    clients = {"anonymous": Client()}
    for role, user in users.items():
        clients[role] = Client()
        clients[role].force_login(user)
    return values, runs, clients, assignment


def pages(values, runs) -> list[tuple[str, str]]:
    out = []
    for name, params in named_patterns(get_resolver().url_patterns):
        if name.startswith("admin:"):
            continue
        kwargs = {k: values.get(k, "1") for k in params}  # API ids too; API urls are left out
        if "run_id" in kwargs:
            kwargs["run_id"] = runs.get(name, 1)
        if name == "metaeval:figure":
            kwargs["fmt"] = "svg"
        if name == "format_example":  # a file that exists
            kwargs.update(kind="questions", name="jsonl", file="questions.jsonl")
        if name == "metaeval:judge":
            kwargs["judge"] = "pp-judge"
        url = reverse(name, kwargs=kwargs)
        if is_page(name, url):
            out.append((name, url))
    return sorted(set(out))


def test_every_page_has_a_policy(world):
    values, runs, _, _ = world
    found = {name for name, _ in pages(values, runs)}
    assert len(found) > 35, found  # the walk found the pages
    assert not found - POLICY.keys(), f"pages without a policy: {sorted(found - POLICY.keys())}"
    assert not POLICY.keys() - found, f"policy for pages that are gone: {POLICY.keys() - found}"


def test_every_page_answers_every_role_as_its_policy_says(world):
    values, runs, clients, _ = world
    wrong = []
    for name, url in pages(values, runs):
        allowed, refusal = POLICY[name]
        if "researcher" in allowed and name not in STUDY_PAGES:
            allowed = allowed | {"outside_researcher"}  # the role suffices (the study list)
        for role in ROLES:
            response = clients[role].get(url)
            status = response.status_code
            if name in DISABLED_WITHOUT_MAIL:
                ok = {404}
            elif role in allowed:
                ok = {405} if name in POST_ONLY else {200}
                ok |= {302} if name in REDIRECTS else set()
                ok |= {404} if name in MAY_HAVE_NO_DATA else set()
            elif role == "anonymous":
                target = urlsplit(response.get("Location", "")).path
                ok = {302} if target == reverse("login") else set()
            elif role == "outside_researcher" and name in STUDY_PAGES:
                ok = {404}  # has the role, not the study: it does not exist for them
            else:  # a POST-only endpoint refuses a GET before looking at any object:
                ok = {refusal} | ({405} if name in POST_ONLY else set())  # tells nothing
            if status not in ok:
                wrong.append(f"{role:16} GET {url} -> {status}, expected {sorted(ok)}")
    assert not wrong, "\n".join(wrong)


def test_task_writes_by_anyone_but_its_annotator_change_nothing(world):
    values, _, clients, assignment = world
    before = {m._meta.label: m._default_manager.count() for m in apps.get_models()}
    before.pop("sessions.Session", None)
    wrong = []
    for name in ("annotate:autosave", "annotate:submit"):
        url = reverse(name, kwargs={"pk": assignment.pk})
        for role in ("other_annotator", "researcher", "admin"):
            status = clients[role].post(url, {"version": "0", "reasoning": "forged"}).status_code
            if status != 404:
                wrong.append(f"{role} POST {url} -> {status}")
        if clients["anonymous"].post(url, {"reasoning": "forged"}).status_code != 302:
            wrong.append(f"anonymous POST {url} was not sent to the login page")
    after = {m._meta.label: m._default_manager.count() for m in apps.get_models()}
    after.pop("sessions.Session", None)
    assert not wrong, "\n".join(wrong)
    assert after == before
    assignment.refresh_from_db()
    assert assignment.status == "not_started"


def test_the_main_nav_links_only_where_its_reader_may_go(world):
    """Every link of a page's main navigation opens for the role that reads the page (the
    annotator's history page linked to the study list, a 403 for annotators)."""
    import re

    values, runs, clients, _ = world
    wrong, seen = [], 0
    for name, url in pages(values, runs):
        for role in ROLES:
            if role == "anonymous" or name in POST_ONLY:
                continue
            response = clients[role].get(url)
            if response.status_code != 200 or "text/html" not in response["Content-Type"]:
                continue
            nav = re.search(r'<nav aria-label="Main">(.*?)</nav>', response.content.decode(), re.S)
            for link in re.findall(r'href="([^"]+)"', nav.group(1) if nav else ""):
                seen += 1
                status = clients[role].get(link).status_code
                if status != 200:
                    wrong.append(f"{role:16} {url}: nav link {link} -> {status}")
    assert seen > 10
    assert not wrong, "\n".join(wrong)
