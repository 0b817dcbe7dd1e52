"""The ``concord`` command of an installed Concord (``pip install concord``), no checkout needed.

- ``concord manage <command> [args]`` is ``python manage.py <command> [args]``;
- ``concord run [addr:port]`` is ``make run``: migrate, load the demo, serve it
  (``--no-demo`` serves the database as it is);
- ``concord <command> [args]`` is a shortcut for ``concord manage <command> [args]``.

An installed Concord keeps its SQLite database and collected static files in the working
directory (or ``CONCORD_HOME``), never inside site-packages (concord/settings.py).
"""

from __future__ import annotations

import os
import sys

USAGE = __doc__


def _django(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(["concord", *argv])


def run(args: list[str]) -> None:
    """migrate + demo + runserver, as ``make run`` does from a checkout."""
    demo = "--no-demo" not in args
    rest = [a for a in args if a != "--no-demo"]
    addrport = rest[0] if rest else "127.0.0.1:8000"
    _django(["migrate", "--noinput"])
    if demo:
        _django(["demo"])
    # No autoreloader: it would re-run this whole command (migrate, demo) in a child process.
    extra = rest[1:] if "--noreload" in rest else [*rest[1:], "--noreload"]
    _django(["runserver", addrport, *extra])


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return
    command, rest = argv[0], argv[1:]
    if command == "manage":
        _django(rest)
    elif command == "run":
        run(rest)
    else:
        _django(argv)


if __name__ == "__main__":
    main()
