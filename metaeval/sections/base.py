"""The pieces of the report-section framework: :class:`Section`, :class:`FigureSpec`, the
registry, and :class:`Analysis`, the one selection every section reads (package doc)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

Tables = dict[str, tuple[list[dict], list[str]]]

logger = logging.getLogger(__name__)


def no_tables(result, entry) -> Tables:
    return {}


def no_context(result, entry) -> dict:
    return {}


def without_comparisons(result, entry) -> str | None:
    """Why a section over the agreement report's comparisons (medal rankings and
    metric-wise scores, METHODS §5) is left out: the selection has none of them, or it
    keeps fewer than two systems (``systems``, or what ``exclude_systems`` leaves), so
    there is no pair of reports to compare."""
    from ..reports import fewer_than_two_systems, n_judged

    selection = (entry.get("report") or {}).get("selection") or {}
    if n_judged(selection):  # an empty expert-agreed subset: shown, its figures null
        return None
    fewer = fewer_than_two_systems(selection)
    if fewer:
        return f"{fewer}."
    return (
        "this selection has no medal ranking or metric-wise score, the comparisons "
        "these sections analyse (METHODS §5)."
    )


#: Why a section over the judge's scores is left out when the selection has none
#: (a study with expert judgments and no judge yet).
NO_JUDGE_SCORES = (
    "no judge has scores in this selection, which these sections compare with the human "
    "decisions: import them (judge_scores) or run a judge."
)


#: Where the page compares a pairwise judge's preferences with the experts' (the judge
#: card's title, declared here so that the reason below names it as the page does).
PAIRWISE_SECTION = "Judges: the judge card (bias, consistency, operations)"


def pairwise_only(judge: str) -> str:
    """Why a section over per-report judge scores is left out when the selection's judge
    gives pairwise preferences only (a tester read "no judge has scores … run a judge"
    beside a judge with every pairwise verdict parsed)."""
    return (
        f"{judge} gives pairwise preferences, not the per-report scores these sections "
        "compare with the human decisions; its agreement with the experts' preferences is "
        f"in the section {PAIRWISE_SECTION!r}."
    )


def no_scores_reason(study_id: int, judge: str | None) -> str:
    """Why the selection has no judge score to compare: the judge gives pairwise
    preferences only (:func:`pairwise_only`), else :data:`NO_JUDGE_SCORES`. One
    ``EXISTS`` query, made only when the selection has no score."""
    if judge:
        from judges.models import JudgePairwise

        if JudgePairwise.objects.filter(judge__name=judge,
                                        left__question__study_id=study_id).exists():  # fmt: skip
            return pairwise_only(judge)
    return NO_JUDGE_SCORES


def _scores_reason(entry) -> str:
    """The agreement section's reason for a selection without judge scores (computed with
    the entry: :func:`metaeval.sections.agreement`), :data:`NO_JUDGE_SCORES` otherwise."""
    agreement = (entry.get("results") or {}).get("agreement") or {}
    return agreement.get("no_scores") or NO_JUDGE_SCORES


def without_judge_scores(result, entry) -> str | None:
    """Why a figure section over the judge's score differences (tie calibration, decision
    counts) is left out: no comparison (:func:`without_comparisons`), or no judge metric
    to draw (it showed its heading over nothing)."""
    reason = without_comparisons(result, entry)
    if reason is None and not any((result or {}).values()):
        return _scores_reason(entry)
    return reason


def without_judged_comparisons(result, entry) -> str | None:
    """Why a section of tables over the judge's scores (human vs judge per metric, the
    system ranking) is left out: no comparison, or no comparison the judge scored (the
    tables were drawn empty, "No judgments with these scores in the selection")."""
    reason = without_comparisons(result, entry)
    if reason is not None:
        return reason
    agreement = (entry.get("results") or {}).get("agreement") or {}
    return agreement.get("no_scores")


@dataclass(frozen=True)
class FigureSpec:
    """One figure: its download name, its title, and ``draw(result, entry)`` returning the
    figure's data as a :class:`metaeval.charts.Chart` (one helper per kind:
    ``_kit.intervals_figure``, ``charts.intervals``, ``charts.build``…), or None when the
    selection has no data for it. The page draws a Chart as inline SVG
    (:mod:`metaeval.svg`, no matplotlib), the downloads with matplotlib
    (:mod:`metaeval.plots`). A ``draw`` that returns a matplotlib figure still works, but
    the page then draws through matplotlib (slow: issue 14). ``data(result, entry)``:
    everything the figure draws (default: the section's result); its SVG is cached under
    a digest of it, so a selector change that leaves a figure's data as it was does not
    draw it again."""

    name: str
    title: str
    draw: Callable[[Any, dict], Any]
    data: Callable[[Any, dict], Any] | None = None


def plotted(name: str, data: Callable[[Any], Any]) -> FigureSpec:
    """A built-in figure (:func:`metaeval.charts.build` from the entry), whose data is
    ``data(result)``."""
    from .. import charts

    return FigureSpec(name, charts.FIGURE_TITLES[name],
                      lambda result, entry: charts.build(name, entry),
                      lambda result, entry: data(result))  # fmt: skip


@dataclass(frozen=True)
class Section:
    """One analysis of the report (package doc for what each part feeds).

    ``compute(analysis)``: the data loader and the pure statistics call; returns a
    JSON-able result (None: nothing to show). ``tables(result, entry)``: name -> (rows,
    columns), each one a CSV/XLSX/JSON download. ``figures``: :class:`FigureSpec` s.
    ``template``: the page and offline-HTML fragment; it gets ``result``, ``section`` and
    what ``context(result, entry)`` returns (formatted cells). ``text(result)``: lines of
    the ``agreement`` command's plain-text output. ``in_report``: the result is already a
    part of the agreement report dict (the built-in sections); otherwise, with
    ``payload``, it is added to that dict under ``key`` (API, command JSON, report.json).
    ``serializer``: its shape for the OpenAPI schema. ``absent(result, entry)``: the one
    line the page shows instead of the section when the selection has no data for it.
    """

    key: str
    title: str
    compute: Callable[[Analysis], Any]
    template: str = "metaeval/sections/generic.html"
    tables: Callable[[Any, dict], Tables] = no_tables
    figures: tuple[FigureSpec, ...] = ()
    context: Callable[[Any, dict], dict] = no_context
    text: Callable[[Any], str] | None = None
    in_report: bool = False
    payload: bool = True
    serializer: Any = None
    order: int = 100
    #: ``absent(result, entry)``: why the section is left out of the page (one line shown
    #: instead of it), or None to show it; a section whose ``compute`` gives None is left
    #: out without a line (its kind has no judgment in the study)
    absent: Callable[[Any, dict], str | None] | None = None
    #: ``unavailable(analysis)``: when ``compute`` gives None, why the study's protocol
    #: offers the section yet this selection cannot compute it (the page lists it under
    #: "Not shown" with this reason, and its downloads answer it), or None: the study's
    #: protocol does not offer it (left out without a line). A DeepScholar study whose judge
    #: had question-level labels only lost its scoreboard without a word.
    unavailable: Callable[[Analysis], str | None] | None = None
    #: the names of its tables, known without a result: a download of one while the
    #: section is not shown answers its reason instead of a bare 404
    table_names: tuple[str, ...] = ()
    #: ``reads``: the only options ``compute`` depends on (None: any). With them, the page
    #: keeps the result in the report cache per study version and these options, so a
    #: selector change that leaves them as they were does not compute it again (the
    #: scoreboard reads every judge score: 720,000 at 40,000 questions, issue 29)
    reads: tuple[str, ...] | None = None


_REGISTRY: dict[str, Section] = {}


def failure_reason(exc: BaseException) -> str:
    """What the page says of a section whose computation raised ``exc``."""
    said = str(exc).strip() or "no message"
    return (f"its computation failed on this selection ({type(exc).__name__}: {said}); the "
            "error is logged, and the other sections are not affected.")  # fmt: skip


def register(section: Section) -> Section:
    """Add ``section`` to every report (a second registration of a key replaces it)."""
    _REGISTRY[section.key] = section
    return section


def unregister(key: str) -> None:
    _REGISTRY.pop(key, None)


def registry() -> dict[str, Section]:
    return _REGISTRY


# ----------------------------------------------------------------------------- the selection


def _load_key(options) -> tuple:
    """What :func:`metaeval.reports.load_selection` reads of the options: selections that
    differ only in how figures are computed (ties, calibration, bootstrap…) share rows."""
    from ..reports import frame_signal

    return (options.settings, options.systems, options.exclude_systems, options.judge,
            options.calibrate_on, options.compat, bool(options.compat and options.expert_agreed),
            frame_signal(options))  # fmt: skip


class Analysis:
    """One study selection, loaded once: every section reads its rows, its report, its
    figure data and its per-judge reports from here, so a page computes each once.

    ``report``: the agreement report already computed (a bootstrap run's result).
    ``compute_report``: how the main report is computed (``agreement_report``; the page
    passes its own name so that tests can count the computations). ``fingerprint``: the
    study version of the page's cache entry (:class:`metaeval.cache.ReportCache`); with
    it, the rows loaded are shared with the next request of the same study version
    (:func:`metaeval.cache.shared_selection`: the htmx request after a selector change).
    """

    def __init__(self, study_id: int, options, *, report: dict | None = None,
                 compute_report: Callable | None = None,
                 fingerprint: str | None = None):  # fmt: skip
        from ..reports import agreement_report

        self.study_id = study_id
        self.options = options
        self.fingerprint = fingerprint
        self._compute_report = compute_report or agreement_report
        self._loaded: dict[tuple, tuple] = {}
        self._reports: dict = {}
        self._figures = None
        self._alignment = None
        self.results: dict[str, Any] = {}
        #: section key -> why its computation failed (:meth:`result`)
        self.failures: dict[str, str] = {}
        if report is not None:
            self._reports[options] = report

    def loaded(self, options=None) -> tuple:
        """``(frame, calibration_frame, judge)`` of ``options`` (default: the page's)."""
        from ..cache import remember_selection, shared_selection
        from ..reports import load_selection

        options = options or self.options
        key = _load_key(options)
        if key not in self._loaded:
            got = shared_selection(self.study_id, self.fingerprint, key,
                                   lambda: load_selection(self.study_id, options))  # fmt: skip
            self._loaded[key] = got
            if options.judge is None and got[2] is not None:  # the default judge, by name
                named = _load_key(replace(options, judge=got[2]))
                self._loaded[named] = got
                remember_selection(self.study_id, self.fingerprint, named, got)
        return self._loaded[key]

    def report_of(self, options=None, notes: bool = True) -> dict:
        """The agreement report of ``options`` (default: the page's), computed once.

        ``notes`` False: the caller reads the figures only (the judge table), so a report
        computed for it may lack the compat notes (:func:`metaeval.reports.build_report`);
        it is kept apart and never given to a caller that wants the notes."""
        from ..reports import agreement_report

        options = options or self.options
        if options == self.options or notes or options in self._reports:
            notes = True  # the page's own report is computed whole in any case
        key = options if notes else (options, "figures only")
        if key not in self._reports:
            compute = self._compute_report if options == self.options else agreement_report
            report = compute(self.study_id, options, loaded=self.loaded(options),
                             **({} if notes else {"notes": False}))  # fmt: skip
            self._reports[key] = report
            judge = (report.get("selection") or {}).get("judge")
            if options.judge is None and judge is not None:
                other = replace(options, judge=judge)
                self._reports.setdefault(other if notes else (other, "figures only"), report)
        return self._reports[key]

    @property
    def report(self) -> dict:
        return self.report_of(self.options)

    @property
    def figures(self) -> dict:
        """The figure data of the report (:mod:`metaeval.figures`), on the same rows."""
        if self._figures is None:
            from .. import figures

            frame = figures.analysed_frame(self.loaded()[0], self.options, self.report)
            self._figures = figures.report_figures(frame, self.report, self.options)
        return self._figures

    @property
    def alignment(self) -> dict | None:
        """Every judge against the experts (:mod:`metaeval.alignment`), its reports shared
        with the page's where the options are the same."""
        if self._alignment is None:
            from ..alignment import judge_alignment

            options = replace(self.options, judge=None, bootstrap=0)
            self._alignment = judge_alignment(self.study_id, options, report_of=self.report_of)
        return self._alignment

    def result(self, section: Section):
        """``section``'s result, computed once. A section whose computation raises has
        the result None and its reason in :attr:`failures` (the page lists it under "Not
        shown" with it): one section's error never takes the others with it. Before, a
        figure section's "score_decisions: NaN input" replaced the whole report page."""
        if section.key not in self.results:
            try:
                self.results[section.key] = self._shared_result(section)
            except Exception as exc:  # noqa: BLE001 - any error: this section only
                logger.exception("report section %r failed (study %s)", section.key,
                                 self.study_id)  # fmt: skip
                self.results[section.key] = None
                self.failures[section.key] = failure_reason(exc)
        return self.results[section.key]

    def _shared_result(self, section: Section):
        """``section.compute(self)``, from the report cache when the section declares the
        options it reads and the page gave the study version (:attr:`Section.reads`)."""
        if section.reads is None or self.fingerprint is None:
            return section.compute(self)
        from django.core.cache import cache

        from ..cache import CACHE_SECONDS, section_key

        key = section_key(self.study_id, section.key, self.options, section.reads,
                          self.fingerprint)  # fmt: skip
        got = cache.get(key)
        if got is None:
            got = (section.compute(self),)  # a tuple: a result of None is cached too
            cache.set(key, got, CACHE_SECONDS)
        return got[0]
