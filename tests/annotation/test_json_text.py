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


@pytest.mark.django_db
def test_json_kept_as_text_compares_whole_values_and_refuses_lookups_inside():
    """``JSONText`` (the report's record, sources, anchors): equality with a whole value
    finds the rows; a lookup inside the JSON, which needs ``jsonb``, is refused by name."""
    from django.core.exceptions import FieldError

    from annotation.models import Report
    from tests.builders.content import make_question, make_study

    question = make_question(make_study("Text JSON"), n_reports=2)
    first, second = question.reports.order_by("pk")
    Report.objects.filter(pk=second.pk).update(original={"released": {"a": 1}})
    assert list(Report.objects.filter(original={}).values_list("pk", flat=True)) == [first.pk]
    assert Report.objects.get(pk=second.pk).original == {"released": {"a": 1}}
    with pytest.raises(FieldError, match="JSON kept as text"):
        Report.objects.filter(original__released=1).count()
    with pytest.raises(FieldError):
        Report.objects.filter(citations__contains=[{"key": "1"}]).count()


#: Pairs :func:`same_text` must judge as ``json.dumps`` would: a type or key order apart,
#: NaN / infinity against null (orjson writes all three as null), what orjson refuses.
PAIRS = [
    ({"a": 1}, {"a": 1.0}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ({"a": True}, {"a": 1}),
    ({"a": "1"}, {"a": 1}),
    ({"a": math.nan}, {"a": None}),
    ({"a": math.inf}, {"a": math.nan}),
    ({"a": math.nan}, {"a": float("nan")}),
    ({"a": -0.0}, {"a": 0.0}),
    ({"a": 2**70}, {"a": 2**70}),
    ({"a": 2**70}, {"a": float(2**70)}),
    ({1: 2}, {"1": 2}),
    ({"a": [1, "é", None]}, {"a": [1, "é", None]}),
    ({}, None),
    (None, None),
]


@pytest.mark.parametrize("a, b", PAIRS, ids=range(len(PAIRS)))
def test_same_text_is_json_dumps_equality(a, b):
    from annotation.models.jsontext import same_text

    assert same_text(a, b) is (json.dumps(a) == json.dumps(b))
    assert same_text(b, a) is (json.dumps(b) == json.dumps(a))
