"""The quality page's audit list in words: each event's detail (a JSON object) as ``key:
value`` text and its actor, "system" when no one signed in did it (a label change followed
by the adjudication requests, an import). Before, the page printed the stored Python data,
``{'judge': 4, 'deleted': {...}}``, and the actor as "None" (found by a tester).

Nested objects and lists read as short text: a list shows its first :data:`SHOWN` entries
and how many more; a competing label (``{"pseudonym": …, "label": …}``) reads "pseudonym:
label"; a judge named by id reads by its name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: The actor of an event no signed-in user caused.
SYSTEM = "system"
#: How many entries of a list the text shows; the rest are counted.
SHOWN = 5


def actor_text(event) -> str:
    """Who did it: the user's name, or :data:`SYSTEM`."""
    return SYSTEM if event.actor is None else event.actor.get_username()


def judge_names(events: Iterable) -> dict[int, str]:
    """Names of the judges the events' details name by id only (``judge`` without
    ``judge_name``), read in one query; none when every detail names its judge."""
    wanted = {
        e.detail["judge"]
        for e in events
        if isinstance(e.detail, Mapping)
        and isinstance(e.detail.get("judge"), int)
        and not e.detail.get("judge_name")
    }
    if not wanted:
        return {}
    from judges.models import Judge

    return dict(Judge.objects.filter(pk__in=wanted).values_list("pk", "name"))


def detail_text(detail, judges: Mapping[int, str] | None = None) -> str:
    """``detail`` as "key: value; key: value" (keys in words, nested values as short
    text); a judge id as the judge's name (``judge_name``, else ``judges``)."""
    if not isinstance(detail, Mapping):
        return _value(detail, nested=False)
    fields = dict(detail)
    if "judge" in fields:
        name = fields.pop("judge_name", None) or (judges or {}).get(fields["judge"])
        if name:
            fields["judge"] = f"{name} (id {fields['judge']})"
    return "; ".join(f"{_key(k)}: {_value(v, nested=False)}" for k, v in fields.items())


def _key(key) -> str:
    return str(key).replace("_", " ")


def _value(value, nested: bool = True) -> str:
    """One value as text; ``nested``: inside a list or object, so an object or a list of
    several entries is put in parentheses to keep its commas apart from its neighbours'."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value or "(empty)"
    if isinstance(value, Mapping):
        if set(value) == {"pseudonym", "label"}:  # a competing label
            return f"{value['pseudonym']}: {value['label']}"
        text = ", ".join(f"{_key(k)}: {_value(v)}" for k, v in value.items())
        return f"({text})" if nested and text else text or "(empty)"
    if isinstance(value, list | tuple):
        if not value:
            return "none"
        shown = [_value(v) for v in value[:SHOWN]]
        more = len(value) - SHOWN
        if more > 0:
            shown.append(f"and {more} more")
        joiner = "; " if any(isinstance(v, Mapping | list | tuple) for v in value) else ", "
        text = joiner.join(shown)
        return f"({text})" if nested and len(shown) > 1 else text
    return str(value)
