"""API pagination with a ceiling: ``?limit=10000000`` cannot make one answer hold a table."""

from django.conf import settings
from rest_framework import pagination


class LimitOffsetPagination(pagination.LimitOffsetPagination):
    @property
    def max_limit(self) -> int:
        return settings.CONCORD_API_MAX_LIMIT
