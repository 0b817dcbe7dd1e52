"""Paragraphs and rubric items that expert work hangs off (issue 12: judgments are never
deleted by a cascade).

Relevance judgments, relevance adjudications and claim assessments point at a paragraph
row; rubric-item quality and rubric coverage point at a rubric-item row (``PROTECT``).
A report re-import or a rubric PATCH therefore never deletes and recreates those rows: it
updates them in place by their natural key (a paragraph's number in its report, an item's
position in its rubric), and a change that would *remove* a unit with judgments is refused
whole (:class:`JudgedUnitRemoved`) before anything is written.

A judged rubric item's *text* may not change either, whoever changes it (a file's
re-import, the API's PATCH, the Django admin; :func:`judged_items`): its labels were
given to that text, and kept on a reworded item they would grade a criterion the expert
never read.

Nor may what a judged item or its rubric *is attached to* change (:func:`refused_changes`):
a judged item's rubric or position, a rubric's question or kind once any of its items is
judged. The labels name the row, so a moved row would carry them to a question, a rubric
or a natural key (an item's position, which imports, the API's PATCH and quality control
match items by) that no expert judged.

A rubric a judge scored keeps its items, none added nor removed
(:func:`check_judged_rubrics_kept`): the judge's recall is Σw·c/Σw over every item, so
another item would leave the stored recall over a rubric that no longer exists. A rubric
only experts judged may grow: an added item changes no expert's label.

Judges' work counts as experts' does (:data:`JUDGE_ITEM_WORK`, :data:`REPORT_WORK`): a
rubric item an LLM judge scored keeps its text, weight, type and position, a rubric whose
items were scored its question and kind, and a report a judge scored or an expert labelled
keeps its text and structure (sections, paragraphs, sources; :func:`check_reports_kept`).
The judge's verdicts, and every figure computed from them (a system's weighted Coverage
S_c), were given to that text and weight: changed under them, the stored results would no
longer be what the judge answered, and the judge's own file would no longer import. Who
really wants the change deletes the judge's results first; the refusal says so. An
expert's weight matters as much (weighted agreement, METHODS §6), so the fields kept are
one list, :data:`KEPT`, whoever judged.
"""

from __future__ import annotations

from django.apps import apps

from annotation.models import (
    ClaimAssessment,
    ParagraphRelevance,
    RelevanceDisagreement,
    ReportClaim,
    Rubric,
    RubricCoverage,
    RubricItem,
    RubricItemQuality,
)

#: (model, what it is called, which of its rows count); claims count once an expert checked them.
PARAGRAPH_WORK = (
    (ParagraphRelevance, "relevance judgments", {}),
    (RelevanceDisagreement, "relevance adjudication", {}),
    (ClaimAssessment, "claim assessments", {}),
    (ReportClaim, "claim checks", {"checks__isnull": False}),
)
ITEM_WORK = (
    (RubricItemQuality, "rubric item quality", {}),
    (RubricCoverage, "rubric coverage", {}),
    ("judges.JudgeCoverage", "judge coverage verdicts", {}),
)
#: The judges' part of :data:`ITEM_WORK` (kinds starting "judge "; the judges app sits
#: above this one, so its models are named and looked up when asked: annotation <- judges).
JUDGE_ITEM_WORK = ITEM_WORK[2:]
#: (model, what it is called, the field naming the report, which rows count): the work
#: that keeps a report's text and structure (module doc). Human labels first, then judges'.
REPORT_WORK = (
    ("annotation.RubricCoverage", "rubric coverage", "report_id", {}),
    ("annotation.Medal", "medal rankings", "report_id", {}),
    ("annotation.PairwisePreference", "pairwise preferences", "left_id", {}),
    ("annotation.PairwisePreference", "pairwise preferences", "right_id", {}),
    ("annotation.HumanMetricScore", "metric scores", "report_id", {}),
    ("annotation.ReportRating", "report ratings", "report_id", {}),
    ("annotation.ClaimAssessment", "claim assessments", "report_id", {}),
    ("annotation.ReportClaim", "claim checks", "report_id", {"checks__isnull": False}),
    ("annotation.DeepScholarLabel", "DeepScholar labels", "report_id", {}),
    ("annotation.ParagraphRelevance", "relevance judgments", "paragraph__report_id", {}),
    ("annotation.RelevanceDisagreement", "relevance adjudication", "paragraph__report_id", {}),
    ("judges.JudgeScore", "judge scores", "report_id", {}),
    ("judges.JudgeCoverage", "judge coverage verdicts", "report_id", {}),
    ("judges.JudgePairwise", "judge pairwise decisions", "left_id", {}),
    ("judges.JudgePairwise", "judge pairwise decisions", "right_id", {}),
    ("judges.JudgeRelevance", "judge relevance verdicts", "paragraph__report_id", {}),
    ("judges.JudgeClaimVerdict", "judge claim verdicts", "report_id", {}),
    ("judges.JudgeDeepScholarLabel", "judge DeepScholar labels", "report_id", {}),
)


def _model(model):
    """A model, or the one a label (``"judges.JudgeScore"``) names (None: not installed)."""
    if not isinstance(model, str):
        return model
    try:
        return apps.get_model(model)
    except LookupError:
        return None


def by_judge(kinds) -> bool:
    """Whether any of ``kinds`` (what :func:`judged_items` and the others answer) is a
    judge's work: the refusal then says to delete the judge's results first."""
    return any(k.startswith("judge ") for k in kinds)


def who(kinds) -> str:
    """Who judged, by the kinds of work: experts, a judge, or both."""
    experts = any(not k.startswith("judge ") for k in kinds)
    if experts and by_judge(kinds):
        return "experts and judges judged"
    return "a judge scored" if by_judge(kinds) else "experts judged"


def instead_of_judges(kinds) -> str:
    """What one who really wants the change does when judges scored the row: their
    results are deleted first (nothing else removes them), then the change is made."""
    if not by_judge(kinds):
        return ""
    return (
        "; to change it anyway, delete the judge results first (DELETE "
        "/api/judges/<id>/results/?study=<study id>, which deletes that judge's results in "
        "this study only, or the Django admin's judge coverage and judge scores of it), then "
        "make the change again"
    )


class JudgedUnitRemoved(Exception):
    """A change would remove units that judgments point at: ``removed`` lists
    (owner id, unit number, kinds of work)."""

    #: What the admin may do instead: a judged item may not be reworded either (module doc).
    KEEP = "keep it as it is (experts judged its text)"

    def __init__(self, unit: str, removed: list[tuple[int, int, list[str]]], keep: str = KEEP):
        self.unit = unit
        self.removed = removed
        self.keep = keep
        super().__init__("; ".join(self.message(owner) for owner in self.owners()))

    def owners(self) -> list[int]:
        return sorted({owner for owner, _, _ in self.removed})

    def message(self, owner: int) -> str:
        parts = [
            f"{self.unit} {number} (it has {', '.join(kinds)})"
            for o, number, kinds in self.removed
            if o == owner
        ]
        return "would remove " + "; ".join(parts) + f". Expert work is never deleted: {self.keep}"


def _work(pairs, field: str, ids) -> dict[int, list[str]]:
    return _work_by(((m, label, field, only) for m, label, only in pairs), ids)


def _work_by(pairs, ids) -> dict[int, list[str]]:
    """id -> the kinds of work on it; a judge's kind names the judges ("judge scores
    (o3-mini)"), whose results the refusal says to delete first."""
    out: dict[int, list[str]] = {}
    ids = list(ids)
    if not ids:
        return out
    for model, label, field, only in pairs:
        model = _model(model)
        if model is None:
            continue
        rows = model.objects.filter(**{f"{field}__in": ids}, **only)
        if label.startswith("judge "):
            names: dict[int, set[str]] = {}
            for pk, name in rows.values_list(field, "judge__name").distinct():
                names.setdefault(pk, set()).add(name)
            found = {pk: f"{label} ({', '.join(sorted(n))})" for pk, n in names.items()}
        else:
            found = {pk: label for pk in set(rows.values_list(field, flat=True))}
        for pk, kind in found.items():
            if kind not in out.get(pk, []):
                out.setdefault(pk, []).append(kind)
    return out


class JudgedUnitChanged(JudgedUnitRemoved):
    """A change would alter kept fields (:data:`KEPT`: text, weight, type) of rubric items
    experts or judges judged: ``removed`` lists (owner id, unit number, kinds of work), as
    :class:`JudgedUnitRemoved`'s does; ``fields`` (owner, number) -> the fields changed."""

    def __init__(self, unit, removed, fields: dict[tuple[int, int], list[str]] | None = None):
        self.fields = fields or {}
        super().__init__(unit, removed)

    def message(self, owner: int) -> str:
        parts = []
        for o, number, kinds in self.removed:
            if o != owner:
                continue
            changed = self.fields.get((o, number), ["text"])
            parts.append(
                f"would change the {' and '.join(changed)} of {self.unit} {number} (it has "
                f"{', '.join(kinds)}): {who(kinds)} it as it is, and the labels and scores "
                f"would stay on what no one judged{instead_of_judges(kinds)}"
            )
        if parts and all(
            self.fields.get((o, n), ["text"]) == ["text"] and not by_judge(k)
            for o, n, k in self.removed
            if o == owner
        ):  # the experts-only rewording, as told since session 12
            return (
                "would change the text of "
                + "; ".join(
                    f"{self.unit} {n} (it has {', '.join(k)})"
                    for o, n, k in self.removed
                    if o == owner
                )
                + ". Experts judged that text: a file that rewrites it is another rubric"
            )
        return "; ".join(parts)

    def kinds(self, owner: int, number: int) -> list[str]:
        """The kinds of work on the item at ``number`` of rubric ``owner`` (none: not hit)."""
        return next((k for o, n, k in self.removed if (o, n) == (owner, number)), [])


class JudgedReportChanged(JudgedUnitRemoved):
    """A change would rewrite the text or structure of reports experts labelled or judges
    scored (:func:`check_reports_kept`): ``removed`` lists (report id, 0, kinds of work);
    ``fields`` report id -> what would change (``sections``, ``citations``)."""

    def __init__(self, removed, fields: dict[int, list[str]]):
        self.fields = fields
        super().__init__("report", removed)

    def message(self, owner: int) -> str:
        kinds = next(k for o, _, k in self.removed if o == owner)
        changed = " and ".join(self.fields.get(owner, ["sections"]))
        return (
            f"would change its {changed} (text or structure) while it has {', '.join(kinds)}: "
            f"{who(kinds)} it as it is, and the labels and scores would stay on a text no "
            f"one judged. Nothing was written{instead_of_judges(kinds)}"
        )


def check_reports_kept(changed: dict[int, list[str]]) -> None:
    """``changed``: stored report id -> the parts a change would rewrite (``sections``,
    ``citations``). Refused whole (:class:`JudgedReportChanged`) if any of them has
    experts' labels or judges' scores (module doc)."""
    work = report_work(changed)
    hit = [(rid, 0, work[rid]) for rid in changed if rid in work]
    if hit:
        raise JudgedReportChanged(hit, {rid: changed[rid] for rid, _, _ in hit})


def report_work(report_ids) -> dict[int, list[str]]:
    """report id -> the kinds of work on it (:data:`REPORT_WORK`), for those that have any."""
    return _work_by(REPORT_WORK, report_ids)


def rebuild_work(report_ids) -> dict[int, list[str]]:
    """report id -> the kinds of work pointing at it, for those of ``report_ids`` that have
    any: what keeps a report as stored when ``manage.py normalise_reports`` would rebuild
    its whole structure (sections, paragraphs, anchors and sources). That is
    :func:`report_work`, and also its claims (imported or checked: they name its paragraphs
    and its sources by key) and the drafts of assignments showing it (an annotator's
    unsubmitted answers, given to its paragraphs and sources as they read). A rebuilt
    report may renumber its sources and rewrite its paragraphs: any of these would be left
    on a text no one read."""
    from annotation.models import Draft, Report

    ids = set(report_ids)
    out = report_work(ids)

    def add(pk, kind):
        if kind not in out.setdefault(pk, []):
            out[pk].append(kind)

    for pk in set(
        ReportClaim.objects.filter(report_id__in=ids).values_list("report_id", flat=True)
    ):
        add(pk, "claims")
    by_question: dict[int, set[int]] = {}
    for pk, question in Report.objects.filter(pk__in=ids).values_list("pk", "question_id"):
        by_question.setdefault(question, set()).add(pk)
    drafts = Draft.objects.filter(assignment__question_id__in=list(by_question))
    for question, order in drafts.values_list(
        "assignment__question_id", "assignment__report_order"
    ):
        shown = by_question[question] & set(order) if order else by_question[question]
        for pk in shown:  # no order: the assignment shows every report of its question
            add(pk, "drafts")
    return out


def reword_refusal(rubric: str, position: int, kinds: list[str], name: str = "text") -> str:
    """What an edit of one judged item's kept field is told (the API's PATCH, the admin):
    the item, what hangs off it and what to do instead."""
    if name == "text" and not by_judge(kinds):
        return (
            f"rubric {rubric}, item at position {position}: its text may not change, experts "
            f"judged it (it has {', '.join(kinds)}); add the new wording as an item of its own "
            "(another position)"
        )
    return (
        f"rubric {rubric}, item at position {position}: its {name} may not change, "
        f"{who(kinds)} it (it has {', '.join(kinds)}); {KEPT[RubricItem][name]}"
        f"{instead_of_judges(kinds)}"
    )


def judged_items(item_ids) -> dict[int, list[str]]:
    """item id -> the kinds of expert or judge work on it, for the judged ones of ``item_ids``."""
    return _work(ITEM_WORK, "item_id", item_ids)


def judged_rubrics(rubric_ids) -> dict[int, list[str]]:
    """rubric id -> the kinds of work on its items, for the judged ones of ``rubric_ids``."""
    return _work(ITEM_WORK, "item__rubric_id", rubric_ids)


#: Model -> (its fields a judged row keeps, what the refusal tells to do instead). An
#: expert-judged item's ``text`` is told :func:`reword_refusal`'s own sentence. A report's
#: rows keep what annotators read (its sources, its sections' titles and tables, its
#: paragraphs' texts and anchors) and where they sit.
KEPT = {
    RubricItem: {
        "text": "add the new wording as an item of its own (another position)",
        "weight": "the weighted scores were computed with it; add the item with the new "
        "weight as an item of its own (another position)",
        "item_type": "add it with the other type as an item of its own (another position)",
        "rubric": "add it to the other rubric as an item of its own",
        "position": "items are matched by position (imports, the API, quality control); add "
        "it at the other position as an item of its own",
    },
    Rubric: {
        "question": "create a rubric of its own for the other question",
        "kind": "create a rubric of its own of the other kind",
    },
    "annotation.Report": {
        "citations": "import the changed report as another system's",
        "question": "import it as another report",
        "system": "import it as another system's report",
    },
    "annotation.Section": {
        "title": "import the changed report as another system's",
        "table": "import the changed report as another system's",
        "position": "import the changed report as another system's",
        "report": "import the changed report as another system's",
    },
    "annotation.ReportClaim": {
        "text": "import the changed claim at another position (a claim of its own)",
        "citation_keys": "import the changed claim at another position (a claim of its own)",
        "paragraph": "import the changed claim at another position (a claim of its own)",
        "report": "import it as a claim of the other report",
    },
    "annotation.Paragraph": {
        "text": "import the changed report as another system's",
        "anchors": "import the changed report as another system's",
        "number": "import the changed report as another system's",
        "section": "import the changed report as another system's",
        "report": "import the changed report as another system's",
    },
}


def _kept(model) -> dict[str, str] | None:
    return KEPT.get(model) or KEPT.get(model._meta.label)


def refused_changes(row, new: dict) -> dict[str, str]:
    """Field -> why not, for each field of :data:`KEPT` that ``new`` (field -> value, a
    related row or its id) would change on the stored ``row`` while experts' labels or
    judges' scores hang off it (module doc). Empty: the change may be saved. The one rule
    the API's serializer and the Django admin's forms ask."""
    kept = _kept(type(row))
    if row.pk is None or kept is None:
        return {}
    changed = []
    for name in kept:
        if name not in new:
            continue
        field = type(row)._meta.get_field(name)
        value = getattr(new[name], "pk", new[name]) if field.is_relation else new[name]
        stored = getattr(row, field.attname)
        if name == "weight" and value is not None and stored is not None:
            same = float(value) == float(stored)
        else:
            same = value == stored
        if not same:
            changed.append(name)
    if not changed:
        return {}
    if isinstance(row, Rubric):
        kinds = judged_rubrics([row.pk]).get(row.pk)
        where, whose = f"rubric {row.public_id}", "{} its items (they have {})"
    elif isinstance(row, ReportClaim):
        kinds = claim_work([row]).get(row.pk)
        where = f"report {row.report.public_id}, claim at position {row.position}"
        whose = "{} it (it has {})"
    elif isinstance(row, RubricItem):
        kinds = judged_items([row.pk]).get(row.pk)
        where = f"rubric {row.rubric.public_id}, item at position {row.position}"
        whose = "{} it (it has {})"
    else:
        report = row if type(row)._meta.model_name == "report" else row.report
        kinds = report_work([report.pk]).get(report.pk)
        where = f"report {report.public_id}"
        if report is not row:
            where += (
                f", {type(row)._meta.verbose_name} {getattr(row, 'number', None) or row.position}"
            )
        whose = "{} its text (it has {})"
    if not kinds:
        return {}
    whose = whose.format(who(kinds), ", ".join(kinds))
    out = {}
    for name in changed:
        if isinstance(row, RubricItem) and name in ("text", "weight", "item_type"):
            out[name] = reword_refusal(row.rubric.public_id, row.position, kinds, name)
        else:
            out[name] = (
                f"{where}: its {name} may not change, {whose} and the labels would follow "
                f"it; {kept[name]}{instead_of_judges(kinds)}"
            )
    return out


def claim_work(claims) -> dict[int, list[str]]:
    """claim id -> the kinds of work on it, for those of ``claims`` (stored
    :class:`ReportClaim` rows) that have any: experts' claim checks, claim check drafts
    answering it (a draft's ``claims`` are keyed by the claim's public id), and judges'
    claim verdicts (joined as the analysis joins them, ``metaeval.loaders.claims``: same
    report, same text after collapsing whitespace). The labels were given to its text and
    citations (a check answers each citation by its place), so a changed claim would carry
    them to what no one checked (module doc)."""
    from annotation.models import ClaimCheck, Draft

    claims = [c for c in claims if c.pk is not None]
    out: dict[int, list[str]] = {}
    if not claims:
        return out

    def add(pk, kind):
        if kind not in out.setdefault(pk, []):
            out[pk].append(kind)

    ids = {c.pk for c in claims}
    for pk in set(ClaimCheck.objects.filter(claim_id__in=ids).values_list("claim_id", flat=True)):
        add(pk, "claim checks")
    by_public = {c.public_id: c.pk for c in claims}
    questions = set(
        ReportClaim.objects.filter(pk__in=ids).values_list("report__question_id", flat=True)
    )
    for payload in Draft.objects.filter(assignment__question_id__in=questions).values_list(
        "payload", flat=True
    ):
        answers = payload.get("claims") if isinstance(payload, dict) else None
        if isinstance(answers, dict):
            for public_id in answers.keys() & by_public.keys():
                add(by_public[public_id], "claim check drafts")
    verdicts = _model("judges.JudgeClaimVerdict")
    if verdicts is not None:
        texts = {(c.report_id, " ".join(c.text.split())): c.pk for c in claims}
        names: dict[int, set[str]] = {}
        rows = verdicts.objects.filter(report_id__in={c.report_id for c in claims})
        for report_id, text, name in rows.values_list("report_id", "text", "judge__name"):
            pk = texts.get((report_id, " ".join((text or "").split())))
            if pk is not None:
                names.setdefault(pk, set()).add(name)
        for pk, n in names.items():
            add(pk, f"judge claim verdicts ({', '.join(sorted(n))})")
    return out


def check_paragraphs_kept(removed: dict[int, list[tuple[int, int]]]) -> None:
    """``removed``: report id -> [(paragraph id, number)] a change would delete."""
    work = _work(PARAGRAPH_WORK, "paragraph_id", (p for ps in removed.values() for p, _ in ps))
    hit = [(rid, n, work[p]) for rid, ps in removed.items() for p, n in ps if p in work]
    if hit:
        raise JudgedUnitRemoved("paragraph", hit)


#: The item fields a judged item keeps (:data:`KEPT`) that an items writer sets.
KEPT_ITEM_FIELDS = ("text", "weight", "item_type")


def item_changes(row: RubricItem, values: dict) -> list[str]:
    """The fields of ``values`` (an items writer's) that differ from the stored ``row``."""
    fields = ["text", "item_type", "weight", "cited_paper"]
    out = []
    for f in fields:
        if f not in values:
            continue
        a, b = getattr(row, f), values[f]
        if (float(a) != float(b)) if f == "weight" else a != b:
            out.append(f)
    return out


class JudgedRubricResized(JudgedUnitRemoved):
    """A change would add items to, or remove items from, a rubric whose items a judge
    scored: ``removed`` lists (rubric id, 0, the judges' kinds of work); ``fields`` rubric id
    -> {"added": positions, "removed": positions}."""

    def __init__(self, removed, fields: dict[int, dict[str, list[int]]]):
        self.fields = fields
        super().__init__("rubric", removed)

    def message(self, owner: int) -> str:
        kinds = next(k for o, _, k in self.removed if o == owner)
        what = self.fields.get(owner, {})
        parts = [
            f"{verb} items at position {', '.join(map(str, what[key]))}"
            for key, verb in (("added", "add"), ("removed", "remove"))
            if what.get(key)
        ]
        return (
            f"would {' and '.join(parts)} "
            f"while {who(kinds)} its items (it has {', '.join(kinds)}): the judge's stored "
            "recall (Σw·c/Σw over the rubric's items) and every figure computed from it "
            "would no longer be over the rubric as it is. Nothing was written"
            f"{instead_of_judges(kinds)}"
        )


def check_judged_rubrics_kept(wanted: dict[int, list[dict]], stored: dict, gone: list) -> None:
    """Refuse (:class:`JudgedRubricResized`) a change that adds or removes items of a rubric
    a judge scored: its recall is Σw·c/Σw over every item, so another item (or one fewer)
    makes the stored recall and each system's Coverage S_c a figure over another rubric.
    A rubric only experts judged may grow (an added item changes no expert's label; its
    removed items are refused only when judged, :func:`write_rubric_items`)."""
    added: dict[int, list[int]] = {}
    for rid, items in wanted.items():
        for values in items:
            if (rid, values["position"]) not in stored:
                added.setdefault(rid, []).append(values["position"])
    removed: dict[int, list[int]] = {}
    for row in gone:
        removed.setdefault(row.rubric_id, []).append(row.position)
    resized = set(added) | set(removed)
    if not resized:
        return
    work = judged_rubrics(resized)
    hit = []
    for rid in sorted(resized):
        judges = [k for k in work.get(rid, []) if k.startswith("judge ")]
        if judges:
            hit.append((rid, 0, judges))
    if hit:
        raise JudgedRubricResized(
            hit,
            {
                rid: {"added": sorted(added.get(rid, [])), "removed": sorted(removed.get(rid, []))}
                for rid, _, _ in hit
            },
        )


def added_item_refusal(rubric_id: int | None, position) -> str | None:
    """What adding one item at ``position`` to rubric ``rubric_id`` is told when a judge
    scored the rubric (the Django admin's add form; :func:`check_judged_rubrics_kept`),
    None when it may be added."""
    if rubric_id is None:
        return None
    try:
        check_judged_rubrics_kept({rubric_id: [{"position": position}]}, {}, [])
    except JudgedRubricResized as refused:
        rubric = Rubric.objects.get(pk=rubric_id)
        return f"rubric {rubric.public_id} " + refused.message(rubric_id)
    return None


def write_rubric_items(wanted: dict[int, list[dict]]) -> tuple[int, int, int]:
    """Make each rubric's items (rubric id -> item field dicts with ``position``) what is
    wanted, matching stored items by position: changed ones are updated in place, new ones
    created, missing ones deleted. Nothing is written when a judged item would go
    (:class:`JudgedUnitRemoved`) or have its text, weight or type changed
    (:class:`JudgedUnitChanged`): items are matched by position, so a file whose rubric is
    another question's (a duplicated id), or an admin's PATCH, would otherwise leave every
    expert label and judge verdict on a criterion no one judged, and a judge's weighted
    scores computed with a weight it was not given (module doc). Returns (created,
    updated, deleted)."""
    stored = {
        (i.rubric_id, i.position): i for i in RubricItem.objects.filter(rubric_id__in=list(wanted))
    }
    keep = {(rid, i["position"]) for rid, items in wanted.items() for i in items}
    gone = [item for key, item in stored.items() if key not in keep]
    work = judged_items(i.pk for i in gone)
    hit = [(i.rubric_id, i.position, work[i.pk]) for i in gone if i.pk in work]
    if hit:
        raise JudgedUnitRemoved("rubric item at position", hit)
    touched = {}
    for rid, items in wanted.items():
        for values in items:
            row = stored.get((rid, values["position"]))
            if row is not None:
                kept = [f for f in item_changes(row, values) if f in KEPT_ITEM_FIELDS]
                if kept:
                    touched[row.pk] = (row, kept)
    work = judged_items(touched)
    hit = [(r.rubric_id, r.position, work[pk]) for pk, (r, _) in touched.items() if pk in work]
    if hit:
        fields = {(r.rubric_id, r.position): f for pk, (r, f) in touched.items() if pk in work}
        raise JudgedUnitChanged("rubric item at position", hit, fields)
    check_judged_rubrics_kept(wanted, stored, gone)
    new, changed = [], []
    fields = ["text", "item_type", "weight", "cited_paper"]
    for rid, items in wanted.items():
        for values in items:
            row = stored.get((rid, values["position"]))
            if row is None:
                new.append({"rubric": rid, **values})
                continue
            if item_changes(row, values):
                for f in fields:
                    if f in values:
                        setattr(row, f, values[f])
                changed.append(row)
    if gone:
        RubricItem.objects.filter(pk__in=[i.pk for i in gone]).delete()
    if changed:
        RubricItem.objects.bulk_update(changed, fields, batch_size=2000)
    if new:  # plain rows, no model instances: 160,000 items in a ResearchQA file (issue 16)
        from annotation.importers.common import insert_new

        insert_new(RubricItem, new)
    return len(new), len(changed), len(gone)
