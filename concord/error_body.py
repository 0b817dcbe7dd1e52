"""The one shape of every error answer of the API, and of the JSON refusals of the file
downloads (an API client's: a token, or ``Accept: application/json``).

::

    {"detail": "One sentence a person reads.",
     "errors": [{"file": …, "record": …, "field": …, "message": "…"}, …],
     …}

* ``detail`` (always): a string saying what was refused and why; for problems with
  records or fields, the first few of them (:func:`summary`).
* ``errors`` (when the refusal is about records or fields: a bad import record, an option,
  a query parameter, a serializer field): every problem, each with the same four keys, those
  of an importer's problem (``annotation.importers.base.Problem``): ``file`` and ``record``
  (null when the problem is not in an uploaded file), ``field`` (null for the request as a
  whole; a nested field as ``items[0].text``) and ``message``.
* anything else is an extra machine key that never replaces ``detail`` (``code`` of the
  503, ``limit`` of the 413); DRF's ``{field: [messages]}`` keys of a validation error stay
  beside ``errors``, so a client that read them still does.

Why one shape: a researcher's client had four to special-case (``detail``; ``errors``
without ``detail``, some with ``file``/``record`` and some without; a bare field map;
``options``), and a refusal it did not foresee showed as an empty message. Every error
response is built here: DRF's exceptions by :func:`exception_handler` (settings'
``EXCEPTION_HANDLER``), the views' own answers by :func:`api_error` (DRF) and
:func:`error_response` (plain Django, the middleware and the downloads). The OpenAPI schema
documents it once (:mod:`concord.api_schema`, components ``Error`` and ``ErrorItem``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.http import JsonResponse
from rest_framework.exceptions import ValidationError

#: The keys of every item of ``errors``, in order: an importer's problem's.
ITEM_KEYS = ("file", "record", "field", "message")
#: How many problems ``detail`` spells out; ``errors`` lists them all.
SHOWN = 3
#: DRF's key for the errors of a serializer as a whole: no field of the request.
NON_FIELD = "non_field_errors"


def item(message, field=None, record=None, file=None) -> dict:
    """One problem, with every key of :data:`ITEM_KEYS`. No field is null, never ``""``
    (a "nothing to export" said ``"field": ""``, a tester)."""
    return {"file": file, "record": record, "field": field or None, "message": str(message)}


def as_items(problems: Iterable) -> list[dict]:
    """Problems as items: dicts (an importer's ``Problem`` as a dict, or fewer keys),
    objects with the four attributes (``Problem``) or ``(field, message)`` pairs."""
    out = []
    for p in problems:
        if isinstance(p, Mapping):
            out.append(item(p.get("message", ""), p.get("field"), p.get("record"), p.get("file")))
        elif hasattr(p, "message"):
            out.append(item(p.message, getattr(p, "field", None), getattr(p, "record", None),
                            getattr(p, "file", None)))  # fmt: skip
        else:
            field, message = p
            out.append(item(message, field))
    return out


def describe(problem: dict) -> str:
    """One problem in one line: where (file, record, field), then the message."""
    where = []
    if problem.get("file"):
        where.append(str(problem["file"]))
    if problem.get("record") is not None:
        where.append(f"record {problem['record']}")
    if problem.get("field"):
        where.append(str(problem["field"]))
    return f"{', '.join(where)}: {problem['message']}" if where else problem["message"]


def summary(errors: list[dict]) -> str:
    """``detail`` for a list of problems: the first :data:`SHOWN`, then how many more."""
    if not errors:
        return "The request was refused."
    said = "; ".join(describe(e) for e in errors[:SHOWN])
    if len(errors) == 1:
        return said
    more = len(errors) - SHOWN
    tail = f"; … and {more} more (see errors)" if more > 0 else ""
    return f"{len(errors)} problems: {said}{tail}"


def error_body(detail: str | None = None, errors: Iterable | None = None, **extra) -> dict:
    """The body of an error answer (module doc). ``detail`` defaults to the
    :func:`summary` of ``errors``; ``extra`` keys come after and cannot replace
    ``detail`` or ``errors``."""
    items = as_items(errors) if errors is not None else None
    body = {"detail": str(detail) if detail else summary(items or [])}
    if items:
        body["errors"] = items
    for key, value in extra.items():
        if key not in ("detail", "errors"):
            body[key] = value
    return body


def api_error(detail: str | None = None, status: int = 400, errors=None, **extra):
    """A DRF ``Response`` refusing, in the one shape (a view of the API)."""
    from rest_framework.response import Response

    return Response(error_body(detail, errors, **extra), status=status)


def error_response(detail: str | None = None, status: int = 400, errors=None,
                   **extra) -> JsonResponse:  # fmt: skip
    """A Django ``JsonResponse`` refusing, in the one shape (middleware, downloads)."""
    return JsonResponse(error_body(detail, errors, **extra), status=status)


class Refused(ValidationError):
    """A refusal raised in a view of the API whose body is the one shape as given (DRF's
    ``ValidationError`` turns every value into strings: a null ``record`` became "None").
    A ``ValidationError``, so code that catches those (the schema view) still does."""

    def __init__(self, detail: str | None = None, errors=None, status: int = 400, **extra):
        self.body = error_body(detail, errors, **extra)
        super().__init__(self.body["detail"])
        self.status_code = status


def _flatten(data, field: str | None, out: list[dict]) -> None:
    """DRF's error data (messages, lists, nested field maps) as items, a nested field
    named by its path (``items[0].text``, ``options.bootstrap``)."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            name = None if key == NON_FIELD else str(key)
            _flatten(value, f"{field}.{name}" if field and name else (name or field), out)
    elif isinstance(data, (list, tuple)):
        if any(isinstance(v, (Mapping, list, tuple)) for v in data):  # one per list element
            for i, value in enumerate(data):
                _flatten(value, f"{field}[{i}]" if field else f"[{i}]", out)
        else:
            out.extend(item(message, field) for message in data)
    elif data is not None:
        out.append(item(data, field))


def from_drf(data) -> dict:
    """DRF's error data (``exc.detail``: ``{"detail": …}``, a field map, a list of
    messages) in the one shape. A field map's keys stay beside ``errors`` (module doc)."""
    if isinstance(data, Mapping):
        said = data.get("detail")
        if isinstance(said, (list, tuple)):
            said = "; ".join(map(str, said))
        rest = {k: v for k, v in data.items() if k not in ("detail", "errors")}
        if said is not None:  # DRF's own {"detail": …} (with e.g. a code): kept as it is
            return {"detail": str(said), **{k: _plain(v) for k, v in rest.items()}}
        items: list[dict] = []
        _flatten(rest, None, items)
        if isinstance(data.get("errors"), (list, tuple)):
            items = as_items(data["errors"]) + items
        return error_body(None, items, **{k: _plain(v) for k, v in rest.items()})
    if isinstance(data, (list, tuple)):
        items = []
        _flatten(list(data), None, items)
        return error_body("; ".join(i["message"] for i in items) or None)
    return error_body(str(data))


def _plain(value):
    """DRF's ``ErrorDetail`` strings (and lists, maps of them) as plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, str) else value


def exception_handler(exc, context):
    """DRF's handler (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``), its body in the one shape:
    a :class:`Refused` as built, every other refusal through :func:`from_drf`."""
    from rest_framework.views import exception_handler as drf_handler

    response = drf_handler(exc, context)
    if response is None:
        return None
    body = getattr(exc, "body", None)
    response.data = body if isinstance(body, dict) else from_drf(response.data)
    return response
