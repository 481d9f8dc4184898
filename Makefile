# The two commands of the README:  `make run`  (the main job)  and  `make test`.
# Both create ./.venv on first use and install farl into it.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.farl-installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	# torch first, pinned to the CPU build, so the baselines extra does not pull a CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev,baselines,adapters,web,browser,docs,ray,tianshou,rllib]"
	touch $(STAMP)

# TD-FARL vs no-FARL on TicTacToe and Nim3P with the paper's settings (3 seeds each), evaluated
# against perfect Max-N and MCTS as in Table 1 of Konen & Bagheri 2020: a few minutes on 2 cores.
run: $(STAMP)
	$(VENV)/bin/farl reproduce table1 --rows tictactoe,nim3p --budget quick --runs 3 --out runs/quickstart

test: $(STAMP)
	$(PY) -m pytest -q

# ruff (lint + import order; settings in pyproject.toml): CI runs it before the tests
lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) benchmarks/env_speed.py

clean:
	rm -rf $(VENV) .numba_cache
