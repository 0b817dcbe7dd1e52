"""OpenAPI schema post-processing: the error answers every operation can give.

drf-spectacular documents the success answers each view declares. The refusals come from
one place for every view (authentication, the role permissions, object scoping, parsing,
throttling) and all have one shape (:mod:`concord.error_body`), so they are added here,
once, instead of on every view: the ``Error`` component, a ``detail`` string always and
``errors`` items (``ErrorItem``: ``file``, ``record``, ``field``, ``message``) when the
refusal is about records or fields; other keys are extra (``code``, ``limit``, a
validation error's ``{field: [messages]}``). Every 4xx and 503 an operation documents gets
that body, its own declaration's description kept. Without them a client (and
schemathesis) would take a 403 for a researcher writing, or a 404 for an annotator reading
another's assignment, as a bug of the API.
"""

ERROR_ITEM = {
    "type": "object",
    "description": "One problem: where (file and record of an upload, field of the request; "
    "null when not about one) and what.",
    "properties": {
        "file": {"type": "string", "nullable": True},
        "record": {"type": "integer", "nullable": True, "description": "1-based record number"},
        "field": {
            "type": "string",
            "nullable": True,
            "description": "a nested field as its path, e.g. `items[0].text`",
        },
        "message": {"type": "string"},
    },
    "required": ["file", "record", "field", "message"],
}
ERROR = {
    "type": "object",
    "description": "Every error answer of the API: `detail` always; `errors` when the refusal "
    "is about records or fields; any other key is extra and never replaces `detail`.",
    "properties": {
        "detail": {"type": "string", "description": "what was refused and why, for a person"},
        "errors": {
            "type": "array",
            "items": {"$ref": "#/components/schemas/ErrorItem"},
            "description": "every problem, when the refusal is about records or fields",
        },
    },
    "required": ["detail"],
    "additionalProperties": True,
}


def _error(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


VALIDATION_ERROR = _error(
    "The request was invalid: `detail`, and `errors` naming each field or record and its problem."
)

COMMON = {
    "401": _error("No valid credentials (a bad or expired token)."),
    "403": _error("Not logged in, or the role does not allow this."),
    "404": _error("No such object, or one this user may not see."),
    "405": _error("The method is not allowed here."),
    "406": _error("None of the accepted response types can be produced."),
    "415": _error("The request body's content type is not accepted."),
    "429": _error(
        "Too many requests (the throttled operations: reports, imports, token "
        "login); retry after Retry-After."
    ),
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
    """``POSTPROCESSING_HOOKS`` entry: document the shared error answers on every operation,
    every error answer with the one body (``Error``), a view's own words kept."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"], schemas["ErrorItem"] = ERROR, ERROR_ITEM
    for path, item in result.get("paths", {}).items():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            if path.rstrip("/").endswith("auth/token"):
                responses.setdefault("429", _error("Locked out after repeated failed logins."))
            responses.setdefault("400", VALIDATION_ERROR)
            if "requestBody" in operation:
                responses.setdefault("413", _error("The request body is larger than the server "
                                                   "accepts (`limit`: the bytes it accepts)."))  # fmt: skip
            for code, response in COMMON.items():
                responses.setdefault(code, response)
            for code, response in responses.items():
                if str(code).startswith("4") or str(code) == "503":
                    # a copy each: the body of every error answer, the view's words kept
                    responses[code] = _error(response.get("description") or "Refused.")
    return result


# --- Operation summaries and descriptions written for the API's users ------------------------
# drf-spectacular falls back on docstrings, which are written for developers (and inherited:
# every viewset showed RoleViewSet's "A model viewset whose queryset…"). ConcordAutoSchema
# (settings' DEFAULT_SCHEMA_CLASS) gives every operation a summary and a description: an
# ``extend_schema`` text wins; then :data:`OPERATIONS`; then, for a viewset, the viewset's own
# docstring (never an inherited one) followed by who may do the action.

from inspect import cleandoc  # noqa: E402

from drf_spectacular.openapi import AutoSchema  # noqa: E402

ROLE_RULES = {
    "list": (
        "List {plural}",
        "Paginated with `limit` and `offset`. Researchers read the studies they were added "
        "to, admins every study{annotators}.",
    ),
    "retrieve": (
        "Read one {name}",
        "Something you may not read answers 404, as if it did not exist{annotators}.",
    ),
    "create": ("Create a {name}", "Admins only; a researcher or an annotator gets 403."),
    "update": ("Replace a {name}", "Admins only: every writable field is sent."),
    "partial_update": ("Change fields of a {name}", "Admins only: send only the fields to change."),
    "destroy": (
        "Delete a {name}",
        "Admins only. A delete that would take expert work with it (judgments, drafts, their "
        "history) is refused with 409 and changes nothing.",
    ),
}
ANNOTATOR_RULE = {
    "list": "; an annotator lists only what belongs to their own assignments, blinded (no "
    "system names, reports by public id)",
    "retrieve": "; an annotator reads only what belongs to their own assignments",
}

#: (view class, HTTP method, action or None) -> (summary, description) of the plain API views.
OPERATIONS = {
    ("ObtainAuthToken", "post", None): (
        "Get your API token",
        "Exchange a user name and password for the account's API token. Send it on every "
        "API call and file download as `Authorization: Token <key>`. An expired token is "
        "replaced by a new one; this call reads no `Authorization` header, so one sent "
        "along changes nothing. Repeated failed logins "
        "lock the user name out from this address for a while (429).",
    ),
    ("StudyViewSet", "post", "import_file"): (
        "Import a file into a study",
        "Upload questions, reports or pairwise judgments (ScholarQA-CS2, ResearchQA, "
        "ResearcherBench, DeepScholar formats). The whole file is checked first: when any "
        "record has a problem nothing is written and every problem is listed with its record "
        "and field. `dry_run` checks and counts without writing. Admins only.",
    ),
    ("AgreementView", "get", None): (
        "Agreement report of a study",
        "Human–judge agreement of a study, computed now: inter-annotator agreement, pairwise "
        "preference and metric-wise agreement per metric (agreement rate, Kendall τ-b, "
        "thresholds, tie rates), the system ranking and notes for every figure that is not "
        "defined. The query parameters choose the judge, systems, setting, tie strategy, "
        "calibration and bootstrap; with `bootstrap` > 0 prefer `POST /api/report-runs/`. "
        "Researchers of the study and admins.",
    ),
    ("JudgeAlignmentView", "get", None): (
        "Every judge against the experts",
        "One row per judge of the study with its preference agreement and τ-b per metric "
        "(ScholarQA-CS2 Table 5), on all expert judgments and on those where the experts "
        "agreed, its system-level τ-b, and the cross-judge Pearson correlation of overall "
        "scores (Fig. 10). Researchers of the study and admins.",
    ),
    ("ReportRunListView", "post", None): (
        "Start a report run",
        "Compute an agreement report in the background (for bootstrap intervals, which take "
        "a while). Answers 202 with the run; poll `GET /api/report-runs/{run_id}/` until "
        "its status is `done`, then read its `result`.",
    ),
    ("ReportRunDetailView", "get", None): (
        "Read a report run",
        "The run's status and, once done, the report it computed (the same shape as the "
        "agreement report).",
    ),
    ("JudgeRunListView", "get", None): (
        "List judge runs",
        "The LLM-judge runs of the studies you read, newest first, with their progress, "
        "request and token counts and cost.",
    ),
    ("JudgeRunListView", "post", None): (
        "Start a judge run",
        "Run a judge over a study's reports for the chosen tasks (coverage, pairwise, "
        "relevance, citations). Answers 202 with the run; poll it for progress. Admins only.",
    ),
    ("JudgeRunDetailView", "get", None): (
        "Read a judge run",
        "A judge run's status, progress, counts of requests, cache hits, tokens and cost.",
    ),
    ("JudgeRunActionView", "post", "resume"): (
        "Resume a judge run",
        "Continue a stopped or failed run where it stopped; failed units are retried. Admins only.",
    ),
    ("JudgeRunActionView", "post", "cancel"): (
        "Cancel a judge run",
        "Stop a queued or running run; what was judged so far is kept. Admins only.",
    ),
}

#: Words of developers' docstrings that must never reach the API's users (tests check).
INTERNAL_WORDS = ("A model viewset whose queryset", "queryset", "serializer", "``", "viewset")


def _model_names(view) -> tuple[str, str] | None:
    queryset = getattr(view, "queryset", None)
    if queryset is None:
        return None
    meta = queryset.model._meta
    return str(meta.verbose_name), str(meta.verbose_name_plural)


class ConcordAutoSchema(AutoSchema):
    """AutoSchema with a user-facing summary and description on every operation."""

    def _texts(self) -> tuple[str, str]:
        view_name = type(self.view).__name__
        action = getattr(self.view, "action", None)
        for key in ((view_name, self.method.lower(), action), (view_name, self.method.lower(), None)):  # fmt: skip
            if key in OPERATIONS:
                return OPERATIONS[key]
        names = _model_names(self.view)
        own = type(self.view).__dict__.get("__doc__")
        intro = cleandoc(own) if own else ""
        if names and action in ROLE_RULES:
            name, plural = names
            plural = plural[:-2] + "ies" if plural.endswith("ys") else plural
            summary, rule = ROLE_RULES[action]
            annotators = ANNOTATOR_RULE.get(action, "") if getattr(self.view, "annotator_readable", False) else ""  # fmt: skip
            text = rule.format(annotators=annotators)
            summary = summary.replace("a {name}", "an {name}") if name[0] in "aeiou" else summary
            return summary.format(name=name, plural=plural), f"{intro}\n\n{text}".strip()
        return "", intro

    def get_summary(self):
        return super().get_summary() or self._texts()[0] or None

    def get_description(self):
        action = getattr(self.view, "action", None)
        method = getattr(self.view, action or "", None)
        doc = getattr(method, "__doc__", None) if action not in ROLE_RULES else None
        if doc and type(self.view).__module__.split(".")[0] in ("annotation", "judges", "metaeval"):
            return cleandoc(doc)
        return self._texts()[1]
