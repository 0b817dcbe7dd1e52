"""Production settings: ``check --deploy`` is clean with DEBUG off, and no secret lives in
the repository (the development key only works with DEBUG on)."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.backend_independent(
    "production settings and checks in processes of their own, which make no query"
)
ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "ALLOWED_HOSTS": "concord.example.org",
    "SECRET_KEY": secrets.token_urlsafe(50),
}


SOURCE_SUFFIXES = {".py", ".json", ".toml", ".cfg", ".ini", ".env", ".yml", ".yaml"}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``manage.py`` in a fresh process: settings are read once, at start-up."""
    # The browser tests set DJANGO_ALLOW_ASYNC_UNSAFE in this process (Playwright's loop);
    # a production process never has it, and `check --deploy` rightly refuses it.
    dropped = ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE")
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_line(result: subprocess.CompletedProcess) -> list[str]:
    line = next(x for x in result.stdout.splitlines() if x.startswith("SETTINGS "))
    return line.split()[1:]


def test_check_deploy_is_clean_in_production():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_production_settings_values():
    code = (
        "from django.conf import settings as s; "
        "print('SETTINGS', s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, "
        "s.SECURE_PROXY_SSL_HEADER, s.X_FRAME_OPTIONS, s.SECURE_REFERRER_POLICY)"
    )
    out = settings_line(manage("shell", "-c", code, **PRODUCTION))
    assert out[:6] == ["True", "True", "True", "31536000", "True", "True"]
    assert "('HTTP_X_FORWARDED_PROTO'," in out and "DENY" in out and "same-origin" in out

    # every one configurable: no preload, no subdomains, no redirect, no proxy header
    env = {
        **PRODUCTION,
        "SECURE_HSTS_PRELOAD": "0",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "0",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_PROXY_SSL_HEADER": "",
    }
    out = settings_line(manage("shell", "-c", code, **env))
    assert out[2] == "False" and out[4:7] == ["False", "False", "None"], out


@pytest.mark.parametrize(
    "secret_key",
    [None, "", "insecure-development-key-only-for-debug"],
    ids=["unset", "empty", "dev"],
)
def test_refuses_to_start_without_a_private_secret_key(secret_key):
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    if secret_key is not None:
        env["SECRET_KEY"] = secret_key
    result = manage("check", **env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_the_development_key_is_the_only_key_in_the_repository_and_debug_only():
    from django.conf import settings

    source = (ROOT / "concord" / "settings.py").read_text()
    literals = re.findall(r"SECRET_KEY\s*=\s*[\"']([^\"']+)[\"']", source)
    assert literals == [settings.DEVELOPMENT_SECRET_KEY]
    suspicious = re.compile(
        r"(-----BEGIN [A-Z ]*PRIVATE KEY-----|sk-[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}"
        r"|django-insecure-[^\s\"']{20,}|(?:API_KEY|PASSWORD|TOKEN)\s*=\s*[\"'][^\"']{12,}[\"'])"
    )
    hits = []
    for folder in ("concord", "annotation", "judges", "metaeval", "studio", "fixtures", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in SOURCE_SUFFIXES and suspicious.search(
                path.read_text(errors="ignore")
            ):
                hits.append(str(path.relative_to(ROOT)))
    for name in ("pyproject.toml", "Makefile", ".env"):
        path = ROOT / name
        if path.exists() and suspicious.search(path.read_text(errors="ignore")):
            hits.append(name)
    assert not hits, f"possible secrets committed: {hits}"
