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
"""

from __future__ import annotations

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
    out: dict[int, list[str]] = {}
    ids = list(ids)
    if not ids:
        return out
    for model, label, only in pairs:
        rows = model.objects.filter(**{f"{field}__in": ids}, **only)
        for pk in set(rows.values_list(field, flat=True)):
            out.setdefault(pk, []).append(label)
    return out


class JudgedUnitChanged(JudgedUnitRemoved):
    """A change would reword rubric items experts judged: ``removed`` lists (owner id, unit
    number, kinds of work), as :class:`JudgedUnitRemoved`'s does."""

    def message(self, owner: int) -> str:
        parts = [
            f"{self.unit} {number} (it has {', '.join(kinds)})"
            for o, number, kinds in self.removed
            if o == owner
        ]
        return (
            "would change the text of "
            + "; ".join(parts)
            + ". Experts judged that text: a file that rewrites it is another rubric"
        )

    def kinds(self, owner: int, number: int) -> list[str]:
        """The kinds of work on the item at ``number`` of rubric ``owner`` (none: not hit)."""
        return next((k for o, n, k in self.removed if (o, n) == (owner, number)), [])


def reword_refusal(rubric: str, position: int, kinds: list[str]) -> str:
    """What an edit of one judged item's text is told (the API's PATCH, the admin): the
    item, what hangs off it and what to do instead."""
    return (
        f"rubric {rubric}, item at position {position}: its text may not change, experts "
        f"judged it (it has {', '.join(kinds)}); add the new wording as an item of its own "
        "(another position)"
    )


def judged_items(item_ids) -> dict[int, list[str]]:
    """item id -> the kinds of expert work on it, for the judged ones of ``item_ids``."""
    return _work(ITEM_WORK, "item_id", item_ids)


def judged_rubrics(rubric_ids) -> dict[int, list[str]]:
    """rubric id -> the kinds of expert work on its items, for the judged ones of ``rubric_ids``."""
    return _work(ITEM_WORK, "item__rubric_id", rubric_ids)


#: Model -> (its fields a judged row keeps, what the refusal tells to do instead). An item's
#: ``text`` is told :func:`reword_refusal`.
KEPT = {
    RubricItem: {
        "text": "",
        "rubric": "add it to the other rubric as an item of its own",
        "position": "items are matched by position (imports, the API, quality control); add "
        "it at the other position as an item of its own",
    },
    Rubric: {
        "question": "create a rubric of its own for the other question",
        "kind": "create a rubric of its own of the other kind",
    },
}


def refused_changes(row: Rubric | RubricItem, new: dict) -> dict[str, str]:
    """Field -> why not, for each field of :data:`KEPT` that ``new`` (field -> value, a
    related row or its id) would change on the stored ``row`` while experts' labels hang
    off it (module doc). Empty: the change may be saved. The one rule the API's serializer
    and the Django admin's forms ask."""
    if row.pk is None:
        return {}
    changed = []
    for name in KEPT[type(row)]:
        if name not in new:
            continue
        field = type(row)._meta.get_field(name)
        value = getattr(new[name], "pk", new[name]) if field.is_relation else new[name]
        if value != getattr(row, field.attname):
            changed.append(name)
    if not changed:
        return {}
    if isinstance(row, Rubric):
        kinds = judged_rubrics([row.pk]).get(row.pk)
        where, whose = f"rubric {row.public_id}", "experts judged its items (they have {})"
    else:
        kinds = judged_items([row.pk]).get(row.pk)
        where = f"rubric {row.rubric.public_id}, item at position {row.position}"
        whose = "experts judged it (it has {})"
    if not kinds:
        return {}
    whose = whose.format(", ".join(kinds))
    out = {}
    for name in changed:
        if name == "text":
            out[name] = reword_refusal(row.rubric.public_id, row.position, kinds)
        else:
            out[name] = (
                f"{where}: its {name} may not change, {whose} and the labels would follow "
                f"it; {KEPT[type(row)][name]}"
            )
    return out


def check_paragraphs_kept(removed: dict[int, list[tuple[int, int]]]) -> None:
    """``removed``: report id -> [(paragraph id, number)] a change would delete."""
    work = _work(PARAGRAPH_WORK, "paragraph_id", (p for ps in removed.values() for p, _ in ps))
    hit = [(rid, n, work[p]) for rid, ps in removed.items() for p, n in ps if p in work]
    if hit:
        raise JudgedUnitRemoved("paragraph", hit)


def write_rubric_items(wanted: dict[int, list[dict]]) -> tuple[int, int, int]:
    """Make each rubric's items (rubric id -> item field dicts with ``position``) what is
    wanted, matching stored items by position: changed ones are updated in place, new ones
    created, missing ones deleted. Nothing is written when a judged item would go
    (:class:`JudgedUnitRemoved`) or have its text changed (:class:`JudgedUnitChanged`):
    items are matched by position, so a file whose rubric is another question's (a
    duplicated id), or an admin's PATCH, would otherwise leave every expert label on a
    criterion the expert never read (module doc). Returns (created, updated, deleted)."""
    stored = {
        (i.rubric_id, i.position): i for i in RubricItem.objects.filter(rubric_id__in=list(wanted))
    }
    keep = {(rid, i["position"]) for rid, items in wanted.items() for i in items}
    gone = [item for key, item in stored.items() if key not in keep]
    work = judged_items(i.pk for i in gone)
    hit = [(i.rubric_id, i.position, work[i.pk]) for i in gone if i.pk in work]
    if hit:
        raise JudgedUnitRemoved("rubric item at position", hit)
    reworded = [
        stored[(rid, values["position"])]
        for rid, items in wanted.items()
        for values in items
        if "text" in values
        and (rid, values["position"]) in stored
        and stored[(rid, values["position"])].text != values["text"]
    ]
    work = judged_items(i.pk for i in reworded)
    hit = [(i.rubric_id, i.position, work[i.pk]) for i in reworded if i.pk in work]
    if hit:
        raise JudgedUnitChanged("rubric item at position", hit)
    new, changed = [], []
    fields = ["text", "item_type", "weight", "cited_paper"]
    for rid, items in wanted.items():
        for values in items:
            row = stored.get((rid, values["position"]))
            if row is None:
                new.append({"rubric": rid, **values})
                continue
            if any(f in values and getattr(row, f) != values[f] for f in fields):
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
