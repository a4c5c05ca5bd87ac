# Two commands for a newcomer: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_VAULT ?= run-vault

.PHONY: setup run test lint typecheck pytest plugin plugin-test plugin-e2e screenshots dist \
	install-check clean

PLUGIN := obsidian-plugin
PLUGIN_DEPS := $(PLUGIN)/node_modules/.package-lock.json
PLUGIN_SRC := $(wildcard $(PLUGIN)/src/*.ts $(PLUGIN)/src/*/*.ts)

# pip shows what it downloads: the first install takes a minute or two (litellm is large).
$(BIN)/.installed: pyproject.toml
	@echo "Setting up $(VENV): Python dependencies, about two minutes the first time..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
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
## (bridge.obsidian_plugin creates the vault when it is missing and installs the built plugin.)
run: setup plugin
	@$(BIN)/python -m bridge.obsidian_plugin $(RUN_VAULT)
	$(BIN)/vault-bridge serve --vault $(RUN_VAULT)

lint: setup
	$(BIN)/ruff check bridge tests bench hatch_build.py
	$(BIN)/ruff format --check bridge tests bench hatch_build.py

typecheck: setup
	$(BIN)/mypy bridge

# Two workers: most of the suite waits on real servers, watchers and subprocesses, so the two
# cores overlap (920 tests on 2026-12-02, otherwise idle 2-core machine: 7 min 22 s in one
# process, 5 min 1 s in two).
# Work stealing: a worker that runs out takes tests queued for the other, so the last minute
# is not one worker finishing the long end-to-end tests while the other idles.
pytest: setup
	$(BIN)/pytest -n 2 --dist worksteal

plugin-test: $(PLUGIN_DEPS)
	cd $(PLUGIN) && npm run typecheck && npm test

## The built plugin in headless Chromium against a real `vault-bridge serve`.
plugin-e2e: setup plugin
	cd $(PLUGIN) && npm run test:e2e

## The same, refreshing the screenshots in docs/img (plugin-e2e writes them to a temp folder).
screenshots: setup plugin
	cd $(PLUGIN) && VB_SCREENSHOTS_DIR=../docs/img npm run test:e2e

## The release: dist/ gets the wheel (with the template and the built plugin) and the plugin zip.
dist: setup plugin
	rm -rf dist
	$(BIN)/python -m build --wheel --outdir dist
	cd $(PLUGIN) && npm run release -- ../dist

## Install the built wheel into a fresh venv and run it on a lived-in vault.
install-check: dist
	$(BIN)/python tests/wheel/check_installed.py dist/vault_bridge-*.whl

## Every check: lint, types, the whole test suite (the plugin's too) and the installed wheel.
test: lint typecheck pytest plugin-test plugin-e2e install-check

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist
	rm -rf $(PLUGIN)/node_modules $(PLUGIN)/main.js $(PLUGIN)/e2e/harness.js
