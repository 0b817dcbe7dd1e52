"""The contract every task type implements (see ``registry`` for how to add one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..quality.labels import LabelSpec
from .form import Form

if TYPE_CHECKING:
    from django.http import QueryDict

    from .page import TaskPage


@dataclass(frozen=True)
class Needs:
    """What one question must have for a task's page to be completable: how many reports it
    shows (0: the task is about the question, not its reports), rubrics with items, claims.
    ``compares`` is how many of its reports one assignment shows when the admin does not say
    (None: every report). The planner (``studio.studyadmin.planning``) and readiness
    (``annotation.readiness``) read it from here, so a new task type cannot be left out."""

    reports: int = 0
    rubrics: int = 0
    claims: bool = False
    compares: int | None = None
    #: DeepScholar units of the question: its nuggets, its exemplar (the human-written
    #: related work), its exemplar's references.
    nuggets: bool = False
    exemplar: bool = False
    references: bool = False
    #: Each report shown holds the study's ``claims_min`` claims, and a claim ends in a
    #: citation (metric-wise, the ScholarQA-CS2 guidelines): a report with fewer
    #: paragraphs that cite is not shown (its submit could never pass the claims count).
    cited_claims: bool = False

    @property
    def units(self) -> bool:
        """Whether the question's DeepScholar units must be counted."""
        return self.nuggets or self.exemplar or self.references


def spoken_list(items) -> str:
    """ "a", "a and b", "a, b and c"."""
    items = list(items)
    return (
        ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + (items[-1] if items else "")
    )


@dataclass(frozen=True)
class Unstored:
    """What submitted work lacks because it was stored without it (the demo and an import
    may store only some parts of a task's answers: metric-wise scores without the labels
    they were computed from). The page shows those parts unanswered, never a default
    standing for an answer, and says so up front; once reopened, it says what the
    annotator gives before they can submit again (``to_give``), not at the submit."""

    #: The parts not stored ("per-paragraph relevance labels", "ratings", …).
    parts: tuple[str, ...]
    #: What the annotator gives to submit it again (read from the current answers).
    to_give: tuple[str, ...] = ()
    #: Only scores were stored (metric-wise's from an import or the demo).
    scores_only: bool = False

    @property
    def parts_text(self) -> str:
        """ "its ratings and claims are not stored", "its medal ranking is not stored"."""
        plural = len(self.parts) > 1 or self.parts[0].endswith("s")
        return f"its {spoken_list(self.parts)} {'are' if plural else 'is'} not stored"


@dataclass
class Problems:
    """Errors refuse a save; warnings are shown but a draft is still kept."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def extend(self, other: Problems) -> None:
        self.errors.extend(other.errors)
        self.warnings.extend(other.warnings)


class TaskSpec:
    """One task type: its key, its :class:`~annotation.annotate.form.Form` (the posted fields,
    their units, choices and defaults), its own rules and how a submit is saved.

    ``check(final=False)`` (autosave) refuses only what no honest form can produce (values
    outside the label set, reports not in the assignment: ``form.problems``); rules an
    annotator may break on the way (a missing required field, a missing reason, a three-way
    tie: ``form.required_problems`` and :meth:`rules`) come back as warnings.
    ``check(final=True)`` (submit) refuses all of them.

    The page's template is ``annotation/annotate/<key>.html`` and its guidelines
    ``annotation/annotate/guidelines/<key>.html``.
    """

    key: str = ""
    form: Form = Form(title="", fields=())
    #: What one question needs for this page (reports shown, rubrics, claims).
    needs: Needs = Needs()
    #: How quality control reads this task's judgments (units, labels; or why it has no
    #: single label): required, the registry refuses a task type without it.
    qc: LabelSpec | None = None
    #: Whether a submit writes the annotator's medal ranking of the question. There is one
    #: ranking per annotator, question and setting (``MedalRanking.one_ranking``), so two
    #: such tasks on one question and setting would overwrite each other: the planner never
    #: gives both, and a submit refuses to replace another assignment's ranking (issue 26).
    ranks: bool = False

    @property
    def template(self) -> str:
        return f"annotation/annotate/{self.key}.html"

    def initial(self, page: TaskPage) -> dict[str, Any]:
        return self.form.empty()

    def parse(self, data: QueryDict, page: TaskPage) -> dict[str, Any]:
        return self.form.parse(data)

    def choices_context(self, page: TaskPage):
        """What a field's page-dependent choices are computed from (the page by default)."""
        return page

    def check(self, payload: dict[str, Any], page: TaskPage, *, final: bool) -> Problems:
        resolve = self.form.resolver(page)
        hard = self.form.problems(payload, resolve, self.choices_context(page))
        if hard:
            return Problems(errors=hard)
        rules = Problems(errors=self.form.required_problems(payload, resolve))
        rules.extend(self.rules(payload, page, resolve))
        return demote(rules, final)

    def rules(self, payload: dict[str, Any], page: TaskPage, resolve) -> Problems:
        """The task's own rules beyond its fields' declarations (errors; demoted in drafts)."""
        return Problems()

    def persist(self, payload: dict[str, Any], page: TaskPage) -> None:
        raise NotImplementedError

    def stored_answers(self, page: TaskPage) -> dict[str, Any] | None:
        """The form's answers as the judgment rows stored for this assignment hold them (the
        inverse of :meth:`persist`), or None when none are stored (or this task type has no
        reader: question authoring, whose answers only its page writes; ``registry`` says
        why). A reader reads the units the page builds anyway and asks one query.

        Judgments reach the database without a draft too: the demo, the judgment imports
        and a release import write the rows and mark assignments submitted. The page reads
        them here (``drafts.answers_of``), so the rows stay the one source of truth and no
        writer needs to know the form's payload (``drafts`` says why)."""
        return None

    def unstored(self, stored: dict[str, Any], current: dict[str, Any], page: TaskPage):
        """What the submitted answers ``stored`` (the version shown read-only, or the one
        reopened) lack because they were stored without it, with what ``current`` (the
        answers the page holds now) still needs to be submitted: an :class:`Unstored`, or
        None when nothing is missing. None by default: a task's stored rows are its whole
        answer (each reader reads them all back)."""
        return None

    def context(self, payload: dict[str, Any], page: TaskPage) -> dict[str, Any]:
        return {}

    @property
    def shows_reports(self) -> bool:
        """Whether an assignment of this task carries reports (``Assignment.report_order``)."""
        return self.needs.reports > 0


def demote(problems: Problems, final: bool) -> Problems:
    """For drafts, rule violations become warnings."""
    if final:
        return problems
    return Problems(errors=[], warnings=problems.errors + problems.warnings)


def item_numbers(positions) -> dict[str, int]:
    """Rubric items as the annotator sees them: numbered 1, 2, 3… in position order.

    Stored positions need not start at 0 (imports keep the source's numbering, often from 1),
    so a number is the item's rank, never ``position + 1`` — the same numbers the rubric
    comparison page shows."""
    return {str(p): n for n, p in enumerate(sorted(positions, key=int), start=1)}


def reports_of(page: TaskPage, enclosing=None) -> dict[str, str]:
    """The report unit: the assignment's reports by public id, shown as "Report A"."""
    return {r.public_id: r.label for r in page.reports}


def rubric_items_of(page: TaskPage, enclosing=None) -> dict[str, int]:
    """The rubric item unit: positions of the task's rubric, shown by their number."""
    return item_numbers(str(item.position) for item in page.rubric_items)
