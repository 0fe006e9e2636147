"""The native ops on extreme geometries: out-of-image boxes (coordinates near 2^63 included), 1-pixel outputs,
8x upscales, 1x3000 strips, channels-last, strided and batched inputs, 1-5 channels, extreme scale/ratio draws.

`make sanitize` (part of `make test`) runs this file and tests/test_native.py against an ASan/UBSan build of the
extension, so a read outside the tensor or an undefined cast fails there even where the normal build happens to
return plausible bytes (such as `top + height <= H` wrapping around for a top near 2^63).
"""

import random

import pytest
import torch
import torchvision.transforms.v2.functional as TF

from jitvision import _native
from tests.test_native import U8_ATOL, _assert_u8

resized_crop = torch.ops.jitvision_native.resized_crop
resize_center_crop = torch.ops.jitvision_native.resize_center_crop
random_resized_crop = torch.ops.jitvision_native.random_resized_crop

BIG = 2**63 - 1
SHAPES = [(1, 1), (1, 2), (2, 1), (3, 3), (7, 5), (16, 33), (1, 3000), (3000, 1), (2, 1500), (40, 64)]
LAYOUTS = ["contiguous", "channels_last", "strided", "batched", "transposed"]


def _image(rng: random.Random, channels: int, height: int, width: int, layout: str) -> torch.Tensor:
    gen = torch.Generator().manual_seed(rng.randrange(2**31))
    if layout == "channels_last":  # a [C, H, W] view of [H, W, C] memory, what PIL/numpy-sourced images are
        return torch.randint(0, 256, (height, width, channels), dtype=torch.uint8, generator=gen).permute(2, 0, 1)
    if layout == "strided":  # every other row and column of a larger image
        big = torch.randint(0, 256, (channels, 2 * height, 2 * width), dtype=torch.uint8, generator=gen)
        return big[:, ::2, ::2]
    if layout == "batched":
        return torch.randint(0, 256, (2, channels, height, width), dtype=torch.uint8, generator=gen)
    if layout == "transposed":  # H and W swapped in memory
        return torch.randint(0, 256, (channels, width, height), dtype=torch.uint8, generator=gen).transpose(-1, -2)
    return torch.randint(0, 256, (channels, height, width), dtype=torch.uint8, generator=gen)


def _box(rng: random.Random, height: int, width: int) -> list:
    kind = rng.choice(["inside", "pixel", "whole"])
    if kind == "whole":
        return [0, 0, height, width]
    crop_h, crop_w = (1, 1) if kind == "pixel" else (rng.randint(1, height), rng.randint(1, width))
    return [rng.randint(0, height - crop_h), rng.randint(0, width - crop_w), crop_h, crop_w]


def _size(rng: random.Random, crop_h: int, crop_w: int) -> list:
    kind = rng.choice(["pixel", "upscale8", "random", "strip"])
    if kind == "pixel":
        return [1, 1]
    if kind == "upscale8":
        return [8 * crop_h, 8 * crop_w]
    if kind == "strip":
        return rng.choice([[1, rng.randint(1, 300)], [rng.randint(1, 300), 1]])
    return [rng.randint(1, 48), rng.randint(1, 48)]


def _torch_resized_crop(image, box, size, flip):
    top, left, height, width = box
    crop = image[..., top : top + height, left : left + width].reshape(-1, image.shape[-3], height, width)
    if size[1] == 1:
        # torch 2.14's uint8 antialiased kernel is wrong for a 1-pixel-wide output with 5+ channels: the
        # pure-PyTorch reference of the same arithmetic (the dense weights stay small here)
        return _native.resized_crop_reference(image, torch.tensor(box), torch.tensor(flip), size)
    try:
        dense = crop.clone(memory_format=torch.contiguous_format)  # torch misreads some ambiguous 1-pixel strides
        out = torch.nn.functional.interpolate(dense, size=size, mode="bilinear", antialias=True)
    except RuntimeError:
        # torch 2.14's uint8 antialiased kernel trips an internal assert for some 1-pixel-wide inputs (3x2x1 to
        # 1x1): the slow pure-PyTorch reference of the same arithmetic then (these inputs are tiny)
        return _native.resized_crop_reference(image, torch.tensor(box), torch.tensor(flip), size)
    out = out.reshape(*image.shape[:-2], *size)
    return out.flip(-1) if flip else out


def _cases(count: int):
    rng = random.Random(13)
    for i in range(count):
        channels = 1 + i % 5
        height, width = SHAPES[i % len(SHAPES)]
        layout = LAYOUTS[(i // len(SHAPES)) % len(LAYOUTS)]
        box = _box(rng, height, width)
        yield pytest.param(
            rng.randrange(2**31),
            channels,
            (height, width),
            layout,
            box,
            _size(rng, *box[2:]),
            id=f"{i}-{channels}x{height}x{width}-{layout}",
        )


@pytest.mark.parametrize("seed, channels, hw, layout, box, size", list(_cases(250)))
def test_resized_crop_extreme_geometries_match_torch(seed, channels, hw, layout, box, size):
    rng = random.Random(seed)
    image = _image(rng, channels, *hw, layout)
    before = image.clone()
    flip = rng.random() < 0.5
    out = resized_crop(image, torch.tensor(box), torch.tensor(flip), size)
    expected = _torch_resized_crop(image.contiguous(), box, size, flip)
    _assert_u8(out, expected)
    mean = [rng.random() for _ in range(channels)]
    std = [0.1 + rng.random() for _ in range(channels)]
    as_float = resized_crop(image, torch.tensor(box), torch.tensor(flip), size, mean, std, True)
    m, s = torch.tensor(mean).view(-1, 1, 1), torch.tensor(std).view(-1, 1, 1)
    torch.testing.assert_close(as_float, (out.float() / 255 - m) / s, atol=1e-5 + U8_ATOL / 255 / 0.1, rtol=0)
    assert torch.equal(image, before)


OUTSIDE = [
    [2**63 - 5, 0, 10, 4],  # the box: top + height wraps around to a negative number
    [0, 2**63 - 5, 4, 10],
    [BIG, BIG, BIG, BIG],
    [1, 0, BIG, 4],
    [0, 1, 4, BIG],
    [-(2**63), 0, 2, 2],
    [0, 0, -(2**63), 4],
    [-1, 0, 2, 2],
    [0, -1, 2, 2],
    [3, 0, 2, 2],
    [0, 3, 2, 2],
    [0, 0, 5, 4],
    [0, 0, 4, 5],
    [0, 0, 0, 4],
    [0, 0, 4, 0],
    [4, 4, 1, 1],
]


@pytest.mark.parametrize("box", OUTSIDE)
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
def test_resized_crop_refuses_boxes_outside_the_image(box, layout):
    image = _image(random.Random(0), 3, 4, 4, layout)
    with pytest.raises(ValueError, match="outside the 4x4 image"):
        resized_crop(image, torch.tensor(box), None, [2, 2])


@pytest.mark.parametrize("size", [[0, 2], [2, 0], [-1, 2], [2, -(2**63)], [2**40, 2], [2, 2**62]])
def test_resized_crop_refuses_bad_sizes(size):
    image = _image(random.Random(0), 3, 4, 4, "contiguous")
    with pytest.raises(ValueError, match="jitvision_native"):
        resized_crop(image, torch.tensor([0, 0, 4, 4]), None, size)


@pytest.mark.parametrize("seed", range(30))
def test_resize_center_crop_extreme_geometries_match_torchvision(seed):
    rng = random.Random(seed)
    height, width = rng.choice(SHAPES[:6] + [(1, 300), (300, 1)])
    image = _image(rng, rng.randint(1, 5), height, width, rng.choice(LAYOUTS))
    size = rng.choice([[1], [1, 1], [rng.randint(1, 40)], [8 * height, 8 * width]])
    crop = rng.choice([None, [1, 1], [rng.randint(1, 60), rng.randint(1, 60)]])
    out = resize_center_crop(image, size, None, crop)
    try:
        expected = TF.resize(image.clone(memory_format=torch.contiguous_format), size, antialias=True)
        if crop is not None:
            expected = TF.center_crop(expected, crop)
    except RuntimeError:  # torch's internal assert on some 1-pixel-wide inputs (see _torch_resized_crop)
        expected = _native.resize_center_crop_reference(image, size, None, crop)
    _assert_u8(out, expected)


@pytest.mark.parametrize(
    "size, max_size, crop",
    [
        ([0], None, None),
        ([2, 0], None, None),
        ([2], 2, None),
        ([], None, None),
        ([2**62], None, None),
        ([2], None, [0, 2]),
        ([2], None, [2, 2**62]),
        ([2], -1, None),
        ([], 2**62, None),
    ],
)
def test_resize_center_crop_refuses_bad_sizes(size, max_size, crop):
    image = _image(random.Random(0), 3, 5, 7, "contiguous")
    with pytest.raises(ValueError, match="jitvision_native"):
        resize_center_crop(image, size, max_size, crop)


def test_resize_center_crop_refuses_an_empty_image():
    with pytest.raises(ValueError, match="non-empty"):
        resize_center_crop(torch.zeros(3, 0, 5, dtype=torch.uint8), [2])


@pytest.mark.parametrize(
    "scale, ratio",
    [
        ([0.0, 1e308], [1e-300, 1e300]),
        ([1e-300, 1e-300], [1.0, 1.0]),
        ([1e300, 1e300], [1e-300, 1e-300]),
        ([0.0, 0.0], [0.5, 2.0]),
        ([1.0, 1.0], [1e300, 1e300]),
        ([5.0, 9.0], [1e-9, 1e-9]),
    ],
)
@pytest.mark.parametrize("hw", [(1, 1), (1, 3000), (3000, 1), (9, 4)])
def test_random_resized_crop_extreme_scale_and_ratio(scale, ratio, hw):
    image = _image(random.Random(1), 3, *hw, "contiguous")
    gen = torch.Generator().manual_seed(0)
    for _ in range(3):
        out = random_resized_crop(image, [3, 2], scale, ratio, 0.5, None, None, False, gen, gen)
        assert out.shape == (3, 3, 2) and out.dtype == torch.uint8


@pytest.mark.parametrize(
    "scale, ratio",
    [
        ([float("nan"), 1.0], [0.5, 2.0]),
        ([0.1, float("inf")], [0.5, 2.0]),
        ([0.1, 1.0], [float("-inf"), 2.0]),
        ([0.1, 1.0], [0.5, float("nan")]),
        ([1.0, 0.1], [0.5, 2.0]),
        ([-0.1, 1.0], [0.5, 2.0]),
        ([0.1, 1.0], [2.0, 0.5]),
    ],
)
def test_random_resized_crop_refuses_non_finite_or_unordered_scale_and_ratio(scale, ratio):
    image = _image(random.Random(1), 3, 8, 8, "contiguous")
    with pytest.raises(ValueError, match="scale and ratio"):
        random_resized_crop(image, [3, 2], scale, ratio)


def test_the_native_extension_is_loaded():
    assert _native.AVAILABLE


def test_inductor_cpp_wrapper_runs_the_inference_preset():
    # inductor's cpp_wrapper calls resize_center_crop through the boxed dispatcher; with dynamic shapes it passes
    # the SymInt[] arguments as a generic list of SymInts, which a kernel taking IntArrayRef could not unbox
    # ("Expected IntList but got GenericList", on the second size). The kernel takes SymInts. The C++ wrapper
    # releases the GIL for the whole graph, the op included.
    import jitvision.transforms as T
    from jitvision.bench import compose

    pipeline = compose(T, "infer")
    compiled = torch.compile(pipeline, dynamic=True, options={"cpp_wrapper": True})
    gen = torch.Generator().manual_seed(int(torch.randint(0, 2**31, ()).item()))
    for _ in range(2):
        height, width = (int(v) for v in torch.randint(224, 400, (2,), generator=gen))
        image = torch.randint(0, 256, (3, height, width), dtype=torch.uint8, generator=gen)
        torch.testing.assert_close(compiled(image), pipeline(image), rtol=0, atol=0)
