"""Progress bars on the command line (tqdm), for long imports, exports, judge runs and
bootstraps.

Code anywhere may report progress through :func:`track` / :func:`bar`; nothing is shown
unless a management command switched bars on (``with progress.shown():``) *and* its stdout
is a terminal, so web requests, Celery workers, tests and output piped into a file or
another program never get bars. Bars go to stderr so they never mix with the data a command
writes to stdout.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Iterable, Iterator

_shown: contextvars.ContextVar[bool] = contextvars.ContextVar("concord_progress", default=False)


def is_terminal(stream=None) -> bool:
    stream = stream if stream is not None else sys.stdout
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def shown(stdout=None) -> Iterator[bool]:
    """Within this block bars are drawn, if ``stdout`` (a command's) is a terminal."""
    stream = getattr(stdout, "_out", stdout)  # Django's OutputWrapper wraps the real stream
    token = _shown.set(is_terminal(stream))
    try:
        yield _shown.get()
    finally:
        _shown.reset(token)


def enabled() -> bool:
    return _shown.get()


class _Silent:
    """What :func:`bar` returns when bars are off: the same calls, doing nothing."""

    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix_str(self, *_args, **_kw) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def bar(total: int | None = None, desc: str = "", unit: str = "it"):
    """A bar to ``update(n)`` by hand (a context manager); silent when bars are off."""
    if not enabled():
        return _Silent()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)


def track(iterable: Iterable, total: int | None = None, desc: str = "", unit: str = "it"):
    """``iterable``, with a bar while it is consumed when bars are on."""
    if not enabled():
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)


def command(handle):
    """Decorate a management command's ``handle``: bars on while it runs (if its stdout is
    a terminal)."""
    import functools

    @functools.wraps(handle)
    def wrapper(self, *args, **options):
        with shown(self.stdout):
            return handle(self, *args, **options)

    return wrapper
