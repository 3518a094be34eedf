# olk — set-up and everyday commands.  `make demo` and `make test` work on a fresh machine:
# they create .venv (override with VENV=...), install olk with its extras, build the Cython core.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
OLK     = $(VENV)/bin/olk
STAMP   = $(VENV)/.olk-installed
JOBS   ?= 2
# options of `olk bench core` (issue 13's cases), e.g. make bench BENCH_CORE="--repeats 5"
BENCH_CORE ?=
# options of the other suites (olk bench SUITE --help), e.g. BENCH_MULTI="--scale 0.5" BENCH_KLR="--scale 0.1"
BENCH_MULTI ?=
BENCH_KLR ?=
BENCH_AMKL ?=
BENCH_CANON ?=

.PHONY: install demo test regress bench reproduce-all clean help

help:
	@echo "make demo           install (first time) and run a small real reproduction on bundled data"
	@echo "make test           install with test extras and run the test suite"
	@echo "make regress        rerun the CI regression configs against tests/baselines"
	@echo "make bench          time the learning loops (kernel evaluations per second)"
	@echo "make reproduce-all  every paper config at full scale (hours), then the report"

$(STAMP): pyproject.toml setup.py olk/_core/*.pyx olk/_core/*.pxd olk/_core/*.h
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,bench]"
	$(PY) -m compileall -q olk >/dev/null   # bytecode for the editable install: start-up without compiling
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(OLK) run configs/demo.yaml --force --out scratch/demo   # outside results/: never in REPRODUCTION.md

# the code's contracts first (seconds): the layers and no import circle (import-linter, [tool.importlinter] in
# pyproject.toml), lint (ruff) and the public API's types (mypy), then the tests
test: $(STAMP)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check olk tests
	$(VENV)/bin/mypy
	$(PY) -m pytest tests

regress: $(STAMP)
	$(OLK) regress

bench: $(STAMP)
	$(OLK) bench core $(BENCH_CORE)
	$(OLK) bench learners
	$(OLK) bench batch
	$(OLK) bench multi $(BENCH_MULTI)
	$(OLK) bench klr $(BENCH_KLR)
	$(OLK) bench amkl $(BENCH_AMKL)
	$(OLK) bench canon $(BENCH_CANON)

# every paper config with --resume, then the report (olk reproduce): the expected time is printed first (from the run
# times recorded in results/*/runs.jsonl), a failing config does not stop the others, the failures are listed at the
# end (exit 1).  Each config shows its progress bar (tqdm, on stderr, only on a terminal).
# `olk reproduce --estimate` prints the expected time only.
reproduce-all: $(STAMP)
	$(OLK) reproduce --n-jobs $(JOBS)

clean:
	rm -rf build olk/_core/*.c olk/_core/*.so *.egg-info
