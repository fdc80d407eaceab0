# Two commands do everything: `make run` and `make test`. Both create .venv when it is
# missing and install the locked dependencies; a stamp file makes the second run fast.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.gatehouse-installed
export GATEHOUSE_DATA ?= $(CURDIR)/data

.PHONY: run test lint typecheck pytest lock bench clean

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Gatehouse needs Python 3.11 or newer; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/streamlit run app.py

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

# Regenerate requirements.lock after changing dependencies in pyproject.toml.
lock:
	$(PYTHON) -m venv .lock-venv && .lock-venv/bin/pip install --quiet uv
	.lock-venv/bin/uv pip compile pyproject.toml --extra dev --generate-hashes \
		--python-version 3.11 --python-platform x86_64-manylinux_2_28 -o requirements.lock
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) build *.egg-info
