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

# The peers of `python -m jitvision bench` (the `bench` extra of pyproject.toml; listed here so that installing
# them does not reinstall and rebuild jitvision itself). None of them may change torch.
BENCH_DEPS := "albumentations==2.0.8" "kornia==0.9.*" scikit-image matplotlib

bench: $(STAMP)
	$(PY) -m pip install -q $(BENCH_DEPS)
	$(PY) -m jitvision bench --plot bench.png
	$(PY) -m jitvision bench --per-transform --json bench-per-transform.json --plot bench-per-transform.png
	$(PY) -m jitvision bench --batch --json bench-batch.json

audit: $(STAMP)
	$(PY) -m jitvision audit

clean:
	rm -rf $(VENV) build *.egg-info
