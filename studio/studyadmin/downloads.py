"""The study page's Download panel: every registered writer, derived from the registry.

One entry per kind × writable format (``annotation.importers.registry.writable``), with the
format's label and the extension of its download, so a newly registered writer appears by
itself. A writer's options become the fields of its small GET form: an option with
declared choices offers them; an option the formats share by name (``system``, ``judge``,
``annotator``, ``rubric_kind``) offers the study's values of it (``STUDY_VALUES`` of
``annotation.importers.downloads``, the values an export accepts; one query per name,
whatever the number of writers or rows); any other option is a text field.
The files themselves come from ``annotation.importers.downloads`` (the API's code path).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.urls import reverse

from annotation.importers.downloads import STUDY_VALUES, study_values_key
from annotation.models import HumanMetricScore, MedalRanking, PairwisePreference, Study


def _rows(model: str, lookup: str) -> Callable[[Study], object]:
    def rows(study: Study):
        from django.apps import apps

        return apps.get_model(model).objects.filter(**{lookup: study})

    return rows


def _judgments(study: Study) -> list:
    """Every human judgment kind's records of the study, selected as the judgment export
    selects them (``judgment_kinds.records_filter``: a question is an authored question
    only if an annotator wrote it). Counting every question offered an export of a study
    with no judgment, a certain 404 "nothing to export" (tester)."""
    from django.apps import apps

    from annotation import judgment_kinds

    return [
        apps.get_model(k.model).objects.filter(**judgment_kinds.records_filter(k, study.pk))
        for k in judgment_kinds.KINDS
    ]


#: What the study must hold for a writer to have something to write, by ``kind`` or
#: ``kind/format``: querysets of which any row will do. The panel offers what exists (an
#: entry that then said "nothing to export" was a dead end, issue 28); every writable format
#: is covered (tests/annotation/test_download_panel.py).
HOLDS: dict[str, Callable[[Study], list]] = {
    "reports": lambda s: [_rows("annotation.Report", "question__study")(s)],
    "questions": lambda s: [_rows("annotation.Question", "study")(s)],
    "judgments": _judgments,
    "claims": lambda s: [_rows("annotation.ReportClaim", "report__question__study")(s)],
    "pairwise": lambda s: [m.objects.filter(study=s)
                           for m in (MedalRanking, HumanMetricScore, PairwisePreference)],
    "deepscholar/nuggets": lambda s: [_rows("annotation.Nugget", "question__study")(s)],
    "deepscholar/nuggetizer": lambda s: [_rows("annotation.Nugget", "question__study")(s)],
    "deepscholar/exemplar-references": lambda s: [
        _rows("annotation.Exemplar", "question__study")(s)
    ],
}  # fmt: skip
#: The writers with a ``judge`` option (a judge-score writer by its format's name, another
#: as ``kind/format``): the verdicts each writes (model, lookup to the study, and what its
#: writer selects: a coverage file reads the 0–4 labels, ResearcherBench the covered
#: flags), so the judges offered are those it can write. Listing every coverage judge in
#: both offered a ResearchQA judge under ResearcherBench, a certain 404 (tester).
JUDGES_OF: dict[str, tuple[str, str, dict]] = {
    "researchqa-coverage": ("judges.JudgeCoverage", "report__question__study",
                            {"label__isnull": False}),
    "researcherbench": ("judges.JudgeCoverage", "report__question__study",
                        {"covered__isnull": False}),
    "researchqa-pairwise": ("judges.JudgePairwise", "left__question__study",
                            {"protocol": "direct"}),
    "csv": ("judges.JudgeScore", "report__question__study", {}),
    "deepscholar-labels": ("judges.JudgeDeepScholarLabel", "question__study", {}),
    "relevance": ("judges.JudgeRelevance", "paragraph__report__question__study", {}),
    "claim-verdicts": ("judges.JudgeClaimVerdict", "report__question__study", {}),
    # the judge of the pairwise records' model_* scores (optional: the default judge)
    "pairwise/scholarqa": ("judges.JudgeScore", "report__question__study", {}),
}  # fmt: skip


def held(study: Study, keys) -> dict[str, bool]:
    """Whether the study holds each ``HOLDS`` key's data: one query, whatever the writers."""
    exprs = {}
    for key in keys:
        any_row = Q()
        for rows in HOLDS[key](study):
            any_row |= Q(Exists(rows))
        exprs[f"h{len(exprs)}"] = (key, ExpressionWrapper(any_row, output_field=BooleanField()))
    values = Study.objects.filter(pk=study.pk).values(**{a: e for a, (_, e) in exprs.items()})
    row = values.first() or {}
    return {key: bool(row.get(a)) for a, (key, _) in exprs.items()}


def judges_by_writer(study: Study) -> dict[str, list[str]]:
    """Judge-score writer -> the judges with its verdicts on the study: one query."""
    from django.apps import apps

    from judges.models import Judge

    flags = {
        name: Exists(apps.get_model(model).objects.filter(**{lookup: study}, **selects,
                                                          judge=OuterRef("pk")))
        for name, (model, lookup, selects) in JUDGES_OF.items()
    }  # fmt: skip
    aliases = {f"j{i}": name for i, name in enumerate(flags)}
    rows = Judge.objects.annotate(**{a: flags[n] for a, n in aliases.items()}).order_by("name")
    out: dict[str, list[str]] = {name: [] for name in JUDGES_OF}
    for name, *has in rows.values_list("name", *aliases):
        for alias, flag in zip(aliases, has, strict=True):
            if flag:
                out[aliases[alias]].append(name)
    return out


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

    #: The study holds nothing this writer writes (it is shown, disabled, saying so).
    empty: bool = False

    @property
    def missing(self) -> list[str]:
        """Required options the study has no value of (nothing to choose: nothing to write;
        the panel shows no form then, only why)."""
        return [f.name for f in self.fields if f.required and f.values == []]

    @property
    def offered(self) -> bool:
        return not self.empty and not self.missing


def _holds_key(fmt) -> str:
    key = f"{fmt.kind}/{fmt.name}"
    return key if key in HOLDS else fmt.kind


def _judges_key(fmt) -> str:
    return fmt.name if fmt.kind == "judge_scores" else f"{fmt.kind}/{fmt.name}"


def download_panel(study: Study) -> list[Writer]:
    """Every writable format of the registry as a Download panel entry (module doc)."""
    from annotation.importers.registry import writable

    known: dict[str, list[str]] = {}
    out, judges = [], None
    formats = writable()
    keys = {_holds_key(f) for f in formats if f.kind != "judge_scores"}
    has = held(study, sorted(keys)) if keys else {}
    for fmt in formats:
        fields = []
        for option in fmt.dump_options:
            # A yes/no writer option (pairwise expert_agreed) is the API's and the bundle's:
            # the panel's form leaves it unset, so what it needs unless set is required.
            if option.type is bool:
                continue
            if option.choices:
                values = list(option.choices)
            elif option.name == "judge" and _judges_key(fmt) in JUDGES_OF:
                if judges is None:
                    judges = judges_by_writer(study)
                values = judges[_judges_key(fmt)]
            elif (key := study_values_key(fmt, option.name)) is not None:
                if key not in known:
                    known[key] = STUDY_VALUES[key](study)
                values = known[key]
            else:
                values = None
            fields.append(Field(option.name, option.help, option.needed({}), values))
        url = reverse(
            "studies:export_format",
            kwargs={"study_id": study.pk, "kind": fmt.kind, "file_format": fmt.name},
        )
        empty = fmt.kind != "judge_scores" and not has[_holds_key(fmt)]
        entry = Writer(fmt.kind, fmt.name, fmt.title, fmt.help, fmt.download_extension, url,
                       fields, empty=empty)  # fmt: skip
        out.append(entry)
    return out
