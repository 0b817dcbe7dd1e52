"""A study to plan: many questions over several expertise fields, one-paragraph reports, and
annotators whose expertise cycles through the same fields."""

from __future__ import annotations

from django.contrib.auth.models import User

from annotation import roles
from annotation.models import Annotator, Paragraph, Question, Report, Section, Study, System

FIELDS = [f"Field {i}" for i in range(8)]
#: A paragraph of three claims, each ending in its own citation, and the report's sources.
CITED = "A claim [1]. A second claim [2]. A third claim [3]."
ANCHORS = [[CITED.index(k), CITED.index(k) + 3, k] for k in ("[1]", "[2]", "[3]")]
SOURCES = [{"key": k, "title": f"Source {k}"} for k in ("[1]", "[2]", "[3]")]


def make_study(name="Plan study", *, questions=24, systems=6, fields=FIELDS, tasks=None):
    study = Study.objects.create(name=name, tasks=tasks or ["medal_ranking", "pairwise"])
    sys_rows = [System.objects.create(study=study, name=f"S{i}") for i in range(systems)]
    qs = Question.objects.bulk_create(
        Question(
            study=study, external_id=f"q{i}", text=f"Question {i}?", field=fields[i % len(fields)]
        )
        for i in range(questions)
    )
    reports = Report.objects.bulk_create(
        Report(question=q, system=s, citations=SOURCES) for q in qs for s in sys_rows
    )
    sections = Section.objects.bulk_create(Section(report=r, position=1) for r in reports)
    # one paragraph each (an empty report is never planned) of three cited claims: a
    # metric-wise report holds the study's claims_min (3) claims, each ending in a citation
    Paragraph.objects.bulk_create(
        Paragraph(report=r, section=s, number=1, text=CITED, anchors=ANCHORS)
        for r, s in zip(reports, sections, strict=True)
    )
    return study


def make_annotators(n, *, fields=FIELDS, prefix="Ann"):
    out = []
    for i in range(n):
        user = User.objects.create_user(username=f"{prefix}{i}")
        roles.grant(user, roles.ANNOTATOR)
        out.append(
            Annotator.objects.create(
                user=user, pseudonym=f"{prefix}-{i}", expertise_fields=[fields[i % len(fields)]]
            )
        )
    return out
