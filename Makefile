# `make run` installs into .venv and runs the bot; `make test` installs and runs the checks.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot serve

lint: $(STAMP)
	$(BIN)/ruff check bot tests bench

test: lint
	$(BIN)/python -m pytest -n logical --maxprocesses 4 --dist loadscope  # a module's tests share one worker, so its fixtures are built once

bench: $(STAMP)
	$(BIN)/python bench/run.py --sizes 1000,10000,100000

clean:
	rm -rf $(VENV) data .pytest_cache .ruff_cache .hypothesis
