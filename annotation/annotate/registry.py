"""The task types that have a page. A task not listed here is not linked anywhere.

Each task type is declared once, in the module named after its key
(``annotation/annotate/<key>.py``), which holds its whole declaration: the
:class:`~annotation.annotate.form.Form` (posted fields, their units, choices, defaults and
required messages), the rules beyond the fields, how a submit is saved and the page context.
It ends with ``TASK = <its TaskSpec>()``.

Adding a task type is that module, one line in ``TASK_MODULES`` below, the key in
``Study.Task`` and its templates ``templates/annotation/annotate/<key>.html`` and
``…/guidelines/<key>.html``. Its ``qc`` (:class:`annotation.quality.labels.LabelSpec`)
says what quality control reads as one label of it (gold, consensus, adjudication).
For example, a task grading each report Vital / Non-vital::

    # annotation/annotate/nugget_importance.py
    IMPORTANCE = Choices(("vital", "non_vital"), "vital or non-vital")
    FORM = Form(
        title="Importance",
        fields=(
            Field(
                "imp.<report>",
                "importance.<report>",
                choices=IMPORTANCE,
                invalid="Importance ({report}): {value!r} is not {choices}.",
                required="Importance ({report}): vital or non-vital?",
            ),
            Field("note", "note", default=""),  # optional: may be absent
        ),
        units=(Unit("report", reports_of),),
    )

    class NuggetImportanceTask(TaskSpec):
        key = "nugget_importance"
        form = FORM

        def persist(self, payload, page): ...

    TASK = NuggetImportanceTask()

The shared :class:`TaskSpec` then parses autosaves and submits with the form, refuses ids of
units not in the assignment and values outside the choices (by unit and field), and asks
for required fields on submit (warnings in a draft).

A task whose judgments can be written without its page (the judgments import, the demo, the
relevance adjudication import) also reads them back: ``stored_answers``, the inverse of
``persist``, so that work submitted elsewhere opens with its labels, read-only
(``drafts.adopt``). Every task type here has one except question authoring, which cannot
hold stored answers without a draft: its answers are the questions its submit creates,
named ``authored-<assignment>-<slot>``, and only its page's submit creates them and marks
the assignment submitted. The judgments import writes authored questions by their own ids
and never submits a question authoring assignment (``OWN_ASSIGNMENTS`` in
``annotation.importers.judgments``), and the demo has none; an assignment marked submitted
by hand has no questions of its slots, so its page shows what its draft holds.
"""

from types import ModuleType

from ..models import Study
from . import (
    claim_check,
    entailment,
    expertise_triage,
    medal_ranking,
    metric_wise,
    nugget_importance,
    nugget_support,
    organization,
    pairwise,
    query_quality,
    question_authoring,
    reference_importance,
    relevance_adjudication,
    retrieval_relevance,
    rubric_comparison,
    rubric_coverage,
    rubric_item_quality,
)
from .base import TaskSpec

TASK_MODULES: tuple[ModuleType, ...] = (
    medal_ranking,
    pairwise,
    metric_wise,
    rubric_coverage,
    query_quality,
    rubric_item_quality,
    expertise_triage,
    rubric_comparison,
    claim_check,
    relevance_adjudication,
    question_authoring,
    organization,
    nugget_importance,
    nugget_support,
    retrieval_relevance,
    reference_importance,
    entailment,
)


def registered(modules: tuple[ModuleType, ...]) -> dict[str, TaskSpec]:
    """Each module's ``TASK`` by key; a module must be named after its task's key."""
    specs: dict[str, TaskSpec] = {}
    for module in modules:
        spec = module.TASK
        name = module.__name__.rsplit(".", 1)[-1]
        if name != spec.key or spec.key in specs:
            raise ImportError(f"task module {name!r} declares task {spec.key!r}")
        if spec.qc is None:
            raise ImportError(
                f"task module {name!r} declares no quality control (TaskSpec.qc: a LabelSpec,"
                " or labels.no_label(why))"
            )
        specs[spec.key] = spec
    missing = set(Study.Task.values) - set(specs)
    if modules is TASK_MODULES and missing:
        raise ImportError(f"task types without a module in TASK_MODULES: {sorted(missing)}")
    return specs


SPECS = registered(TASK_MODULES)
