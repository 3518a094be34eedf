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
BENCH_RIVER ?=
BENCH_ECOSYSTEM ?=
# olk bench stream: 2M and 10M generated rows (kept in datasets/bench/: 2.9 GB gzip, 6.2 GB more of plain copies with
# --vs-cpp); e.g. BENCH_STREAM="--vs-cpp ~/KOL/build/bin/KOL --baseline ../olk-before"
BENCH_STREAM ?=

.PHONY: install demo test docs docs-serve regress bench reproduce-all asan clean help

help:
	@echo "make demo           install (first time) and run a small real reproduction on bundled data"
	@echo "make test           install with test extras and run the test suite"
	@echo "make docs           build the documentation site into site/ (make docs-serve: serve it on :8000)"
	@echo "make regress        rerun the CI regression configs against tests/baselines"
	@echo "make bench          time the learning loops (kernel evaluations per second)"
	@echo "make reproduce-all  every paper config at full scale (hours), then the report"
	@echo "make asan           the C reader and the SV pool built with AddressSanitizer + UBSan, on the fuzz corpus"

$(STAMP): pyproject.toml setup.py olk/_core/*.pyx olk/_core/*.pxd olk/_core/*.h tests/plugin_example/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,bench,docs]"
	$(PY) -m pip install --quiet --no-deps -e tests/plugin_example   # the example plugin (entry point olk.learners)
	$(PY) -m compileall -q olk >/dev/null   # bytecode for the editable install: start-up without compiling
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(OLK) run configs/demo.yaml --force --out scratch/demo   # outside results/: never in REPRODUCTION.md

# the code's contracts first (seconds): the layers and no import circle (import-linter, [tool.importlinter] in
# pyproject.toml), lint over every tracked Python file (ruff), the types of all of olk/ (mypy, its cache inside the
# venv: a warm run takes seconds), the documentation site (no warning, no broken link, no page outside the nav),
# then the tests
test: $(STAMP)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --cache-dir $(VENV)/.mypy_cache
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	$(PY) -m pytest -n $(JOBS) tests

# the documentation site (mkdocs.yml; docs/_gen/hooks.py writes the generated pages at build time)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --strict

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
	$(OLK) bench river $(BENCH_RIVER)
	$(OLK) bench ecosystem $(BENCH_ECOSYSTEM)
	$(OLK) bench stream $(BENCH_STREAM)

# every paper config with --resume, then the report (olk reproduce): the expected time is printed first (from the run
# times recorded in results/*/runs.jsonl), a failing config does not stop the others, the failures are listed at the
# end (exit 1).  Each config shows its progress bar (tqdm, on stderr, only on a terminal).
# `olk reproduce --estimate` prints the expected time only.
reproduce-all: $(STAMP)
	$(OLK) reproduce --n-jobs $(JOBS)

# The LIBSVM reader and the SV pool compiled with -fsanitize=address,undefined into a copy of olk (build/asan: the
# installed olk is untouched), then the reader's fuzz corpus (tests/test_fuzz_inputs.py, ASAN_SCALE times its
# examples), the reader's tests and the pool's through them; any sanitizer report aborts the run (exit != 0).
ASAN_DIR   = build/asan
ASAN_SCALE ?= 4
ASAN_CFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1
ASAN_TESTS = tests/test_fuzz_inputs.py tests/test_libsvm_reader.py tests/test_core.py tests/test_model_file_safety.py
asan: $(STAMP)
	$(PY) -c "import Cython, setuptools" 2>/dev/null || $(PY) -m pip install --quiet "cython>=3.0" "setuptools>=77"
	rm -rf $(ASAN_DIR) && mkdir -p $(ASAN_DIR) && cp -r olk $(ASAN_DIR)/olk && rm -f $(ASAN_DIR)/olk/_core/svpool.*.so $(ASAN_DIR)/olk/_core/libsvm_reader.*.so
	cd $(ASAN_DIR) && $(abspath $(PY)) -c "import sys, numpy as np; from setuptools import Extension, setup; \
	  from Cython.Build import cythonize; flags = '$(ASAN_CFLAGS)'.split(); sys.argv[1:] = ['build_ext', '--inplace', '-q']; \
	  setup(name='olk-asan', script_args=sys.argv[1:], ext_modules=cythonize([Extension(f'olk._core.{n}', [f'olk/_core/{n}.pyx'], \
	  include_dirs=[np.get_include()], extra_compile_args=flags, extra_link_args=flags[:2]) for n in ('svpool', 'libsvm_reader')], quiet=True))"
	cd $(ASAN_DIR) && export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" PYTHONPATH=$(CURDIR)/$(ASAN_DIR) \
	  OLK_FUZZ_SCALE=$(ASAN_SCALE) && \
	$(abspath $(PY)) -c "import olk._core.svpool as p, olk._core.libsvm_reader as r; \
	  assert all('$(ASAN_DIR)' in m.__file__ for m in (p, r)), (p.__file__, r.__file__); print('olk: sanitized', p.__file__, r.__file__)" && \
	$(abspath $(VENV))/bin/pytest -p no:cacheprovider -q $(addprefix $(CURDIR)/,$(ASAN_TESTS))

clean:
	rm -rf build site olk/_core/*.c olk/_core/*.so *.egg-info
