"""What the six DeepScholar-Bench task types share (seed 002 §8.11, Table 3).

Each DeepScholar task asks one label from a small set for each *unit* the LLM judge labels
(a report against the exemplar, a nugget, a nugget in a report, a retrieved source, an
exemplar reference, a cited paragraph with one source). A task module
(``organization``, ``nugget_importance``, ``nugget_support``, ``retrieval_relevance``,
``reference_importance``, ``entailment``) declares its label set and how its units are
found; this module builds the :class:`~annotation.annotate.form.Form` (one field
``lab.<unit>`` per unit, its choices, its required message naming the unit), saves a
submit as :class:`~annotation.models.DeepScholarLabel` rows keyed as the judge's labels
are, and lays out one card per unit with its context, walked with the keyboard (type a
label's key in a card; ``j`` / ``k`` move to the next / previous card).

Units are shown in an order drawn for each annotator and task (:func:`in_shown_order`),
never in the order a release lists them (a judge's order can give its labels away).
Units are identified in the form by ids the annotator may see (a report's public id, a
nugget's public id, a position), never by database ids or system names (blinding).
Payload: ``{"labels": {unit id: label}}``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from annotation.links import address_title, bibtex_title, shown_text, shown_title
from annotation.models import DeepScholarLabel, Exemplar, ExemplarReference

from ..quality import labels as ql
from . import qc as qch
from .base import TaskSpec
from .form import Choices, Field, Form, Unit
from .widgets import radio_group


@dataclass
class LabelUnit:
    """One unit to label: its form id, its natural key (as the judge's files name it), the
    report it belongs to (or None), its title and the context shown with it."""

    id: str
    key: str
    title: str
    report_pk: int | None = None
    text: str = ""  # the unit itself (a nugget, a claim, a source's title)
    details: list[tuple[str, str | SafeString]] = field(default_factory=list)
    url: str = ""  # shown through the link rule (the ``web_url`` filter)
    #: The title given the unit's place among the units shown with it (1-based), for a unit
    #: numbered only by its place ("Nugget 3"): numbered in the order shown
    #: (:func:`in_shown_order`), a released position would tell where the unit was released.
    numbered: Callable[[int], str] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        """Its title and text as annotators read them, whatever a task module built them
        from (a nugget, a source's or an exemplar reference's title): every address in them
        cleaned by the one rule (:func:`annotation.links.shown_text`; guarded by a cheap
        ``=`` check, so a unit without one costs nothing). Rendered HTML is already clean."""
        self.title = shown_text(self.title)
        if not isinstance(self.text, SafeString):
            self.text = shown_text(self.text)
        self.details = [
            (name, value if isinstance(value, SafeString) else shown_text(value))
            for name, value in self.details
        ]


def source_title(title: str, key: str, url: str = "") -> str:
    """A source's (or an exemplar reference's) title as a unit shows it: BibTeX's escapes
    decoded (:func:`annotation.links.bibtex_title`; the references are BibTeX), then as a
    report's citation tip does (:func:`annotation.links.shown_title`: an address cleaned, a text
    fragment's words as a quotation), else its address's host and path
    (:func:`annotation.links.address_title`: a source that is only an address, as
    Perplexity's are, is told apart from the others), else its key."""
    return shown_title(bibtex_title((title or "").strip())) or address_title(url) or key


def order_seed(assignment) -> str:
    """What one annotator's order of one task's units is drawn from: the assignment's
    annotator, study, question, task and setting — so the order is the same on every load
    (autosave, a reload, a submit) and differs between annotators."""
    a = assignment
    return f"unit-order|{a.study_id}|{a.annotator_id}|{a.question_id}|{a.task}|{a.setting}"


def in_shown_order(page, units: list[LabelUnit]) -> list[LabelUnit]:
    """The units in the order this annotator sees them: report by report as the assignment
    orders its reports (already a random order drawn for the assignment), and within a
    report (or a question) in an order drawn from :func:`order_seed` and each unit's form
    id — never the order the units were released or imported in. Released files list
    units as their judge left them (DeepScholar's nuggetizer lists its *vital* nuggets
    first), so that order would tell an annotator the judge's labels and inflate
    human–judge agreement. The order is a sort by a hash, not a draw from a generator, so
    it depends on neither the input order nor the Python version. Answers are keyed by the
    unit's id, never by its place, so the order changes no stored answer or export."""
    seed = order_seed(page.assignment)
    groups: dict[int | None, list[LabelUnit]] = {}
    for u in units:
        groups.setdefault(u.report_pk, []).append(u)

    def draw(u: LabelUnit) -> str:
        return hashlib.sha256(f"{seed}|{u.id}".encode()).hexdigest()

    out = []
    for group in groups.values():
        for n, u in enumerate(sorted(group, key=draw), start=1):
            if u.numbered is not None:
                u.title = shown_text(u.numbered(n))
            out.append(u)
    return out


def units_cached(page, build: Callable) -> list[LabelUnit]:
    """The page's units in the order shown (:func:`in_shown_order`), built once per request
    (the form resolves them several times)."""
    cached = getattr(page, "_ds_units", None)
    if cached is None:
        cached = page._ds_units = in_shown_order(page, build(page))
    return cached


def exemplar_text(page) -> str:
    found = Exemplar.objects.filter(question_id=page.assignment.question_id).first()
    return found.text if found else ""


def exemplar_html(page):
    """The exemplar as the experts read a report: its markdown rendered (headings, emphasis,
    math: inline and display, ``\\begin{equation}`` too; a LaTeX exemplar is imported as
    such, ``annotation.importers.latex_exemplar``, so it is rendered by LaTeX's rules:
    ``text_to_html(latex=True)``), and
    its references listed under it as ``[n] title`` so its ``[n]`` markers resolve."""
    from annotation.rendering import text_to_html

    text = exemplar_text(page)
    if not text:
        return ""
    refs = ExemplarReference.objects.filter(question_id=page.assignment.question_id).order_by(
        "position", "pk"
    )
    lines = [
        f"[{r.position + 1}] {source_title(r.title, r.key)}" + (f" <{r.url}>" if r.url else "")
        for r in refs
    ]
    listed = "\n\n**References**\n\n" + "  \n".join(lines) if lines else ""
    # The report renderer keeps no heading elements: a heading reads as a bold line.
    text = re.sub(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", r"**\1**", text, flags=re.M)
    # every address in it (the references' links too) cleaned as a report's (annotation.links);
    # read by LaTeX's rules: its dollars are math, a macro of the paper's own shown by name
    return text_to_html(shown_text(text + listed), latex=True)


def make_form(title: str, options, describe: str, build: Callable) -> Form:
    """The form of a label task: ``lab.<unit>`` -> ``labels.<unit>``, one of ``options``."""
    values = tuple(str(v) for v, _, _ in options)
    unit = Unit(
        "unit",
        lambda page, ids: {u.id: u.title for u in units_cached(page, build)},
        unknown=f"{title}: an answer names a unit that is not in this task.",
    )
    return Form(
        title=title,
        fields=(
            Field(
                "lab.<unit>",
                "labels.<unit>",
                choices=Choices(values, describe),
                invalid="{unit}: {value!r} is not " + describe + ".",
                required="{unit}: choose " + describe + ".",
            ),
        ),
        units=(unit,),
    )


qc_unit = ql.keyed_unit


class LabelTask(TaskSpec):
    """A DeepScholar label task; a module sets ``key``, ``kind``, ``options`` (value, label,
    key), ``describe``, ``build`` (page -> units) and ``form`` (:func:`make_form`)."""

    kind: str = ""
    options: tuple[tuple[str, str, str], ...] = ()
    #: Whether the options are an ordered scale (scored by exact match all the same).
    ordinal: bool = False
    intro: str = ""
    show_reports: bool = True
    show_exemplar: bool = False

    def build(self, page) -> list[LabelUnit]:
        raise NotImplementedError

    def question_keys(self, question) -> list[tuple[str, str]]:
        """(unit key as the judge's files name it, system name or "") of every unit the
        question offers, without a page (gold entered by an admin is checked against it)."""
        raise NotImplementedError

    @property
    def qc(self) -> ql.LabelSpec:
        """One label per DeepScholarLabel row: unit ``<key>@System`` (``report@System`` for
        a unit that is the report itself; ``<key>`` for a unit of the question)."""
        values = ql.Values(tuple(str(v) for v, *_ in self.options), ordinal=self.ordinal)

        def stored(study, annotator=None):
            return DeepScholarLabel.objects.filter(
                study=study, kind=self.kind, **qch.who(annotator)
            )

        def rows(study, annotator=None):
            for r in stored(study, annotator).select_related("report__system", "assignment"):
                yield r, qc_unit(r.unit, r.report.system.name if r.report_id else ""), r.label

        def units(study, question):
            return {qc_unit(key, system): values for key, system in self.question_keys(question)}

        return ql.LabelSpec(
            unit=self.qc_unit_text,
            label=" / ".join(values.values) + (" (ordinal; exact match)" if self.ordinal else ""),
            rows=rows,
            held=qch.held(stored),
            units=units,
            notation=f"unit “{self.qc_example}”, answer {values.values[0]}",
        )

    qc_unit_text: str = ""
    qc_example: str = ""

    def units(self, page) -> list[LabelUnit]:
        return units_cached(page, self.build)

    def initial(self, page):
        return {"labels": {}}

    def persist(self, payload, page):
        a = page.assignment
        labels = payload.get("labels") or {}
        for u in self.units(page):
            DeepScholarLabel.objects.update_or_create(
                annotator=page.annotator,
                question=a.question,
                setting=a.setting,
                kind=self.kind,
                report_id=u.report_pk,
                unit=u.key,
                defaults={"study": a.study, "assignment": a, "label": labels[u.id]},
            )

    def stored_answers(self, page):
        """The annotator's stored labels of this task's units (the page's or an import's),
        matched as :meth:`persist` keys them: by the unit's report and natural key. One
        query (the units are the page's, built for its cards anyway)."""
        a = page.assignment
        ids = {(u.report_pk, u.key): u.id for u in self.units(page)}
        rows = DeepScholarLabel.objects.filter(
            annotator=page.annotator, question_id=a.question_id, setting=a.setting,
            kind=self.kind,
        ).values_list("report_id", "unit", "label")  # fmt: skip
        labels = {ids[r, key]: label for r, key, label in rows if (r, key) in ids}
        return {"labels": labels} if labels else None

    def context(self, payload, page):
        labels = payload.get("labels") or {}
        cards = [
            {
                "n": n,
                "unit": u,
                "html": radio_group(
                    f"lab.{u.id}", self.options, labels.get(u.id), f"{u.title}: your label"
                ),
            }
            for n, u in enumerate(self.units(page), start=1)
        ]
        return {
            "cards": cards,
            "intro": self.intro,
            "show_reports": self.show_reports,
            "exemplar": exemplar_html(page) if self.show_exemplar else "",
            "label_keys": [(k, label) for _, label, k in self.options],
        }
