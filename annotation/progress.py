"""Progress bars on the command line (tqdm), for long imports, exports, judge runs and
bootstraps.

Code anywhere may report progress through :func:`track` / :func:`bar`; nothing is shown
unless a management command switched bars on (``with progress.shown():``) *and* its stderr
is a terminal (of a size other than 0×0), so web requests, Celery workers, tests and output
redirected to a file or another program never get bars. Bars go to stderr so they never mix
with the data a command writes to stdout, which may go to a file meanwhile.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
import sys
from collections.abc import Iterable, Iterator

_shown: contextvars.ContextVar[bool] = contextvars.ContextVar("concord_progress", default=False)
#: Where the bars of the current command go (its stderr).
_stream: contextvars.ContextVar = contextvars.ContextVar("concord_progress_to", default=None)
#: Bars shared by key within the current command (one bar for a judge run of many chunks).
_shared: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "concord_progress_shared", default=None
)


def is_terminal(stream=None) -> bool:
    """A terminal a bar can be drawn on: a tty whose size is not 0×0 (a pty opened without
    a size, as some CI runners and ``script`` do, made tqdm write a "\\r" line per update,
    issue 28). A stand-in tty without a file descriptor counts as a terminal."""
    stream = stream if stream is not None else sys.stderr
    try:
        if not stream.isatty():
            return False
    except (AttributeError, ValueError):
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return True


@contextlib.contextmanager
def shown(stream=None) -> Iterator[bool]:
    """Within this block bars are drawn on ``stream`` (a command's stderr: bars never mix
    with the data a command writes to stdout), if it is a terminal."""
    stream = getattr(stream, "_out", stream)  # Django's OutputWrapper wraps the real stream
    stream = stream if stream is not None else sys.stderr
    tokens = (_shown.set(is_terminal(stream)), _stream.set(stream), _shared.set({}))
    try:
        yield _shown.get()
    finally:
        for made in (_shared.get() or {}).values():
            made.close()
        for var, token in zip((_shown, _stream, _shared), tokens, strict=True):
            var.reset(token)


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


class _Borrowed(_Silent):
    """A shared bar lent to one part of the work: updates reach it; closing it does not
    (the command closes it when it ends)."""

    def __init__(self, shared):
        self.shared = shared

    def update(self, n: int = 1) -> None:
        self.shared.update(n)
        if self.shared.total is not None and self.shared.n >= self.shared.total:
            self.shared.close()  # done: what follows (a run's finalize) draws below it

    def set_postfix_str(self, *args, **kw) -> None:
        self.shared.set_postfix_str(*args, **kw)


def _tqdm(iterable=None, **kw):
    from tqdm import tqdm

    return tqdm(iterable, file=_stream.get() or sys.stderr, dynamic_ncols=True, **kw)


def bar(total: int | None = None, desc: str = "", unit: str = "it", *, key=None, initial=0):
    """A bar to ``update(n)`` by hand (a context manager); silent when bars are off.

    With ``key``, every call of the current command with the same key updates one bar (made
    by the first call, with its ``total`` and ``initial``): a judge run's 59 chunks draw one
    bar of the run, not 59 bars (issue 28)."""
    if not enabled():
        return _Silent()
    if key is None:
        return _tqdm(total=total, desc=desc, unit=unit, initial=initial)
    shared = _shared.get()
    if key not in shared:
        shared[key] = _tqdm(total=total, desc=desc, unit=unit, initial=initial)
    return _Borrowed(shared[key])


def track(iterable: Iterable, total: int | None = None, desc: str = "", unit: str = "it"):
    """``iterable``, with a bar while it is consumed when bars are on."""
    if not enabled():
        return iterable
    return _tqdm(iterable, total=total, desc=desc, unit=unit)


def command(handle):
    """Decorate a management command's ``handle``: bars on while it runs, on its stderr if
    that is a terminal (the data it writes to stdout may go to a file meanwhile)."""
    import functools

    @functools.wraps(handle)
    def wrapper(self, *args, **options):
        with shown(self.stderr):
            return handle(self, *args, **options)

    return wrapper
