"""The selection the report describes: judge, counts, settings, systems and options. The
counts cover every judgment kind of the study (issue 26: a ResearchQA study read "0
judgments"), with the comparisons the agreement report analyses beside them."""

from ..loaders.judged_systems import judged_systems
from ..loaders.selection import judgment_counts, settings_present
from ..reports import fewer_than_two_systems, systems_left
from .base import Section, register


def _compute(analysis) -> dict:
    selection = analysis.report.get("selection") or {}
    settings = tuple(analysis.options.settings) or None
    study = judgment_counts(analysis.study_id, settings)
    # the settings of every judgment kind in the selection, by label (not only those of the
    # comparisons the agreement report analyses: ``selection.settings_present``)
    study["settings"] = [label for _, label in settings_present(analysis.study_id, settings)]
    out = {**selection, "study": study, "judges_read": _judges_read(analysis.study_id, selection)}
    options = analysis.options
    if options.systems or options.exclude_systems:  # the line names what the options keep
        out["systems_chosen"] = systems_left(analysis.study_id, options)
    out |= _systems_judged(analysis.study_id, options, settings)
    return out


def _systems_judged(study_id: int, options, settings) -> dict:
    """The systems selected (every system when none is named: every box ticked), and those
    of them no expert judged (any judgment kind). The line listed the systems of the
    comparisons only: 5 of the 6 ticked, OpenAI silently left out (found by an admin)."""
    selected = systems_left(study_id, options)
    judged = judged_systems(study_id, settings)
    return {"systems_selected": selected,
            "systems_unjudged": [s for s in selected if s not in judged]}  # fmt: skip


def _unjudged_text(selected: list[str], missing: list[str]) -> str | None:
    """ "6 systems selected; 5 have expert judgments: OpenAI has none" (None: each has)."""
    if not missing:
        return None
    n, judged = len(selected), len(selected) - len(missing)
    said = f"{n} system{'s' if n != 1 else ''} selected; "
    if not judged:
        return said + "none has expert judgments"
    names = ", ".join(missing[:-1]) + " and " + missing[-1] if len(missing) > 1 else missing[0]
    return (said + f"{judged} {'has' if judged == 1 else 'have'} expert judgments: "
            f"{names} {'has' if len(missing) == 1 else 'have'} none")  # fmt: skip


def _judges_read(study_id: int, selection: dict) -> list[str]:
    """The judges the sections read: the report's (named, or the study's default judge),
    else (no judge has scores: a DeepScholar study) every judge with output here, which
    the label sections read and the Judge selector offers. The line said "Judge —" while
    the selector showed gpt-4.1 and the sections used it."""
    if selection.get("judge"):
        return [selection["judge"]]
    from judges.models import Judge, judged_in

    return list(Judge.objects.filter(judged_in(study_id)).order_by("name")
                .values_list("name", flat=True))  # fmt: skip


def _context(result, entry) -> dict:
    """``systems_chosen``: the systems ``systems`` / ``exclude_systems`` keep, named even
    when they have no comparison (``systems=atlas-dr`` read "systems —"); ``no_pair``: why
    the comparisons are none when fewer than two systems are kept (it read "0 judgments of
    0 questions by 0 annotators", as if the system had no judgment)."""
    result = result or {}
    selection = (entry.get("report") or {}).get("selection") or {}
    no_pair = None if selection.get("n_judgments") else fewer_than_two_systems(selection)
    selected = result.get("systems_chosen") or result.get("systems_selected")
    unjudged = _unjudged_text(selected or [], result.get("systems_unjudged") or [])
    return {"study_counts": result.get("study"), "judges_read": result.get("judges_read"),
            "systems_chosen": selected, "systems_unjudged": unjudged,
            "no_pair": no_pair}  # fmt: skip


register(Section(
    key="selection", title="Selection", template="metaeval/sections/selection.html",
    compute=_compute, context=_context,
    in_report=True, order=0,
))  # fmt: skip
