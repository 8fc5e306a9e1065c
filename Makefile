# Yardstick: `make demo` runs the main job end to end; `make test` runs every check.
# Both create or refresh .venv by themselves (Python 3.11+, packages from PyPI).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: venv test lint typecheck pytest unit integration demo bench clean stack-up stack-down

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check uv
	$(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev]'
	@touch $(STAMP)

lint: venv
	$(BIN)/ruff check services shared tests bench
	$(BIN)/ruff format --check services shared tests bench

typecheck: venv
	$(BIN)/mypy services shared

pytest: venv
	$(BIN)/python -m pytest -q

unit: venv
	$(BIN)/python -m pytest -q -m unit

integration: venv
	$(BIN)/python -m pytest -q -m integration

test: lint typecheck pytest

demo: venv
	$(BIN)/yardstick demo

bench: venv
	$(BIN)/python bench/throughput.py

stack-up: venv
	$(BIN)/yardstick stack up

stack-down: venv
	$(BIN)/yardstick stack down

clean:
	-$(BIN)/yardstick stack down
	rm -rf .yardstick .mypy_cache .pytest_cache .ruff_cache
