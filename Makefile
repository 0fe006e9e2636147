# `make demo` and `make test` set everything up on a fresh machine: a .venv in the repo with pinned deps.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench audit clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml setup.py $(wildcard jitvision/csrc/*)
	$(PY) -m pip install -q "torch==2.14.1" "torchvision==0.29.1"
	$(PY) -m pip install -q -e ".[test]" --no-build-isolation
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m jitvision.demo

test: $(STAMP)
	$(PY) -m ruff check jitvision tests
	$(PY) -m pytest -n 2 -q

lint: $(STAMP)
	$(PY) -m ruff check jitvision tests

bench: $(STAMP)
	$(PY) -m pip install -q albumentations matplotlib
	$(PY) -m jitvision bench --plot bench.png

audit: $(STAMP)
	$(PY) -m jitvision audit

clean:
	rm -rf $(VENV) build *.egg-info
