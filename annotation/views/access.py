"""Role checks for browser pages: a decorator per role, shared by the annotation pages and
the study pages of ``studio`` (which sit above this app and import it, never the reverse)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from annotation import roles


def _role_required(check):
    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not check(request.user):
                raise PermissionDenied("Your role does not allow this page.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


admin_required = _role_required(roles.is_admin)
researcher_required = _role_required(roles.is_researcher)
