"""The bulk writers' JSON text (orjson, issue 29) reads back as the value ``json.dumps``
writes, NaN and infinities included, whatever the source."""

import json
import math

import pytest

from annotation.importers.common import _json_text, finite_source

VALUES = [
    {"a": 1.5, "b": None, "c": [1, "é", {"d": True}]},
    ["x", "y"],
    {},
    {1: 2},  # a non-string key: json.dumps's text
    2**70,  # beyond 64 bits
    "lone \ud800 surrogate",
    {"deep": [[[{"x": -0.0}]]]},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_same_value_as_json_dumps(value):
    assert json.loads(_json_text(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_kept(bad):
    value = {"meta": {"score": bad, "note": None}}
    assert _json_text(value) == json.dumps(value)  # "NaN" / "Infinity", not null
    with finite_source('{"a": "NaN in a string"}'):
        assert _json_text(value) == json.dumps(value)  # the word is there: looked for


def test_a_source_without_the_words_is_not_searched(monkeypatch):
    from annotation.importers import common

    looked = []
    monkeypatch.setattr(common, "_non_finite", lambda v: looked.append(v) or False)
    value = {"a": 1, "b": None}
    with finite_source('{"a": 1, "b": null}'):
        assert json.loads(_json_text(value)) == value
    assert looked == []
    with finite_source('{"a": Infinity}'):
        _json_text(value)
    assert looked == [value]
