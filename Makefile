# `make demo` and `make test` set everything up on a fresh machine: a .venv in the repo with pinned deps.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test sanitize fuzz lint bench albumentationsx audit deploy clean

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

# AlbumentationsX (AGPL-3.0; the maintained successor of albumentations) installs under the module name
# `albumentations`, so `bench --per-transform` runs it in an environment of its own, in a process of its own
# (jitvision/_bench/_peer_process.py). AlbumentationsX imports torch: the environment takes the project's torch
# through a .pth line (its own site-packages come first, so `albumentations` there is AlbumentationsX).
ALBX_VENV := .venv-albumentationsx
ALBX_STAMP := $(ALBX_VENV)/.installed

$(ALBX_STAMP): $(STAMP)
	$(PYTHON) -m venv $(ALBX_VENV)
	$(ALBX_VENV)/bin/python -m pip install -q "albumentationsx[headless]==2.5.1"
	$(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" > \
		"$$($(ALBX_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/zz-project-torch.pth"
	touch $(ALBX_STAMP)

albumentationsx: $(ALBX_STAMP)

# timm depends on torch and torchvision: the constraint keeps the installed versions (pip would otherwise be free to
# upgrade them).
bench: $(STAMP) $(ALBX_STAMP)
	$(PY) -m pip freeze | grep -iE '^(torch|torchvision)==' > .bench-constraints.txt
	$(PY) -m pip install -q $(BENCH_DEPS) -c .bench-constraints.txt
	$(PY) -m jitvision bench --plot bench.png
	$(PY) -m jitvision bench --per-transform --json bench-per-transform.json --plot bench-per-transform.png
	$(PY) -m jitvision bench --pil --json bench-pil.json
	$(PY) -m jitvision bench --batch --json bench-batch.json
	$(PY) -m jitvision bench --augment --json bench-augment.json

audit: $(STAMP)
	$(PY) -m jitvision audit

clean:
	rm -rf $(VENV) $(ALBX_VENV) build *.egg-info
