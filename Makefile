# The two commands of the README:  `make run`  (the main job)  and  `make test`.
# Both create ./.venv on first use and install farl into it: `make run` only what the main job needs (farl and
# its core dependencies), `make test` every optional extra as well.
VENV ?= .venv
PY := $(VENV)/bin/python
CORE := $(VENV)/.farl-core
FULL := $(VENV)/.farl-full
EXTRAS := dev,baselines,adapters,web,browser,docs,ray,tianshou,rllib

.PHONY: run test test-slow lint bench clean

$(CORE): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $(CORE)

$(FULL): $(CORE) pyproject.toml
	# torch first, pinned to the CPU build, so the baselines extra does not pull a CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	touch $(FULL)

# TD-FARL vs no-FARL on TicTacToe and Nim3P with the paper's settings (3 seeds each), evaluated
# against perfect Max-N and MCTS as in Table 1 of Konen & Bagheri 2020: a few minutes on 2 cores.
run: $(CORE)
	$(VENV)/bin/farl reproduce table1 --rows tictactoe,nim3p --budget quick --runs 3 --out runs/quickstart
	@echo ""
	@echo "farl is installed in $(VENV): run '. $(VENV)/bin/activate' to put the farl command on your PATH"
	@echo "(or call $(VENV)/bin/farl); then e.g.  farl info  or  farl play tictactoe --agent pretrained"

test: $(FULL)
	$(PY) -m pytest -q

# the long tests the default run leaves out (every game's compiled paths one by one, solvers, clusters): CI runs
# them after `make test`
test-slow: $(FULL)
	$(PY) -m pytest -q -m slow

# ruff (lint + import order; settings in pyproject.toml): CI runs it before the tests
lint: $(FULL)
	$(VENV)/bin/ruff check .

bench: $(FULL)
	$(PY) benchmarks/env_speed.py

clean:
	rm -rf $(VENV) .numba_cache
