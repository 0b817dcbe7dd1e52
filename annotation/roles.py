"""Roles are Django groups: admin, researcher, annotator (issue 2).

A superuser counts as admin. Views and API permissions ask these functions, never the
group table directly, so the rule lives in one place.
"""

from django.contrib.auth.models import Group

ADMIN = "admin"
RESEARCHER = "researcher"
ANNOTATOR = "annotator"
ROLES = (ADMIN, RESEARCHER, ANNOTATOR)


def roles_of(user) -> set[str]:
    if not user or not user.is_authenticated:
        return set()
    cached = getattr(user, "_concord_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True)) & set(ROLES)
        if user.is_superuser:
            cached.add(ADMIN)
        user._concord_roles = cached
    return cached


def is_admin(user) -> bool:
    return ADMIN in roles_of(user)


def is_researcher(user) -> bool:
    """Researchers read everything of the studies; admins can do all a researcher can."""
    return bool({ADMIN, RESEARCHER} & roles_of(user))


def is_annotator(user) -> bool:
    return ANNOTATOR in roles_of(user) and hasattr(user, "annotator")


def grant(user, role: str) -> None:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
    group, _ = Group.objects.get_or_create(name=role)
    user.groups.add(group)
    user.__dict__.pop("_concord_roles", None)
