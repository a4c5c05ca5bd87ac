# Two commands for a newcomer: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_VAULT ?= run-vault

.PHONY: setup run test lint typecheck pytest plugin plugin-test plugin-e2e clean

PLUGIN := obsidian-plugin
PLUGIN_DEPS := $(PLUGIN)/node_modules/.package-lock.json
PLUGIN_SRC := $(wildcard $(PLUGIN)/src/*.ts $(PLUGIN)/src/*/*.ts)

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

setup: $(BIN)/.installed

# npm ci again only when the lock file changed (npm writes this file into node_modules).
$(PLUGIN_DEPS): $(PLUGIN)/package-lock.json
	cd $(PLUGIN) && npm ci --no-audit --no-fund
	touch $@

$(PLUGIN)/main.js: $(PLUGIN_DEPS) $(PLUGIN_SRC) $(PLUGIN)/esbuild.config.mjs $(PLUGIN)/tsconfig.json
	cd $(PLUGIN) && npm run build

## Build the Obsidian plugin (obsidian-plugin/main.js).
plugin: $(PLUGIN)/main.js

## Set up, copy vault-template/ to ./run-vault once, and run the bridge on it.
run: setup plugin
	@test -d $(RUN_VAULT) || $(BIN)/vault-bridge init $(RUN_VAULT)
	@$(BIN)/python -m bridge.obsidian_plugin $(RUN_VAULT)
	$(BIN)/vault-bridge serve --vault $(RUN_VAULT)

lint: setup
	$(BIN)/ruff check bridge tests bench
	$(BIN)/ruff format --check bridge tests bench

typecheck: setup
	$(BIN)/mypy bridge

pytest: setup
	$(BIN)/pytest

plugin-test: $(PLUGIN_DEPS)
	cd $(PLUGIN) && npm run typecheck && npm test

## The plugin's views in headless Chromium against a real `vault-bridge serve`.
plugin-e2e: setup plugin
	cd $(PLUGIN) && npm run test:e2e

## Every check: lint, types and the whole test suite (the plugin's too).
test: lint typecheck pytest plugin-test plugin-e2e

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
	rm -rf $(PLUGIN)/node_modules $(PLUGIN)/main.js $(PLUGIN)/e2e/harness.js
