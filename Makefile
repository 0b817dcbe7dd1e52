# Concord: `make run` serves the demo, `make test` runs every test. Both install first.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
STAMP  := $(VENV)/.installed

.PHONY: install run test lint format bench serve worker browsers clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Production-like local serving: gunicorn (set DATABASE_URL, SECRET_KEY, DEBUG=0, ...).
serve: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput
	$(VENV)/bin/gunicorn concord.wsgi:application --bind 127.0.0.1:$(PORT) --workers 3

worker: install
	$(VENV)/bin/celery -A concord worker --loglevel=info

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
