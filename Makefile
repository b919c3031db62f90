# Everything a fresh machine needs: `make run` serves the app, `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test lint venv browser bench bench-quick clean screenshots reliability soak

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

browser:
	@command -v chromium >/dev/null 2>&1 || test -x /usr/bin/chromium || { \
		echo "Installing Debian's chromium for the browser tests…"; \
		(apt-get update -qq || sudo apt-get update -qq) && \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium || sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium); }

run: venv
	DEBUG=1 $(PY) manage.py migrate --no-input
	DEBUG=1 $(PY) manage.py notebook first-editor
	DEBUG=1 $(PY) manage.py notebook demo
	DEBUG=1 $(PY) manage.py runserver $${PORT:-8000}

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The suite runs on PYTEST_WORKERS pytest-xdist workers (each with its own test database); 0 runs it in one process.
PYTEST_WORKERS ?= 2

test: venv browser lint
	$(VENV)/bin/pytest -p no:cacheprovider -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# Benchmarks (never part of `make test`): SQLite and PostgreSQL side by side; see bench/RESULTS.md.
$(VENV)/.bench-installed: $(VENV)/.installed requirements-bench.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	touch $@

bench: $(VENV)/.bench-installed
	$(PY) -m bench $(ARGS)

bench-quick: $(VENV)/.bench-installed
	$(PY) -m bench --quick $(ARGS)

# Redraw docs/card-wide.png and docs/card-narrow.png from a fresh demo notebook.
screenshots: venv browser
	NOTEBOOKS_SCREENSHOTS=docs $(VENV)/bin/pytest -p no:cacheprovider -q tests/test_browser_card.py -k fits_a_phone

# The heavy reliability runs (docs/RELIABILITY.md): SQLite, then PostgreSQL; bounded by RELIABILITY_TIMEOUT per part.
reliability: venv
	bash .ci/reliability

# The soak with faults (docs/RELIABILITY.md, section 9): gunicorn, the vault watcher, Dad, 4 agents, an outside writer
# and readers at once on PostgreSQL, for SOAK_SECONDS (default 600), with backends, a web worker and git failing.
soak: venv
	bash .ci/soak

clean:
	rm -rf $(VENV) var
