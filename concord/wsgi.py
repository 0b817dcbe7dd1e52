"""The WSGI application (gunicorn ``concord.wsgi:application``, ``runserver``).

The URL configuration, and the view modules it names, are imported here rather than at the
first request: under ``gunicorn --preload`` (``make serve``, the image) this module runs
once in the master before it forks, so the workers share those pages instead of each
importing a copy of its own (issue 29, bench/README.md ``worker_memory.py``: the tree's PSS
after annotators' requests 265 -> 224 MB with 3 workers). Without ``--preload`` each worker
imports them at its start instead of in its first request. The report views stay out of
it (``concord.lazy_views``).
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
application = get_wsgi_application()


def _import_urls() -> None:
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every URL module and its views


_import_urls()
