"""Shared parts of the issue-16 analysis sections (one module per analysis in this
package): whether a study has judgments of a kind (one query, so an absent kind costs a
constant), the loaders' data shared between sections of one selection, figure rows for
downloads, and the dot-and-whisker figure every analysis draws with its intervals
(:func:`intervals_figure`: its data, which both renderers draw).

Not a section: it registers nothing (the package imports it like any module)."""

from __future__ import annotations

from .. import charts

UNSET = object()


def rounds(analysis) -> int:
    """Bootstrap rounds the report asked for (0: point figures only)."""
    return int(getattr(analysis.options, "bootstrap", 0) or 0)


def settings(analysis):
    return tuple(analysis.options.settings) or None


def has(model, study_id: int, **filters) -> bool:
    """One ``EXISTS`` query: a study without judgments of a kind skips its section."""
    return model.objects.filter(study_id=study_id, **filters).exists()


def present(study_id: int, *models) -> set:
    """The models among ``models`` with a row of the study: one query of ``EXISTS``
    subqueries, however many models (a section reading many kinds pays one query)."""
    from django.db.models import Exists, OuterRef

    from annotation.models import Study

    names = {f"has_{k}": m for k, m in enumerate(models)}
    row = (Study.objects.filter(pk=study_id)
           .annotate(**{n: Exists(m.objects.filter(study_id=OuterRef("pk")))
                        for n, m in names.items()})
           .values(*names).first()) or {}  # fmt: skip
    return {m for n, m in names.items() if row.get(n)}


#: Why a section over the judges' results is not shown in a study with systems and no
#: judge result (the scoreboard, the judge card).
NO_JUDGE = "no judge has results for this study: import them or run a judge."


def without_judge(study_id: int) -> str | None:
    """:data:`NO_JUDGE` when the study has systems (its protocol ranks them) and no judge
    has output of any kind in it; None otherwise. Two ``EXISTS`` queries."""
    from annotation.models import System
    from judges.models import Judge, judged_in

    if not System.objects.filter(study_id=study_id).exists():
        return None
    return None if Judge.objects.filter(judged_in(study_id)).exists() else NO_JUDGE


def loaded(analysis, kind: str, load):
    """``load()`` once per selection (sections of one page share a loader's data)."""
    cache = analysis.__dict__.setdefault("_issue16_loaded", {})
    if kind not in cache:
        cache[kind] = load()
    return cache[kind]


def failed(analysis) -> frozenset[int]:
    """The annotators whose labels the selection's signal leaves out: those who failed
    qualification, under the majority and adjudicated signals (one query, once per
    selection); none under ``each`` or no signal (no query)."""
    if analysis.options.human_signal not in ("majority", "adjudicated"):
        return frozenset()
    from ..loaders.signal import failed_annotators

    return loaded(analysis, "failed", lambda: failed_annotators(analysis.study_id))


def cells(fig: dict | None, prefix: str = "") -> dict:
    """A figure dict (value, n, low, high, note) as table columns."""
    fig = fig or {}
    return {f"{prefix}{k}": fig.get(k) for k in ("value", "low", "high", "n", "note")}


def row_note(figures: dict[str, dict | None]) -> str | None:
    """One note for a table row of several figures: each distinct note of a figure that is
    null or has no interval, with the figures it concerns, so a CSV cell left empty (a
    field with one question has no interval) says why as report.json does."""
    said: dict[str, list[str]] = {}
    for name, fig in figures.items():
        fig = fig or {}
        if fig.get("note") and (fig.get("value") is None or fig.get("low") is None):
            said.setdefault(fig["note"], []).append(name)
    return " ".join(f"{', '.join(names)}: {text}" for text, names in said.items()) or None


FIG_COLUMNS = ["value", "low", "high", "n", "note"]


def intervals_figure(rows: list[tuple[str, dict | None]], xlabel: str, title: str = "",
                     xlim: tuple | None = (0, 1)):  # fmt: skip
    """One dot per figure with its bootstrap CI as a whisker (none drawn when the report
    has no interval); an undefined figure (``value`` null) is listed with "n/a".

    Returns the figure's data (:func:`metaeval.charts.intervals`), which the page draws
    as inline SVG (:mod:`metaeval.svg`) and the downloads with matplotlib: a section's
    ``FigureSpec.draw`` returns it as it is."""
    return charts.intervals(rows, xlabel, title, xlim)
