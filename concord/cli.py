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


#: Commands whose logs are a server's: they log at the configured level (INFO by default).
SERVERS = frozenset({"runserver", "testserver", "runserver_plus"})


def log_level(argv: list[str]) -> str:
    """The level of Concord's loggers for a command line (``CONCORD_LOG_LEVEL`` when set).

    A command prints its results on stdout; its ``INFO concord.*`` records ("import
    started") and kombu's "No hostname was supplied" were noise on stderr around them
    (issue 28). A command is quiet (warnings only) unless ``-v 2`` or more asks for them;
    a server logs as configured."""
    if os.environ.get("CONCORD_LOG_LEVEL"):
        return os.environ["CONCORD_LOG_LEVEL"]
    if argv and argv[0] in SERVERS:
        return "INFO"
    verbosity = 1
    for i, arg in enumerate(argv):
        value = None
        if arg in ("-v", "--verbosity") and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--verbosity="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-v") and arg[2:].isdigit():
            value = arg[2:]
        if value is not None and value.isdigit():
            verbosity = int(value)
    return {0: "ERROR", 1: "WARNING", 2: "INFO"}.get(verbosity, "DEBUG")


def configure(argv: list[str]) -> None:
    """Settings and log level for a command line (``manage.py`` and ``concord``)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ["CONCORD_LOG_LEVEL"] = log_level(argv)


def _django(argv: list[str]) -> None:
    configure(argv)
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
