"""The eager row-copy ops of csrc/fastgeo.cpp (crop_copy, random_crop, vertical_flip, random_flip) and the row-copy
form of constant_pad (csrc/pad.cpp), against torch on random shapes, dtypes and layouts, and their draws against
the Python draws they replace (the same numbers from the same generator)."""

import math
import random

import pytest
import torch

from jitvision import _native

ops = torch.ops.jitvision_native
DTYPES = [torch.uint8, torch.int16, torch.int64, torch.float32, torch.float64, torch.bfloat16, torch.bool]

pytestmark = pytest.mark.skipif(not _native.GEOMETRY, reason="the native library is not loaded")


def _tensor(rng: random.Random, shape, dtype) -> torch.Tensor:
    gen = torch.Generator().manual_seed(rng.randrange(2**31))
    return torch.randint(0, 256, shape, generator=gen).to(dtype)


def _shape(rng: random.Random):
    lead = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    return lead + [rng.choice([1, 2, 5, 17, 64]), rng.choice([1, 3, 8, 33, 100])]


@pytest.mark.parametrize("seed", range(30))
def test_crop_copy_and_vertical_flip_match_torch(seed):
    rng = random.Random(seed)
    image = _tensor(rng, _shape(rng), rng.choice(DTYPES))
    H, W = image.shape[-2:]
    top, left = rng.randint(0, H), rng.randint(0, W)
    h, w = rng.randint(0, H - top), rng.randint(0, W - left)
    out = ops.crop_copy(image, top, left, h, w)
    assert out.is_contiguous() and out.dtype == image.dtype
    assert torch.equal(out, image[..., top : top + h, left : left + w])
    flipped = ops.vertical_flip(image)
    assert flipped.is_contiguous() and torch.equal(flipped, image.flip(-2))
    assert flipped.data_ptr() != image.data_ptr()


@pytest.mark.parametrize("seed", range(30))
def test_row_copy_constant_pad_matches_torch(seed):
    rng = random.Random(seed)
    dtype = rng.choice(DTYPES)
    image = _tensor(rng, _shape(rng), dtype)
    pad = [rng.randint(0, 4) for _ in range(4)]
    value = rng.choice([0, 1, 7]) if dtype != torch.bool else rng.choice([0, 1])
    out = ops.constant_pad(image, pad, value)
    assert torch.equal(out, torch.nn.functional.pad(image, pad, value=value))
    # the other forms (negative amounts, a strided input, three dimensions) keep ATen's kernel
    strided = image.transpose(-1, -2)
    assert torch.equal(ops.constant_pad(strided, pad, value), torch.nn.functional.pad(strided, pad, value=value))
    crop = [-min(pad[0], image.shape[-1] - 1), 1, 0, 2]
    assert torch.equal(ops.constant_pad(image, crop, value), torch.nn.functional.pad(image, crop, value=value))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.float32, torch.float64], ids=str)
def test_row_copy_constant_pad_at_the_store_sizes(dtype):
    # The row kernel stores rows in 32-byte chunks and borders as 64-byte pattern stores that may run ahead into
    # bytes written later, never past the output: rows shorter and longer than a chunk, borders shorter and longer
    # than the pattern, zero amounts on each side (the last row's border at the very end of the output).
    rng = random.Random(3)
    for width in (1, 3, 15, 31, 32, 33, 47, 64, 100):
        for pad in ([0, 0, 0, 0], [0, 1, 0, 0], [1, 0, 2, 0], [40, 3, 0, 1], [2, 70, 1, 0], [5, 5, 5, 5], [0, 0, 3, 0]):
            image = _tensor(rng, (rng.randint(1, 3), rng.randint(1, 6), width), dtype)
            value = 7
            out = ops.constant_pad(image, pad, value)
            assert torch.equal(out, torch.nn.functional.pad(image, pad, value=value)), (width, pad)


def test_constant_pad_of_a_uint16_image_keeps_atens_kernel():
    image = torch.arange(12, dtype=torch.int32).reshape(3, 4).to(torch.uint16)
    assert torch.equal(ops.constant_pad(image, [1, 1, 1, 1], 3).to(torch.int32),
                       torch.nn.functional.pad(image.to(torch.int32), [1, 1, 1, 1], value=3))


@pytest.mark.parametrize("seed", range(20))
def test_random_crop_draws_as_the_python_path(seed):
    rng = random.Random(seed)
    image = _tensor(rng, _shape(rng), rng.choice(DTYPES))
    H, W = image.shape[-2:]
    size = [rng.randint(0, H), rng.randint(0, W)]
    gen = torch.Generator().manual_seed(seed)
    u_top, u_left = torch.rand(2, dtype=torch.float64, generator=gen).tolist()
    top = min(math.floor(u_top * (H - size[0] + 1)), H - size[0])
    left = min(math.floor(u_left * (W - size[1] + 1)), W - size[1])
    after = torch.rand(3, generator=gen)
    gen.manual_seed(seed)
    out = ops.random_crop(image, size, gen)
    assert torch.equal(out, image[..., top : top + size[0], left : left + size[1]])
    assert torch.equal(torch.rand(3, generator=gen), after)
    torch.manual_seed(seed)  # no generator: the global one
    first = ops.random_crop(image, size)
    torch.manual_seed(seed)
    assert torch.equal(ops.random_crop(image, size), first)


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0, 1 / 3])
@pytest.mark.parametrize("dim", [-1, -2])
def test_random_flip_draws_as_the_python_path(p, dim):
    image = torch.randint(0, 256, (3, 9, 11), dtype=torch.uint8)
    gen = torch.Generator().manual_seed(0)
    reference = torch.Generator().manual_seed(0)
    for _ in range(50):
        applied = bool(torch.rand([], generator=reference) < p)
        out = ops.random_flip(image, p, dim, gen)
        assert len(out) == int(applied)
        if applied:
            assert torch.equal(out[0], image.flip(dim))
    strided = image.transpose(-1, -2)
    assert torch.equal(ops.random_flip(strided, 1.0, dim)[0], strided.flip(dim))


def test_bad_arguments_raise():
    image = torch.zeros(3, 4, 5, dtype=torch.uint8)
    with pytest.raises(ValueError, match="leaves the image"):
        ops.crop_copy(image, 2, 0, 3, 5)
    with pytest.raises(ValueError, match="leaves the image"):
        ops.crop_copy(image, -1, 0, 1, 1)
    with pytest.raises(ValueError, match="larger than the input"):
        ops.random_crop(image, [5, 5])
    with pytest.raises(ValueError, match="contiguous"):
        ops.vertical_flip(image.transpose(-1, -2))
    with pytest.raises(ValueError, match="dim -1 or -2"):
        ops.random_flip(image, 0.5, 0)
    with pytest.raises(ValueError):
        ops.vertical_flip(torch.zeros(5, dtype=torch.uint8))
