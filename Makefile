# The two fresh-machine commands (README): `make bench` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: bench test setup history history-py37 test-mx20 test-gpu-libs models test-baselines

## README command 1: tool venv, ladder, asv machine, then the newest final release and its
## predecessor in every default (CPU) environment. Resumable: recorded results are kept.
## RUN_ARGS (optional) is appended to `mxbench run`, e.g. a benchmark selection:
##   make bench RUN_ARGS="--bench '^bench_operators\.dot\.' -- -a rounds=1"
## SELECTION: short (mxbench's default: every benchmark, a few points each) or long (the full
## grid): make bench SELECTION=long (docs/measurement.md has the cost of each).
RUN_ARGS ?=
SELECTION ?=
SELECT := $(if $(SELECTION),--selection $(SELECTION))
bench: setup
	$(PY) -m mxbench run $(SELECT) $(RUN_ARGS)

## README command 2: the test suite (real asv, real wheels, a few minutes), on TEST_WORKERS
## cores (pytest-xdist; a test module runs whole on one worker, or in the parts that
## tests/conftest.py names).
TEST_WORKERS ?= 2
test: $(VENV)/.installed
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=30 tests

setup: $(VENV)/.installed
	$(PY) -m mxbench setup

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements.txt
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps -e .
	touch $@

## The rest of the history: the newest final release of every minor line, per CPU flavor, then the
## 1.2.x line, which imports only on Python 3.7. Resumable (recorded results are kept).
history: setup
	$(PY) -m mxbench run --minor-lines --flavor cpu-mkldnn $(SELECT)
	$(PY) -m mxbench run --minor-lines --flavor cpu-openblas $(SELECT)
	$(MAKE) history-py37

## The model-derived benchmarks (bench_models; docs/models.md), left out of `make bench` and
## `make history`: 4-25 min per (release, flavor) here. Resumable. E.g.
##   make models MODEL_RELEASES="1.9.1 1.5.1" RUN_ARGS="--flavor cpu-mkldnn"
MODEL_RELEASES ?= 1.9.1
models: setup
	$(PY) -m mxbench run $(MODEL_RELEASES) --bench '^bench_models\.' $(RUN_ARGS)

# asv makes Python 3.7 environments only with virtualenv < 20.27: a second, small tool venv
# (numpy: mxbench imports the suite's modules to select its points).
VENV_PY37 := .venv-py37
PYTHON37_BIN ?= $(shell pyenv prefix 3.7 2>/dev/null)/bin
history-py37: setup $(VENV_PY37)/.installed
	PATH="$(PYTHON37_BIN):$$PATH" $(VENV_PY37)/bin/python -m mxbench --config asv.py37.conf.json run 1.2.1.post1 $(SELECT)

$(VENV_PY37)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV_PY37)
	grep -E '^(asv|asv_runner|packaging|tabulate|numpy)==' requirements.txt > $(VENV_PY37)/requirements.txt
	$(VENV_PY37)/bin/pip install -q --disable-pip-version-check -r $(VENV_PY37)/requirements.txt virtualenv==20.26.6
	touch $@

## Not part of `make test`; CI runs it too (.ci/run): the smoke test on MXNet 2.0.0b1
## (tests/test_mx20.py), in a throwaway venv: Python 3.11, the tool venv's numpy/requests/
## pytest/packaging/tabulate pins (what `python -m mxbench` imports), asv_runner's (the smoke
## test loads a benchmark through it, as asv does), and the 2.0 wheel with --no-deps. About
## 10 minutes here (venv ~20 s, the full smoke 2-12 min by the machine's load).
VENV_MX20 := .venv-mx20
MX20_RELEASE := 2.0.0b1
test-mx20: $(VENV)/.installed $(VENV_MX20)/.installed
	MXBENCH_MX20_PYTHON=$(VENV_MX20)/bin/python $(PY) -m pytest -q tests/test_mx20.py

$(VENV_MX20)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV_MX20)
	grep -E '^(numpy|requests|pytest|packaging|tabulate|asv_runner)==' requirements.txt > $(VENV_MX20)/requirements.txt
	$(VENV_MX20)/bin/pip install -q --disable-pip-version-check -r $(VENV_MX20)/requirements.txt
	$(VENV_MX20)/bin/pip install -q --disable-pip-version-check --no-deps --only-binary=:all: mxnet==$(MX20_RELEASE)
	touch $@

## Opt-in, in neither `make test` nor CI (it downloads ~4 GB of wheels): the GPU builds'
## libraries on a machine without a GPU (tests/test_gpu_libs.py): the real install step for
## mxnet-cu112 1.9.1, mxnet-cu117 1.9.1, mxnet-cu112 1.8.0.post0 and mxnet-cu110 1.8.0, each
## in a throwaway venv (3-4 GB, deleted after), then ldd and an import against a stand-in
## driver. Downloads ~4 GB of wheels once (pip's cache; MXBENCH_WHEELHOUSE=DIR adds a folder
## of wheels). About 4 minutes a build here.
test-gpu-libs: $(VENV)/.installed
	MXBENCH_GPU_LIBS=all $(PY) -m pytest -q -rs tests/test_gpu_libs.py

## Not part of `make test`; CI runs it too (.ci/run): the neutral baselines' agreement test
## with PyTorch (tests/test_baselines.py: every torch counterpart against MXNet 1.9.1, outputs
## and gradients), in .venv-baselines: the tool venv's numpy/requests/pytest/packaging pins,
## mxnet 1.9.1 (--no-deps) and torch 2.13.0 (the +cpu build where offered; docs/baselines.md).
## About 1.5 minutes here (venv ~1 min the first time).
VENV_BASELINES := .venv-baselines
TORCH_VERSION := 2.13.0
test-baselines: $(VENV_BASELINES)/.installed
	$(VENV_BASELINES)/bin/python -m pytest -q tests/test_baselines.py

$(VENV_BASELINES)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV_BASELINES)
	grep -E '^(numpy|requests|pytest|packaging|tabulate)==' requirements.txt > $(VENV_BASELINES)/requirements.txt
	$(VENV_BASELINES)/bin/pip install -q --disable-pip-version-check -r $(VENV_BASELINES)/requirements.txt torch==$(TORCH_VERSION)
	$(VENV_BASELINES)/bin/pip install -q --disable-pip-version-check --no-deps --only-binary=:all: $$(grep -E '^mxnet==' requirements.txt)
	touch $@
