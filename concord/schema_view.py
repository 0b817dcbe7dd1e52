"""The OpenAPI schema's view (``/api/schema/``), refusing query parameters it does not read.

drf-spectacular's ``SpectacularAPIView`` reads ``format`` (the renderer: ``json`` or
``yaml``) and ``lang`` (the descriptions' language) and ignored any other name:
``/api/schema/?x=1`` answered 200, as every GET of the API did before it refused unknown
parameters (:mod:`concord.api_parameters`). The schema leaves its own view out, so the
parameters are declared here, and refused in the sentence of every other GET
(:func:`concord.query.refuse_unknown_parameters`).
"""

from drf_spectacular.views import SpectacularAPIView
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import JSONRenderer

from concord.query import refuse_unknown_parameters

#: What the schema view reads from the query string.
SCHEMA_PARAMETERS = frozenset({"format", "lang"})


class SchemaView(SpectacularAPIView):
    """``SpectacularAPIView`` whose GET is a 400 naming a parameter it does not read, in
    JSON whatever format was asked; as :class:`concord.api_parameters.RefusesUnknownParameters`,
    after sign-in and permissions."""

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
