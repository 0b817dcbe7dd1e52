"""Views that a URL configuration names by dotted path, imported at their first request.

Why: Django imports the whole URL configuration when a process resolves its first URL,
and with it every view module named there and everything those modules import. The report
pages and the agreement API import the statistics (numpy, scipy, pandas, matplotlib),
about 130 MB of a process; named directly in the URL configuration, they were in every
gunicorn worker after its first annotator's task page, which needs none of them (issue 29:
a worker at ~190 MB after one task page, ~65 MB once the application is loaded). A URL
module names such a view with :func:`lazy_view`; its module is imported when one of its
URLs is first requested (or the API schema is generated), in that process only.

What Django and its add-ons read from a view *before* calling it is forwarded to the real
view (importing it): ``csrf_exempt`` (the CSRF middleware; DRF's views are exempt), ``cls``
and ``initkwargs`` (drf-spectacular's schema generator), ``accepts_token`` (the mark of a
download that takes an API token, which the token tests read off every route). Nothing
else is: Django reads
``view_class`` and ``__name__`` of *every* pattern when it builds its reverse lookup (a
page's first ``{% url %}``), so forwarding those would import every lazy view again. The
names Django records (``URLPattern.lookup_str``, ``ResolverMatch._func_path``) stay the
view's dotted path.
"""

from __future__ import annotations

from importlib import import_module

#: Attributes read from a view before it is called (see the module's docstring).
FORWARDED = frozenset({"csrf_exempt", "cls", "initkwargs", "accepts_token"})


class LazyView:
    """A view callable standing for ``dotted`` (``"package.module.name"``): a function view,
    or a class-based view (Django's or DRF's) made with ``as_view(**initkwargs)``."""

    def __init__(self, dotted: str, **initkwargs):
        module, _, name = dotted.rpartition(".")
        if not module:
            raise ValueError(f"lazy_view needs a dotted path 'module.view', not {dotted!r}")
        self.__module__, self.__name__, self.__qualname__ = module, name, name
        self._initkwargs = initkwargs
        self._view = None

    def view(self):
        """The real view, imported (and made, for a class) at the first call."""
        if self._view is None:  # two threads may both get here: they make the same view
            target = getattr(import_module(self.__module__), self.__name__)
            if isinstance(target, type):
                target = target.as_view(**self._initkwargs)
            elif self._initkwargs:
                raise TypeError(f"{self.__module__}.{self.__name__} is not a class-based view")
            self._view = target
        return self._view

    def __call__(self, request, *args, **kwargs):
        return self.view()(request, *args, **kwargs)

    def __getattr__(self, name: str):
        if name in FORWARDED:
            return getattr(self.view(), name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"<lazy view {self.__module__}.{self.__name__}>"


def lazy_view(dotted: str, **initkwargs) -> LazyView:
    """The view at ``dotted``, imported when first requested (see the module's docstring)."""
    return LazyView(dotted, **initkwargs)
