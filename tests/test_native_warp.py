"""The native uint8 warps (csrc/warp.cpp): warp_u8 (affine/perspective coefficients) and warp_grid_u8 (a given
grid, elastic) against torchvision's float grid_sample path on randomized sizes, channel counts, matrices, fills,
modes and batches; tiny images (scalar tails), non-finite coefficients, and thread counts. Also run under
ASan + UBSan by tests/run_sanitized.py.

Parity: uint8 within 1 level with < 1% of the values off by one (the kernels keep torchvision's float32
arithmetic; in practice they agree bit for bit). Fills stay in [0, 255]: outside it torchvision's uint8 cast wraps
where jitvision clamps (a documented difference)."""

import math
import random

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms.functional as F
from jitvision import _native
from jitvision.transforms.functional._geometry._warp import sample_grid

pytestmark = pytest.mark.skipif(not _native.WARP_GRID, reason="needs the native library with warp_grid_u8")


def _assert_u8_close(actual: torch.Tensor, expected: torch.Tensor, what: str) -> None:
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, what
    diff = (actual.int() - expected.int()).abs()
    assert int(diff.max()) <= 1, f"{what}: max diff {int(diff.max())}"
    assert float((diff > 0).float().mean()) < 0.01, f"{what}: {float((diff > 0).float().mean()):.4f} off by one"


def _random_case(rng: random.Random):
    height, width = rng.randint(1, 40), rng.randint(1, 40)
    channels = rng.choice([1, 2, 3, 4, 5])
    mode = rng.choice(["bilinear", "nearest"])
    fill = rng.choice([None, [rng.uniform(0, 255)], [rng.uniform(0, 255) for _ in range(channels)]])
    return height, width, channels, mode, fill


@pytest.mark.parametrize("seed", range(4))
def test_affine_and_rotate_match_torchvision(seed):
    rng = random.Random(seed)
    for _ in range(12):
        height, width, channels, mode, fill = _random_case(rng)
        image = torch.randint(0, 256, (channels, height, width), dtype=torch.uint8)
        kwargs = {
            "angle": rng.uniform(-180, 180),
            "translate": [rng.uniform(-8, 8), rng.uniform(-8, 8)],
            "scale": rng.uniform(0.3, 2.5),
            "shear": [rng.uniform(-40, 40), rng.uniform(-40, 40)],
        }
        interpolation = tv_functional.InterpolationMode(mode)
        expected = tv_functional.affine(image, **kwargs, interpolation=interpolation, fill=fill)
        _assert_u8_close(F.affine(image, **kwargs, interpolation=mode, fill=fill), expected, f"affine {kwargs}")
        angle, expand = rng.uniform(-180, 180), rng.random() < 0.5
        expected = tv_functional.rotate(image, angle, interpolation=interpolation, expand=expand, fill=fill)
        _assert_u8_close(F.rotate(image, angle, interpolation=mode, expand=expand, fill=fill), expected, "rotate")


@pytest.mark.parametrize("seed", range(3))
def test_perspective_matches_torchvision(seed):
    rng = random.Random(100 + seed)
    for _ in range(10):
        _, _, channels, mode, fill = _random_case(rng)
        height, width = rng.randint(16, 48), rng.randint(16, 48)
        image = torch.randint(0, 256, (channels, height, width), dtype=torch.uint8)
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        end = [[x + rng.randint(-5, 5), y + rng.randint(-5, 5)] for x, y in start]
        expected = tv_functional.perspective(image, start, end, tv_functional.InterpolationMode(mode), fill)
        _assert_u8_close(F.perspective(image, start, end, mode, fill), expected, f"perspective {end}")


@pytest.mark.parametrize("seed", range(3))
def test_grid_warp_matches_grid_sample(seed):
    """warp_grid_u8 on one grid and on per-sample grids (G > 1), against the float grid_sample path."""
    rng = random.Random(200 + seed)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(8):
        height, width, channels, mode, fill = _random_case(rng)
        groups = rng.choice([1, 1, 3])
        shape = (groups, channels, height, width) if groups > 1 else (rng.randint(1, 2), channels, height, width)
        image = torch.randint(0, 256, shape, dtype=torch.uint8, generator=generator)
        grid = torch.rand(groups, rng.randint(1, 30), rng.randint(1, 30), 2, generator=generator) * 2.4 - 1.2
        period = channels if fill is not None and len(fill) > 1 else 1
        ours = torch.ops.jitvision_native.warp_grid_u8(image.unsqueeze(0), grid, 0 if mode == "nearest" else 1,
                                                       period, fill)
        expected = sample_grid(image, grid, mode, fill, "test")
        _assert_u8_close(ours.reshape(expected.shape), expected, f"grid {mode} {fill} {tuple(image.shape)}")


def test_elastic_matches_torchvision():
    generator = torch.Generator().manual_seed(7)
    for height, width, channels in ((33, 47, 3), (8, 5, 1), (64, 64, 4)):
        image = torch.randint(0, 256, (channels, height, width), dtype=torch.uint8, generator=generator)
        displacement = torch.randn(1, height, width, 2, generator=generator) * 0.1
        for mode, fill in (("bilinear", None), ("bilinear", [3.0]), ("nearest", [200.0])):
            expected = tv_functional.elastic(image, displacement, tv_functional.InterpolationMode(mode), fill)
            _assert_u8_close(F.elastic(image, displacement, mode, fill), expected, f"elastic {mode} {fill}")


def test_non_finite_and_extreme_coefficients_stay_in_bounds():
    image = torch.randint(0, 256, (2, 3, 9, 13), dtype=torch.uint8)
    coefficients = torch.tensor(
        [
            [math.nan, 0, 0, 0, 1, 0, 0, 0],
            [math.inf, -math.inf, 0, 0, 1e30, 0, 0, 0],
        ]
    )
    for projective in (False, True):
        for mode in (0, 1):
            out = torch.ops.jitvision_native.warp_u8(image, coefficients, 11, 17, projective, mode, 1, [9.0])
            assert out.shape == (2, 3, 11, 17)
    grid = torch.tensor([math.nan, math.inf, -math.inf, 1e30]).reshape(1, 1, 2, 2).expand(2, 3, 2, 2).contiguous()
    out = torch.ops.jitvision_native.warp_grid_u8(image, grid, 1, 1, None)
    assert out.shape == (2, 3, 3, 2)


def test_threads_give_the_same_output():
    image = torch.randint(0, 256, (3, 70, 90), dtype=torch.uint8)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = F.rotate(image, 33.0, interpolation="bilinear", fill=[5.0, 6.0, 7.0])
        torch.set_num_threads(2)
        two = F.rotate(image, 33.0, interpolation="bilinear", fill=[5.0, 6.0, 7.0])
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one, two)
