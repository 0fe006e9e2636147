#!/usr/bin/env bash
# The GPU check (`make gpu-check`): on a machine with an NVIDIA GPU and a Python that has torch (any version this
# package supports; no network needed), build jitvision's native library against that torch, run the CUDA tests
# (tests/test_cuda.py and the cuda half of tests/fuzz/test_device.py) and the GPU benchmarks, and write to $OUT
# (default gpu-check/): setup.log (environment and build), tests.log, junit.xml, device-report.jsonl (every
# CUDA-vs-CPU comparison's largest difference), bench-batch.json, bench-rows.json and bench.log.
# Python packages the machine lacks (kornia for the benchmark) travel as wheels in .whl/ (`make gpu-wheels`).
# Budget knobs: EXAMPLES per op (default 3), TEST_TIMEOUT, BATCH_TIMEOUT and ROWS_TIMEOUT seconds, JOBS (the
# --batch pipelines), ROWS (the --per-transform rows; default all); SKIP_BUILD, SKIP_DEVICE_SWEEP, SKIP_ROWS for a
# short re-run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
say() { echo "[gpu-check $(date +%T)] $*"; }
status=0

if compgen -G ".whl/*.whl" > /dev/null; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/jitvision-site \
        .whl/*.whl && export PYTHONPATH=/tmp/jitvision-site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}

if [ -z "${SKIP_BUILD:-}" ]; then  # SKIP_BUILD=1: the pure-PyTorch paths only (what runs on CUDA tensors anyway)
    say "building the native library against this machine's torch"
    start=$SECONDS
    MAX_JOBS=${MAX_JOBS:-16} $PY setup.py build_ext --inplace > "$OUT/setup.log" 2>&1 || { say "native build failed"; status=1; }
    grep -E "error|Error" "$OUT/setup.log" | head -n 5
    say "build: $((SECONDS - start)) s"
fi

$PY - <<'PYEOF' 2>&1 | tee -a "$OUT/setup.log"
import platform
import torch
import jitvision
from jitvision import _native
print("python", platform.python_version(), "torch", torch.__version__, "cuda", torch.version.cuda)
print("gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
print("jitvision", jitvision.__file__)
print("native library", _native.AVAILABLE, _native.UNAVAILABLE_REASON, "jpeg", _native.JPEG)
for name in ("torchvision", "kornia"):
    try:
        print(name, __import__(name).__version__)
    except ImportError as error:
        print(name, "missing:", error)
PYEOF

say "CUDA tests"
sweep=tests/fuzz/test_device.py
[ -z "${SKIP_DEVICE_SWEEP:-}" ] || sweep=
start=$SECONDS
JITVISION_DEVICE_EXAMPLES=${EXAMPLES:-3} JITVISION_DEVICE_REPORT=$OUT/device-report.jsonl \
    timeout "${TEST_TIMEOUT:-240}" $PY -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-8}" -k cuda \
    tests/test_cuda.py $sweep --junitxml="$OUT/junit.xml" -W ignore::FutureWarning \
    > "$OUT/tests.log" 2>&1 || status=1
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/tests.log" | tail -n 40
say "tests: $((SECONDS - start)) s"

say "GPU benchmark: per-sample batches"
start=$SECONDS
timeout "${BATCH_TIMEOUT:-240}" $PY -m jitvision bench --batch --device cuda ${JOBS:+--jobs $JOBS} \
    --json "$OUT/bench-batch.json" >> "$OUT/bench.log" 2>&1 || status=1
say "batch: $((SECONDS - start)) s"
start=$SECONDS
[ -n "${SKIP_ROWS:-}" ] || timeout "${ROWS_TIMEOUT:-100}" $PY -m jitvision bench --per-transform --device cuda ${ROWS:+--only $ROWS} \
    --json "$OUT/bench-rows.json" >> "$OUT/bench.log" 2>&1 || status=1
say "rows: $((SECONDS - start)) s"
grep -vE "^\[|^W[0-9]" "$OUT/bench.log" | grep -E "^\||img/s|unavailable|Error" | tail -n 80
exit $status
