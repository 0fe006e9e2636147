"""The native library as a plain shared library: no Python in it, found with ``jitvision.native_library_path()``,
the import's once-warning when it is missing or built for another torch, and its C++ crop operators
(``jitvision_native::crop_at``, ``resized_crop_box``) against the Python operators they replace in traced graphs.
"""

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import jitvision
from jitvision import _native

ROOT = Path(__file__).resolve().parent.parent


def test_library_is_loaded_from_the_package():
    path = Path(jitvision.native_library_path())
    assert _native.AVAILABLE, _native.UNAVAILABLE_REASON
    assert path.name == "libjitvision_native.so" and path.parent == Path(jitvision.__file__).parent / "lib"
    assert path.with_suffix(".torch_version").read_text().strip() == torch.__version__


def test_library_needs_no_python():
    # Linked with --no-undefined against libtorch only: no Python library among its dependencies, no Python symbol.
    path = jitvision.native_library_path()
    dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    needed = [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    assert "libtorch_cpu.so" in needed and "libc10.so" in needed
    assert not [lib for lib in needed if "python" in lib], needed
    symbols = subprocess.run(["nm", "-D", "--undefined-only", path], capture_output=True, text=True, check=True)
    assert not [s for s in symbols.stdout.split() if s.startswith(("Py", "_Py"))]


def _import_copy(tmp_path: Path, library: str = "", built_for: str = "") -> subprocess.CompletedProcess:
    """Import a copy of the package whose lib/ holds ``library`` (a path to copy, or nothing)."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "jitvision", tree / "jitvision", ignore=shutil.ignore_patterns("*.so", "__pycache__", "lib"))
    if library:
        (tree / "jitvision" / "lib").mkdir()
        shutil.copy2(library, tree / "jitvision" / "lib" / "libjitvision_native.so")
        (tree / "jitvision" / "lib" / "libjitvision_native.torch_version").write_text(built_for + "\n")
    code = "import warnings; warnings.simplefilter('always'); import jitvision._native as n; print(n.AVAILABLE)"
    return subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=300)


def test_import_warns_once_when_the_library_is_missing(tmp_path):
    result = _import_copy(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "False"
    assert result.stderr.count("jitvision: the native library is not loaded") == 1
    assert "was not built" in result.stderr


def test_import_warns_once_when_the_library_is_for_another_torch(tmp_path):
    result = _import_copy(tmp_path, jitvision.native_library_path(), built_for="2.0.0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "False"
    assert result.stderr.count("jitvision: the native library is not loaded") == 1
    assert f"was built for torch 2.0.0, this is torch {torch.__version__}" in result.stderr
    # what to do: the torch it was built for, or a build against this one
    assert "install torch==2.0.0" in result.stderr
    assert f"build jitvision against torch {torch.__version__}" in result.stderr


# ---- the C++ crop operators against the Python ones ------------------------------------------------------------

MODES = [("nearest", False), ("nearest-exact", False), ("bilinear", True), ("bilinear", False), ("bicubic", True),
         ("bicubic", False), ("lanczos", True)]


def _image(rng: random.Random, dtype: torch.dtype, lead: list) -> torch.Tensor:
    shape = [*lead, rng.choice([1, 3, 5]), rng.randint(2, 40), rng.randint(2, 40)]
    gen = torch.Generator().manual_seed(rng.randrange(1 << 30))
    if dtype.is_floating_point:
        return torch.rand(shape, generator=gen).to(dtype)
    return torch.randint(0, 256 if dtype == torch.uint8 else 1000, shape, generator=gen).to(dtype)


def _box(rng: random.Random, height: int, width: int, inside: bool) -> list:
    h, w = rng.randint(1, height), rng.randint(1, width)
    if inside:
        return [rng.randint(0, height - h), rng.randint(0, width - w), h, w]
    return [rng.randint(-5, height), rng.randint(-5, width), rng.randint(1, height + 6), rng.randint(1, width + 6)]


@pytest.mark.parametrize("seed", range(6))
def test_resized_crop_box_cpp_equals_python(seed):
    rng = random.Random(seed)
    for dtype in (torch.uint8, torch.float32, torch.float64, torch.int16):
        for mode, antialias in MODES:
            image = _image(rng, dtype, [] if rng.random() < 0.5 else [2])
            box = torch.tensor(_box(rng, image.shape[-2], image.shape[-1], inside=rng.random() < 0.5))
            size = [rng.randint(1, 30), rng.randint(1, 30)]
            if rng.random() < 0.2:
                size = [size[0], 1]  # the width-one case of torch's antialiased kernels
            args = (image, box, size, mode, antialias)
            expected = torch.ops.jitvision.resized_crop_box(*args)
            actual = torch.ops.jitvision_native.resized_crop_box(*args)
            assert actual.dtype == expected.dtype and actual.shape == expected.shape, (dtype, mode)
            torch.testing.assert_close(actual, expected, rtol=0, atol=0, msg=f"{dtype} {mode} {antialias} {box}")


@pytest.mark.parametrize("seed", range(3))
def test_resized_crop_box_rows_cpp_equals_python(seed):
    rng = random.Random(seed)
    for dtype, mode, antialias in [(torch.uint8, "bilinear", True), (torch.float32, "bicubic", True),
                                   (torch.uint8, "nearest", False)]:
        image = _image(rng, dtype, [3])
        boxes = torch.tensor([_box(rng, image.shape[-2], image.shape[-1], inside=True) for _ in range(3)])
        args = (image, boxes, [rng.randint(1, 20), rng.randint(1, 20)], mode, antialias)
        torch.testing.assert_close(
            torch.ops.jitvision_native.resized_crop_box(*args), torch.ops.jitvision.resized_crop_box(*args), rtol=0,
            atol=0,
        )
    masks = torch.randint(0, 5, (3, 12, 14), dtype=torch.uint8)  # a batch of [H, W] masks: rows are planes
    boxes = torch.tensor([_box(rng, 12, 14, inside=True) for _ in range(3)])
    args = (masks, boxes, [7, 9], "nearest", False)
    torch.testing.assert_close(
        torch.ops.jitvision_native.resized_crop_box(*args), torch.ops.jitvision.resized_crop_box(*args), rtol=0, atol=0
    )


@pytest.mark.parametrize("seed", range(3))
def test_crop_at_cpp_equals_python(seed):
    rng = random.Random(seed)
    for dtype in (torch.uint8, torch.float32, torch.bool):
        image = _image(rng, torch.uint8, [2]).to(dtype)
        h, w = rng.randint(1, image.shape[-2]), rng.randint(1, image.shape[-1])
        one = torch.tensor([rng.randint(0, image.shape[-2] - h), rng.randint(0, image.shape[-1] - w)])
        per_row = torch.stack([one, torch.tensor([image.shape[-2] - h, image.shape[-1] - w])])
        for offsets in (one, per_row):
            expected = torch.ops.jitvision.crop_at(image, offsets, h, w)
            actual = torch.ops.jitvision_native.crop_at(image, offsets, h, w)
            assert actual.is_contiguous()
            torch.testing.assert_close(actual, expected, rtol=0, atol=0)


def test_crop_operators_refuse_bad_regions():
    image = torch.zeros(3, 8, 8, dtype=torch.uint8)
    with pytest.raises(ValueError, match="crop_at: the crop"):
        torch.ops.jitvision_native.crop_at(image, torch.tensor([5, 0]), 4, 4)
    with pytest.raises(ValueError, match="resized_crop: the crop height and width must be positive"):
        torch.ops.jitvision_native.resized_crop_box(image, torch.tensor([0, 0, 0, 4]), [4, 4], "bilinear", True)
    with pytest.raises(ValueError, match="resized_crop_at: a box per row"):
        torch.ops.jitvision_native.resized_crop_box(image, torch.zeros(2, 4, dtype=torch.long), [4, 4], "nearest", 0)
