from django.apps import AppConfig


class JudgesConfig(AppConfig):
    name = "judges"

    def ready(self):
        # The formats whose files carry judge verdicts register in the one import registry
        # (annotation.importers.registry), which sees them without importing upward.
        from . import formats  # noqa: F401
