# `make run` installs into .venv and runs the bot; `make test` installs and runs the checks.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint format bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot serve

# The rules the layout states, checked by tools (README, "Contributing"): the formatter,
# the linter, the import contracts in pyproject.toml, and the type checker.
lint: $(STAMP)
	$(BIN)/ruff format --check bot tests bench
	$(BIN)/ruff check bot tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format bot tests bench
	$(BIN)/ruff check --fix bot tests bench

test: lint
	$(BIN)/python -m pytest -n logical --maxprocesses 4 --dist loadscope  # a module's tests share one worker, so its fixtures are built once

bench: $(STAMP)
	$(BIN)/python bench/run.py --sizes 1000,10000,100000

clean:
	rm -rf $(VENV) data .pytest_cache .ruff_cache .mypy_cache .import_linter_cache .hypothesis
