"""How the API picks a response renderer: DRF's rules, but ``?format=`` naming no renderer
of the endpoint is a 400 naming it and the formats the endpoint answers.

DRF answered such a request 404 "Not found." (``/api/judgments/rubric-coverage/?format=csv``,
found by a tester with a researcher's token), which reads as a wrong URL, not a wrong
format. A format suffix in the path (``/api/questions.csv``) stays a 404: the path is what
names nothing there.
"""

from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation

from concord.query import one_value


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        name = self.settings.URL_FORMAT_OVERRIDE
        given = one_value(request.query_params, name) if name and not format_suffix else None
        if given and not any(renderer.format == given for renderer in renderers):
            known = ", ".join(sorted({renderer.format for renderer in renderers}))
            raise ValidationError(
                {name: f"Unknown format {given!r}; this endpoint answers: {known}."}
            )
        return super().select_renderer(request, renderers, format_suffix)
