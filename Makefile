# Everything a fresh machine needs: `make run` serves the app, `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run serve test lint spectral venv browser bench bench-quick bench-serve clean screenshots reliability soak

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-memory.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# Chromium for the browser tests: CHROMIUM=/path names one; otherwise Debian's, installed with apt-get (as root, or
# through sudo) when missing.
browser:
	@if [ -n "$$CHROMIUM" ]; then \
		test -x "$$CHROMIUM" || { echo "CHROMIUM=$$CHROMIUM is not an executable file" >&2; exit 1; }; \
	else \
		command -v chromium >/dev/null 2>&1 || test -x /usr/bin/chromium || { \
		echo "Installing Debian's chromium for the browser tests (or give CHROMIUM=/path/to/chromium)…"; \
		(apt-get update -qq || sudo apt-get update -qq) && \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium || sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium); }; \
	fi

run: venv
	DEBUG=1 $(PY) manage.py migrate --no-input
	DEBUG=1 $(PY) manage.py notebook first-editor
	DEBUG=1 $(PY) manage.py notebook demo
	DEBUG=1 $(PY) manage.py runserver $${PORT:-8000}

# Production-like: granian (notebook_site/web_servers.py: WEB_CONCURRENCY workers, PORT or BIND; WEB_SERVER=gunicorn
# for gunicorn with gunicorn.conf.py) on DATABASE_URL (the embedded SQLite when unset), DEBUG off, with the vault
# watcher beside it when NOTEBOOK_VAULT is set (docs/DEPLOY.md).
serve: venv
	$(PY) manage.py migrate --no-input
	$(PY) manage.py collectstatic --no-input -v 0
	$(PY) manage.py notebook first-editor
	$(PY) -m notebook_site.serve

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Spectral's OpenAPI ruleset (.spectral.yaml: spectral:oas, nothing turned off) on the document the app serves: any
# error, warning, info or hint fails. Needs Node; npx fetches the CLI once. tests/agents/test_openapi.py checks the
# rules the document once broke without it.
SPECTRAL ?= npx -y @stoplight/spectral-cli@6.16.3

spectral: venv
	mkdir -p var
	DJANGO_SETTINGS_MODULE=notebook_site.settings_test $(PY) -c 'import django, json; django.setup(); \
		from notebooks.agents.api import api; print(json.dumps(api.get_openapi_schema(path_prefix="/api/"), indent=1))' \
		> var/openapi.json
	$(SPECTRAL) lint var/openapi.json --ruleset .spectral.yaml --fail-severity hint

# The suite runs on PYTEST_WORKERS pytest-xdist workers (each with its own test database); 0 runs it in one process.
# A file's tests stay on one worker: a module's fixtures (a browser test's server, an MCP process) start once.
# 2: with 3 on a 2-core machine .ci/run once took 19:37 (21:09 with 2), but a browser race test failed in the next run.
PYTEST_WORKERS ?= 2

test: venv browser lint
	$(VENV)/bin/pytest -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# Benchmarks (never part of `make test`): SQLite and PostgreSQL side by side; see bench/RESULTS.md.
$(VENV)/.bench-installed: $(VENV)/.installed requirements-bench.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	touch $@

bench: $(VENV)/.bench-installed
	$(PY) -m bench $(ARGS)

bench-quick: $(VENV)/.bench-installed
	$(PY) -m bench --quick $(ARGS)

# The app under load through the server `make serve` runs (bench/serve.py), on PostgreSQL and SQLite, one and two
# instances (ARGS=--compare first puts granian and gunicorn side by side);
# SERVE_SECONDS per run (default 60). Writes bench/SERVE.md and bench/serve-latency.png.
bench-serve: $(VENV)/.bench-installed
	$(PY) -m bench.serve $(ARGS)

# Redraw the pictures of the README and docs/card.md (docs/card-*.png) from fresh demo notebooks (on SQLite, as
# their tests run).
screenshots: venv browser
	DATABASE_URL= NOTEBOOKS_SCREENSHOTS=docs $(VENV)/bin/pytest -p no:cacheprovider -q tests/browser/test_browser_card.py -k "fits_a_phone or guides_pictures"

# The heavy reliability runs (docs/RELIABILITY.md): SQLite, then PostgreSQL; bounded by RELIABILITY_TIMEOUT per part.
reliability: venv
	bash .ci/reliability

# The soak with faults (docs/RELIABILITY.md, section 9): the server `make serve` runs, the vault watcher, Dad, 4 agents,
# an outside writer and readers at once on PostgreSQL, for SOAK_SECONDS (default 600), with backends, a web worker and
# git failing.
soak: venv
	bash .ci/soak

clean:
	rm -rf $(VENV) var
