# `make demo` and `make test` set everything up on a fresh machine: a .venv in the repo with pinned deps.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test sanitize fuzz lint bench bench-decode audit deploy clean

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
	$(PY) -m pytest -n 2 --dist loadgroup -q
	$(MAKE) sanitize

# The native kernel built with ASan + UBSan into build/sanitize (not over jitvision/lib/libjitvision_native.so), and its tests run
# against it (tests/run_sanitized.py). gcc ships libasan/libubsan (Debian/Ubuntu: libgcc-N-dev, pulled in by gcc).
sanitize: $(STAMP)
	@gcc -print-file-name=libasan.so | grep -q / || { echo "make sanitize: gcc's libasan is missing"; exit 1; }
	$(PY) tests/run_sanitized.py

# The C++ deployment example (examples/deploy): build it against the installed torch wheel's libtorch, export both
# presets (TorchScript, AOTInductor default and strict) and run them from C++, timed against torchvision's eager.
deploy: $(STAMP)
	$(PY) examples/deploy/export.py --bench

# The property-based suite with a long budget (make test runs a small one): FUZZ_EXAMPLES examples per op.
FUZZ_EXAMPLES ?= 400
fuzz: $(STAMP)
	JITVISION_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q -n 2 tests/fuzz

lint: $(STAMP)
	$(PY) -m ruff check jitvision tests

# The peers of `python -m jitvision bench` (the `bench` extra of pyproject.toml; listed here so that installing
# them does not reinstall and rebuild jitvision itself). None of them may change torch.
BENCH_DEPS := "albumentations==2.0.8" "kornia==0.9.*" scikit-image matplotlib timm

# timm depends on torch and torchvision: the constraint keeps the installed versions (pip would otherwise be free to
# upgrade them).
bench: $(STAMP)
	$(PY) -m pip freeze | grep -iE '^(torch|torchvision)==' > .bench-constraints.txt
	$(PY) -m pip install -q $(BENCH_DEPS) -c .bench-constraints.txt
	$(PY) -m jitvision bench --plot bench.png
	$(PY) -m jitvision bench --per-transform --json bench-per-transform.json --plot bench-per-transform.png
	$(PY) -m jitvision bench --batch --json bench-batch.json
	$(PY) -m jitvision bench --augment --json bench-augment.json

# The fused decode of tv_tensors.EncodedImage against decode-then-transform: fidelity per leading transform and the
# time per image on one thread (docs/io.md).
bench-decode: $(STAMP)
	$(PY) -m jitvision._bench.decode

audit: $(STAMP)
	$(PY) -m jitvision audit

clean:
	rm -rf $(VENV) build *.egg-info
