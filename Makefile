# The two fresh-machine commands (README): `make bench` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: bench test setup history history-py37

## README command 1: tool venv, ladder, asv machine, then the newest final release and its
## predecessor in every default (CPU) environment. Resumable: recorded results are kept.
bench: setup
	$(PY) -m mxbench run

## README command 2: the test suite (real asv, real wheels, a few minutes).
test: $(VENV)/.installed
	$(PY) -m pytest -q tests

setup: $(VENV)/.installed
	$(PY) -m mxbench setup

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

## The rest of the history: the newest final release of every minor line, per CPU flavor, then the
## 1.2.x line, which imports only on Python 3.7. Resumable (recorded results are kept).
history: setup
	$(PY) -m mxbench run --minor-lines --flavor cpu-mkldnn
	$(PY) -m mxbench run --minor-lines --flavor cpu-openblas
	$(MAKE) history-py37

# asv makes Python 3.7 environments only with virtualenv < 20.27: a second, small tool venv.
VENV_PY37 := .venv-py37
PYTHON37_BIN ?= $(shell pyenv prefix 3.7 2>/dev/null)/bin
history-py37: setup $(VENV_PY37)/.installed
	PATH="$(PYTHON37_BIN):$$PATH" $(VENV_PY37)/bin/python -m mxbench --config asv.py37.conf.json run 1.2.1.post1

$(VENV_PY37)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV_PY37)
	grep -E '^(asv|asv_runner|packaging|tabulate)==' requirements.txt > $(VENV_PY37)/requirements.txt
	$(VENV_PY37)/bin/pip install -q --disable-pip-version-check -r $(VENV_PY37)/requirements.txt virtualenv==20.26.6
	touch $@
