"""One protocol end to end in Chromium, from an empty study (issue 26, "Done when").

A :class:`Protocol` declares what differs between benchmarks: the released files uploaded
through the study's import page (a small subset written into ``tmp_path``: same format, real
content), the task types the protocol has (each with the paper section that gives it), the
task on which the two annotators disagree, and the judge whose relevance verdicts relevance
adjudication reads. :func:`walk` then does what a team does, in the browser only:

1. the admin creates the study (no task), uploads the files, enables the protocol's tasks
   and the researcher, and assigns every task with the planner (overlap 2, the two
   annotators); question authoring and relevance adjudication are about an annotator's own
   work, so the planner refuses them and sends the admin to the study page's own forms
   (``studio.studyadmin.planning.PERSONAL_TASKS``): they are opened there; a task the
   protocol plans ``later`` (from a prerequisite task's judgments, e.g. 003 Setting 2's
   metric-wise work for the experts whose triage rated the question within or near) waits
   for step 2's prerequisite round;
2. annotator A, then annotator B, submit one judgment of each task through its page (the
   fill functions of ``test_every_task_feeds_analysis``), B answering the ``disagree`` task
   otherwise; the researcher reads the report page before, after A and after B, and each
   task's analysis table must change both times (one judgment, one change). With ``later``
   tasks this runs twice: first the prerequisites (A, then B), then the admin plans the
   later tasks with their strategy, then the other tasks (A, then B);
3. the admin sends the disagreement to adjudication on the quality page and decides it on
   the adjudication page (the admin has an annotator profile and no work on the question);
4. the researcher downloads the judgments JSONL from the progress page; the admin creates a
   new study, uploads the same content files and the JSONL through its import page, and the
   copy's judgments equal the original's (every judgment model's rows, by natural key).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.registry import SPECS
from annotation.assignment import SETTING_OF
from annotation.exporters import export_judgments
from annotation.models import AdjudicationRequest, Assignment, Study
from annotation.protection import judgment_models
from studio.studyadmin.planning import PERSONAL_TASKS
from tests.builders.users import make_user

from .helpers import upload, wait_saved
from .test_every_task_feeds_analysis import ANSWERS, REPORT_TIMEOUT, SUBMIT_TIMEOUT

#: Tasks opened from the study page rather than planned (``PERSONAL_TASKS``), in the order
#: they can be opened: authoring at once, adjudication once metric-wise work is submitted.
AUTHORING = Study.Task.QUESTION_AUTHORING
ADJUDICATION = Study.Task.RELEVANCE_ADJUDICATION


@dataclass(frozen=True, eq=False)  # one upload, hashed by identity
class Upload:
    """One file uploaded through the study's import page. ``write(tmp_path)`` writes it (a
    subset of a released file, or a folder zipped) and returns its path; ``fields`` are the
    form's other inputs (``system``, ``judge``, ``papers``: a path is a file input).
    ``write(tmp_path, study)`` runs once, when the first study is filled (a file that names
    what an earlier upload made — claims, a judge's verdicts — reads it there); the copy gets
    the same files."""

    kind: str
    format: str
    write: Callable[[Path, Study], Path]
    fields: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Protocol:
    name: str
    uploads: tuple[Upload, ...]
    #: task type -> the paper section that makes it part of the protocol
    tasks: dict[str, str]
    #: (task, how annotator B answers it: ``answer(page, assignment)``): B disagrees with A
    #: there, and the admin adjudicates that disagreement
    disagree: tuple[str, Callable]
    #: the judge whose relevance verdicts relevance adjudication reads (an upload's judge)
    judge: str = ""
    #: study settings set on the settings form (field id -> text typed, or a box ticked),
    #: e.g. fewer claims per metric-wise report than the guidelines' 3–5 (a short walk)
    settings: dict = field(default_factory=dict)
    #: how both annotators answer a task, where ``test_every_task_feeds_analysis``'s answer
    #: does not fit the protocol (``answer(page, assignment)``)
    answers: dict = field(default_factory=dict)
    #: task -> (report section, table) that reads it, where not ``ANSWERS``' (the binary
    #: coverage of ResearcherBench has its own section); a third element, a cell as read
    #: (``"kind=entailment"``), keeps only the table's rows holding it (one table of
    #: several tasks, such as DeepScholar's Table 3)
    analyses: dict = field(default_factory=dict)
    #: task -> (planner strategy, prerequisite task): planned with that strategy once both
    #: annotators have submitted the prerequisite (003 §4.2 Setting 2: metric-wise work
    #: ``("triage", "expertise_triage")`` goes to the experts whose triage rated the
    #: question within or near; the setting is the strategy's, ``SETTING_OF``)
    later: dict = field(default_factory=dict)

    def __post_init__(self):
        for task, (_strategy, first) in self.later.items():
            if task not in self.tasks or first not in self.tasks or first in self.later:
                raise ValueError(f"{self.name}: later {task!r} needs {first!r}, a task planned "
                                 "at once, and both of the protocol's tasks")  # fmt: skip


@dataclass
class People:
    admin: object
    researcher: object
    a: object
    b: object


def people(researcher) -> People:
    """The admin is an annotator too, with no work of their own: an adjudicator nobody's
    disagreement involves (``studio.studyadmin.quality.AdjudicatorRule``)."""
    return People(
        admin=make_user("walk_admin", "admin", annotator=True),
        researcher=researcher,
        a=make_user("walk_a", "annotator", annotator=True),
        b=make_user("walk_b", "annotator", annotator=True),
    )


# --- the admin's steps --------------------------------------------------------------------


def create_study(page, name: str) -> Study:
    page.goto(reverse("studies:list"))
    page.fill("#id_name", name)
    page.click("text=Create study")
    expect(page.locator("h1")).to_have_text(name)
    return Study.objects.get(name=name)


def upload_all(page, study, protocol: Protocol, files: dict[Upload, Path], tmp_path: Path):
    page.goto(reverse("studies:detail", args=[study.pk]))
    for u in protocol.uploads:
        if u not in files:
            files[u] = u.write(tmp_path, study)
        # a relative path is a second file the write put beside the first
        fields = {k: tmp_path / v if isinstance(v, Path) else v for k, v in u.fields.items()}
        upload(page, u.kind, files[u], format=u.format, **fields)


def enable(page, study, tasks, researcher, settings: dict):
    page.goto(reverse("studies:detail", args=[study.pk]))
    form = page.locator("#settings-form")
    for name, value in settings.items():
        if isinstance(value, bool):
            form.locator(f"#id_{name}").set_checked(value)
        else:
            form.locator(f"#id_{name}").fill(value)
    for box in form.locator("input[name=tasks]").all():
        box.set_checked(box.get_attribute("value") in tasks)
    form.locator(f"input[name=researchers][value='{researcher.pk}']").check()
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("settings saved")


def plan(page, study, task: str, pool, strategy: str = "random") -> None:
    page.goto(reverse("studies:plan", args=[study.pk]))
    page.locator("#id_task").select_option(task)
    page.locator(f"input[name=strategy][value={strategy}]").check()
    page.fill("#id_overlap", "2")
    page.locator("#id_annotators").select_option(label=[u.annotator.pseudonym for u in pool])
    page.click("text=Preview plan")
    expect(page.locator("#left-out")).to_have_count(0)
    page.click("text=Commit this plan")
    expect(page.locator(".messages")).to_contain_text("2 assignments created")


def open_authoring(page, study, pool) -> None:
    page.goto(reverse("studies:detail", args=[study.pk]))
    form = page.locator("#authoring-form")
    for user in pool:
        form.get_by_label(user.annotator.pseudonym, exact=True).check()
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Question authoring opened for 2")


def open_adjudication(page, study, judge: str) -> None:
    page.goto(reverse("studies:detail", args=[study.pk]))
    form = page.locator("#adjudication-form")
    form.locator("#id_judge").select_option(label=judge)
    form.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("1 relevance adjudication assignments")


def adjudicate(page, study, task: str, me: str) -> None:
    """The admin (annotator ``me``) sends the one disagreement of ``task`` to themselves
    and decides it."""
    page.goto(reverse("studies:quality", args=[study.pk]))
    row = page.locator(f"#disagreements tbody tr[data-unit^='{task}|']").first
    row.get_by_label("adjudicators").select_option(label=me)
    row.get_by_role("button", name="Send to adjudication").click()
    expect(page.get_by_text("Sent to 1 adjudicator(s).")).to_be_visible()
    page.goto(reverse("studies:my_adjudications"))
    section = page.locator("section.adjudication").first
    section.locator("input[type=radio]").first.check()
    section.get_by_label("Reason").fill("The first label fits the guidelines.")
    section.get_by_role("button", name="Save adjudication").click()
    expect(page.get_by_text("Adjudication saved.")).to_be_visible()
    request = AdjudicationRequest.objects.get(study=study)
    assert request.task == task and request.label, request


# --- the annotators' steps ----------------------------------------------------------------


def submit(page, assignment: Assignment, answer: Callable, shot) -> None:
    page.goto(reverse("annotate:task", args=[assignment.pk]))
    try:
        answer(page, assignment)
    except Exception:
        shot(page, f"unanswered-{assignment.task}")
        raise
    wait_saved(page)
    page.get_by_role("button", name="Submit").click()
    try:
        expect(page.get_by_text("Submitted. Thank you!")).to_be_visible(timeout=SUBMIT_TIMEOUT)
    except AssertionError:
        shot(page, f"refused-{assignment.task}")
        status = page.locator("#save-status").inner_text()
        raise AssertionError(f"{assignment.task}: not submitted: {status}") from None


def one_of_each(context, user, study, tasks, answers: dict[str, Callable], shot) -> None:
    """``user`` submits one judgment of each of ``tasks`` (their first assignment of it)."""
    page = context.new_page()
    for task in tasks:
        assignment = (
            Assignment.objects.filter(study=study, annotator=user.annotator, task=task)
            .order_by("position", "pk")
            .first()
        )
        assert assignment is not None, f"{user.username} has no {task} assignment"
        submit(page, assignment, answers[task], shot)
    page.close()


# --- the researcher's steps ---------------------------------------------------------------

READ_TABLES = """(wanted) => wanted.map(([section, table]) => {
  const t = document.querySelector(`#section-${section} table#table-${table}`);
  if (!t) return null;
  return [...t.querySelectorAll("tbody tr")].map(tr => [...tr.children].map(c =>
    c.dataset.key ? `${c.dataset.key}=${c.dataset.value}` : c.textContent.trim()));
})"""


def analyses(page, study, tasks, protocol: Protocol) -> dict[str, object]:
    """Each task's analysis table (``ANSWERS``' section and table, or the protocol's) as
    the report page shows it, read in one load of the page."""
    wanted = [tuple(protocol.analyses.get(t) or ANSWERS[t][1:]) for t in tasks]
    page.goto(reverse("metaeval:report", args=[study.pk]), timeout=REPORT_TIMEOUT)
    tables = page.evaluate(READ_TABLES, [list(w[:2]) for w in wanted])
    return {
        t: [row for row in table if w[2] in row] if table and len(w) > 2 else table
        for t, w, table in zip(tasks, wanted, tables, strict=True)
    }


def figures(table) -> list | None:
    """A table's rows, None when it has none or only says why (one cell, no figure)."""
    if not table or all(len(row) == 1 and "=" not in row[0] for row in table):
        return None
    return table


def changed(before: dict, after: dict, who: str) -> None:
    """Each analysis shows figures after ``who``'s judgments, and they differ from before."""
    same = {t: after[t] for t in before if not figures(after[t]) or after[t] == before[t]}
    assert not same, f"{who}'s judgments left these analyses unchanged: {same}"


def download_judgments(page, study, tmp_path: Path) -> Path:
    page.goto(reverse("studies:progress", args=[study.pk]))
    with page.expect_download() as info:
        page.locator("#judgment-exports").get_by_role("link", name="JSONL").click()
    path = tmp_path / f"{study.pk}-judgments.jsonl"
    info.value.save_as(path)
    return path


# --- comparing two studies' judgments -----------------------------------------------------


STUDY_OWN = {"id", "ranking", "comparison", "report", "left_report", "right_report", "task",
             "created_at", "updated_at"}  # fmt: skip


def judgment_rows(study) -> dict[str, int]:
    """Rows per judgment model in ``study`` (every model the judgments import writes)."""
    return {
        model._meta.label: model.objects.filter(study=study).count() for model in judgment_models()
    }


def records(study) -> list[dict]:
    """The study's judgments by natural key (pseudonym, question id, system, …): each
    record of the export the import reads, read back from the database, without what is
    the study's own rather than the label: database ids (a medal's ranking, an assessment's
    comparison) and report public ids (a report is its question and system), the assignment's task (an imported judgment has no
    assignment) and the times (the copy's are those of its import)."""
    out = []
    for line in export_judgments(study, "jsonl").splitlines():
        r = json.loads(line)
        out.append({k: v for k, v in r.items() if k not in STUDY_OWN})
    return sorted(out, key=json.dumps)


# --- the walk -----------------------------------------------------------------------------


def walk(protocol: Protocol, login, researcher, shot, tmp_path: Path) -> None:
    who = people(researcher)
    files: dict[Upload, Path] = {}
    tasks = list(protocol.tasks)
    pool = (who.a, who.b)
    admin = login(who.admin).new_page()

    study = create_study(admin, f"{protocol.name} walk")
    upload_all(admin, study, protocol, files, tmp_path)
    enable(admin, study, tasks, researcher, protocol.settings)
    for task in tasks:
        if task not in PERSONAL_TASKS and task not in protocol.later:
            plan(admin, study, task, pool)
    if AUTHORING in tasks:
        open_authoring(admin, study, pool)
    shot(admin, "planned")

    report = login(researcher).new_page()
    disagree_task, b_answer = protocol.disagree
    contexts = {}

    def judge_round(round_tasks: list[str]) -> None:
        """A, then B, submit one judgment of each of ``round_tasks``; each task's analysis
        changes after each of them."""
        seen = analyses(report, study, round_tasks, protocol)
        for user, answers in ((who.a, {}), (who.b, {disagree_task: b_answer})):
            context = contexts.setdefault(user.pk, login(user))
            fills = {**_fills(), **protocol.answers, **answers}
            one_of_each(context, user, study, [t for t in round_tasks if t != ADJUDICATION],
                        fills, shot)  # fmt: skip
            if ADJUDICATION in round_tasks:
                open_adjudication(admin, study, protocol.judge)
                one_of_each(context, user, study, [ADJUDICATION], _fills(), shot)
            now = analyses(report, study, round_tasks, protocol)
            changed(seen, now, user.username)
            seen = now

    first = [t for t in tasks if t in {f for _s, f in protocol.later.values()}]
    if first:
        judge_round(first)
        for task, (strategy, _first) in protocol.later.items():
            plan(admin, study, task, pool, strategy)
            settings = set(Assignment.objects.filter(study=study, task=task)
                           .values_list("setting", flat=True))  # fmt: skip
            assert settings == {SETTING_OF[strategy]}, (task, settings)
        shot(admin, "planned-later")
    judge_round([t for t in tasks if t not in first])
    shot(report, "report")

    adjudicate(admin, study, disagree_task, who.admin.annotator.pseudonym)

    exported = download_judgments(report, study, tmp_path)
    copy = create_study(admin, f"{protocol.name} copy")
    upload_all(admin, copy, protocol, files, tmp_path)
    admin.goto(reverse("studies:detail", args=[copy.pk]))
    upload(admin, "judgments", exported)
    shot(admin, "reimported")
    rows, copied = judgment_rows(study), judgment_rows(copy)
    assert copied == rows, {k: (rows[k], copied[k]) for k in rows if rows[k] != copied[k]}
    mine, theirs = records(study), records(copy)
    assert theirs == mine, (
        [r for r in mine if r not in theirs][:3],
        [r for r in theirs if r not in mine][:3],
    )
    assert any(rows.values()), rows


def _fills() -> dict[str, Callable]:
    """Each task's answer (``test_every_task_feeds_analysis``), as ``answer(page, _)``."""
    return {
        task: (lambda page, _assignment, fill=fill: fill(page))
        for task, (fill, _, _) in ANSWERS.items()
        if task in SPECS
    }


__all__ = ["Protocol", "Upload", "walk"]
