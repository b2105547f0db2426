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

.PHONY: setup system-deps lab test test-package test-lessons test-browser lint bench lessons example example-dist clean

setup: $(STAMP) system-deps

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,dist]"
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

test: setup
	$(MAKE) lint test-package test-lessons

# ruff everywhere; mypy on the typed core (its file list is [tool.mypy] in pyproject.toml).
lint:
	$(VENV)/bin/ruff check minitorch widgets tests bench tools
	$(VENV)/bin/mypy

test-package:
	$(PY) -m pytest tests

# Solutions: stored outputs must match (sanitised). Learner copies: must run top to bottom.
# Both suites always run, so one report shows every broken notebook.
test-lessons:
	@if ls lessons/solutions/*.ipynb >/dev/null 2>&1; then \
	  status=0; \
	  $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env \
	    --nbval-sanitize-with lessons/nbval_sanitize.cfg lessons/solutions || status=1; \
	  $(PY) -m pytest -p no:cacheprovider --nbval-lax --nbval-current-env lessons/*.ipynb || status=1; \
	  exit $$status; \
	else echo "no lessons yet"; fi

lessons:
	$(PY) -m tools.make_learner_copies

bench: setup
	$(PY) bench/op_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
