from django.apps import AppConfig


class StudioConfig(AppConfig):
    """Study administration and whatever composes annotation, judges and metaeval.

    It sits above the three apps (README "Architecture"): it may import any of them, so the
    layers annotation <- judges <- metaeval stay one-way; nothing below imports it. It must be
    installed after annotation: ``studio.admin`` re-registers annotation's study admin.
    """

    name = "studio"
    verbose_name = "Studio"
