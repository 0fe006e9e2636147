"""The wheel as a user gets it, on a given torch: ``python tests/run_wheel.py --torch 2.13.0+cpu --venv DIR``.

1. a fresh venv at DIR with that torch alone (pip, with this machine's pip configuration: the same indexes and
   wheel folders ``make`` installs torch from);
2. jitvision's wheel built against it (``pip wheel --no-deps --no-build-isolation``, from a copy of the checkout so
   the checkout's own build folder is left alone) and its contents checked (``wheel_problems``: the native
   library, the fast-call extension, the torch each was built for, the wheel's ``torch==`` requirement);
3. the wheel installed into the venv (no compiler involved), then, from outside the checkout: ``import jitvision``
   is the installed one, warns nothing, reports the native library loaded (``_native.AVAILABLE``) and the fast
   calls bound (``_eager_ops.FAST``), and a training pipeline runs eager and scripted;
4. with ``--tests``: pytest (and ``--torchvision``, the torchvision of that torch) added to the venv and those
   tests run against the installed wheel (the checkout only provides the test files).

Exits non-zero on the first failure. The venv is kept: ``--reuse`` skips step 1 when it already has that torch (and
uninstalls what the previous run added); ``--keep-wheel DIR`` copies the wheel there.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from typing import List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = "jitvision/lib/libjitvision_native.so"
LIBRARY_TORCH = "jitvision/lib/libjitvision_native.torch_version"
FASTCALL_TORCH = "jitvision/_fastcall.torch_version"


def wheel_problems(path: str, torch_version: Optional[str] = None) -> List[str]:
    """What is missing from the wheel at ``path`` for the native path to load after ``pip install`` (empty if
    nothing): the library, the fast-call extension, the torch version recorded next to each (equal to
    ``torch_version`` when given), a ``Requires-Dist: torch==`` of that version, the LICENSE."""
    problems: List[str] = []
    with zipfile.ZipFile(path) as wheel:
        names = set(wheel.namelist())

        def text(name: str) -> str:
            return wheel.read(name).decode().strip() if name in names else ""

        for required in (LIBRARY, LIBRARY_TORCH, FASTCALL_TORCH):
            if required not in names:
                problems.append(f"{required} is missing")
        if not any(n.startswith("jitvision/_fastcall.") and n.endswith(".so") for n in names):
            problems.append("jitvision/_fastcall.*.so is missing")
        recorded = {text(LIBRARY_TORCH), text(FASTCALL_TORCH)} - {""}
        if len(recorded) > 1:
            problems.append(f"the library and _fastcall were built for different torch versions: {sorted(recorded)}")
        if torch_version is not None and recorded and recorded != {torch_version}:
            problems.append(f"built for torch {sorted(recorded)}, expected {torch_version}")
        metadata = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
        requires = [] if metadata is None else [
            line.split(":", 1)[1].strip() for line in text(metadata).splitlines() if line.startswith("Requires-Dist:")
        ]
        if not any(r.replace(" ", "").startswith("torch==") for r in requires):
            problems.append(f"no Requires-Dist torch==<the torch it was built against> (Requires-Dist: {requires})")
        if not any(n.endswith("licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names):
            problems.append("the LICENSE is missing")
    return problems


# Run by the venv's Python from a temporary folder (never the checkout): the installed wheel, used as a user does.
INSTALLED_CHECK = """
import os, warnings
import torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import jitvision
    import jitvision.transforms as T
    from jitvision import _eager_ops, _native
ours = [str(w.message) for w in caught if "jitvision" in str(w.message)]
assert not ours, ours  # e.g. the native library not loaded, or built for another torch
where = os.path.dirname(jitvision.__file__)
assert "site-packages" in where, f"jitvision imported from {where}, not the installed wheel"
assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
assert _eager_ops.FAST is not None, _eager_ops.FAST_UNAVAILABLE_REASON
assert os.path.dirname(_native.native_library_path()) == os.path.join(where, "lib")
pipeline = T.Compose([
    T.RandomResizedCrop(64, antialias=True), T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True),
    T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
])
image = torch.randint(0, 256, (3, 96, 128), dtype=torch.uint8)
for name, run in (("eager", pipeline), ("scripted", torch.jit.script(pipeline))):
    out = run(image)
    assert out.shape == (3, 64, 64) and out.dtype == torch.float32, (name, out.shape, out.dtype)
print(f"installed: jitvision {jitvision.__version__} at {where}, torch {torch.__version__}: native library and "
      "fast calls loaded, the training pipeline runs eager and scripted")
"""

# Imports the installed jitvision first (the checkout is not on sys.path: this runs as a -c program from the venv's
# folder), then pytest with --import-mode=append, which puts the checkout (for ``tests.*``) after site-packages.
RUN_TESTS = """
import os, sys
import jitvision
assert "site-packages" in jitvision.__file__, jitvision.__file__
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--import-mode=append", "--rootdir", sys.argv[1],
                      "-c", os.path.join(sys.argv[1], "pyproject.toml"), *sys.argv[2:]]))
"""


def _run(command: Sequence[str], **kwargs) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def _copy_checkout(destination: str) -> None:
    """The checkout's files (tracked and untracked, not ignored: no build products) copied to ``destination``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = os.path.join(ROOT, name)
        if os.path.isfile(source):
            target = os.path.join(destination, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)


def _venv_torch(python: str) -> Optional[str]:
    if not os.path.exists(python):
        return None
    found = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('torch'))"], capture_output=True, text=True
    )
    return found.stdout.strip() if found.returncode == 0 else None


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch", required=True, help="the torch distribution version, e.g. 2.13.0+cpu")
    parser.add_argument("--venv", required=True, help="where the venv is made")
    parser.add_argument("--reuse", action="store_true", help="keep the venv if it already has that torch")
    parser.add_argument("--torchvision", help="the torchvision to add for --tests (matching that torch)")
    parser.add_argument("--tests", nargs="*", default=[], help="test files or node ids to run against the install")
    parser.add_argument("--keep-wheel", metavar="DIR", help="copy the built wheel there")
    args = parser.parse_args(argv)
    started = time.monotonic()
    python = os.path.join(os.path.abspath(args.venv), "bin", "python")
    pip = [python, "-m", "pip", "install", "-q"]
    if not (args.reuse and _venv_torch(python) == args.torch):
        shutil.rmtree(args.venv, ignore_errors=True)
        _run([sys.executable, "-m", "venv", args.venv])
        # setuptools >= 77 reads pyproject's SPDX license string (a venv of Python 3.11 comes with 65)
        _run([*pip, f"torch=={args.torch}", "setuptools>=77"])
    else:  # a kept venv: the previous run's wheel and test tools out (their small dependencies stay)
        leftovers = ["jitvision", "torchvision", "pytest", "hypothesis"]
        subprocess.run([python, "-m", "pip", "uninstall", "-q", "-y", *leftovers], check=False, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="jitvision-wheel-") as tmp:
        source, out = os.path.join(tmp, "src"), os.path.join(tmp, "dist")
        _copy_checkout(source)
        _run([python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", out, source])
        (wheel,) = [os.path.join(out, n) for n in os.listdir(out) if n.endswith(".whl")]
        size = os.path.getsize(wheel) / 1e6
        print(f"wheel: {os.path.basename(wheel)}, {size:.1f} MB")
        problems = wheel_problems(wheel, torch_version=_torch_version(python))
        if problems:
            print("the wheel is incomplete:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
        if args.keep_wheel:
            os.makedirs(args.keep_wheel, exist_ok=True)
            shutil.copy2(wheel, args.keep_wheel)
        _run([*pip, wheel])
        _run([python, "-c", INSTALLED_CHECK], cwd=tmp)
        _run([os.path.join(os.path.dirname(python), "jitvision"), "--version"], cwd=tmp)  # the console script
    if args.tests:
        extra = ["pytest", "hypothesis"] + ([f"torchvision=={args.torchvision}"] if args.torchvision else [])
        _run([*pip, *extra])
        _run([python, "-c", RUN_TESTS, ROOT, *[os.path.join(ROOT, t) for t in args.tests]], cwd=args.venv)
    print(f"run_wheel.py: torch {args.torch}: passed in {time.monotonic() - started:.0f} s")
    return 0


def _torch_version(python: str) -> str:
    """torch.__version__ in the venv (what the build records next to the library)."""
    return subprocess.run(
        [python, "-c", "import torch; print(torch.__version__)"], check=True, capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
