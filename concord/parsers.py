"""DRF's JSON parser, refusing what ``json`` cannot take with a 400 instead of a 500.

``json.loads`` raises RecursionError on a body of a few thousand nested brackets; DRF only
turns ValueError into a parse error (issue 12, "500s found").
"""

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
