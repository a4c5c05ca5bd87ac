# Two commands for a newcomer: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_VAULT ?= run-vault

.PHONY: setup run test lint typecheck pytest clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

setup: $(BIN)/.installed

## Set up, copy vault-template/ to ./run-vault once, and run the bridge on it.
run: setup
	@test -d $(RUN_VAULT) || $(BIN)/vault-bridge init $(RUN_VAULT)
	$(BIN)/vault-bridge serve --vault $(RUN_VAULT)

lint: setup
	$(BIN)/ruff check bridge tests bench
	$(BIN)/ruff format --check bridge tests bench

typecheck: setup
	$(BIN)/mypy bridge

pytest: setup
	$(BIN)/pytest

## Every check: lint, types and the whole test suite.
test: lint typecheck pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
