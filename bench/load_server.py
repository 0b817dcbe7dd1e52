"""The WSGI application ``bench/load.py`` serves: Concord's own, measured per request.

Each request's CPU time (``time.thread_time()`` of the gunicorn thread that runs the view,
middleware and template rendering included) is added up per kind of request and written,
when the worker exits, to ``$CONCORD_LOAD_MEASURE/cpu-<pid>.json``. With
``CONCORD_LOAD_PROFILE=1`` every request also runs under a per-thread ``cProfile`` whose
statistics go to ``profile-<pid>.prof`` beside it (``python -m pstats`` reads them): where
a saturated worker's time goes. Neither is part of the product: only this benchmark loads
this module (``gunicorn --pythonpath bench load_server:application``).
"""

from __future__ import annotations

import atexit
import cProfile
import json
import os
import re
import threading
import time
from collections import defaultdict
from pathlib import Path

from django.core.wsgi import get_wsgi_application

#: (method, path) → the kinds ``bench/load.py`` reports its latencies under.
KINDS = [
    ("GET", re.compile(r"/accounts/login/"), "login_form"),
    ("POST", re.compile(r"/accounts/login/"), "login"),
    ("GET", re.compile(r"/annotate/"), "queue"),
    ("GET", re.compile(r"/annotate/\d+/"), "task_page"),
    ("POST", re.compile(r"/annotate/\d+/save/"), "autosave"),
    ("POST", re.compile(r"/annotate/\d+/submit/"), "submit"),
]


def kind_of(method: str, path: str) -> str:
    for m, pattern, kind in KINDS:
        if m == method and pattern.fullmatch(path):
            return kind
    return "other"


class Measured:
    def __init__(self, app, out: Path, profile: bool):
        self.app, self.out, self.profile = app, out, profile
        self.lock = threading.Lock()
        self.cpu: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        self.local = threading.local()
        self.profiles: list[cProfile.Profile] = []
        atexit.register(self.dump)

    def _profiler(self) -> cProfile.Profile:
        prof = getattr(self.local, "prof", None)
        if prof is None:
            # CPU time of this thread, not wall time: on a loaded machine wall time is mostly
            # waiting for a core
            prof = self.local.prof = cProfile.Profile(time.thread_time)
            with self.lock:
                self.profiles.append(prof)
        return prof

    def __call__(self, environ, start_response):
        kind = kind_of(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""))
        prof = self._profiler() if self.profile else None
        start = time.thread_time()
        if prof is not None:
            prof.enable()
        try:
            return self.app(environ, start_response)
        finally:
            if prof is not None:
                prof.disable()
            used = time.thread_time() - start
            with self.lock:
                entry = self.cpu[kind]
                entry[0] += 1
                entry[1] += used

    def dump(self) -> None:
        pid = os.getpid()
        with self.lock:
            cpu = {k: {"count": n, "seconds": s} for k, (n, s) in self.cpu.items()}
        (self.out / f"cpu-{pid}.json").write_text(json.dumps(cpu))
        if self.profiles:
            import pstats

            stats = pstats.Stats(self.profiles[0])
            for prof in self.profiles[1:]:
                stats.add(prof)
            stats.dump_stats(self.out / f"profile-{pid}.prof")


def _warm() -> None:
    """Import every view now, at the worker's boot, rather than in its first request (which
    would otherwise carry about a second of imports): the figures are the steady state's."""
    from django.urls import get_resolver

    assert get_resolver().url_patterns  # importing every view is the point


application = Measured(
    get_wsgi_application(),
    Path(os.environ["CONCORD_LOAD_MEASURE"]),
    profile=os.environ.get("CONCORD_LOAD_PROFILE") == "1",
)
_warm()
