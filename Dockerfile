# Concord's image: the installed package (not the checkout), pinned dependencies, hashed static
# files collected at build time, served by gunicorn. The same image runs the web process, the
# Celery worker and beat (compose.yaml). Configuration comes from the environment (README).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBUG=0 \
    CONCORD_HOME=/var/lib/concord \
    STATIC_ROOT=/app/staticfiles

WORKDIR /app

# Dependencies first: this layer is rebuilt only when the lock file changes. pip compiles
# their .pyc files here (PYTHONDONTWRITEBYTECODE only stops the running processes writing
# them), so gunicorn, the worker and beat do not compile Django and numpy at every start.
COPY requirements.lock ./
RUN pip install --compile -r requirements.lock

COPY pyproject.toml README.md manage.py ./
COPY concord ./concord
COPY annotation ./annotation
COPY judges ./judges
COPY metaeval ./metaeval
COPY studio ./studio
COPY templates ./templates
COPY static ./static
COPY fixtures ./fixtures
# Error tracking (SENTRY_DSN) needs the SDK: docker build --build-arg WITH_SENTRY=1 .
ARG WITH_SENTRY=0
RUN pip install --compile --no-deps . \
    && if [ "$WITH_SENTRY" = "1" ]; then pip install "sentry-sdk[django]>=2.0"; fi \
    && SECRET_KEY=collectstatic-at-build-time-only concord collectstatic --noinput \
    && useradd --system --uid 10001 --home-dir /var/lib/concord concord \
    && mkdir -p /var/lib/concord \
    && chown concord /var/lib/concord

USER concord
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
CMD ["gunicorn", "concord.wsgi:application", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "3", "--threads", "4", "--keep-alive", "75", "--preload", "--access-logfile", "-"]
