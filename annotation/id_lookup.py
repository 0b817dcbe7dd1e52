"""``field__any_of=ids``: a filter by a long list of integer ids as one parameter.

Why: ``field__in=ids`` prepares every id through the field in Django and makes psycopg
scan a query with as many placeholders (about 10 µs per id); one import of a
ResearchQA-scale coverage file filtered by its 21,000 reports five times (issue 16). On
PostgreSQL the ids go as one array, ``= ANY(%s)``, which the planner treats as the same IN
list; elsewhere (SQLite) the lookup is ``IN (%s, …)`` as ``__in`` is. The ids must be
integers (primary or foreign keys); the lookup is registered on every field (and on the
relations, whose lookups do not inherit the fields') by importing this module.
"""

from __future__ import annotations

from django.core.exceptions import EmptyResultSet
from django.db.models import Field, ForeignObject, Lookup


class AnyOf(Lookup):
    lookup_name = "any_of"
    prepare_rhs = False  # a list, not one value of the field

    def as_sql(self, compiler, connection):
        lhs, params = self.process_lhs(compiler, connection)
        ids = list(self.rhs)
        if not ids:  # as ``__in`` does: no row, no query
            raise EmptyResultSet
        if connection.vendor == "postgresql":
            # typed as the column: an int4[] against a bigint column makes the planner
            # filter row by row through the array instead of probing the index with it
            kind = self.lhs.output_field.db_type(connection)
            return f"{lhs} = ANY(%s::{kind}[])", [*params, ids]
        return f"{lhs} IN ({', '.join(['%s'] * len(ids))})", [*params, *ids]


Field.register_lookup(AnyOf)
ForeignObject.register_lookup(AnyOf)
