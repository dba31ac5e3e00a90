# Every target makes its own virtual environment (.venv) on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# pytest-xdist spreads the suite over the machine's cores; loadgroup keeps each xdist_group (a
# cluster test module and the one cluster its module fixture starts) in one worker; the 20
# slowest tests are listed at the end (to keep `make test` under 15 minutes).
PYTEST_ARGS ?= -n 2 --dist loadgroup --durations=20

.PHONY: test lint bench slow serve clean venv screenshots

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

# The browser suite runs on its own: Playwright's sync API keeps an event loop in the worker
# that would clash with the asyncio tests.
# tests.provision installs Chromium and PostgreSQL once, before pytest starts its workers (under
# CI=true it stops here if it cannot).
test: lint
	$(BIN)/python -m tests.provision
	$(BIN)/pytest $(PYTEST_ARGS) -m "not slow and not browser"
	$(BIN)/pytest $(PYTEST_ARGS) -m "browser and not slow"

# Refresh the README's screenshots from a real browser session.
screenshots: $(STAMP)
	STUDPOKER_SCREENSHOT_DIR=docs/screenshots $(BIN)/pytest -m browser tests/browser

# Long runs (about 1.5 hours on 2 cores): 100,000 PokerKit differential hands per game,
# 10,000-hand bot matches, 20-kill crash runs, long fuzzing and spy runs.
slow: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS) -m slow

# The benchmark tables of the README (studpoker beside its peers in one run).
bench: $(STAMP)
	$(BIN)/python -m bench

serve: $(STAMP)
	$(BIN)/studpoker serve

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
