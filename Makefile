# Concord: `make run` serves the demo, `make test` runs every test. Both install first.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
STAMP  := $(VENV)/.installed
# gunicorn sizing for `make serve`: about cores + 1 workers, a few threads each (README).
# Keep-alive outlasts an annotator's pause between autosaves (gunicorn's default, 2 s, is
# shorter: the browser's next save then races the server closing the connection, issue 29).
WEB_WORKERS ?= 3
WEB_THREADS ?= 4
WEB_KEEPALIVE ?= 75

.PHONY: install run test lint format bench serve worker beat browsers clean install-runtime lock

install: $(STAMP)

# Pinned versions (requirements*.lock, `make lock`) and the project, installed by uv in one
# resolution (parallel downloads, a shared cache: a fresh clone serves in under two minutes,
# bench/README.md). A dependency added to pyproject.toml but not yet locked is still
# installed; tests/packaging/test_lock.py fails until `make lock` pins it. pip stays in the
# dev venv for ad-hoc installs.
# --compile-bytecode: the dependencies' .pyc files are written once, here. Where
# PYTHONDONTWRITEBYTECODE is set (the Dockerfile, the CI machine) no process writes them, so
# without this every Python process of the test run (xdist workers, manage.py subprocesses,
# Celery workers) compiled Django, numpy, scipy and matplotlib from source again: about 5 s
# of CPU each (issue 14).
UV := $(VENV)/bin/uv
$(STAMP): pyproject.toml requirements-dev.lock | $(UV)
	$(UV) pip install --quiet --compile-bytecode --python $(PY) -r requirements-dev.lock \
		-e '.[dev]' pip
	@touch $(STAMP) $(RUNTIME_STAMP)

# The venv without ensurepip's copy of pip (slow to create); uv put in by the system pip
# (>= 22.3 has --python), or by the venv's own pip where the system has none.
$(UV):
	@test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(PY) install --quiet uv \
		|| { $(PY) -m ensurepip --upgrade && $(PY) -m pip install --quiet uv; }

# `make run` needs the runtime dependencies only (no test tools, no Playwright).
RUNTIME_STAMP := $(VENV)/.installed-runtime
install-runtime: $(RUNTIME_STAMP)

$(RUNTIME_STAMP): pyproject.toml requirements.lock | $(UV)
	$(UV) pip install --quiet --compile-bytecode --python $(PY) -r requirements.lock -e .
	@touch $(RUNTIME_STAMP)

# Re-pin after changing dependencies in pyproject.toml.
lock: install
	$(UV) pip compile pyproject.toml --universal --python-version 3.11 -o requirements.lock
	$(UV) pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
		-o requirements-dev.lock

run: install-runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# Every test, on every core: pytest-xdist workers (TEST_WORKERS=0 runs them in this process).
# --dist worksteal hands each worker a contiguous half of the collection (a module's tests
# stay together, so a module-scoped fixture such as the demo or the wheel is built once, not
# once per worker as under load/loadgroup's round robin) and lets an idle worker take tests
# from the other's queue at the end. Each xdist worker has its own test database and broker
# database (tests/worker.py), so the real-Celery-worker tests need no grouping.
# The project's own .pyc files are written first, for the same reason as --compile-bytecode
# above (the editable install leaves its sources to be compiled by whoever imports them).
TEST_WORKERS ?= auto
TEST_DIST ?= worksteal
SOURCES := annotation judges metaeval studio concord tests client bench manage.py
test: install
	$(PY) -m compileall -q -j 0 $(SOURCES) >/dev/null
	$(PY) -m pytest -n $(TEST_WORKERS) --dist $(TEST_DIST) $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Production-like local serving: gunicorn (set DATABASE_URL, SECRET_KEY, DEBUG=0, ...).
# A database connection per thread, kept between requests (0 opens one per request); for
# this target only (the tests keep Django's default).
serve: export CONN_MAX_AGE ?= 60
serve: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput
	$(VENV)/bin/gunicorn concord.wsgi:application --bind 127.0.0.1:$(PORT) \
		--worker-class gthread --workers $(WEB_WORKERS) --threads $(WEB_THREADS) \
		--keep-alive $(WEB_KEEPALIVE) --preload

worker: install
	$(VENV)/bin/celery -A concord worker --loglevel=info

# Exactly one beat per deployment: every minute it restarts judge and report runs whose worker
# died (CELERY_BEAT_SCHEDULE). On a single machine `celery -A concord worker -B` does both.
beat: install
	$(VENV)/bin/celery -A concord beat --loglevel=info --schedule=$(VENV)/celerybeat-schedule

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
