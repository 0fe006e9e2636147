"""Build the native extension with ASan + UBSan and run the native tests against it (`make sanitize`).

The sanitizer build goes to build/sanitize (never over the normal jitvision/lib/libjitvision_native.so): the
package's Python files and the tests are copied to build/sanitize/tree with the sanitized library next to them, and
pytest runs there with the sanitizer runtimes preloaded (Python and torch are not instrumented; only our kernel is).
Any ASan report or undefined behaviour aborts the run (-fno-sanitize-recover=all). Leak checking is off: CPython
leaks by design.

Usage: python tests/run_sanitized.py [extra pytest args]
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "sanitize"
TREE = BUILD / "tree"
TESTS = [
    "tests/test_native.py",
    "tests/test_native_geometry.py",
    "tests/test_native_color.py",
    "tests/test_native_compile_ops.py",
    "tests/test_native_library.py",
    "tests/test_native_warp.py",
    "tests/test_native_filters.py",
    "tests/test_native_fastgeo.py",
    "tests/test_native_channels.py",
    "tests/test_native_erase_fast.py",
    "tests/test_native_jpeg.py",
    "tests/transforms/test_augment_native.py",
    "tests/io/test_image.py",
    "tests/transforms/test_decode_fused.py",
    "tests/transforms/test_decode_batch.py",
    "tests/data/test_loader.py",
    "tests/fuzz/test_fuzz_decode.py",
]


def _runtime(name: str) -> str:
    path = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout
    path = path.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        sys.exit(f"run_sanitized: {name} not found (gcc -print-file-name={name} gave {path!r}); install gcc's libasan")
    return path


def build() -> Path:
    env = dict(os.environ, JITVISION_SANITIZE="1")
    cmd = [
        sys.executable,
        "setup.py",
        "-q",
        "build_ext",
        "--build-lib",
        str(BUILD / "lib"),
        "--build-temp",
        str(BUILD / "tmp"),
    ]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    built = BUILD / "lib" / "jitvision" / "lib" / "libjitvision_native.so"
    if not built.exists():
        sys.exit(f"run_sanitized: the sanitizer build produced no {built} (see the compiler output above)")
    return built


def stage(library: Path) -> None:
    if TREE.exists():
        shutil.rmtree(TREE)
    ignore = shutil.ignore_patterns("*.so", "__pycache__", "csrc")
    shutil.copytree(ROOT / "jitvision", TREE / "jitvision", ignore=ignore)
    shutil.copytree(ROOT / "tests", TREE / "tests", ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", TREE / "pyproject.toml")
    (TREE / "jitvision" / "lib").mkdir(exist_ok=True)
    shutil.copy2(library, TREE / "jitvision" / "lib" / library.name)
    version = library.with_suffix(".torch_version")
    shutil.copy2(version, TREE / "jitvision" / "lib" / version.name)


def run(extra: list) -> int:
    env = dict(
        os.environ,
        LD_PRELOAD=f"{_runtime('libasan.so')} {_runtime('libubsan.so')}",
        # reports go to files (pytest captures stderr, and an aborted process never prints what it captured)
        ASAN_OPTIONS=f"detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:log_path={BUILD / 'asan'}",
        UBSAN_OPTIONS=f"print_stacktrace=1:halt_on_error=1:log_path={BUILD / 'ubsan'}",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("PYTHONPATH", None)
    check = (
        "import sys, jitvision._native as n; "
        "sys.exit(0 if n.AVAILABLE and n.native_library_path().startswith(sys.argv[1]) else 1)"
    )
    if subprocess.run([sys.executable, "-c", check, str(TREE)], cwd=TREE, env=env).returncode != 0:
        sys.exit("run_sanitized: the staged tree does not load the sanitized jitvision/lib/libjitvision_native.so")
    for old in BUILD.glob("*san.*"):
        old.unlink()
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *TESTS, *extra]
    code = subprocess.run(cmd, cwd=TREE, env=env).returncode
    for report in sorted(BUILD.glob("*san.*")):
        print(f"---- {report.name} ----\n{report.read_text()}", file=sys.stderr)
        code = code or 1
    return code


if __name__ == "__main__":
    stage(build())
    sys.exit(run(sys.argv[1:]))
