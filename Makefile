# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Extras the tests need (all of them: torch is pinned to the local CPU wheel by the ml extra);
# the demo needs only the browser and the sandbox sites.
TEST_EXTRAS ?= dev,browser,sites,mind2web,ml,ray,train,images,miniwob,webarena
# The WebArena-Verified reference package (tasks, and the evaluator the tests compare with);
# installed without its exact pins (see the webarena extra in pyproject.toml).
WEBARENA_VERIFIED ?= webarena-verified==1.2.3
DEMO_EXTRAS ?= browser,sites

.PHONY: demo test test-slow lint bench venv chromium clean

$(PY):
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Reinstalled when the project's metadata changes.
BUILD_INPUTS := pyproject.toml

$(VENV)/.installed-test: $(BUILD_INPUTS) | $(PY)
	$(PIP) install --quiet -e ".[$(TEST_EXTRAS)]"
	$(PIP) install --quiet --no-deps "$(WEBARENA_VERIFIED)"
	@touch $@

$(VENV)/.installed-demo: $(BUILD_INPUTS) | $(PY)
	$(PIP) install --quiet -e ".[$(DEMO_EXTRAS)]"
	@touch $@

venv: $(VENV)/.installed-test

chromium:
	@bash scripts/ensure-chromium.sh

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check src tests benchmarks examples docs
	$(VENV)/bin/lint-imports

test: $(VENV)/.installed-test chromium lint
	$(VENV)/bin/pytest -q

# Long checks (marked `slow`), kept out of `make test`; their figures go into the notes.
test-slow: $(VENV)/.installed-test chromium
	$(VENV)/bin/pytest -q -m slow

demo: $(VENV)/.installed-demo chromium
	$(PY) -m webtraj.demo

bench: $(VENV)/.installed-test
	@for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build dist src/*.egg-info
