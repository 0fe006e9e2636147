"""The wheel as a user gets it, on a given torch: ``python tests/run_wheel.py --torch 2.13.0+cpu --venv DIR``.

1. a fresh venv at DIR with that torch alone (pip, with this machine's pip configuration: the same indexes and
   wheel folders ``make`` installs torch from);
2. jitvision's release wheel built against it, as ``make wheel`` builds it (``tools/release_wheel.py``: ``pip
   wheel`` from a copy of the checkout, libpng linked in statically, debug information split off, ``auditwheel
   repair`` to manylinux_2_28 with libjpeg-turbo's copy inside) and its contents checked (``wheel_problems``: the
   native library, the fast-call extension, the torch each was built for, the wheel's ``torch==`` requirement;
   ``repaired_wheel_problems``: the manylinux_2_28 tag, at most 5 MB, no system libjpeg/libpng needed);
3. the wheel installed into the venv (no compiler involved), then, from outside the checkout: ``import jitvision``
   is the installed one, warns nothing, reports the native library loaded (``_native.AVAILABLE``) and the fast
   calls bound (``_eager_ops.FAST``), and a training pipeline runs eager and scripted;
4. the image libraries inside the wheel (``BUNDLED_CHECK``): the system's libjpeg and libpng hidden from the
   loader (``LD_LIBRARY_PATH`` first names a folder of stand-ins, ``libjpeg.so.62``, ``libjpeg.so.8`` and
   ``libpng16.so.16``, each of which exits the process when loaded), ``ldd`` resolves none of them for the
   installed native library, and a process that loads it decodes tests/data's JPEG and PNG on the native path to
   torchvision.io's pixels (their hashes), with no system image library mapped;
5. with ``--tests``: pytest (and ``--torchvision``, the torchvision of that torch) added to the venv and those
   tests run against the installed wheel (the checkout only provides the test files).

Exits non-zero on the first failure. The venv is kept: ``--reuse`` skips step 1 when it already has that torch (and
uninstalls what the previous run added), ``--remove-venv`` deletes it at the end (``make wheels``: a torch with its
CUDA libraries is ~5.5 GB); ``--keep-wheel DIR`` copies the wheel there (its debug files to DIR/debug).
"""

import argparse
import importlib.util
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
DATA = os.path.join(ROOT, "tests", "data")
# torchvision.io.decode_image's output (torchvision 0.29.1, UNCHANGED) for tests/data's files, as sha256 of the
# tensor's bytes: the bundled libraries must decode to these (tests/test_packaging.py checks them on torchvision).
DECODED_SHA256 = {
    "bundled_codecs.jpg": "2c200266aece836545ff4d6b11fa6086c8c6dd12d0688865e34317c67335bc30",
    "bundled_codecs.png": "b797ea2f65d661de4257374d5f0036052ea680ce4d37e9e1311962e8210058c9",
}
# the system image libraries hidden from the loader by stand-ins of the same name
HIDDEN_LIBRARIES = ("libjpeg.so.62", "libjpeg.so.8", "libpng16.so.16")


def release_wheel():
    """tools/release_wheel.py as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("jitvision_release_wheel", os.path.join(ROOT, "tools",
                                                                                          "release_wheel.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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

# Run with LD_LIBRARY_PATH naming the stand-ins first: the installed native library loads and decodes with the
# copies inside the wheel, and no system libjpeg/libpng is mapped into the process.
BUNDLED_CHECK = """
import hashlib, json, os, sys
import torch
import jitvision
from jitvision import _native, io
assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
assert _native.DECODE_JPEG and _native.DECODE_PNG and _native.JPEG, "the native library was built without a codec"
expected = json.loads(sys.argv[2])
for name, digest in expected.items():
    data = io.read_file(os.path.join(sys.argv[1], name))
    image = io.decode_image(data)
    got = hashlib.sha256(image.contiguous().numpy().tobytes()).hexdigest()
    assert got == digest, f"{name}: decoded to {got}, torchvision.io decodes to {digest}"
quality = torch.tensor([75], dtype=torch.int64)
encoded = torch.ops.jitvision_native.jpeg_u8(torch.full((3, 16, 16), 128, dtype=torch.uint8), quality)
assert encoded.shape == (3, 16, 16)  # libjpeg's encoder too
maps = open("/proc/self/maps").read()
mapped = sorted({line.split()[-1] for line in maps.splitlines() if "/" in line})
image_libraries = [p for p in mapped if os.path.basename(p).startswith(("libjpeg", "libpng", "libturbojpeg"))]
site = os.path.dirname(os.path.dirname(jitvision.__file__))
# the system's (Pillow's own copies, in site-packages/pillow.libs, are wheels' too)
outside = [p for p in image_libraries if not p.startswith(site + "/")]
assert not outside, f"image libraries from outside the wheels: {outside}"
bundled = [p for p in image_libraries if p.startswith(os.path.join(site, "jitvision.libs") + "/")]
assert bundled, f"no libjpeg of jitvision.libs in the process: {image_libraries}"
print(f"bundled codecs: decoded {sorted(expected)} to torchvision.io's pixels with {image_libraries}")
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


_STAND_IN = """
#include <unistd.h>
__attribute__((constructor)) static void refuse(void) {
  static const char message[] = "a system image library was loaded: STAND_IN (the wheel's copy should be)\\n";
  write(2, message, sizeof message - 1);
  _exit(97);
}
"""


def make_stand_ins(folder: str) -> None:
    """Shared libraries named as the system's libjpeg/libpng (HIDDEN_LIBRARIES) that exit the process with 97
    when loaded: with ``folder`` first on LD_LIBRARY_PATH, a library that needs the system's copy fails."""
    os.makedirs(folder, exist_ok=True)
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    for name in HIDDEN_LIBRARIES:
        source = os.path.join(folder, name + ".c")
        with open(source, "w") as f:
            f.write(_STAND_IN.replace("STAND_IN", name))
        _run([compiler, "-shared", "-fPIC", f"-Wl,-soname,{name}", source, "-o", os.path.join(folder, name)])


def check_bundled(python: str, tmp: str) -> None:
    """Step 4: ldd and a decoding process with the system's libjpeg/libpng hidden behind the stand-ins."""
    import json

    stand_ins = os.path.join(tmp, "stand-ins")
    make_stand_ins(stand_ins)
    site = subprocess.run(
        [python, "-c", "import os, jitvision; print(os.path.dirname(os.path.dirname(jitvision.__file__)))"],
        cwd=tmp, check=True, capture_output=True, text=True,
    ).stdout.strip()
    library = os.path.join(site, LIBRARY)
    env = dict(os.environ, LD_LIBRARY_PATH=stand_ins + os.pathsep + os.path.join(site, "torch", "lib"))
    print("+ ldd", library, flush=True)
    ldd = subprocess.run(["ldd", library], env=env, check=True, capture_output=True, text=True).stdout
    print(ldd, end="")
    resolved = [line.split() for line in ldd.splitlines() if "=>" in line]
    problems = [" ".join(line) for line in resolved if "not found" in " ".join(line)]
    problems += [" ".join(line) for line in resolved if line[0] in HIDDEN_LIBRARIES or stand_ins in " ".join(line)]
    if problems:
        raise SystemExit(f"{library} needs a library outside the wheel and torch: {problems}")
    _run([python, "-c", BUNDLED_CHECK, DATA, json.dumps(DECODED_SHA256)], cwd=tmp, env=env)


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
    parser.add_argument("--keep-wheel", metavar="DIR", help="copy the built wheel there (debug files to DIR/debug)")
    parser.add_argument("--remove-venv", action="store_true", help="delete the venv when done")
    parser.add_argument("--wheel", help="install and check this release wheel instead of building one")
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
        release = release_wheel()
        build_started = time.monotonic()
        if args.wheel:
            wheel = os.path.abspath(args.wheel)
            release.describe(wheel)
        else:
            wheel = release.build(python, os.path.join(tmp, "dist"))
            print(f"run_wheel.py: the release wheel built in {time.monotonic() - build_started:.0f} s")
        problems = wheel_problems(wheel, torch_version=_torch_version(python))
        problems += release.repaired_wheel_problems(wheel)
        if problems:
            print("the wheel is incomplete:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
        if args.keep_wheel and not args.wheel:
            os.makedirs(args.keep_wheel, exist_ok=True)
            shutil.copy2(wheel, args.keep_wheel)
            debug = os.path.join(os.path.dirname(wheel), "debug")
            shutil.copytree(debug, os.path.join(args.keep_wheel, "debug"), dirs_exist_ok=True)
        _run([*pip, wheel])
        _run([python, "-c", INSTALLED_CHECK], cwd=tmp)
        _run([os.path.join(os.path.dirname(python), "jitvision"), "--version"], cwd=tmp)  # the console script
        check_bundled(python, tmp)
    if args.tests:
        extra = ["pytest", "hypothesis"] + ([f"torchvision=={args.torchvision}"] if args.torchvision else [])
        _run([*pip, *extra])
        _run([python, "-c", RUN_TESTS, ROOT, *[os.path.join(ROOT, t) for t in args.tests]], cwd=args.venv)
    if args.remove_venv:
        shutil.rmtree(args.venv, ignore_errors=True)
    print(f"run_wheel.py: torch {args.torch}: passed in {time.monotonic() - started:.0f} s")
    return 0


def _torch_version(python: str) -> str:
    """torch.__version__ in the venv (what the build records next to the library)."""
    return subprocess.run(
        [python, "-c", "import torch; print(torch.__version__)"], check=True, capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
