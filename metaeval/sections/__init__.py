"""The report-section framework: one declaration per analysis gives its page section, its
API and command output, its CSV/XLSX/JSON downloads and its part of the offline HTML.

How an analysis registers
-------------------------
Write one small module in this package (every module here is imported when the registry
is first read, so the module is the whole registration)::

    # metaeval/sections/leaderboard.py
    from .base import FigureSpec, Section, register


    def compute(analysis):  # the data loader + the pure statistics call
        rows = load_pairwise_verdicts(analysis.study_id, analysis.options)  # DB -> arrays
        return bradley_terry(rows)  # metaeval.stats: pure, JSON-able result


    def tables(result, entry):  # name -> (rows, columns): each a download
        return {"leaderboard": (result["systems"], ["system", "rating", "low", "high"])}


    register(Section(
        key="leaderboard",  # its key in the report dict (API, command --json, report.json)
        title="Leaderboard (ResearchQA §4.1)",
        compute=compute,
        tables=tables,
        figures=(FigureSpec("leaderboard", "Ratings", lambda result, entry: draw(result)),),
        template="metaeval/sections/leaderboard.html",  # optional: default, generic tables
        text=lambda result: "...",  # optional: lines of `manage.py agreement`'s text output
        serializer=LeaderboardAnalysisSerializer,  # optional: its OpenAPI shape
        order=60,  # position on the page
    ))

:class:`~metaeval.sections.base.Analysis` is what ``compute`` gets: the study id, the
options, and the selection loaded once (``analysis.loaded()`` — frame, calibration frame,
judge —, ``analysis.report``, ``analysis.figures``, ``analysis.alignment``,
``analysis.report_of(other_options)``), so that no section loads or computes again what
another already has.

Where each part goes: ``compute`` runs once per selection (the page's cached *entry*,
:func:`build_entry`; the API and the command through :func:`report`); its result is
``report[key]`` in the report dict unless the section is a view of that dict already
(``in_report``, the built-in sections) or page-only (``payload=False``: figure data and
the per-judge table, which the command has its own commands for). ``tables`` feed
``/reports/<id>/tables/<name>.<fmt>`` and the command's ``--xlsx``; ``figures`` feed the
page's inline SVG and ``/reports/<id>/figures/<name>.<fmt>``; ``template`` (given
``result``, ``section`` and the dict ``context(result, entry)`` returns) renders on the
page and in the offline HTML, in ``order``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import pickle
import pkgutil

from .base import Analysis, FigureSpec, Section, register, registry, unregister

__all__ = ["Analysis", "FigureSpec", "Section", "register", "unregister", "registered"]

_DISCOVERED = False

logger = logging.getLogger(__name__)


def _discover() -> None:
    """Import every module of this package once: each registers its section."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base":
            importlib.import_module(f"{__name__}.{info.name}")


def registered() -> list[Section]:
    """Every section, in page order."""
    _discover()
    return sorted(registry().values(), key=lambda s: s.order)


def figure_specs() -> dict[str, tuple[Section, FigureSpec]]:
    return {f.name: (s, f) for s in registered() for f in s.figures}


# ----------------------------------------------------------------------------- building


#: What the agreement report's own counts (``selection.n_judgments`` …) count: the
#: tester read "n_judgments: 0" in a report holding figures from 568 coverage labels.
COUNTS_COVER = (
    "n_judgments, n_questions and n_annotators count the comparisons of the agreement "
    "report (medal rankings, metric-wise scores: iaa, preference, metric_wise, system); "
    "study counts the judgments of every kind the other analyses read."
)


def with_payload(report: dict, analysis: Analysis) -> dict:
    """``report`` with the result of every section that adds a key to the report dict,
    its selection counting every judgment kind beside the comparisons
    (:data:`COUNTS_COVER`), and a note naming where the labels' IAA is when the
    comparisons have none."""
    for section in registered():
        if section.payload and not section.in_report and section.key not in report:
            result = analysis.result(section)
            failed = analysis.failures.get(section.key)
            if failed:  # null, with why (the other sections as usual)
                report[section.key] = None
                report.setdefault("notes", []).append(f"{section.title} is not shown: {failed}")
            elif _null_with_note(result):  # labels, but none this selection can compare
                report[section.key] = None
                report.setdefault("notes", []).append(result["note"])
            elif result is not None:  # None: nothing to show (no judgment of its kind)
                report[section.key] = result
    selection = report.get("selection")
    if isinstance(selection, dict) and "study" not in selection:
        counts = (analysis.result(registry()["selection"]) or {}).get("study")
        if counts is not None:
            selection["study"] = counts
            selection["counts_cover"] = COUNTS_COVER
    for note in [_label_iaa_note(report), *_label_null_notes(report)]:
        if note and note not in report.get("notes", []):
            report.setdefault("notes", []).append(note)
    return report


def _null_with_note(result) -> bool:
    """A section result that is a figure not defined in this selection (``{"kinds": [],
    "note"}``: label IAA with no unit labelled twice): null in the report, its note in the
    report's notes."""
    return isinstance(result, dict) and result.get("kinds") == [] and bool(result.get("note"))


def _label_null_notes(report: dict) -> list[str]:
    """The report's notes (the Notes section, ``notes.csv``) for the labels' null κ and α,
    one per reason naming the figures, as the agreement report's own null figures get
    (:func:`metaeval.reports.note_null_figures`): a tester's study of one category had
    them null in ``label_iaa`` and coverage's human vs human with nothing in the notes."""
    from ..reports import FIGURE_LABELS

    labels = FIGURE_LABELS | {"weighted_kappa": "weighted κ"}
    places: dict[str, list[str]] = {}
    blocks = [
        (f"label_iaa {k['kind']}", k) for k in (report.get("label_iaa") or {}).get("kinds") or ()
    ]
    hh = (report.get("coverage_alignment") or {}).get("human_vs_human")
    if hh:
        blocks.append(("coverage human vs human", hh))
    for place, block in blocks:
        if not (block.get("pairs") and block.get("note")):
            continue  # no unit labelled twice: _label_iaa_note and the block say so
        null = [labels[k] for k, v in block.items() if v is None and k in labels]
        if null:
            places.setdefault(block["note"], []).append(f"{place} {', '.join(null)}")
    return [f"{text.rstrip('.')} — null: {'; '.join(where)}." for text, where in places.items()]


def _label_iaa_note(report: dict) -> str | None:
    """Where the IAA is when the comparisons have none but labels were given twice."""
    if (report.get("iaa") or {}).get("n"):
        return None
    kinds = [f"{k['kind']} ({k['units']} units)"
             for k in (report.get("label_iaa") or {}).get("kinds") or () if k.get("pairs")]  # fmt: skip
    if not kinds:
        return None
    return (
        "Inter-annotator agreement of the labels given twice or more is in label_iaa: "
        f"{', '.join(kinds)}; the iaa block covers comparisons only (medal rankings, "
        "metric-wise scores)."
    )


def report(study_id: int, options, progress=None) -> dict:
    """The report dict of the API and the command: the agreement report with the
    registered sections' results (exactly the agreement report when none adds one)."""
    from ..reports import agreement_report

    base = agreement_report(study_id, options, progress)
    return with_payload(base, Analysis(study_id, options, report=base))


def build_entry(analysis: Analysis) -> dict:
    """Every section of one selection, computed once: the cached *entry* of the page,
    the downloads and the offline HTML, with every figure as inline SVG."""
    report = analysis.report  # an option the selection refuses is refused here, as before
    results = {s.key: analysis.result(s) for s in registered()}
    entry = {
        "report": with_payload(report, analysis),
        # what failed failed its sections already (Analysis.result): none stops the entry
        "figures": _or_else(lambda: analysis.figures, {}),
        "alignment": _or_else(lambda: analysis.alignment, None),
        "results": results,
        "unavailable": _unavailable(analysis, results),
        "failed": dict(analysis.failures),
    }
    entry["svgs"] = figure_svgs(entry)
    return entry


def _or_else(compute, default):
    """``compute()``, or ``default`` when it raises (logged): data several sections read,
    whose failure those sections report (:meth:`Analysis.result`)."""
    try:
        return compute()
    except Exception:  # noqa: BLE001 - its sections say it failed
        logger.exception("report data failed")
        return default


def failed(section: Section, entry: dict) -> bool:
    """Whether ``section``'s computation failed for ``entry`` (:meth:`Analysis.result`)."""
    return section.key in (entry.get("failed") or {})


def _unavailable(analysis: Analysis, results: dict) -> dict[str, str]:
    """Section key -> why the study's protocol offers it but the selection cannot compute
    it (:attr:`Section.unavailable`), for each section whose result is None."""
    out = dict(analysis.failures)  # a failed section: why, whatever its protocol offers
    for section in registered():
        if section.key in out:
            continue
        if results.get(section.key) is None and section.unavailable is not None:
            reason = section.unavailable(analysis)
            if reason:
                out[section.key] = reason
    return out


def why_not_shown(section: Section, entry: dict) -> str | None:
    """Why ``section`` is listed under "Not shown" instead of shown: its ``absent``
    reason, or (no result) its ``unavailable`` one; None: shown, or not offered at all."""
    result = section_result(entry, section)
    if result is None:
        return (entry.get("unavailable") or {}).get(section.key)
    return section.absent(result, entry) if section.absent else None


def table_not_shown(name: str, entry: dict) -> str | None:
    """Why the table ``name`` is missing from ``entry``: the reason of the section not
    shown that declares it (:attr:`Section.table_names`), or None (no section has it)."""
    for section in in_entry(entry):
        if name in section.table_names:
            reason = why_not_shown(section, entry)
            if reason:
                return f"{section.title} is not shown for this selection: {reason}"
    return None


def section_result(entry: dict, section: Section):
    results = entry.get("results") or {}
    return results.get(section.key)


def in_entry(entry: dict) -> list[Section]:
    """The registered sections ``entry`` was built with (a section registered since, in
    a test, waits for the next entry)."""
    results = entry.get("results") or {}
    return [s for s in registered() if s.key in results]


def chart(name: str, entry: dict):
    """What the figure ``name`` of an entry draws: a :class:`metaeval.charts.Chart` (or,
    from a section that draws itself, a matplotlib figure); None: no data."""
    section, spec = figure_specs()[name]
    if section not in in_entry(entry) or failed(section, entry):
        return None
    return spec.draw(section_result(entry, section), entry)


def draw(name: str, entry: dict):
    """The figure ``name`` of an entry, as a matplotlib figure (None: no data): the
    downloads."""
    from .. import plots
    from ..charts import Chart

    got = chart(name, entry)
    return plots.draw(got) if isinstance(got, Chart) else got


def _svg_key(name: str, data) -> str:
    """The figure's cache key: a digest of its name and data, pickled (a calibration curve
    has a point per candidate threshold: its JSON text took 0.25 s per figure at 40,000
    questions, issue 29); data that does not pickle is digested as JSON."""
    try:
        payload = pickle.dumps([name, data], protocol=5)
    except Exception:  # noqa: BLE001 - any unpicklable value: the JSON digest instead
        payload = json.dumps([name, data], sort_keys=True, default=str).encode()
    return f"concord:report:svg2:{hashlib.sha256(payload).hexdigest()[:32]}"


def figure_svgs(entry: dict) -> dict[str, str]:
    """Every figure of ``entry`` that has data, as inline SVG text, by name.

    A :class:`~metaeval.charts.Chart` is written as SVG directly (:mod:`metaeval.svg`,
    milliseconds, no matplotlib); a figure a section draws itself with matplotlib is
    rendered and converted (:func:`metaeval.plots.inline_svg`). Each SVG is cached under
    a digest of its name and data (:class:`FigureSpec`): the same data gives the same SVG
    (the figures are deterministic), whatever selection it belongs to."""
    from django.core.cache import cache

    from .. import svg as svg_renderer
    from ..cache import CACHE_SECONDS
    from ..charts import Chart

    out = {}
    shown = {s.key for s in in_entry(entry) if not failed(s, entry)}
    for name, (section, spec) in figure_specs().items():
        if section.key not in shown:
            continue
        result = section_result(entry, section)
        try:
            key = _svg_key(name, spec.data(result, entry) if spec.data else result)
        except Exception:  # noqa: BLE001 - one figure's error: that figure is not drawn
            logger.exception("report figure %r failed", name)
            continue
        svg = cache.get(key)
        if svg is None:
            try:
                fig = spec.draw(result, entry)
            except Exception:  # noqa: BLE001 - as above
                logger.exception("report figure %r failed", name)
                continue
            if fig is None:
                svg = ""
            elif isinstance(fig, Chart):
                svg = svg_renderer.render(fig, name=name, title=spec.title) or ""
            else:  # a matplotlib figure
                from .. import plots

                svg = plots.inline_svg(plots.render(fig, "svg"))
            cache.set(key, svg, CACHE_SECONDS)
        if svg:
            out[name] = svg
    return out


def all_tables(entry: dict) -> dict[str, tuple[list[dict], list[str]]]:
    """Every table of every section: name -> (rows, columns)."""
    out: dict = {}
    for section in in_entry(entry):
        if not failed(section, entry):  # its tables answer why (table_not_shown)
            out.update(section.tables(section_result(entry, section), entry))
    return out


def as_text(report: dict) -> str:
    """The command's plain-text output: the agreement summary, then each section's lines."""
    from .. import exports

    lines = [exports.as_text(report).rstrip("\n")]
    for section in registered():
        if section.text is not None and section.key in report and not section.in_report:
            lines.append(section.text(report[section.key]))
    return "\n".join(lines) + "\n"


def extra_tables(report: dict) -> dict[str, tuple[list[dict], list[str]]]:
    """The tables of the sections that add a key to the report dict (command ``--xlsx``)."""
    out: dict = {}
    for section in registered():
        if section.payload and not section.in_report and section.key in report:
            out.update(section.tables(report[section.key], {"report": report}))
    return out
