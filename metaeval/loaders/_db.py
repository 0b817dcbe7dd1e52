"""Shared helpers of the loaders: raw-cursor fetch, columns, codes, JSON decoding."""

from __future__ import annotations

import json
from operator import itemgetter

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connection


def fetch(queryset, width: int) -> list[list]:
    """Rows of a ``values_list`` queryset as one list per column, from the raw cursor.

    Why the cursor: the ORM's per-row converters cost more than the query itself at the
    scale of the coverage benchmark (millions of labels). JSON columns come back as text
    on some backends: decode them with :func:`json_values`.
    """
    try:
        sql, params = queryset.query.sql_with_params()
    except EmptyResultSet:  # a filter no row can pass (``__in=[]``): Django runs no query
        return [[] for _ in range(width)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [list(map(itemgetter(i), rows)) for i in range(width)]


def ints(values) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64, count=len(values))


def floats(values) -> np.ndarray:
    """Numbers or None → float array with NaN for None (booleans become 0 / 1)."""
    return np.fromiter(
        (np.nan if v is None else float(v) for v in values), dtype=float, count=len(values)
    )


def codes(values) -> tuple[np.ndarray, list]:
    """Integer codes into the sorted distinct values."""
    labels = sorted(set(values))
    index = {label: i for i, label in enumerate(labels)}
    return np.fromiter((index[v] for v in values), np.int64, len(values)), labels


def json_values(values, empty):
    """Decode JSON columns (text on SQLite, already decoded on PostgreSQL); NULL → ``empty``."""
    out = []
    for v in values:
        if isinstance(v, str | bytes):
            v = json.loads(v)
        out.append(empty() if v is None else v)
    return out


def settings_filter(settings) -> dict:
    return {} if settings is None else {"setting__in": list(settings)}
