# Yardstick: `make demo` runs the main job end to end; `make test` runs every check.
# Both create or refresh .venv by themselves (Python 3.11+, packages from PyPI).
# Bytecode is compiled explicitly: with PYTHONDONTWRITEBYTECODE set (as on CI machines) nothing is
# cached, and every service process would recompile scipy, langchain and the rest from source.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: venv bytecode test lint typecheck pytest unit integration demo bench clean stack-up stack-down

venv: $(STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check uv
	$(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -e '.[dev]'
	@touch $(STAMP)

# Our own sources change between runs: compiled (if stale) before each run, not only at install.
bytecode: venv
	@$(BIN)/python -m compileall -q -j 0 services shared tests bench > /dev/null

lint: venv
	$(BIN)/ruff check services shared tests bench
	$(BIN)/ruff format --check services shared tests bench
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy services shared

pytest: bytecode
	$(BIN)/python -m pytest -q

unit: bytecode
	$(BIN)/python -m pytest -q -m unit

integration: bytecode
	$(BIN)/python -m pytest -q -m integration

test: lint typecheck pytest

demo: bytecode
	$(BIN)/yardstick demo

bench: bytecode
	$(BIN)/python bench/latency.py
	$(BIN)/python bench/throughput.py

stack-up: bytecode
	$(BIN)/yardstick stack up

stack-down: venv
	$(BIN)/yardstick stack down

clean:
	-$(BIN)/yardstick stack down
	rm -rf .yardstick .mypy_cache .pytest_cache .ruff_cache
