"""OpenAPI schema post-processing: the error answers every operation can give.

drf-spectacular documents the success answers each view declares. The refusals come from
one place for every view (authentication, the role permissions, object scoping, parsing,
login throttling) and have one of two shapes, so they are added here, once, instead of on
every view: ``{"detail": "..."}`` for 401/403/404/405/415/429, and for 400 either that or
DRF's ``{"field": ["problem", ...]}``. Without them a client (and schemathesis) would take a
403 for a researcher writing, or a 404 for an annotator reading another's assignment, as a
bug of the API.
"""

ERROR = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
VALIDATION_ERROR = {
    "description": "The request was invalid: ``detail``, or each field with its problems.",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "additionalProperties": {
                    "oneOf": [
                        {"type": "string"},
                        {"type": "array", "items": {}},
                        {"type": "object"},
                    ]
                },
            }
        }
    },
}


def _error(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


COMMON = {
    "401": _error("No valid credentials (a bad or expired token)."),
    "403": _error("Not logged in, or the role does not allow this."),
    "404": _error("No such object, or one this user may not see."),
    "405": _error("The method is not allowed here."),
    "406": _error("None of the accepted response types can be produced."),
    "415": _error("The request body's content type is not accepted."),
    "503": _error("The database is unavailable; nothing was changed. Retry after Retry-After."),
}

#: Components named ``<Model>Blinded`` document a read answered in two shapes (staff / the
#: annotator's blinded view, ``annotation.api.blinded``).
BLINDED_SUFFIX = "Blinded"


def any_of_for_blinded(result, generator, request, public):
    """``POSTPROCESSING_HOOKS`` entry: a blinded component is ``anyOf`` its two shapes.

    drf-spectacular writes a polymorphic proxy as ``oneOf``, which demands that exactly one
    shape match; a staff answer has every field the blinded shape requires, so it matches
    both and ``oneOf`` would wrongly reject it."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith(BLINDED_SUFFIX) and "oneOf" in component:
            component["anyOf"] = component.pop("oneOf")
    return result


def add_error_responses(result, generator, request, public):
    """``POSTPROCESSING_HOOKS`` entry: document the shared error answers on every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    for path, item in result.get("paths", {}).items():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            responses.setdefault("400", VALIDATION_ERROR)
            for code, response in COMMON.items():
                responses.setdefault(code, response)
            if path.rstrip("/").endswith("auth/token"):
                responses.setdefault("429", _error("Locked out after repeated failed logins."))
    return result
