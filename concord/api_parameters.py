"""Every GET of the API refuses a query parameter it does not read, as its lists do.

The lists refuse theirs where they page (:mod:`concord.pagination`), the downloads where
their methods are checked (:mod:`concord.download_methods`). A single object's GET
(``retrieve``), an action (a study's progress) and the plain API views (the version, a
judge run, a report run) ignored any: ``/api/questions/3/?fields=text`` answered the whole
question as if ``fields`` had chosen, and a typo'd option looked taken.

What a GET reads is declared once, where its clients read it: the parameters its OpenAPI
operation documents (``extend_schema``'s, the paginator's, the filter backends'), and DRF's
``format`` (the renderer, left out of the schema on purpose, issue 28). Anything else is
a 400 naming it and those, in the lists' sentence (:func:`concord.query.refuse_unknown_parameters`).
A parameter a view reads and the schema does not document is refused too, so the two
cannot drift apart (``tests/test_api_parameters.py`` walks every GET route of the schema).

The check runs in DRF's ``initial``, after sign-in, permissions and throttles: a caller
refused there learns nothing of the parameters. Two kinds of GET are left to the check of
their own, which answers in its own shape: a list (by the caller's role: an annotator is
not told of ``system``, :func:`concord.query.accepted`), and a view whose options are a
declaration of their own that already refuses unknown names (:func:`checks_own_parameters`:
the report options, an export writer's), as :data:`concord.download_methods.CHECKED_BY_VIEW`.
"""

from __future__ import annotations

import threading
from functools import cache

from concord.query import refuse_unknown_parameters

#: Set on a view method (``get``, an action) whose own declaration refuses unknown names.
OWN_CHECK = "checks_own_parameters"

_lock = threading.Lock()


def checks_own_parameters(method):
    """Mark a view's ``get`` or action as refusing unknown query parameters itself (module
    doc): its declaration is the schema's source too, so the two say the same."""
    setattr(method, OWN_CHECK, True)
    return method


@cache
def documented(callback, method: str) -> frozenset[str]:
    """The query parameters the schema documents for ``method`` of the route whose view is
    ``callback`` (as the URL resolver holds it: the schema generator's input), computed
    once per route by drf-spectacular, as the schema view does."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.plumbing import ComponentRegistry

    with _lock:  # the view class's schema inspector is shared while it is read
        generator = SchemaGenerator()  # holds the view's schema (a weak proxy) while read
        view = generator.create_view(callback, method)
        operation = view.schema.get_operation("/", "", "", method, ComponentRegistry()) or {}
    return frozenset(p["name"] for p in operation.get("parameters", ()) if p["in"] == "query")


def accepted_by(view, request) -> frozenset[str]:
    """What ``view`` reads for ``request``'s GET: its documented parameters and ``format``."""
    from rest_framework.settings import api_settings

    callback = request.resolver_match.func
    names = documented(callback, request.method if request.method != "HEAD" else "GET")
    if api_settings.URL_FORMAT_OVERRIDE:
        names |= {api_settings.URL_FORMAT_OVERRIDE}
    return names


def checked_elsewhere(view, request) -> bool:
    """A list (checked where it pages) or a view that checks its own (module doc)."""
    action = getattr(view, "action", None)
    if action == "list":
        return True
    handler = getattr(view, action or request.method.lower(), None)
    return getattr(handler, OWN_CHECK, False)


class RefusesUnknownParameters:
    """Mixin of every API view (before ``APIView`` in its bases): a GET or HEAD with a
    query parameter its schema does not document is a 400 naming it (module doc)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method not in ("GET", "HEAD") or getattr(self, "get", None) is None:
            return  # not a GET, or one the view does not answer (DRF's 405 follows)
        if getattr(request, "resolver_match", None) is None:
            return  # called without the URL resolver (a test's request factory)
        if request.query_params and not checked_elsewhere(self, request):
            refuse_unknown_parameters(request.query_params, accepted_by(self, request))
