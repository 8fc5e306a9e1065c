# Yardstick: `make demo` runs the main job end to end; `make test` runs every check.
# Both create or refresh .venv by themselves (Python 3.11+, packages from PyPI).
# Bytecode is compiled explicitly: with PYTHONDONTWRITEBYTECODE set (as on CI machines) nothing is
# cached, and every service process would recompile scipy, langchain and the rest from source.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: venv bytecode ui-assets browser test lint typecheck docs pytest unit integration demo bench llm-check clean stack-up stack-down

venv: $(STAMP)

$(STAMP): pyproject.toml sdk/pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check uv
	$(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -e './sdk[pandas]' -e '.[dev]'
	@touch $(STAMP)

# The web UI's front-end packages (htmx, Chart.js and its error-bar plugin) come from the npm
# registry, pinned by package-lock.json, and are copied into the coordinator's static folder
# (ignored by git); npm installs them under .yardstick-build/, outside the source tree.
# Nothing is fetched at page load: the UI works offline.
UI        := services/coordinator/ui
UI_VENDOR := $(UI)/static/vendor
UI_STAMP  := $(UI_VENDOR)/.installed
UI_BUILD  := .yardstick-build/ui

ui-assets: $(UI_STAMP)

$(UI_STAMP): $(UI)/frontend/package.json $(UI)/frontend/package-lock.json $(UI)/frontend/copy-vendor.sh
	@mkdir -p $(UI_BUILD)
	cp $(UI)/frontend/package.json $(UI)/frontend/package-lock.json $(UI_BUILD)/
	npm ci --prefix $(UI_BUILD) --no-audit --no-fund --loglevel=error
	sh $(UI)/frontend/copy-vendor.sh $(UI_VENDOR) $(UI_BUILD)/node_modules
	@touch $(UI_STAMP)

# Browser tests drive Debian's Chromium through Playwright (Playwright's own browser download is
# not reachable here); installed when missing.
browser:
	@command -v chromium > /dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium > /dev/null)

# Our own sources change between runs: compiled (if stale) before each run, not only at install.
bytecode: venv
	@$(BIN)/python -m compileall -q -j 0 services shared tests bench sdk/src > /dev/null

lint: venv
	$(BIN)/ruff check services shared tests bench sdk docs/gen
	$(BIN)/ruff format --check services shared tests bench sdk docs/gen
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy services shared sdk/src/yardstick
	$(BIN)/mypy -p docs.gen

# Two pytest-xdist workers: the suite mostly waits (servers, subprocess stacks, deadlines), so two
# run side by side on two cores. Each worker starts its own NATS and PostgreSQL (tests/conftest.py);
# --dist loadgroup keeps a module's `xdist_group` together on one worker (the stack fault tests run
# one after another, never beside each other). PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup

pytest: bytecode ui-assets browser
	$(PYTEST)

unit: bytecode ui-assets
	$(PYTEST) -m unit

integration: bytecode ui-assets browser
	$(PYTEST) -m integration

# The site (MkDocs Material) into build/site; the reference pages are generated from the code by
# the hook in docs/gen/ (nothing fetched, nothing generated written into docs/). Run with -m so
# that the hook can import this repository's packages.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --quiet

test: lint typecheck docs pytest

demo: bytecode ui-assets
	$(BIN)/yardstick demo

# A real model on this machine (not part of `make test`): llama-cpp-python compiles from source (about
# 5 minutes on 2 cores; the wheel is built with -march=native, so it stays on this machine), then
# bench/llm_check.py runs the agent and an llm_rubric judge through the `openai` provider against it.
LLM_STAMP := $(VENV)/.llm-check-installed

$(LLM_STAMP): $(STAMP)
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev,llm-check]'
	@touch $(LLM_STAMP)

llm-check: bytecode ui-assets $(LLM_STAMP)
	$(BIN)/python bench/llm_check.py

bench: bytecode ui-assets
	$(BIN)/python bench/latency.py
	$(BIN)/python bench/throughput.py
	$(BIN)/python bench/ha.py
	$(BIN)/python bench/rate_limits.py
	$(BIN)/python bench/ui_pages.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/traces.py
	$(BIN)/python bench/trace_tables.py
	$(BIN)/python bench/comparisons.py
	$(BIN)/python bench/prediction_powered.py
	$(BIN)/python bench/multiplicity.py

stack-up: bytecode ui-assets
	$(BIN)/yardstick stack up

stack-down: venv
	$(BIN)/yardstick stack down

clean:
	-$(BIN)/yardstick stack down
	rm -rf .yardstick .yardstick-build .mypy_cache .pytest_cache .ruff_cache
