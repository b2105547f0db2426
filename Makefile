# A newcomer needs two commands:  `make lab` (open the lessons)  and  `make test`.
# Both create .venv on first use: `make lab` with the learner's lab stack only (pip install -e .),
# `make setup` / `make test` with the dev, dist and course extras too. The optional system
# packages (graphviz's `dot`, Chromium for the browser test, the Noto CJK fonts for the Chinese
# lessons) are installed when we are root and know the package manager (apt, dnf, pacman,
# zypper); otherwise the line to run is printed for this system (brew on macOS) and we go on
# without them (minitorch_course/system_packages.py). Learners without make: README, Quick start.
#
# The Chinese course: `make lab LANG=zh`, `make course LANG=zh`. LANG is also the shell's
# locale (LANG=C.UTF-8 in CI, en_US.UTF-8 ...): a LANG starting with zh, given on make's
# command line or the locale of a Chinese desktop (zh_CN.UTF-8), switches; any other keeps
# English. A LANG given on the command line is not passed on as the programs' locale.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LAB_STAMP := $(VENV)/.installed-lab
# PyTorch is a test oracle and benchmark yardstick only. Install it only from the local
# CPU wheel when the machine has one: any other torch download is several gigabytes.
TORCH_WHEEL := $(firstword $(wildcard /opt/wheels/torch-2.13.0*.whl))
LAB_PORT ?= 8888
HUB_PORT ?= 8000
# JupyterHub's proxy is a node program from the npm registry, installed into .hub/.
CHP_VERSION := 5.3.0
CHP := .hub/node_modules/.bin/configurable-http-proxy
# Graphviz for the browser (graphs without `dot`): the pinned @viz-js/viz from npm, put into
# the package by tools/fetch_viz.py (pin: widgets/draw/browser/viz.json); shipped in the wheel.
VIZ := widgets/draw/browser/viz.js
COURSE_LANG := $(if $(filter zh%,$(LANG)),zh,en)
LAB_NOTEBOOK := $(if $(filter zh,$(COURSE_LANG)),lessons/zh/00_welcome.ipynb,lessons/00_welcome.ipynb)
ifeq ($(origin LANG),command line)
# LANG=zh on the command line chose the course; the programs it starts keep a real locale
override LANG := C.UTF-8
endif

.PHONY: setup lab-setup system-deps lab-system-deps viz wheel lab test course release collect autograde feedback grades roster hub hub-proxy test-package test-reference test-lessons test-browser lint bench lessons example example-dist clean

setup: viz $(STAMP) system-deps

# The learner's install: the lab stack only (no nbgrader, JupyterHub, Playwright, mypy).
lab-setup: viz lab-system-deps
	@if test -f $(STAMP); then $(MAKE) --no-print-directory $(STAMP); else $(MAKE) --no-print-directory $(LAB_STAMP); fi

$(LAB_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(LAB_STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,dist,course,gpu-compile]"
ifneq ($(TORCH_WHEEL),)
	$(PY) -m pip install -q "torch==2.13.0" || echo "note: torch 2.13.0 not installed; oracle tests will skip"
else
	@echo "note: no local torch 2.13.0 wheel; tests that compare against PyTorch will skip"
endif
	touch $(STAMP) $(LAB_STAMP)

# Optional: each is installed (root + a known package manager) or its install line printed.
system-deps:
	@$(PYTHON) -m minitorch_course.system_packages --install graphviz cjk-fonts chromium

lab-system-deps:
	@$(PYTHON) -m minitorch_course.system_packages --install graphviz cjk-fonts

viz:
	@$(PYTHON) -m tools.fetch_viz --check >/dev/null 2>&1 || $(PYTHON) -m tools.fetch_viz || \
	  echo "note: without $(VIZ) graphs need Graphviz's dot program (make system-deps installs it)"

# The wheel a learner installs (pip install dist/minitorch_course-*.whl): framework, widgets,
# the lessons and the minitorch-course command; it must carry Graphviz for the browser.
wheel: viz
	@test -x $(PY) || $(MAKE) --no-print-directory $(LAB_STAMP)
	MINITORCH_REQUIRE_VIZ=1 $(PY) -m pip wheel -q --no-deps -w dist .

# JupyterLab refuses to start as root unless told; containers often run as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: lab-setup
	$(VENV)/bin/jupyter lab --port $(LAB_PORT) $(ALLOW_ROOT) $(LAB_NOTEBOOK)

example: setup
	$(PY) -m minitorch.examples.digits --model mlp --epochs 20

# Data-parallel training on 2 ranks (MPI from the mpich wheel: mpiexec is in .venv/bin).
example-dist: setup
	$(VENV)/bin/mpiexec -n 2 $(PY) -m minitorch.examples.digits --model mlp --epochs 20 --distributed

# Every part of the suite (lint, package tests, solution notebooks, learner copies, and the
# solutions again on a narrowed CPU), each run even if an earlier one failed, each pytest part
# on every core (pytest-xdist, whole files per worker), then a table of the time each part
# took and its slowest tests (tools/run_test_parts.py). MINITORCH_TEST_WORKERS=1 runs serially.
test: setup hub-proxy
	$(PY) -m tools.run_test_parts

# ruff everywhere; mypy on the typed core (its file list is [tool.mypy] in pyproject.toml).
lint:
	$(PY) -m tools.run_test_parts lint

test-package:
	$(PY) -m tools.run_test_parts package

# The package tests with every fast kernel off (the ops as taught alone); CI runs it in `make test`.
test-reference:
	$(PY) -m tools.run_test_parts package-reference

# Solutions: stored outputs must match (sanitised), on this CPU and on a narrowed one.
# Learner copies: must run top to bottom.
test-lessons:
	$(PY) -m tools.run_test_parts solutions solutions-zh learner-copies narrow-cpu

# The classroom. `make course`: course/source from lessons/solutions (nbgrader metadata
# added), then `nbgrader generate_assignment` for every lesson into course/release.
# `make course LANG=zh`: the same from lessons/solutions/zh, into the course folder course/zh.
course: setup
	$(PY) -m tools.make_course --release --lang $(COURSE_LANG)

# The teacher's round for one lesson (README, "For teachers"): make release LESSON=02_graphs_chain_rule,
# then collect, autograde, feedback, export. hub/teacher.py runs each nbgrader step: on the
# classroom hub (root, HUB_SITE holds a course) as the teacher in the teacher's course folder,
# else in course/. Due dates: course/schedule.csv (lesson,due), applied at release.
TEACHER = $(PY) hub/teacher.py
HUB_SITE ?= /srv/minitorch
export MINITORCH_HUB_SITE := $(HUB_SITE)
release:   ; $(TEACHER) release $(LESSON)
collect:   ; $(TEACHER) collect $(LESSON)
autograde: ; $(TEACHER) autograde $(LESSON)
feedback:  ; $(TEACHER) feedback $(LESSON)
# Scores with names and submission times (late ones after the due date): GRADES=file.csv
GRADES ?= course/grades.csv
grades:    ; $(TEACHER) export $(GRADES)
# The class list, a CSV with columns id,first_name,last_name,email: nbgrader's students, and
# on the classroom hub the only names (with the teacher's) that may log in.
roster:    ; $(TEACHER) roster $(FILE)

# A local JupyterHub on http://127.0.0.1:$(HUB_PORT) (docs/jupyterhub.md, hub/jupyterhub_config.py).
# As root: the classroom, one OS user per learner, its folder in HUB_SITE; a learner's first
# login sets their password. Not root: the single-user demo (any name, password "minitorch").
hub: setup hub-proxy
	@if [ "$$(id -u)" != "0" ]; then echo "make hub: not root, so this is the DEMO hub (one OS user for all learners)."; \
	  echo "          Run it as root for the classroom (a system user per learner): docs/jupyterhub.md"; fi
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
