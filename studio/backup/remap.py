"""Rewriting the database ids and public tokens that live inside JSON and text columns.

Foreign-key columns are remapped generically; these values are not foreign keys, so each
column that holds ids (``graph.ID_COLUMNS``) has a function here. Every function takes the
value and ``lookup(label, old_id) -> new_id``, which raises :class:`Unresolved` for an id
the backup does not hold. Validation runs the same functions with a lookup that only
checks membership, so what validates is exactly what will be written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Lookup = Callable[[str, int], int]

REPORT = "annotation.report"
RUBRIC = "annotation.rubric"
ITEM = "annotation.rubricitem"
PARAGRAPH = "annotation.paragraph"
STUDY = "annotation.study"


class Unresolved(Exception):
    def __init__(self, target: str, value):
        self.target, self.value = target, value
        super().__init__(f"{target} id {value!r} is not in the backup")


def _id(lookup: Lookup, target: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Unresolved(target, value)
    return lookup(target, value)


def report_order(value, lookup: Lookup):
    """Report ids in reading order. An id of a report deleted since the assignment was made
    is dropped: the task page ignores such ids too (``ensure_report_order``)."""
    if not isinstance(value, list):
        return value
    out = []
    for v in value:
        try:
            out.append(_id(lookup, REPORT, v))
        except Unresolved:
            continue
    return out


_UNIT_IDS = {"report": REPORT, "left": REPORT, "right": REPORT, "paragraph": PARAGRAPH}


def unit_payload(value, lookup: Lookup):
    """``{"report"|"left"|"right"|"paragraph": id, "items": [rubric item ids], ...}``."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key, target in _UNIT_IDS.items():
        if key in out:
            out[key] = _id(lookup, target, out[key])
    if "items" in out:
        out["items"] = [_id(lookup, ITEM, v) for v in out["items"]]
    return out


_UNIT_KEYS = [
    (re.compile(r"^coverage:(\d+):(\d+):(\d+)$"), (REPORT, RUBRIC, None)),
    (re.compile(r"^pairwise:(\d+):(\d+)$"), (REPORT, REPORT)),
    (re.compile(r"^relevance:(\d+)$"), (REPORT,)),
    (re.compile(r"^claim:(\d+):(.*)$"), (REPORT, None)),
]


def unit_key(value, lookup: Lookup):
    """The stable key of a judge unit (``judges.runs``): ``coverage:<report>:<rubric>:<n>``,
    ``pairwise:<left>:<right>``, ``relevance:<report>``, ``claim:<report>:<claim key>``."""
    for pattern, targets in _UNIT_KEYS:
        m = pattern.match(value or "")
        if m:
            parts = [
                str(_id(lookup, t, int(g))) if t else g
                for g, t in zip(m.groups(), targets, strict=True)
            ]
            return value.split(":", 1)[0] + ":" + ":".join(parts)
    return value


def report_result(value, lookup: Lookup):
    """A stored agreement report: its ``selection.study_id`` becomes the new study's id."""
    if isinstance(value, dict) and isinstance(value.get("selection"), dict):
        selection = value["selection"]
        if "study_id" in selection:
            value = {
                **value,
                "selection": {**selection, "study_id": lookup(STUDY, selection["study_id"])},
            }
    return value


FUNCTIONS = {
    ("annotation.assignment", "report_order"): report_order,
    ("judges.judgeunit", "payload"): unit_payload,
    ("judges.judgeunit", "key"): unit_key,
    ("metaeval.reportrun", "result"): report_result,
}


#: A public token (``secrets.token_urlsafe``) is a run of these characters; draft payloads
#: join tokens with "." (pairwise keys), never with one of them.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]+")


def replace_tokens(value, tokens: dict[str, str]):
    """``value`` with every public token in ``tokens`` replaced, in keys and strings alike
    (draft payloads are keyed by report, rubric and claim tokens; pairwise keys join two)."""
    if not tokens:
        return value
    if isinstance(value, str):
        return _TOKEN_RUN.sub(lambda m: tokens.get(m.group(0), m.group(0)), value)
    if isinstance(value, list):
        return [replace_tokens(v, tokens) for v in value]
    if isinstance(value, dict):
        return {replace_tokens(k, tokens): replace_tokens(v, tokens) for k, v in value.items()}
    return value
