from django.apps import AppConfig


class MetaevalConfig(AppConfig):
    name = "metaeval"
    verbose_name = "Meta-evaluation"
