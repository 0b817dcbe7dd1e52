"""The reports a known answer's assignment would show, against what ordinary work of its
task on its question shows (docs/QUALITY.md, "Gold, qualification, adjudication").

A gold item is an ordinary assignment whose reports are the ones its known answer names (a
ranking shows exactly the reports it ranks; a pair or a unit in a report shows that
report). Two ways it was told apart on the released ScholarQA-CS2 data:

- a ranking of 2 reports on a question whose ordinary medal rankings show 3: the gold
  question had no ordinary assignment of the task, so nothing was compared;
- a ranking (marked from the imported deep-expert judgments) naming ``falcon``, whose
  reports there are the pairwise import's textless placeholders: "This report is empty."
  appeared on the one task of the queue that held it (ordinary work never plans a
  textless report, ``Report.objects.readable``).

:class:`ShownReports` is built once per study (three queries) and says why a known answer
would be told apart (:meth:`ShownReports.refusal`), or None. Every way a known answer is
made (entered, imported, marked from a judgment) and the release read it, and the quality
page does not offer a label it refuses.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from annotation.annotate.registry import SPECS
from annotation.models import Assignment, GoldItem, Report
from annotation.quality import catalog
from annotation.quality.labels import ranked_names

from . import planning


@dataclass
class ShownReports:
    """What ordinary work of a study shows, per question and task."""

    study: object
    #: question -> system name -> report id (every report, textless ones included)
    reports: dict[int, dict[str, int]]
    #: the reports with something to read (``Report.objects.readable``)
    readable: set[int]
    #: (task, question) -> the report order an assignment of the task there shows
    compared: dict[tuple[str, int], list[int]]
    #: task -> how many reports its ordinary assignments show, most often
    usual: dict[str, int]
    #: (task, question) -> the question's units of the task (read once per pair)
    units: dict = field(default_factory=dict)

    @classmethod
    def of(cls, study) -> ShownReports:
        every = Report.objects.filter(question__study=study)
        reports: dict[int, dict[str, int]] = defaultdict(dict)
        for rid, qid, name in every.values_list("pk", "question_id", "system__name"):
            reports[qid][name] = rid
        readable = set(every.readable().values_list("pk", flat=True))
        gold = set(GoldItem.objects.filter(study=study).values_list("task", "question_id"))
        compared: dict[tuple[str, int], list[int]] = {}
        sizes: dict[str, Counter] = defaultdict(Counter)
        rows = Assignment.objects.filter(study=study).exclude(report_order=[])
        for task, qid, order in rows.order_by("pk").values_list(
            "task", "question_id", "report_order"
        ):
            if not order:
                continue
            compared.setdefault((task, qid), list(order))
            if (task, qid) not in gold and all(r in readable for r in order):
                sizes[task][len(order)] += 1
        usual = {task: counts.most_common(1)[0][0] for task, counts in sizes.items()}
        return cls(study, dict(reports), readable, compared, usual)

    def comparison(self, task: str, qid: int) -> list[int]:
        """The reports the question's assignments of ``task`` compare, when every one of
        them has text (the planner reuses only such a set; one holding a placeholder is
        chosen afresh), else []."""
        order = self.compared.get((task, qid), [])
        return order if order and all(r in self.readable for r in order) else []

    def expected(self, task: str, question) -> tuple[int, list[str]]:
        """How many reports an ordinary assignment of ``task`` on ``question`` shows, and
        the systems of its comparison when it has one: the comparison; else as many as the
        study's ordinary assignments of the task show (the task's default when it has
        none), at most the question's reports with text."""
        compared = self.comparison(task, question.pk)
        if compared:
            names = {rid: name for name, rid in self.reports.get(question.pk, {}).items()}
            return len(compared), sorted(names[r] for r in compared if r in names)
        with_text = sum(r in self.readable for r in self.reports.get(question.pk, {}).values())
        wanted = self.usual.get(task) or SPECS[task].needs.compares or with_text
        return min(wanted, with_text), []

    def refusal(self, task: str, question, unit: str, label: str) -> str | None:
        """Why a known answer ``label`` of ``unit`` would show other reports than ordinary
        work of ``task`` on ``question`` does (a textless report; for a ranking of
        reports, another number of them), naming the question and the reports; None
        when it would look like any other assignment."""
        spec = catalog.spec(task)
        if task not in planning.REPORT_TASKS or spec is None or spec.blind_as == "Rubric":
            return None
        if (task, question.pk) not in self.units:
            self.units[task, question.pk] = spec.units(self.study, question)
        values = self.units[task, question.pk].get(unit)
        ranked = values is not None and values.ranked
        names = ranked_names(label) if ranked else spec.systems_in(unit)
        mine = self.reports.get(question.pk, {})
        empty = sorted(n for n in names if n in mine and mine[n] not in self.readable)
        if empty:
            many = len(empty) > 1
            return (
                f"the report{'s' if many else ''} of {', '.join(empty)} on question "
                f"{question.external_id} {'have' if many else 'has'} no text (a placeholder of the pairwise import "
                "or an empty released report); ordinary work never shows a textless report, "
                f"so a {task} item showing {'them' if many else 'it'} (“This report is "
                "empty”) would be told apart: choose a known answer on reports with text"
            )
        if not ranked or values.sizes is None:
            return None
        count, compared = self.expected(task, question)
        fewest, most = values.sizes  # a ranking ranks 2-3 reports whatever work shows
        count = min(max(count, fewest), most) if count else 0
        if count and len(names) != count:
            source = (
                f"the assignments of {task} on question {question.external_id} show "
                f"({', '.join(compared)})"
                if compared
                else (
                    f"an ordinary {task} assignment of this study shows (question "
                    f"{question.external_id} has no comparison of its own)"
                )
            )
            return (
                f"rank {count} reports, as {source}, not {len(names)} "
                f"({', '.join(names)}): a ranking of another number of reports would be "
                "told apart from ordinary work"
            )
        return None

    def shown_systems(self, question_id: int, order) -> set[str]:
        """The systems an assignment of ``order`` shows on the question: those of its
        order, or every report with text before one is drawn (the page draws from them:
        ``annotation.annotate.page.ensure_report_order``)."""
        names = {rid: name for name, rid in self.reports.get(question_id, {}).items()}
        if order:
            return {names[r] for r in order if r in names}
        return {name for rid, name in names.items() if rid in self.readable}

    def unscored(self, items, orders) -> list[tuple[object, list[set[str]]]]:
        """The known answers of ``items`` (one task, one question) that no assignment of
        ``orders`` (the report orders of an annotator's existing assignments of that task
        there) can answer, each with the systems those assignments show: a ranking is
        answered only by a ranking of exactly its reports
        (``annotation.quality.scoring.answers``), a unit in a report only where that
        report is shown. The release cannot give them a second assignment of the task on
        that question, so such a check is never scored for them, and is said so."""
        item = items[0]
        spec = catalog.spec(item.task)
        if item.task not in planning.REPORT_TASKS or spec is None or spec.blind_as == "Rubric":
            return []
        key = (item.task, item.question_id)
        if key not in self.units:
            self.units[key] = spec.units(self.study, item.question)
        shown = [self.shown_systems(item.question_id, order) for order in orders]
        out = []
        for i in items:
            values = self.units[key].get(i.unit)
            if values is not None and values.ranked:
                needed = set(ranked_names(i.answer))
                ok = any(s == needed for s in shown)
            else:
                needed = set(spec.systems_in(i.unit))
                ok = any(needed <= s for s in shown)
            if not ok:
                out.append((i, shown))
        return out
