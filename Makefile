# A newcomer needs two commands:  `make lab` (open the lessons)  and  `make test`.
# Both create .venv on first use. System packages (graphviz's `dot`, Chromium for the
# browser test) are installed with apt-get when we are root, else the command is printed.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# PyTorch is a test oracle and benchmark yardstick only. Install it only from the local
# CPU wheel when the machine has one: any other torch download is several gigabytes.
TORCH_WHEEL := $(firstword $(wildcard /opt/wheels/torch-2.13.0*.whl))
LAB_PORT ?= 8888
HUB_PORT ?= 8000
# JupyterHub's proxy is a node program from the npm registry, installed into .hub/.
CHP_VERSION := 5.3.0
CHP := .hub/node_modules/.bin/configurable-http-proxy

.PHONY: setup system-deps lab test course release collect autograde feedback hub hub-proxy test-package test-lessons test-browser lint bench lessons example example-dist clean

setup: $(STAMP) system-deps

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,dist,course]"
ifneq ($(TORCH_WHEEL),)
	$(PY) -m pip install -q "torch==2.13.0" || echo "note: torch 2.13.0 not installed; oracle tests will skip"
else
	@echo "note: no local torch 2.13.0 wheel; tests that compare against PyTorch will skip"
endif
	touch $(STAMP)

system-deps:
	@missing=""; \
	command -v dot >/dev/null 2>&1 || missing="$$missing graphviz"; \
	command -v chromium >/dev/null 2>&1 || test -x /usr/bin/chromium || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing system packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "Please install the system packages:$$missing"; \
	    echo "    sudo apt-get install -y$$missing"; \
	  fi; \
	fi

# JupyterLab refuses to start as root unless told; containers often run as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: setup
	$(VENV)/bin/jupyter lab --port $(LAB_PORT) $(ALLOW_ROOT) lessons/00_welcome.ipynb

example: setup
	$(PY) -m minitorch.examples.digits --model mlp --epochs 20

# Data-parallel training on 2 ranks (MPI from the mpich wheel: mpiexec is in .venv/bin).
example-dist: setup
	$(VENV)/bin/mpiexec -n 2 $(PY) -m minitorch.examples.digits --model mlp --epochs 20 --distributed

# Every part of the suite (lint, package tests, solution notebooks, learner copies, and the
# solutions again on a narrowed CPU), each run even if an earlier one failed, then a table
# of the time each part took (tools/run_test_parts.py).
test: setup hub-proxy
	$(PY) -m tools.run_test_parts

# ruff everywhere; mypy on the typed core (its file list is [tool.mypy] in pyproject.toml).
lint:
	$(PY) -m tools.run_test_parts lint

test-package:
	$(PY) -m tools.run_test_parts package

# Solutions: stored outputs must match (sanitised), on this CPU and on a narrowed one.
# Learner copies: must run top to bottom.
test-lessons:
	$(PY) -m tools.run_test_parts solutions learner-copies narrow-cpu

# The classroom. `make course`: course/source from lessons/solutions (nbgrader metadata
# added), then `nbgrader generate_assignment` for every lesson into course/release.
course: setup
	$(PY) -m tools.make_course --release

# The teacher's round for one lesson (README, "For teachers"): make release LESSON=02_graphs_chain_rule
# ... then collect, autograde, feedback. nbgrader runs in course/ (its config) with the venv on PATH.
NBGRADER = cd course && export PATH="$(CURDIR)/$(VENV)/bin:$$PATH" && nbgrader
release: ; $(NBGRADER) release_assignment $(LESSON) --force
collect: ; $(NBGRADER) collect $(LESSON) --update
autograde: ; $(NBGRADER) autograde $(LESSON) --create
feedback: ; $(NBGRADER) generate_feedback $(LESSON) && nbgrader release_feedback $(LESSON)

# A local JupyterHub on http://127.0.0.1:$(HUB_PORT): any user name, password "minitorch"
# (MINITORCH_HUB_PASSWORD), each learner's lessons in .hub/users/NAME. See docs/jupyterhub.md.
hub: setup hub-proxy
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" MINITORCH_HUB_PORT=$(HUB_PORT) $(VENV)/bin/jupyterhub -f hub/jupyterhub_config.py

hub-proxy:
	@test -x $(CHP) || { \
	  if command -v npm >/dev/null 2>&1; then \
	    npm install --prefix .hub --no-audit --no-fund --loglevel=error configurable-http-proxy@$(CHP_VERSION); \
	  else echo "note: npm not found; install node and npm for make hub (its test skips, or fails under CI)"; fi; }

lessons:
	$(PY) -m tools.make_learner_copies

bench: setup
	$(PY) bench/op_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
