"""Sending many disagreements to adjudication in one post (the quality page listed 105
human–human disagreements, each needing its own pick and "Send"). Each unit goes through
:meth:`~studio.studyadmin.quality.Sending.send`, as a single send does, so it meets exactly
the checks of a single send; a unit refused is named with why, and the others are still
sent. What the checks read is read once and what they write written in bulk: a post costs
the same queries whatever the number of units it sends."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.models import Question

from .quality import QualityError, Sending, parse_unit_key


@dataclass
class BulkSent:
    """What one bulk send did: per unit sent, the requests it created (0: already sent to
    them); per unit refused, why (the single send's error)."""

    sent: list[tuple[str, int]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def _named(study, keys: list[str]) -> dict[str, str]:
    """Each posted unit key that parses, as the page shows it: "question q7, pairwise A~B"
    (one that does not is named by itself; its refusal then says why)."""
    parsed = {}
    for key in keys:
        try:
            parsed[key] = parse_unit_key(key)
        except QualityError:
            continue
    ids = {qid for _, qid, _ in parsed.values()}
    external = dict(
        Question.objects.filter(study=study, pk__in=ids).values_list("pk", "external_id")
    )
    return {
        key: f"question {external.get(qid, qid)}, {task} {name}"
        for key, (task, qid, name) in parsed.items()
    }


def send_many(study, *, units: list[str], adjudicators: list[str], user) -> BulkSent:
    """Send each of ``units`` to ``adjudicators``; refuse the post whole only when it names
    no unit or no adjudicator (nothing could be sent), else unit by unit."""
    units = list(dict.fromkeys(units))  # a unit ticked twice is sent once
    if not units:
        raise QualityError("units: tick at least one disagreement to send")
    if not adjudicators:
        raise QualityError("adjudicators: choose at least one adjudicator")
    names, done = _named(study, units), BulkSent()
    sending = Sending(study, units=units, adjudicators=adjudicators, user=user)
    for key in units:
        try:
            created = sending.send(key)
        except QualityError as exc:
            done.refused.append((names.get(key, key), str(exc)))
        else:
            done.sent.append((names.get(key, key), created))
    sending.write()
    return done
