"""Questions the annotators wrote (003 Setting 3) with what became of them → rows for the
question-authoring section (docs/ANALYSES.md §12). Two queries, whatever the study's size:
the authored questions with their rubric-item and report counts, and the ids of the
questions any human judgment of the study is about (one UNION over every judgment kind).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.db.models import Count, Q
from django.db.models.functions import Length

from ._db import fetch


@dataclass
class AuthoringData:
    question: list[str]  # external ids
    author: list[str]  # pseudonyms ("" when the author's profile was deleted)
    field: list[str]
    review: list[str]  # accepted / pending / rejected
    chars: list[int]  # length of the question's text
    rubric_items: list[int]  # items over all of the question's rubrics
    reports: list[int]
    judged: list[bool]  # at least one human judgment of the study is about it


def authored(study_id: int):
    """The study's authored questions: written through the authoring task (origin
    expert-authored) or imported with an author."""
    from annotation.models import Question

    return Question.objects.filter(study_id=study_id).filter(
        Q(origin=Question.Origin.EXPERT_AUTHORED) | Q(authored_by__isnull=False)
    )


def load_authoring(study_id: int) -> AuthoringData:
    from annotation.models.judgments import JudgmentBase

    q = fetch(
        authored(study_id)
        .order_by("pk")
        .annotate(chars=Length("text"), items=Count("rubrics__items", distinct=True),
                  n_reports=Count("reports", distinct=True))
        .values_list("pk", "external_id", "authored_by__pseudonym", "field", "review", "chars",
                     "items", "n_reports"),
        8,
    )  # fmt: skip
    kinds = sorted((m for m in apps.get_models() if issubclass(m, JudgmentBase)),
                   key=lambda m: m._meta.label_lower)  # fmt: skip
    parts = [m.objects.filter(study_id=study_id).order_by().values_list("question_id")
             for m in kinds]  # fmt: skip
    judged = {row[0] for row in parts[0].union(*parts[1:])} if parts else set()
    return AuthoringData(
        question=list(q[1]),
        author=[a or "" for a in q[2]],
        field=list(q[3]),
        review=list(q[4]),
        chars=[int(c or 0) for c in q[5]],
        rubric_items=[int(n) for n in q[6]],
        reports=[int(n) for n in q[7]],
        judged=[pk in judged for pk in q[0]],
    )
