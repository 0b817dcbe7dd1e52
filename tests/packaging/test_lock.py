"""The lock files pin every dependency pyproject.toml declares (run `make lock` after editing
the dependencies), and the runtime lock holds no test tool."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}  # fmt: skip


def pinned(lock: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / lock).read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if match:
            pins[match[1].lower().replace("_", "-")] = match[2]
    return pins


def test_the_locks_pin_every_declared_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime, dev = names(project["dependencies"]), names(project["optional-dependencies"]["dev"])
    runtime_lock, dev_lock = pinned("requirements.lock"), pinned("requirements-dev.lock")
    assert not runtime - runtime_lock.keys(), f"run `make lock`: {runtime - runtime_lock.keys()}"
    assert not (runtime | dev) - dev_lock.keys(), f"run `make lock`: {(runtime | dev) - dev_lock.keys()}"  # fmt: skip
    for name in runtime:  # the same version in both
        assert runtime_lock[name] == dev_lock[name], name


def test_the_runtime_lock_has_no_test_tools():
    runtime_lock = pinned("requirements.lock")
    for tool in ("pytest", "playwright", "schemathesis", "hypothesis", "ruff"):
        assert tool not in runtime_lock, tool
