"""API pagination with a ceiling: ``?limit=10000000`` cannot make one answer hold a table.

Every list of the API pages through this class (``DEFAULT_PAGINATION_CLASS``), so its
rules hold for all of them: ``limit`` is a whole number from 1 (above
``CONCORD_API_MAX_LIMIT`` it is that ceiling), ``offset`` a whole number from 0. Anything
else (``limit=-5``, ``limit=0``, ``offset=-1``, ``limit=ten``) is a 400 naming the
parameter. DRF's own class read such a value as "not given" and answered the default page
(``limit=-5`` gave 100 rows), which looked like an answer to what was asked.

Where every list pages, a query parameter the list does not read (``?settting=`` for
``setting``, ``?stauts=``) is refused, a 400 naming it with the accepted ones
(:func:`concord.query.accepted`): ignored, it answered every row as if filtered.
"""

from django.conf import settings
from rest_framework import pagination
from rest_framework.exceptions import ValidationError

from concord.query import accepted, one_value, refuse_unknown_parameters


def _whole_number(request, name: str, least: int) -> int | None:
    """The parameter ``name`` as a whole number of at least ``least`` (None when absent or
    empty); anything else is a 400 naming it."""
    raw = one_value(request.query_params, name)
    if raw in (None, ""):
        return None
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = None
    if value is None or value < least:
        raise ValidationError({name: f"Must be a whole number from {least}, not {raw!r}."})
    return value


class LimitOffsetPagination(pagination.LimitOffsetPagination):
    def paginate_queryset(self, queryset, request, view=None):
        """The page, once every query parameter is one the list reads (module doc)."""
        refuse_unknown_parameters(request.query_params, accepted(view, self))
        return super().paginate_queryset(queryset, request, view)

    @property
    def max_limit(self) -> int:
        return settings.CONCORD_API_MAX_LIMIT

    def get_limit(self, request):
        limit = _whole_number(request, self.limit_query_param, 1)
        if limit is None:
            return self.default_limit
        return min(limit, self.max_limit)

    def get_offset(self, request):
        return _whole_number(request, self.offset_query_param, 0) or 0
