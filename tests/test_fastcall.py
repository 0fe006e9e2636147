"""jitvision._fastcall (the CPython binding of the eager hot ops, jitvision/csrc_py/fastcall.cpp) and its fallback.

Its functions must return what the ``torch.ops`` calls return (the same op underneath), take the same draws, raise
the ops' errors, and the package must work the same without the extension (``jitvision._eager_ops`` then hands out
the ``torch.ops`` entry points)."""

import os
import subprocess
import sys

import pytest
import torch

import jitvision
from jitvision import _eager_ops, _native

OPS = torch.ops.jitvision_native
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = (
    "point_u8", "random_point_u8", "crop_copy", "random_crop", "vertical_flip", "random_flip", "random_erase",
    "permute_channels", "constant_pad",
)


def test_the_extension_is_used_where_it_was_built():
    # The build writes jitvision/_fastcall.torch_version next to the extension: built for this torch, it is bound.
    record = os.path.join(os.path.dirname(jitvision.__file__), "_fastcall.torch_version")
    assert _native.AVAILABLE and os.path.exists(record), "the native library and jitvision._fastcall must be built"
    assert _eager_ops.FAST is not None, _eager_ops.FAST_UNAVAILABLE_REASON
    assert set(NAMES) <= _eager_ops.BOUND
    assert _eager_ops.entry("random_flip") is _eager_ops.FAST.random_flip
    # an op the extension does not bind: the torch.ops entry point
    assert _eager_ops.entry("crop_at") is OPS.crop_at.default._op
    assert _eager_ops.entry("no_such_op") is None


def test_load_reports_why_the_extension_is_not_used(tmp_path, monkeypatch):
    assert _eager_ops._load(str(tmp_path)) == (None, "jitvision._fastcall was not built", frozenset())
    (tmp_path / "_fastcall.torch_version").write_text("1.0.0\n")
    fast, reason, bound = _eager_ops._load(str(tmp_path))
    assert fast is None and reason.startswith("jitvision._fastcall was built for torch 1.0.0") and not bound
    (tmp_path / "_fastcall.torch_version").write_text(torch.__version__ + "\n")
    fast, reason, bound = _eager_ops._load(str(tmp_path), module="jitvision._no_such_extension")
    assert fast is None and reason.startswith("jitvision._fastcall failed to import") and not bound
    monkeypatch.setenv("JITVISION_FASTCALL", "0")
    assert _eager_ops._load() == (None, "JITVISION_FASTCALL=0", frozenset())


def _images(seed):
    g = torch.Generator().manual_seed(seed)
    shapes = [(3, 17, 23), (1, 8, 5), (2, 3, 31, 12), (4, 9, 40)]
    return [torch.randint(0, 256, shape, dtype=torch.uint8, generator=g) for shape in shapes]


# constant_pad's (pad, value): torch's order, a tuple, one dimension only, a negative amount (ATen's pad), a bool
PADS = (([1, 2, 3, 4], 7), ((0, 0, 5, 0), 2.5), ([3, 1], 0), ([2, -1, 0, 3], 9), ([1] * 4, True))


@pytest.mark.parametrize("seed", range(3))
def test_functions_equal_the_torch_ops_calls(seed):
    fast = _eager_ops.FAST
    for image in _images(seed):
        h, w = image.shape[-2:]
        for op, arg in ((0, 0), (1, 0), (1, 100), (1, 256), (2, 0xF0)):
            assert torch.equal(fast.point_u8(image, op, arg), OPS.point_u8(image, op, arg))
        assert torch.equal(fast.vertical_flip(image), OPS.vertical_flip(image))
        perm = torch.randperm(image.shape[-3])
        assert torch.equal(fast.permute_channels(image, perm), OPS.permute_channels(image, perm))
        assert torch.equal(fast.crop_copy(image, 1, 2, h - 3, w - 2), OPS.crop_copy(image, 1, 2, h - 3, w - 2))
        strided, empty = image.transpose(-1, -2), image[..., :0]
        for source in (image, image.float(), image.to(torch.int16), image > 127, strided, empty):
            for pad, value in PADS:
                if source is empty and min(pad) < 0:
                    continue
                a, b = fast.constant_pad(source, pad, value), OPS.constant_pad(source, list(pad), value)
                assert a.dtype == b.dtype and torch.equal(a, b), (source.dtype, pad, value)
        for args in ((0.5, 0, 0), (0.7, 1, 77), (1.0, 2, 0xC0)):
            for generator_seed in range(6):
                a = fast.random_point_u8(image, *args, torch.Generator().manual_seed(generator_seed))
                b = OPS.random_point_u8(image, *args, torch.Generator().manual_seed(generator_seed))
                assert len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))
        for generator_seed in range(6):
            size = [h // 2, w - 1]
            a = fast.random_crop(image, size, torch.Generator().manual_seed(generator_seed))
            assert torch.equal(a, OPS.random_crop(image, size, torch.Generator().manual_seed(generator_seed)))
            for dim in (-1, -2):
                a = fast.random_flip(image, 0.5, dim, torch.Generator().manual_seed(generator_seed))
                b = OPS.random_flip(image, 0.5, dim, torch.Generator().manual_seed(generator_seed))
                assert len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))
            for scale, ratio, fill in (((0.02, 0.33), (0.3, 3.3), 0), ((0.5, 0.9), (0.5, 2.0), 200)):
                a = fast.random_erase(image, 0.8, scale, ratio, fill, torch.Generator().manual_seed(generator_seed))
                b = OPS.random_erase(image, 0.8, scale, ratio, fill, torch.Generator().manual_seed(generator_seed))
                assert len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))


def test_the_global_generator_when_none_is_given():
    image = _images(0)[0]
    torch.manual_seed(3)
    a = _eager_ops.FAST.random_crop(image, [5, 6])
    after_a = torch.rand(2)
    torch.manual_seed(3)
    b = OPS.random_crop(image, [5, 6])
    assert torch.equal(a, b) and torch.equal(after_a, torch.rand(2))
    torch.manual_seed(3)
    a = _eager_ops.FAST.random_flip(image, 0.5, -1, None)
    torch.manual_seed(3)
    b = OPS.random_flip(image, 0.5, -1)
    assert len(a) == len(b)


def test_errors():
    fast = _eager_ops.FAST
    image = _images(0)[0]
    with pytest.raises(ValueError, match="crop_copy: the crop"):
        fast.crop_copy(image, 10, 0, 10, 5)  # leaves the image: the op's ValueError
    with pytest.raises(RuntimeError, match="expected a uint8 image"):
        fast.point_u8(image.float(), 0, 0)
    with pytest.raises(TypeError, match="expected a Tensor"):
        fast.vertical_flip(image.numpy())
    with pytest.raises(TypeError, match="expected an int"):
        fast.crop_copy(image, 1.5, 0, 2, 2)
    with pytest.raises(TypeError, match="expected 3 to 4 arguments"):
        fast.random_flip(image)
    with pytest.raises(TypeError, match="torch.Generator or None"):
        fast.random_crop(image, [2, 2], 5)
    with pytest.raises(TypeError, match="size must be a list or tuple"):
        fast.random_crop(image, [2, 2, 2])
    with pytest.raises(ValueError, match="fill must be in"):
        fast.random_erase(image, 1.0, (0.1, 0.2), (1.0, 1.0), 256)
    with pytest.raises(TypeError, match="pad must be a list or tuple"):
        fast.constant_pad(image, 2, 0)
    with pytest.raises(TypeError, match="expected an int"):
        fast.constant_pad(image, [1, 2.0, 1, 1], 0)
    with pytest.raises(TypeError, match="value must be an int, a float or a bool"):
        fast.constant_pad(image, [1, 1, 1, 1], "0")
    with pytest.raises(TypeError, match="expected 3 to 3 arguments"):
        fast.constant_pad(image, [1, 1, 1, 1])


_SUBPROCESS = r"""
import torch, jitvision.transforms as T
from jitvision import _eager_ops
assert _eager_ops.FAST is None and _eager_ops.FAST_UNAVAILABLE_REASON == "JITVISION_FASTCALL=0"
from jitvision.transforms._geometry import _crop
assert _crop._RANDOM_CROP is torch.ops.jitvision_native.random_crop.default._op
from jitvision.transforms._geometry import _pad
assert _pad._CONSTANT_PAD is torch.ops.jitvision_native.constant_pad.default._op
image = torch.randint(0, 256, (3, 40, 50), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
outs = []
for t in (T.RandomCrop(20), T.CenterCrop(15), T.RandomVerticalFlip(0.5), T.RandomHorizontalFlip(0.5),
          T.RandomInvert(0.5), T.RandomSolarize(100, p=0.5), T.RandomErasing(0.7), T.Pad([1, 2, 3, 4], fill=9),
          T.Pad(2, fill=2.5)):
    torch.manual_seed(1)
    outs += [t(image) for _ in range(4)]
torch.save(outs, {path!r})
"""


def test_without_the_extension_the_transforms_give_the_same_results(tmp_path):
    # JITVISION_FASTCALL=0: what an install without the extension runs (the torch.ops calls).
    path = str(tmp_path / "outs.pt")
    # The jitvision this process runs (the checkout, or an installed wheel: tests/run_wheel.py), not the cwd's.
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(jitvision.__file__)))
    env = dict(os.environ, JITVISION_FASTCALL="0", PYTHONPATH=package_parent)
    subprocess.run([sys.executable, "-c", _SUBPROCESS.format(path=path)], check=True, cwd=tmp_path, env=env)
    import jitvision.transforms as T

    image = torch.randint(0, 256, (3, 40, 50), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    outs = []
    for t in (T.RandomCrop(20), T.CenterCrop(15), T.RandomVerticalFlip(0.5), T.RandomHorizontalFlip(0.5),
              T.RandomInvert(0.5), T.RandomSolarize(100, p=0.5), T.RandomErasing(0.7), T.Pad([1, 2, 3, 4], fill=9),
              T.Pad(2, fill=2.5)):
        torch.manual_seed(1)
        outs += [t(image) for _ in range(4)]
    expected = torch.load(path)
    assert len(expected) == len(outs) and all(torch.equal(a, b) for a, b in zip(outs, expected))
