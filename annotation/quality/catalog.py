"""Which task types quality control reads, from their own declarations (``TaskSpec.qc`` in
``annotation/annotate/<key>.py``): the one place the quality pages and the loader ask."""

from __future__ import annotations

from .labels import LabelSpec


def specs() -> dict[str, LabelSpec]:
    """Every registered task type's declaration, in the registry's order."""
    from annotation.annotate.registry import SPECS  # the task modules import labels

    return {key: spec.qc for key, spec in SPECS.items()}


def spec(task: str) -> LabelSpec | None:
    return specs().get(task)


def labelled() -> tuple[str, ...]:
    """The task types with a single label (gold, consensus, adjudication apply)."""
    return tuple(k for k, s in specs().items() if s.has_label)


def unlabelled() -> dict[str, str]:
    """task -> why it has no single label."""
    return {k: s.no_label for k, s in specs().items() if not s.has_label}
