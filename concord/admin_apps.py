"""The admin app, installed instead of ``django.contrib.admin`` so that ``admin.site`` is
:class:`concord.admin_site.ConcordAdminSite` (the admin role only). Kept apart from the site:
an app config module must not import models."""

from django.contrib.admin.apps import AdminConfig


class ConcordAdminConfig(AdminConfig):
    default_site = "concord.admin_site.ConcordAdminSite"
