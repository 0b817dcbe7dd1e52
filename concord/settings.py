"""Concord settings, read from the environment (12-factor).

DATABASE_URL       default: SQLite file ``db.sqlite3`` in the project root
CELERY_BROKER_URL  unset: tasks run eagerly in-process; set: a real worker consumes them
SECRET_KEY         required when DEBUG is off
DEBUG              "1"/"true" to enable (default on for the zero-setup developer path)
ALLOWED_HOSTS      comma-separated

Security (issue 8): login throttling (django-axes), a content security policy (django-csp)
and, with DEBUG off, HTTPS-only cookies, HSTS and an SSL redirect; see "Security" in README.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from concord.caching import cache_settings

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DEBUG", True)
# Django's debug 404 page (every URL pattern, the view's reason) for developers only: off
# unless asked for, even with DEBUG on (concord.errors.PlainNotFoundMiddleware).
DEBUG_404 = env_bool("DEBUG_404", False)
# The development key is public (it is in this file), so it only ever signs debug sessions.
DEVELOPMENT_SECRET_KEY = "insecure-development-key-only-for-debug"  # noqa: S105 - debug only
SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not DEBUG and SECRET_KEY in ("", DEVELOPMENT_SECRET_KEY):
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a private random value when DEBUG is off "
        "(the development key is public)."
    )
SECRET_KEY = SECRET_KEY or DEVELOPMENT_SECRET_KEY

ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
]
if DEBUG:
    ALLOWED_HOSTS.append("testserver")
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]
# A form the CSRF check refuses: the site's page saying why and the way back (JSON under /api/)
CSRF_FAILURE_VIEW = "concord.errors.csrf_failure"

INSTALLED_APPS = [
    "concord.admin_apps.ConcordAdminConfig",  # the admin role only (admin_site.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "csp",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served by us (no CDN)
    "django_htmx",
    "annotation",
    "judges",
    "metaeval",
    "studio",  # study administration and what composes several apps: above the three (README)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # With DEBUG on, the ordinary 404, not Django's list of every URL (DEBUG_404=1: the list)
    "concord.errors.PlainNotFoundMiddleware",
    # A JSON or form body over UPLOAD_MAX_BYTES: 413 naming the limit, never the debug page
    "concord.errors.BodyTooLargeMiddleware",
    # A chunked body (no Content-Length), which Django reads as empty: 411 saying so
    "concord.errors.ChunkedBodyMiddleware",
    # A database error in a view answers 503 "unavailable, retry" instead of 500 (outage.py).
    "concord.outage.DatabaseOutageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # private, no-store on signed-in pages, API answers and downloads (cache_control.py)
    "concord.cache_control.PrivateNoStoreMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes requires: it turns a flagged login attempt into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "concord.urls"
WSGI_APPLICATION = "concord.wsgi.application"
ASGI_APPLICATION = "concord.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Argon2id at OWASP's minimum cost (about a tenth of PBKDF2's CPU per login); older hashes
# still verify and are rehashed at the next login (concord/passwords.py).
PASSWORD_HASHERS = [
    "concord.passwords.OwaspArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

# --- Login throttling (django-axes) ------------------------------------------------------
# Failed logins are counted per user name *and* IP address, in the database (shared by every
# web process). After AXES_FAILURE_LIMIT failures that pair is refused, even with the right
# password, for the cool-off period; a success before the limit resets the count. Another
# user, or the same user from another address, is unaffected.
AUTHENTICATION_BACKENDS = [
    "concord.login_throttle.ThrottledLoginBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "concord.login_throttle.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
# The cool-off runs from the attempt that reached the limit and is not extended by attempts
# made while locked (django-axes' default records them and restarts the window, so someone who
# keeps trying would keep the real user out forever).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# Behind N trusted proxies the client address is the Nth from the right of X-Forwarded-For
# (0: no proxy, REMOTE_ADDR is the client); see concord.login_throttle.client_ip.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
AXES_CLIENT_IP_CALLABLE = "concord.login_throttle.client_ip"

# --- Content security policy (django-csp 4) ----------------------------------------------
# Scripts and styles come only from our own static files (or carry the per-request nonce);
# no inline event handlers, no eval, no plugins, no framing, forms post only to us.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Uploads: imports are validated in memory; anything larger is refused.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("UPLOAD_MAX_BYTES", str(64 * 1024 * 1024)))
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
# An import file larger than this is refused, 413 with the limit (README: settings)
IMPORT_MAX_BYTES = int(os.environ.get("IMPORT_MAX_BYTES", str(DATA_UPLOAD_MAX_MEMORY_SIZE)))

# Bootstrap rounds one report may ask for (page, API, command, report run): memory and time
# grow with them, so more is refused with a 400 naming the option.
CONCORD_MAX_BOOTSTRAP = int(os.environ.get("CONCORD_MAX_BOOTSTRAP", "10000"))

# Report selections whose loaded rows a server process keeps for the next request of the
# same study version (the page after a selector change, issue 29; metaeval.cache): ≈ 60 MB
# each at 40,000 questions; 0 keeps none.
CONCORD_SHARED_SELECTIONS = int(os.environ.get("CONCORD_SHARED_SELECTIONS", "2"))

# API tokens expire after this many days (0: never) and are deleted by a password change.
CONCORD_TOKEN_TTL_DAYS = int(os.environ.get("CONCORD_TOKEN_TTL_DAYS", "30"))

# Mail: the password-reset form is offered only when a mail server is set (password_reset.py).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "webmaster@localhost")
PASSWORD_RESET_ENABLED = bool(EMAIL_HOST)
PASSWORD_RESET_LIMIT = int(os.environ.get("PASSWORD_RESET_LIMIT", "5"))  # per address and hour

# Autosave: a posted field longer than this is refused (422); drafts saved within this many
# seconds of the latest draft version replace it (one version a minute, not one per pause).
CONCORD_AUTOSAVE_MAX_FIELD_CHARS = int(os.environ.get("CONCORD_AUTOSAVE_MAX_FIELD_CHARS", "50000"))
CONCORD_AUTOSAVE_COALESCE_SECONDS = int(os.environ.get("CONCORD_AUTOSAVE_COALESCE_SECONDS", "60"))

# The largest page an API list answers (?limit= above it is cut to it).
CONCORD_API_MAX_LIMIT = int(os.environ.get("CONCORD_API_MAX_LIMIT", "1000"))

# Deleting a study first writes its full backup here (studio.studyadmin.deletion).
CONCORD_BACKUP_DIR = Path(os.environ.get("CONCORD_BACKUP_DIR", str(BASE_DIR / "backups")))

REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes a missing or bad token a 401 (as the
    # schema documents); a session is still accepted, with its CSRF check.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "concord.tokens.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "concord.parsers.JSONParser",  # a body nested past the stack is a 400, not a 500
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "concord.pagination.LimitOffsetPagination",
    # an unknown ?format= is a 400 naming it and the formats answered, not a 404
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "concord.negotiation.ContentNegotiation",
    # every error body in one shape: a ``detail`` string, ``errors`` items (concord.error_body)
    "EXCEPTION_HANDLER": "concord.error_body.exception_handler",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": "Expert annotation of deep-research reports and meta-evaluation of LLM judges.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "TaskEnum": "annotation.models.content.Study.Task",
        "AssignmentStatusEnum": "annotation.models.assignment.Assignment.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "concord.api_schema.add_error_responses",  # the 4xx/503 every operation can answer
        "concord.api_schema.any_of_for_blinded",  # staff and annotator shapes of one read
    ],
}

# Celery: without a broker every task runs eagerly in-process (zero-setup default).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Connections between tasks follow CONN_MAX_AGE (concord/celery.py), not Celery's fixup,
# which would close them around every task; it still recycles them every 1,000 tasks (its
# counter moves before and after each task and closes at twice this value).
CELERY_DB_REUSE_MAX = 1000
# Celery beat (`make beat`, or `celery worker -B` on one worker): restart the runs whose
# worker died (heartbeat older than a minute) — judge runs resume where they stopped,
# report runs recompute from scratch.
CELERY_BEAT_SCHEDULE = {
    "resume-stale-judge-runs": {"task": "judges.tasks.resume_stale_runs", "schedule": 60.0},
    "restart-stale-report-runs": {
        "task": "metaeval.tasks.restart_stale_report_runs",
        "schedule": 60.0,
    },
}

# Webhooks (annotation.webhooks): receivers on private, loopback or link-local addresses
# are refused unless allowed; a failed delivery is retried by a worker after these delays.
CONCORD_WEBHOOK_ALLOW_PRIVATE = os.environ.get("CONCORD_WEBHOOK_ALLOW_PRIVATE", "0") == "1"
CONCORD_WEBHOOK_TIMEOUT = float(os.environ.get("CONCORD_WEBHOOK_TIMEOUT", "5"))
CONCORD_WEBHOOK_RETRY_DELAYS = [
    float(x) for x in os.environ.get("CONCORD_WEBHOOK_RETRY_DELAYS", "10,60,300,1800").split(",")
]

# Outside LLM service (OpenAI-compatible chat completions).
LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "")
#: A judge's base_url may be a private, loopback or link-local address (a local vLLM).
CONCORD_JUDGE_ALLOW_PRIVATE = os.environ.get("CONCORD_JUDGE_ALLOW_PRIVATE", "") == "1"

# Headers sent in every mode; Django's defaults, stated so they are not lost by accident.
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

if not DEBUG:
    # Production is HTTPS only: cookies never travel in clear, browsers remember to use HTTPS.
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SESSION_COOKIE_HTTPONLY = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    # Behind a TLS-terminating proxy: the header it sets to say the request came over HTTPS.
    # Only trust it when such a proxy strips the header from clients (empty: no proxy).
    _proxy_header = os.environ.get("SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto").strip()
    if _proxy_header:
        SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# --- Installed as a package (the wheel; `concord` command, concord/cli.py) -------------------
# A checkout keeps templates/, static/ and fixtures/ at its root; the wheel carries them inside
# the concord package (pyproject's force-include). Installed, the writable files (SQLite
# database, collected static files) go to CONCORD_HOME (default: the working directory),
# never into site-packages.
PACKAGE_DIR = Path(__file__).resolve().parent
FIXTURES_DIR = BASE_DIR / "fixtures"
if (PACKAGE_DIR / "templates").is_dir():
    TEMPLATES[0]["DIRS"] = [PACKAGE_DIR / "templates"]
    STATICFILES_DIRS = [PACKAGE_DIR / "static"]
    FIXTURES_DIR = PACKAGE_DIR / "fixtures"
    CONCORD_HOME = Path(os.environ.get("CONCORD_HOME", Path.cwd())).resolve()
    STATIC_ROOT = CONCORD_HOME / "staticfiles"
    if "DATABASE_URL" not in os.environ:
        DATABASES["default"] = dj_database_url.parse(
            f"sqlite:///{CONCORD_HOME / 'db.sqlite3'}",
            conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
        )

# SQLite: a transaction takes the write lock at BEGIN and waits up to 20 s for it (busy
# timeout). By default it reads first and, asking for the lock at its first write while
# another transaction holds it, fails at once with "database is locked": two annotators
# submitting the same assignment got a 503 instead of the second one's 409. An option
# given in DATABASE_URL wins. (The test database's connections use the same OPTIONS.)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        **DATABASES["default"].get("OPTIONS", {}),
    }

# --- Deployment: health checks, hashed static files, JSON logs, error tracking, throttles ----
# /healthz (concord/health.py) answers load balancers over plain HTTP behind the TLS proxy.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", STATIC_ROOT))
if not DEBUG:
    # Content-hashed, pre-compressed files (annotate.<hash>.js): a deploy busts browser caches
    # and WhiteNoise serves them with far-future expiry. Needs `collectstatic` (make serve).
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

# Logs: one JSON object per line with DEBUG off (or LOG_FORMAT=json), readable text otherwise.
# Imports (concord.imports) and judge runs (concord.judge_runs) log their start and end with
# their fields (kind, file, study, records; run, judge, status, seconds) at INFO.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEBUG else "json")
CONCORD_LOG_LEVEL = os.environ.get("CONCORD_LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "text",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "concord": {"level": CONCORD_LOG_LEVEL},
        # a command without a broker runs its tasks in process: kombu's "No hostname was
        # supplied" is noise there (quiet commands, concord/cli.py)
        "kombu": {"level": "WARNING" if CONCORD_LOG_LEVEL in ("INFO", "DEBUG") else "ERROR"},
    },
}

# Error tracking: Sentry when SENTRY_DSN is set and sentry-sdk is installed (the `sentry`
# extra); nothing is imported otherwise. A DSN without the SDK is refused, not ignored.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "").strip()
if SENTRY_DSN:
    try:
        import sentry_sdk
    except ImportError as exc:
        raise ImproperlyConfigured(
            "SENTRY_DSN is set but sentry-sdk is not installed: pip install 'concord[sentry]'"
        ) from exc
    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
        send_default_pii=False,  # annotators' identities never leave the server
    )

# Throttles on the expensive endpoints (per user, ``throttle_scope`` on the views): agreement
# and judge-alignment reports, report runs, imports. Counted in the ``throttles`` cache, shared
# by every process: the database, or Redis when CACHE_URL names one (concord/throttles.py).
CACHES = cache_settings(os.environ.get("CACHE_URL", ""))
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {
    "reports": os.environ.get("THROTTLE_REPORTS", "120/min"),
    "imports": os.environ.get("THROTTLE_IMPORTS", "30/min"),
}

# Every API operation has a summary and a description written for its users (api_schema.py).
REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "concord.api_schema.ConcordAutoSchema"
