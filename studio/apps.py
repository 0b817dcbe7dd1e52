from django.apps import AppConfig


class StudioConfig(AppConfig):
    """Study administration and whatever composes annotation, judges and metaeval.

    It sits above the three apps (README "Architecture"): it may import any of them, so the
    layers annotation <- judges <- metaeval stay one-way. Two calls still go up into it: the
    study delete and backup download of annotation's admin and API (README).
    """

    name = "studio"
    verbose_name = "Studio"
