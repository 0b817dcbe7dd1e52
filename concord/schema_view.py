"""The OpenAPI schema's view (``/api/schema/``), refusing query parameters it does not read.

drf-spectacular's ``SpectacularAPIView`` reads ``format`` (the renderer: ``json`` or
``yaml``) and ``lang`` (the descriptions' language) and ignored any other name:
``/api/schema/?x=1`` answered 200, as every GET of the API did before it refused unknown
parameters (:mod:`concord.api_parameters`). The schema leaves its own view out, so the
parameters are declared here, and refused in the sentence of every other GET
(:func:`concord.query.refuse_unknown_parameters`).
"""

import threading

from drf_spectacular.plumbing import OpenApiGeneratorExtension
from drf_spectacular.views import SpectacularAPIView
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer

from concord.query import refuse_unknown_parameters

#: What the schema view reads from the query string.
SCHEMA_PARAMETERS = frozenset({"format", "lang"})


#: One schema built at a time in this process (see :func:`load_extensions`).
GENERATING = threading.Lock()


def _extensions(base=OpenApiGeneratorExtension):
    for cls in base.__subclasses__():
        yield cls
        yield from _extensions(cls)


def load_extensions() -> None:
    """Load every registered drf-spectacular extension's target class now. drf-spectacular
    loads them lazily while it builds a schema, and that loader is not thread-safe: two
    requests building the schema at once under a threaded server (``runserver``,
    gunicorn's gthread) let one read ``None`` where the other had just failed to import an
    optional target, and ``/api/schema/`` answered 500 ``'NoneType' object has no attribute
    'startswith'`` (a tester opening the API docs; tfranzel/drf-spectacular#1122, #1123).
    Called under :data:`GENERATING`, which also keeps the generator's other shared state to
    one request at a time."""
    for cls in _extensions():
        if isinstance(cls.target_class, str):
            cls._load_class()


class SchemaView(SpectacularAPIView):
    """``SpectacularAPIView`` whose GET is a 400 naming a parameter it does not read, in
    JSON whatever format was asked; as :class:`concord.api_parameters.RefusesUnknownParameters`,
    after sign-in and permissions."""

    def _get_schema_response(self, request):
        with GENERATING:
            load_extensions()
            return super()._get_schema_response(request)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method not in ("GET", "HEAD"):
            return
        try:
            refuse_unknown_parameters(request.query_params, SCHEMA_PARAMETERS)
        except ValidationError:
            # in JSON, as every other GET's: the schema's YAML renderer writes DRF's
            # error string as a tagged object ({string: ..., code: invalid})
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
            raise
