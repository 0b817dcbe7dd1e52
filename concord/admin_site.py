"""The Django admin answers only to the admin role (issue 12).

Django's own admin lets in every active ``is_staff`` user and leaves the rest to model
permissions; its custom views (our "Import data" page) are guarded by ``is_staff`` alone. A
staff user without the admin role could therefore import judgments into any study and
overwrite an annotator's submitted work. The rule of :mod:`annotation.roles` is the one rule:
the admin site requires the admin role as well as ``is_staff``, and a signed-in user without
it gets 403 on every admin page (the login form included) instead of Django's "log in again".
"""

from functools import wraps

from django.contrib import admin
from django.core.exceptions import PermissionDenied

from annotation import roles

REFUSAL = "The admin pages are for users with the admin role."


class ConcordAdminSite(admin.AdminSite):
    site_header = "Concord administration"

    def has_permission(self, request) -> bool:
        return super().has_permission(request) and roles.is_admin(request.user)

    def _refuse_signed_in(self, request) -> None:
        user = request.user
        if user.is_authenticated and not self.has_permission(request):
            raise PermissionDenied(REFUSAL)

    def admin_view(self, view, cacheable=False):
        inner = super().admin_view(view, cacheable)

        @wraps(view)
        def guarded(request, *args, **kwargs):
            self._refuse_signed_in(request)
            return inner(request, *args, **kwargs)

        return guarded

    def login(self, request, extra_context=None):
        self._refuse_signed_in(request)
        return super().login(request, extra_context)
