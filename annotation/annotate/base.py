"""The contract every task type implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.http import QueryDict

    from .page import TaskPage


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
    """One task type. Subclasses define the payload shape, its checks and its judgments.

    ``check(final=False)`` (autosave) refuses only what no honest form can produce (values
    outside the label set, reports not in the assignment); rules an annotator may break on
    the way (a missing reason, a three-way tie) come back as warnings. ``check(final=True)``
    (submit) refuses all of them.
    """

    key: str = ""
    template: str = ""
    min_reports: int = 0
    max_reports: int | None = None

    def initial(self, page: TaskPage) -> dict[str, Any]:
        return {}

    def parse(self, data: QueryDict, page: TaskPage) -> dict[str, Any]:
        raise NotImplementedError

    def check(self, payload: dict[str, Any], page: TaskPage, *, final: bool) -> Problems:
        raise NotImplementedError

    def persist(self, payload: dict[str, Any], page: TaskPage) -> None:
        raise NotImplementedError

    def context(self, payload: dict[str, Any], page: TaskPage) -> dict[str, Any]:
        return {}

    def is_available(self, report_count: int) -> bool:
        if report_count < self.min_reports:
            return False
        return self.max_reports is None or report_count <= self.max_reports


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
