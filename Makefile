# The two fresh-machine commands (README): `make bench` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: bench test setup

## README command 1: tool venv, ladder, asv machine, then the newest release and its
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
