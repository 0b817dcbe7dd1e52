"""The study page's Download panel: every registered writer, derived from the registry.

One entry per kind × writable format (``annotation.importers.registry.writable``), with the
format's label and the extension of its download, so a newly registered writer appears by
itself. A writer's options become the fields of its small GET form: an option with
declared choices offers them; an option the formats share by name (``system``, ``judge``,
``annotator``, ``rubric_kind``) offers the study's values of it (:data:`STUDY_VALUES`, one
query per name, whatever the number of writers or rows); any other option is a text field.
The files themselves come from ``annotation.importers.downloads`` (the API's code path).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q
from django.urls import reverse

from annotation.models import (
    Annotator,
    HumanMetricScore,
    MedalRanking,
    PairwisePreference,
    Rubric,
    Study,
    System,
)


def _systems(study: Study) -> list[str]:
    return list(System.objects.filter(study=study).order_by("name").values_list("name", flat=True))


def _judges(study: Study) -> list[str]:
    """Judges with any verdict on the study's reports or questions."""
    from judges import models as j

    on_report = Q(report__question__study=study)
    tables = [
        j.JudgeScore.objects.filter(on_report),
        j.JudgeCoverage.objects.filter(on_report),
        j.JudgeClaimVerdict.objects.filter(on_report),
        j.JudgePairwise.objects.filter(left__question__study=study),
        j.JudgeRelevance.objects.filter(paragraph__report__question__study=study),
        j.JudgeDeepScholarLabel.objects.filter(question__study=study),
    ]
    has_any = Q()
    for rows in tables:
        has_any |= Q(Exists(rows.filter(judge=OuterRef("pk"))))
    return list(j.Judge.objects.filter(has_any).order_by("name").values_list("name", flat=True))


def _annotators(study: Study) -> list[str]:
    """Annotators with medal rankings, metric scores or preferences in the study (what the
    pairwise records hold)."""
    has_any = Q()
    for model in (MedalRanking, HumanMetricScore, PairwisePreference):
        has_any |= Q(Exists(model.objects.filter(study=study, annotator=OuterRef("pk"))))
    rows = Annotator.objects.filter(has_any).order_by("pseudonym")
    return list(rows.values_list("pseudonym", flat=True))


def _rubric_kinds(study: Study) -> list[str]:
    rows = Rubric.objects.filter(question__study=study).order_by("kind").values_list("kind")
    return [k for (k,) in rows.distinct()]


#: The study's values of an option, by the option's name (the names the writers share).
STUDY_VALUES: dict[str, Callable[[Study], list[str]]] = {
    "system": _systems,
    "judge": _judges,
    "annotator": _annotators,
    "rubric_kind": _rubric_kinds,
}


@dataclass
class Field:
    name: str
    help: str
    required: bool
    #: Values to choose from; None: a text field.
    values: list[str] | None


@dataclass
class Writer:
    kind: str
    format: str
    label: str
    help: str
    extension: str
    url: str
    fields: list[Field] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        """Required options the study has no value of (nothing to choose: nothing to write)."""
        return [f.name for f in self.fields if f.required and f.values == []]


def download_panel(study: Study) -> list[Writer]:
    """Every writable format of the registry as a Download panel entry (module doc)."""
    from annotation.importers.registry import writable

    known: dict[str, list[str]] = {}
    out = []
    for fmt in writable():
        fields = []
        for option in fmt.dump_options:
            if option.choices:
                values = list(option.choices)
            elif option.name in STUDY_VALUES:
                if option.name not in known:
                    known[option.name] = STUDY_VALUES[option.name](study)
                values = known[option.name]
            else:
                values = None
            fields.append(Field(option.name, option.help, option.required, values))
        url = reverse(
            "studies:export_format",
            kwargs={"study_id": study.pk, "kind": fmt.kind, "file_format": fmt.name},
        )
        out.append(
            Writer(fmt.kind, fmt.name, fmt.title, fmt.help, fmt.download_extension, url, fields)
        )
    return out
