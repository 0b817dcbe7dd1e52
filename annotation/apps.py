from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_migrate, pre_save

        from concord.throttles import create_cache_table
        from concord.tokens import revoke_on_password_change

        post_migrate.connect(create_cache_table, sender=self, dispatch_uid="cache-table")

        pre_save.connect(
            revoke_on_password_change, sender=get_user_model(), dispatch_uid="revoke-token"
        )
