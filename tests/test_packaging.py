"""The distribution: the metadata pyproject.toml declares, and the wheel check of tests/run_wheel.py (which
``make test-torch2`` runs on a real wheel) failing on a wheel without the native library."""

import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

import jitvision
from tests.run_wheel import (
    DATA,
    DECODED_SHA256,
    LIBRARY,
    LIBRARY_TORCH,
    make_stand_ins,
    release_wheel,
    wheel_problems,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pyproject() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_metadata_names_the_license_readme_and_console_script():
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    assert "BSD 3-Clause License" in open(os.path.join(ROOT, "LICENSE")).read()
    assert project["readme"] == "README.md" and project["authors"]
    assert project["scripts"] == {"jitvision": "jitvision.__main__:console_main"}
    assert {"version", "dependencies"} <= set(project["dynamic"])  # one version source; torch pinned by setup.py
    assert f"## [{jitvision.__version__}]" in open(os.path.join(ROOT, "CHANGELOG.md")).read()


def test_installed_metadata_pins_the_torch_the_library_was_built_against():
    import torch

    requires = [r for r in importlib.metadata.requires("jitvision") or [] if "extra ==" not in r]  # not the extras'
    pinned = [r for r in requires if r.replace(" ", "").startswith("torch")]
    assert pinned == [f"torch=={importlib.metadata.version('torch')}"], requires
    with open(jitvision.native_library_path()[: -len(".so")] + ".torch_version") as f:
        assert f.read().strip() == torch.__version__


def _wheel(path, members: dict) -> str:
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in members.items():
            wheel.writestr(name, text)
    return str(path)


COMPLETE = {
    LIBRARY: "ELF",
    LIBRARY_TORCH: "2.13.0+cpu\n",
    "jitvision/_fastcall.cpython-311-x86_64-linux-gnu.so": "ELF",
    "jitvision/_fastcall.torch_version": "2.13.0+cpu\n",
    "jitvision/__init__.py": "",
    "jitvision-0.1.0.dist-info/METADATA": "Name: jitvision\nRequires-Dist: torch==2.13.0+cpu\nRequires-Dist: numpy\n",
    "jitvision-0.1.0.dist-info/licenses/LICENSE": "BSD 3-Clause License",
}


def test_wheel_check_passes_a_complete_wheel(tmp_path):
    assert wheel_problems(_wheel(tmp_path / "w.whl", COMPLETE), torch_version="2.13.0+cpu") == []


@pytest.mark.parametrize(
    "drop, problem",
    [
        (LIBRARY, "libjitvision_native.so is missing"),
        (LIBRARY_TORCH, "libjitvision_native.torch_version is missing"),
        ("jitvision/_fastcall.cpython-311-x86_64-linux-gnu.so", "_fastcall.*.so is missing"),
        ("jitvision-0.1.0.dist-info/licenses/LICENSE", "the LICENSE is missing"),
    ],
)
def test_wheel_check_fails_a_wheel_without(tmp_path, drop, problem):
    members = {name: text for name, text in COMPLETE.items() if name != drop}
    assert any(problem in p for p in wheel_problems(_wheel(tmp_path / "w.whl", members)))


def test_wheel_check_fails_an_unpinned_torch_or_another_build(tmp_path):
    members = dict(COMPLETE)
    members["jitvision-0.1.0.dist-info/METADATA"] = "Name: jitvision\nRequires-Dist: torch\n"
    assert any("Requires-Dist torch==" in p for p in wheel_problems(_wheel(tmp_path / "a.whl", members)))
    problems = wheel_problems(_wheel(tmp_path / "b.whl", COMPLETE), torch_version="2.14.1+cu130")
    assert problems == ["built for torch ['2.13.0+cpu'], expected 2.14.1+cu130"]


def test_bundled_check_hashes_are_torchvisions_decode():
    """tests/run_wheel.py's BUNDLED_CHECK compares the installed wheel's decode of tests/data with these hashes:
    they are torchvision.io's pixels."""
    tvio = pytest.importorskip("torchvision.io")
    for name, digest in DECODED_SHA256.items():
        image = tvio.decode_image(tvio.read_file(os.path.join(DATA, name)))
        assert hashlib.sha256(image.contiguous().numpy().tobytes()).hexdigest() == digest, name


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler for the stand-ins")
def test_stand_ins_stop_a_process_that_loads_the_system_image_library(tmp_path):
    """The hidden-loader check fails when something needs the system's libjpeg/libpng: with the stand-ins first
    on LD_LIBRARY_PATH, loading ``libjpeg.so.62`` or ``libpng16.so.16`` by name exits the process (97)."""
    make_stand_ins(str(tmp_path))
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path))
    for name in ("libjpeg.so.62", "libpng16.so.16"):
        run = subprocess.run([sys.executable, "-c", f"import ctypes; ctypes.CDLL({name!r})"], env=env,
                             capture_output=True, text=True)
        assert run.returncode == 97 and "a system image library was loaded" in run.stderr, (name, run)


@pytest.mark.parametrize("version, tag", [("2.14.1+cu130", "214"), ("2.13.0+cpu", "213"), ("2.11.0", "211")])
def test_release_wheel_build_tag_names_the_torch(version, tag):
    assert release_wheel().build_tag(version) == tag
