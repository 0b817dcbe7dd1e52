"""JSON kept as text: :class:`JSONText`.

Why (issue 29): a report's released record (~8 KB), its sources (~2 KB) and a paragraph's
anchors are written once by an import and read back whole; no query looks inside them.
Stored as ``jsonb`` on PostgreSQL, every import paid the server's conversion of each value
to binary JSON (0.5 s of server CPU per 3,000 reports, more than Label Studio's whole
import of the same texts); on SQLite a ``JSON_VALID`` check parsed each value once more.
As text, the database stores what the import wrote (PostgreSQL still compresses it, lz4
where it can: migration 0020), and Python reads it as it always did.

The one lookup on these columns is equality with a whole value (``original={}``): the
text written for a value is the text compared (:func:`json.dumps` on both sides, the
bulk writers' orjson text for an empty container is the same ``{}`` / ``[]``). Lookups
inside the JSON (``original__key``, ``contains``) are refused: they need ``jsonb``.
"""

from __future__ import annotations

import json

import orjson
from django.core.exceptions import FieldError
from django.db import models


class JSONText(models.JSONField):
    """A ``JSONField`` whose column is ``text`` on every database (see module doc)."""

    def db_type(self, connection):
        return "text"

    def db_check(self, connection):
        return None  # no JSON_VALID on SQLite: the value was encoded as JSON by Python

    def get_db_prep_value(self, value, connection, prepared=False):
        if not prepared:
            value = self.get_prep_value(value)
        if value is None or hasattr(value, "as_sql"):
            return value
        return json.dumps(value, cls=self.encoder)

    def get_transform(self, name):
        raise FieldError(
            f"{self.model.__name__}.{self.name} is JSON kept as text: no lookup inside it "
            f"({name!r})"
        )

    def get_lookup(self, lookup_name):
        if lookup_name not in ("exact", "isnull", "in"):
            return None
        return models.TextField().get_lookup(lookup_name)


def same_text(a, b) -> bool:
    """Whether two values of a :class:`JSONText` column are stored as the same text: what a
    re-import compares a kept released record by. A dict's ``==`` sees neither ``2`` vs
    ``2.0`` (nor ``1`` vs ``True``) nor a change of key order, which the export writes back
    (the file released): such a change would be counted unchanged and never stored.

    Equal exactly when ``json.dumps(a) == json.dumps(b)``, but encoded by orjson (a
    report's released record is ~7 KB, and a re-import compares every report's: json.dumps
    twice cost ~150 us a report, orjson ~5). orjson writes NaN and ±Infinity as ``null``,
    so its equal texts are trusted only when the values are also ``==`` (NaN vs ``None``
    is not); otherwise, and for what orjson refuses, ``json.dumps`` decides."""
    try:
        texts = orjson.dumps(a, option=_EXACT), orjson.dumps(b, option=_EXACT)
    except TypeError:  # orjson.JSONEncodeError: non-string keys, big ints, surrogates…
        return json.dumps(a) == json.dumps(b)
    if texts[0] != texts[1]:
        return False
    return a == b or json.dumps(a) == json.dumps(b)


#: orjson refuses what ``json.dumps`` refuses too (no native dates or dataclasses), so
#: :func:`same_text` never calls equal what the column could not store.
_EXACT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
