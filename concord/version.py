"""The server's version, for clients (``GET /api/version/``; issue 28).

``api`` is the API contract's version: its major part changes only when a change breaks a
client (a field removed or renamed, a parameter's meaning changed), so a client refuses a
server of another major and works with any minor. Additions (``describe`` and the filters
on judgment lists, the agreement report's ``tables``, the write endpoints) are minor.
"""

from importlib import metadata

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from concord.api_parameters import RefusesUnknownParameters

#: major.minor of the API contract (see the module docstring).
API_VERSION = "1.1"


def server_version() -> str | None:
    """The installed package's version; None when it is not installed (run from a tree)."""
    try:
        return metadata.version("concord")
    except metadata.PackageNotFoundError:
        return None


class VersionView(RefusesUnknownParameters, APIView):
    """The server's package version and the version of its API contract (public: a client
    checks it before it logs in)."""

    permission_classes = [AllowAny]  # the usual authentication: a session's POST is CSRF's 403

    @extend_schema(
        summary="Server and API versions",
        responses=inline_serializer(
            "Version",
            {
                "server": serializers.CharField(allow_null=True),
                "api": serializers.CharField(help_text="major.minor of the API contract"),
            },
        ),
    )
    def get(self, request):
        return Response({"server": server_version(), "api": API_VERSION})
