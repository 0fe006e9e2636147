# `make demo` and `make test` set everything up on a fresh machine: a .venv in the repo with pinned deps.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test sanitize fuzz lint bench bench-decode bench-e2e albumentationsx audit deploy docs wheel wheels test-torch2 clean gpu-check gpu-wheels browser gallery

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml setup.py $(wildcard jitvision/csrc/*)
	$(PY) -m pip install -q "torch==2.14.1" "torchvision==0.29.1" "setuptools>=77"
	$(PY) -m pip install -q -e ".[test]" --no-build-isolation
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m jitvision.demo

test: $(STAMP)
	$(PY) -m ruff check jitvision tests
	$(MAKE) browser
	$(PY) -m pytest -n 2 --dist loadgroup -q
	$(MAKE) sanitize
	$(MAKE) docs
	$(MAKE) test-torch2

# The native kernel built with ASan + UBSan into build/sanitize (not over jitvision/lib/libjitvision_native.so), and its tests run
# against it (tests/run_sanitized.py). gcc ships libasan/libubsan (Debian/Ubuntu: libgcc-N-dev, pulled in by gcc).
sanitize: $(STAMP)
	@gcc -print-file-name=libasan.so | grep -q / || { echo "make sanitize: gcc's libasan is missing"; exit 1; }
	$(PY) tests/run_sanitized.py

# The release wheel in dist/ (tools/release_wheel.py), built against .venv's torch: manylinux_2_28, the native
# library and the fast-call extension stripped (their debug information in dist/debug/), libpng linked in from its
# pinned source and libjpeg-turbo's copy inside (jitvision.libs/), torch's libraries left to the torch wheel,
# Requires-Dist torch==<that torch>, a build tag naming it (214 for torch 2.14). auditwheel runs from .venv-auditwheel.
wheel: $(STAMP)
	$(PYTHON) tools/release_wheel.py --python $(PY) -w dist

# The release wheel on a second torch (tests/run_wheel.py): built as `make wheel` builds it against torch 2.13.0 (CPU,
# from pip's configured indexes and wheel folders, as make installs torch), installed into .venv-torch213 that has
# only that torch, the native library checked from the installed package, its decode checked with the system's
# libjpeg and libpng hidden from the loader, then the tests that need no torchvision run against it (PyPI's torchvision
# 0.28.0, 2.13's, is a CUDA build that does not import next to the CPU torch: "operator torchvision::nms does not
# exist"; with a matching torchvision, add --torchvision X and the parity tests).
TORCH2 ?= 2.13.0+cpu
VENV2 ?= .venv-torch213
TORCH2_TESTS ?= tests/test_fastcall.py tests/test_native_library.py tests/test_script_native.py \
	tests/test_native_compile_ops.py tests/test_packaging.py tests/transforms/test_batch.py \
	tests/transforms/test_eager_fast_path.py tests/transforms/test_compile_guards.py
test-torch2:
	$(PYTHON) tests/run_wheel.py --torch $(TORCH2) --venv $(VENV2) --reuse --tests $(TORCH2_TESTS)

# One release wheel per supported torch into dist/ (tests/run_wheel.py once per torch of TORCHES): each built, as
# `make wheel` builds it, in a fresh venv holding that torch alone (.venv-wheels/<torch>), installed there and checked
# as test-torch2 checks it (the native library and the fast calls loaded, the training pipeline eager and scripted,
# the decode with the system's image libraries hidden), the venv deleted after (a CUDA torch is ~5.5 GB). torch
# 2.11, 2.12 and 2.14 are PyPI's wheels (CUDA builds, which run on a CPU), 2.13 the CPU build make test uses.
# Not part of make test: it downloads and installs four torch builds.
TORCHES ?= 2.11.0 2.12.0 2.13.0+cpu 2.14.1
wheels:
	@for t in $(TORCHES); do \
		$(PYTHON) tests/run_wheel.py --torch $$t --venv .venv-wheels/$$t --keep-wheel dist --remove-venv || exit 1; \
	done
	@ls -l dist/*.whl

# The C++ deployment example (examples/deploy): build it against the installed torch wheel's libtorch, export both
# presets (TorchScript, AOTInductor default and strict) and run them from C++, timed against torchvision's eager.
deploy: $(STAMP)
	$(PY) examples/deploy/export.py --bench

# The property-based suite with a long budget (make test runs a small one): FUZZ_EXAMPLES examples per op.
FUZZ_EXAMPLES ?= 400
fuzz: $(STAMP)
	JITVISION_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q -n 2 tests/fuzz

# The documentation site (mkdocs.yml) into site/, warnings as errors (a broken link, a missing page, an API name
# griffe cannot resolve). Its packages are the `docs` extra of pyproject.toml, installed on their own: `pip install
# .[docs]` would reinstall and rebuild jitvision itself. The constraint keeps the installed torch.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs']))" > $(VENV)/docs-requirements.txt
	$(PY) -m pip freeze | grep -iE '^(torch|torchvision)==' > $(VENV)/docs-constraints.txt
	$(PY) -m pip install -q -r $(VENV)/docs-requirements.txt -c $(VENV)/docs-constraints.txt
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(PY) -m ruff check jitvision tests

# The peers of `python -m jitvision bench` (the `bench` extra of pyproject.toml; listed here so that installing
# them does not reinstall and rebuild jitvision itself). None of them may change torch. NVIDIA DALI (the CUDA 12
# wheel; `bench --e2e` runs it on the CPU only) is large: `bench --e2e` reports its row as not installed without it.
BENCH_DEPS := "albumentations==2.0.8" "kornia==0.9.*" scikit-image matplotlib timm "nvidia-dali-cuda120==2.4.0" "spdl-core==0.8.*"

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
	$(PY) -m jitvision bench --e2e --json bench-e2e.json --plot bench-e2e.png

# The GPU check, run on a machine with an NVIDIA GPU and its own Python and torch (no network needed, no venv): builds
# the native library against that torch, runs the CUDA tests and the GPU benchmark (tools/gpu_check.sh), and writes
# junit, JSON and logs to $(OUT) (default gpu-check/). `make gpu-wheels` first, where pip works, brings the wheels of
# what such a machine may lack (kornia, for the benchmark's peer) into .whl/, which the check installs from.
GPU_PYTHON ?= python3
gpu-check:
	PYTHON=$(GPU_PYTHON) bash tools/gpu_check.sh

GPU_WHEEL_PLATFORMS := $(foreach p,manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014,--platform $(p)_x86_64)
gpu-wheels:
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
		$(GPU_WHEEL_PLATFORMS) -d .whl "kornia==0.9.*" "kornia-rs==0.2.0"

# Debian's chromium for the gallery's browser test (tests/test_gallery.py, which saves its screenshot to
# build/gallery/screenshot.png), installed only when missing; apt needs root (CI runs as root), sudo otherwise.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q chromium; }

# The gallery's pictures (docs/gallery/*.png) and page (docs/gallery.md): every transform class on scikit-image's
# photographs. Commit what it writes; tests/test_gallery.py fails when they are stale.
gallery: $(STAMP)
	$(PY) -m jitvision.gallery

# The fused decode of tv_tensors.EncodedImage against decode-then-transform: fidelity per leading transform and the
# time per image on one thread (docs/io.md).
bench-decode: $(STAMP)
	$(PY) -m jitvision._bench.decode

# From the JPEG file to the normalized tensor (RandomResizedCrop(224) + flip + ToDtype + Normalize): every decoder and
# library per image on one thread, as a DataLoader with 2 workers, and jitvision's fast path on 2 threads vs 1
# (docs/benchmarks.md, "From file to batch"). Installs the peers as `make bench` does.
bench-e2e: $(STAMP) $(ALBX_STAMP)
	$(PY) -m pip freeze | grep -iE '^(torch|torchvision)==' > .bench-constraints.txt
	$(PY) -m pip install -q $(BENCH_DEPS) -c .bench-constraints.txt
	$(PY) -m jitvision bench --e2e --json bench-e2e.json --plot bench-e2e.png

audit: $(STAMP)
	$(PY) -m jitvision audit

clean:
	rm -rf $(VENV) $(VENV2) $(ALBX_VENV) .venv-wheel .venv-auditwheel .venv-wheels build dist site *.egg-info
