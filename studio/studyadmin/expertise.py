"""Annotators' expertise fields, set from the study's pages (it was only the raw JSON list of
the Django admin, and the demo's fields matched none of a study's questions, so "By
expertise" planned nothing). An annotator's fields are their own, not one study's: the page
offers the fields the study's questions carry (``Question.field``, what the expertise
strategy matches exactly: ``annotation.assignment.expert_of``) plus free text, and each
change is recorded in the study's audit list (``QualityEvent``, action
:data:`ACTION`) with the fields before and after."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from annotation.assignment import expert_of
from annotation.models import Annotator, QualityEvent, Question

#: The audit action of a change of an annotator's expertise fields.
ACTION = "expertise_set"
#: The most fields one annotator may have (a typo'd paste of a whole list is refused).
MAX_FIELDS = 50
#: The longest field, as a question's field (``Question.field``) may be.
MAX_CHARS = Question._meta.get_field("field").max_length


def study_fields(study) -> list[str]:
    """The fields the study's questions carry, sorted (each once; empty ones left out)."""
    values = Question.objects.filter(study=study).exclude(field="").values_list("field", flat=True)
    return sorted(set(values))


def annotators():
    """The annotators with an account (the planning page's pool), by pseudonym."""
    return Annotator.objects.filter(user__isnull=False).order_by("pseudonym")


@dataclass(frozen=True)
class Row:
    annotator: Annotator
    fields: tuple[str, ...]
    #: Of the study's questions, how many have a field among the annotator's.
    matched: int
    #: The annotator's fields no question of the study carries (kept, offered as text).
    other: tuple[str, ...]


@dataclass(frozen=True)
class Overview:
    #: One row per annotator with an account, by pseudonym.
    rows: list[Row]
    #: The fields the study's questions carry (:func:`study_fields`).
    fields: list[str]


def overview(study) -> Overview:
    """One row per annotator with an account (their fields and the study's questions they
    match) and the study's question fields: two queries, whatever the numbers."""
    per_field: dict[str, int] = {}
    for field in Question.objects.filter(study=study).values_list("field", flat=True):
        if field:
            per_field[field] = per_field.get(field, 0) + 1
    out = []
    for a in annotators():
        fields = tuple(a.expertise_fields or ())
        matched = sum(n for f, n in per_field.items() if expert_of(f, fields))
        other = tuple(f for f in fields if f not in per_field)
        out.append(Row(a, fields, matched, other))
    return Overview(out, sorted(per_field))


def set_fields(study, annotator: Annotator, fields: list[str], *, user) -> bool:
    """Give ``annotator`` exactly ``fields`` (order kept, no repeats); recorded in the
    study's audit list. False (and nothing written) when they already had them."""
    fields = list(dict.fromkeys(fields))
    with transaction.atomic():
        locked = Annotator.objects.select_for_update().get(pk=annotator.pk)
        before = list(locked.expertise_fields or ())
        if before == fields:
            return False
        locked.expertise_fields = fields
        locked.save(update_fields=["expertise_fields"])
        QualityEvent.objects.create(
            study=study, actor=user, action=ACTION, annotator=locked,
            detail={"before": before, "after": fields},
        )  # fmt: skip
    annotator.expertise_fields = fields
    return True
