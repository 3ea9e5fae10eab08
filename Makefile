# irscales — make help lists the targets. Everything installs itself into .venv.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
FULL ?= True
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
# bytecode is cached, Python's default: a PYTHONDONTWRITEBYTECODE=1 from the environment made every test worker,
# notebook kernel and command under test compile irscales again, and pytest rewrite every test file (issue 49)
export PYTHONDONTWRITEBYTECODE :=
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider
# pytest-xdist: one worker per core; --dist loadfile keeps a file, so a notebook's cells, on one worker
PARALLEL := -n auto --dist loadfile
# the notebooks whose quick run reads the shared folder or a data setting; `make test` runs them a second time
# with the data settings hidden, with the tests marked `data` (tests/test_notebooks.py checks both are complete).
# 03 and 07 are not among them: in their quick run 03 simulates its data (TREC-8 only when full) and 07 reads the
# Cranfield collection every clone ships, so a second run computed the same thing again (100 CPU-s, issue 49)
DATA_NOTEBOOKS := notebooks/03b_fer17_real_gop.ipynb notebooks/05b_mm23_real_r04_249.ipynb notebooks/06_gop_public_grid.ipynb notebooks/08_beyond_graded_real.ipynb notebooks/09_beyond_cutoffs.ipynb

.PHONY: help install test test-fast reproduce notebooks lab bench report clean data test-browser

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  make %-14s %s\n", $$1, $$2}'

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "irscales needs Python >= 3.11; found " + sys.version.split()[0])'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m irscales.warm  # compiles the numba kernels into their cache now, not on the first read of runs
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (irscales)" >/dev/null
	touch $(STAMP)

install: $(STAMP) ## create .venv with the pinned stack and irscales (editable)

test: $(STAMP) ## every test, on every core + nbval on the stored notebooks, then the tests marked data and DATA_NOTEBOOKS again with every optional data setting hidden
	@bash scripts/tree_state.sh save $(VENV)/.tree-before  # the run must leave the checkout as it found it
	@written=$$(mktemp -d) && trap 'rm -rf "$$written"' EXIT && \
	  IRSCALES_FIGURES="$$written/figures" $(PY) -m pytest tests $(NOTEBOOKS) $(NBVAL) $(PARALLEL) && \
	  $(PY) scripts/figures_match.py "$$written/figures"  # every committed table a notebook wrote: the same bytes
	@echo "== tests marked data and the notebooks that read data again as on a fresh clone: empty IRSCALES_SHARED, no IRSCALES_COLLECTIONS, empty cache (their simulated figures go to a temporary folder, not figures/)"
	@hidden=$$(mktemp -d) && trap 'rm -rf "$$hidden"' EXIT && mkdir "$$hidden/shared" && \
	  env -u IRSCALES_COLLECTIONS -u IRSCALES_TREC -u IRSCALES_GOP -u IRSCALES_SCORES IRSCALES_SHARED="$$hidden/shared" IRSCALES_CACHE="$$hidden/cache" IRSCALES_FIGURES="$$hidden/figures" \
	  $(PY) -m pytest tests $(DATA_NOTEBOOKS) $(NBVAL) -m data -q -rs $(PARALLEL) && \
	  $(PY) scripts/figures_match.py "$$hidden/figures"  # the simulated tables written again are the committed bytes
	@bash scripts/tree_state.sh check $(VENV)/.tree-before

test-fast: $(STAMP) ## the unit tier, in parallel: every test not marked data or slow, without the notebooks (README: what it leaves out)
	$(PY) -m pytest tests -m "not data and not slow" -q -p no:cacheprovider $(PARALLEL)

notebooks: $(STAMP) ## re-execute the stored notebooks in place on their quick defaults (outputs for nbval)
	@for nb in $(NOTEBOOKS); do \
	  echo "== $$nb"; \
	  $(PY) -m papermill --cwd notebooks "$$nb" "$$nb" -k python3 --no-progress-bar || exit 1; \
	done

reproduce: $(STAMP) ## run every notebook with papermill (full=$(FULL)) into figures/executed/, then the report
	@mkdir -p figures/executed
	@$(PY) -c "from irscales.paths import trec_dir, trec_tracks as t; print('== real TREC tracks (IRSCALES_TREC=%s): %s; the others stay simulated' % (trec_dir(), ', '.join(t()) or 'none'))"
	@for nb in $(NOTEBOOKS); do \
	  echo "== $$nb (full=$(FULL))"; \
	  $(PY) -m papermill --cwd notebooks "$$nb" "figures/executed/$$(basename $$nb)" -k python3 -p full $(FULL) || exit 1; \
	done
	@if $(PY) -c "import sys; from irscales.data import datasets as d; sys.exit(0 if all(d.available(n) for n in ('cranfield', 'cisi', 'cacm')) else 1)"; then \
	  echo "== public Grid of Points variants (real runs, real judgments) -> figures/public/"; \
	  export IRSCALES_FIGURES=$(abspath figures/public); \
	  $(PY) -m papermill --cwd notebooks notebooks/01b_fff21_tables.ipynb figures/executed/01b_fff21_tables_gop.ipynb -k python3 -p full $(FULL) -y 'collections: ["gop-cranfield", "gop-cisi", "gop-cacm"]' || exit 1; \
	  $(PY) -m papermill --cwd notebooks notebooks/05_mm23_ipso.ipynb figures/executed/05_mm23_ipso_gop-cranfield.ipynb -k python3 -p full $(FULL) -p PRESET gop-cranfield || exit 1; \
	  $(PY) -m papermill --cwd notebooks notebooks/03_fer17_correlation.ipynb figures/executed/03_fer17_correlation_gop.ipynb -k python3 -p full $(FULL) -p PRESET gop-combined -y 'RQ1_SETS: ["cranfield-1", "cranfield-2"]' || exit 1; \
	else echo "public collections not found: run 'make data' first for the real-data variants"; fi
	$(PY) -m irscales.papers.report figures

report: $(STAMP) ## build figures/REPORT.md and figures/report.html from the notebooks' outputs
	$(PY) -m irscales.papers.report figures

bench: $(STAMP) ## run the benchmarks and print their results (record them in docs/benchmarks.md)
	$(PY) benchmarks/run.py

lab: $(STAMP) ## open JupyterLab on the project kernel
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks

clean: ## remove caches and executed copies (keeps .venv)
	rm -rf data/cache figures/executed .pytest_cache

test-browser: $(STAMP) ## install Debian's chromium (root), run the browser test of the report, refresh its screenshot
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	IRSCALES_SCREENSHOT=$(abspath figures/report_first_screen.png) $(PY) -m pytest tests/test_report_browser.py -p no:cacheprovider

data: $(STAMP) ## check Cranfield, CISI, CACM (shipped in data/collections/; or IRSCALES_COLLECTIONS; or download) and build the public Grid of Points cache
	$(PY) -m irscales.data.datasets
	$(PY) -m irscales.data.gop

bench-enum: $(STAMP) ## enumeration benchmark: the 11 FFF21 scales at N = 20, 25, 30 (~10 min, ~19 GB cache)
	$(PY) benchmarks/bench_enumeration.py

distinct-counts: $(STAMP) ## distinct values per measure for N in {4,5,10,15,20,25,30} -> data/derived/distinct_counts.csv
	$(PY) -m irscales.enumeration --N 4 5 10 15 20 25 30
