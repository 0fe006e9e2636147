"""The cheap checks of "pip install builds the native library" (the full check, a clean venv and ``pip install .``,
takes ~40 min here: see the README's Deploy section): the build requirements pin the torch that is installed (the
library only loads in the torch it was compiled against), and ``setup.py`` builds the library into jitvision/lib
from a fresh checkout (no jitvision/lib folder: it holds only build products, gitignored), here in a temporary copy
holding setup.py, pyproject.toml and one real source file (csrc/pad.cpp: seconds to compile, not minutes)."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent.parent


def _pins(requirements):
    return [re.sub(r"\s+", "", r).split("==", 1)[1] for r in requirements if re.match(r"torch\s*==", r)]


def test_build_requirements_pin_the_installed_torch():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    installed = torch.__version__.split("+")[0]
    assert _pins(config["build-system"]["requires"]) == [installed]
    assert _pins(config["project"]["optional-dependencies"]["test"]) == [installed]


def test_setup_builds_the_library_from_a_fresh_checkout(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "jitvision" / "csrc").mkdir(parents=True)
    # what pyproject reads: the version from jitvision/__init__.py, the readme and the license file
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "jitvision/__init__.py"):
        shutil.copy(ROOT / name, checkout / name)
    shutil.copy(ROOT / "jitvision" / "csrc" / "pad.cpp", checkout / "jitvision" / "csrc" / "pad.cpp")
    env = dict(os.environ, MAX_JOBS="1")
    env.pop("JITVISION_SANITIZE", None)
    # One compile: setuptools' build_ext --inplace builds into build/lib* (what `pip install .` puts in the wheel)
    # and then copies into the source tree (an editable install).
    result = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=checkout, capture_output=True, text=True,
        env=env, timeout=900,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    built = list((checkout / "build").glob("lib*/jitvision/lib/libjitvision_native.so"))
    library = checkout / "jitvision" / "lib" / "libjitvision_native.so"
    assert len(built) == 1 and library.exists(), sorted(str(p) for p in checkout.rglob("*.so"))
    for path in (built[0], library):
        assert path.with_suffix(".torch_version").read_text().strip() == torch.__version__
    # No Python symbol in it (a C++ program without Python loads it), and torch loads it: the op is registered.
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(library)], capture_output=True, text=True)
    assert undefined.returncode == 0 and not re.search(r"\bPy\w+", undefined.stdout), undefined.stdout[:2000]
    check = (
        "import sys, torch; torch.ops.load_library(sys.argv[1]); "
        "x = torch.arange(6.0).reshape(1, 2, 3); "
        "print(torch.ops.jitvision_native.constant_pad(x, [1, 1, 1, 1], 0.0).shape)"
    )
    loaded = subprocess.run([sys.executable, "-c", check, str(library)], capture_output=True, text=True, timeout=300)
    assert loaded.returncode == 0 and "torch.Size([1, 4, 5])" in loaded.stdout, loaded.stderr[-2000:]


def test_setup_builds_jpeg_only_where_libjpeg_is_found(monkeypatch, capsys):
    # setup.py's probe (a test program including jpeglib.h, linked with -ljpeg): here libjpeg is installed; a
    # compiler that cannot build it, or JITVISION_JPEG=0, leaves csrc/jpeg.cpp out and says so once
    source = (ROOT / "setup.py").read_text()
    namespace = {}
    exec(compile(source[: source.index("ext_modules, cmdclass = _extensions()")], "setup.py", "exec"), namespace)
    probe = namespace["_libjpeg_found"]
    monkeypatch.delenv("JITVISION_JPEG", raising=False)
    monkeypatch.delenv("CXX", raising=False)
    assert probe() is True and capsys.readouterr().out == ""
    monkeypatch.setenv("CXX", "g++ -include /nonexistent/jitvision-missing.h")
    assert probe() is False
    said = capsys.readouterr().out
    assert said.count("\n") == 1 and "libjpeg not found" in said and "without JPEG" in said
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("JITVISION_JPEG", "0")
    assert probe() is False and "without JPEG" in capsys.readouterr().out


def test_setup_builds_png_only_where_libpng_is_found(monkeypatch, capsys):
    # the same probe for libpng (csrc/decode_png.cpp): JITVISION_PNG=0 or a compiler that cannot build the test
    # program leaves it out and says so once (jitvision.io.decode_png then uses Pillow)
    source = (ROOT / "setup.py").read_text()
    namespace = {}
    exec(compile(source[: source.index("ext_modules, cmdclass = _extensions()")], "setup.py", "exec"), namespace)
    probe = namespace["_libpng_found"]
    monkeypatch.delenv("JITVISION_PNG", raising=False)
    monkeypatch.delenv("CXX", raising=False)
    assert probe() is True and capsys.readouterr().out == ""
    monkeypatch.setenv("CXX", "g++ -include /nonexistent/jitvision-missing.h")
    assert probe() is False
    said = capsys.readouterr().out
    assert said.count("\n") == 1 and "libpng not found" in said and "without PNG" in said
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("JITVISION_PNG", "0")
    assert probe() is False and "without PNG" in capsys.readouterr().out
