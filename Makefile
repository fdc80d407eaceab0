# Two commands do everything: `make run` and `make test`. Both create .venv when it is
# missing and install the locked dependencies; a stamp file makes the second run fast.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.gatehouse-installed
export GATEHOUSE_DATA ?= $(CURDIR)/data
# Some machines set PYTHONDONTWRITEBYTECODE for every process. Here it would make each pytest
# worker rewrite and compile all ~250 test modules again (half of collecting them) and every
# server process the tests start compile the project again: the lanes keep their bytecode.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test quick lint typecheck pytest peers lock bench bench-page eval conformance conformance-next clean

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

# Everything but the browser tests on PYTEST_WORKERS workers (pytest-xdist), then the browser
# tests on their own: each drives a real Chromium against a Streamlit server, and on two cores
# shared with another worker their waits for the page time out. The slowest tests are listed at
# the end of each run: CI's time budget is watched from there.
PYTEST_WORKERS ?= 2
pytest: $(STAMP) peers
	$(BIN)/pytest -m "not browser" -n $(PYTEST_WORKERS) --durations=25
	$(BIN)/pytest -m browser --durations=10

# The quick lane while editing: unit and in-process tests of every package, without the tests
# that start processes, drive a browser, need PostgreSQL or third-party servers (their markers:
# pyproject.toml). A test that starts a process without its marker fails here (tests/conftest.py).
# worksteal: the lane's tests differ a hundredfold in length, and a worker left idle at the end
# while the other runs its last chunk cost about a tenth of the lane's time.
# Three workers on two cores: the lane's tests spend part of their time waiting (SQLite's syncs,
# server threads answering), and a third worker fills it: 53-61 s against 61-76 s with two,
# measured back to back on a quiet 2-core machine.
QUICK_WORKERS ?= 3
quick: $(STAMP)
	GATEHOUSE_QUICK_LANE=1 $(BIN)/pytest -m "not (processes or browser or postgres or peers)" -n $(QUICK_WORKERS) --dist worksteal -q

# Third-party MCP servers for tests/interop (and, from npm, the browser tests' axe-core and OpenID
# Connect provider), each in its own environment under .peers/ (the servers pin
# other SDK versions than ours, so never into .venv). Stamps make a second run a no-op. Without
# npm the npm peers are skipped with a notice (their tests skip), unless GATEHOUSE_REQUIRE_PEERS=1.
PEERS := .peers
PEER_VENVS := time git sqlite calculator excel word powerpoint toolkit

peers: $(PEERS)/npm/.installed $(foreach p,$(PEER_VENVS),$(PEERS)/venv-$(p)/.installed)

$(PEERS)/npm/.installed: peers/package.json peers/package-lock.json peers/.npmrc
	@if ! command -v npm >/dev/null 2>&1; then \
		if [ "$(GATEHOUSE_REQUIRE_PEERS)" = 1 ]; then echo "make peers: npm not found and GATEHOUSE_REQUIRE_PEERS=1" >&2; exit 1; fi; \
		echo "make peers: npm not found; skipping the npm MCP servers (their interop tests will skip)"; \
	else \
		rm -rf $(PEERS)/npm && mkdir -p $(PEERS)/npm && \
		cp peers/package.json peers/package-lock.json peers/.npmrc $(PEERS)/npm/ && \
		npm ci --prefix $(PEERS)/npm --ignore-scripts --no-audit --no-fund --loglevel=error && \
		touch $@; \
	fi

$(PEERS)/venv-%/.installed: peers/python/mcp-server-%.txt
	rm -rf $(PEERS)/venv-$*
	$(PYTHON) -m venv $(PEERS)/venv-$*
	$(PEERS)/venv-$*/bin/python -m pip install --quiet --require-hashes --no-deps -r $<
	@touch $@

# The benchmark (not part of `make test`): figures beside their targets, a report under
# bench/results/, each figure's results in bench/results/figures/ (committed) and
# docs/benchmark.md rewritten from them, a non-zero exit when a target is missed.
bench: $(STAMP)
	$(BIN)/python -m bench

# docs/benchmark.md from bench/page_template.md and bench/results/figures/*.json, measuring
# nothing: after editing the template, or to check a hand edit away (tests/bench/test_page.py).
bench-page: $(STAMP)
	$(BIN)/python -m bench.page

# The capability-selection benchmark (not part of `make test`): eval/selection_cases.json and
# eval/batches/*.json through `gatehouse ask` on the peer servers and the bundled ones; accuracy
# per server group beside the targets, each batch's score beside its before-tuning score, the
# invariants, a non-zero exit when a target is missed. EVAL_ARGS="-k time" runs a subset (an id,
# a group or a batch), "--json" prints the report as JSON, "--jobs 2" asks on two processes (the
# same report). `gatehouse eval FILE` does the same with a team's own cases and servers
# (docs/eval.md).
EVAL_ARGS ?=
eval: $(STAMP) peers
	$(BIN)/python -m eval $(EVAL_ARGS)

# The official MCP conformance suite's client scenarios against Gatehouse's host
# (conformance/client.py), in one run: the stable suite (0.1.16, every scenario must pass), then
# the pre-release's 2026-07-28 requirement set (conformance/next/), where only the scenarios
# pinned with a reason in conformance/next/expected_failures.toml may fail and a pinned one that
# passes fails the run. Then both suites' server scenarios against a real `gatehouse serve`
# (conformance/endpoint.py), failing only as pinned in each folder's
# server_expected_failures.toml. Node 22 and the suites, pinned in each folder's
# package-lock.json, are installed into .conformance/ on the first run. One line per scenario, a
# tally per suite; exit 1 on a failure. CONFORMANCE_JOBS client scenarios run at once (each waits
# on its own test server more than it computes). `conformance-next` reports the pre-release's
# sets alone without failing.
CONFORMANCE_JOBS ?= 2
conformance: $(STAMP)
	$(BIN)/python -m conformance --jobs $(CONFORMANCE_JOBS)

conformance-next: $(STAMP)
	$(BIN)/python -m conformance --suite next --report-only --jobs $(CONFORMANCE_JOBS)

# Regenerate requirements.lock after changing dependencies in pyproject.toml.
lock:
	$(PYTHON) -m venv .lock-venv && .lock-venv/bin/pip install --quiet uv
	.lock-venv/bin/uv pip compile pyproject.toml --extra dev --generate-hashes \
		--python-version 3.11 --python-platform x86_64-manylinux_2_28 -o requirements.lock
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) $(PEERS) .conformance build *.egg-info
