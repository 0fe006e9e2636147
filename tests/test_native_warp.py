"""The native uint8 warps (csrc/warp.cpp): warp_u8 (affine/perspective coefficients) and warp_grid_u8 (a given
grid, elastic) against torchvision's float grid_sample path on randomized sizes, channel counts, matrices, fills,
modes and batches; tiny images (scalar tails), non-finite coefficients, and thread counts. Also run under
ASan + UBSan by tests/run_sanitized.py.

Parity: uint8 within 1 level with < 1% of the values off by one, counted over all the cases of a test (a tiny
image has too few values for a per-case fraction). The default bilinear blend keeps torchvision's float32
arithmetic; mode 2 (``_warp.FIXED_POINT_BLEND``) blends interior pixels in fixed point (off by one on a
fraction of a percent of them, measured by test_fixed_point_off_by_one_fraction). Fills stay in [0, 255]:
outside it torchvision's uint8 cast wraps where jitvision clamps (a documented difference)."""

import math
import random

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms.functional as F
from jitvision import _native
from jitvision.transforms.functional._geometry import _warp
from jitvision.transforms.functional._geometry._warp import sample_grid

pytestmark = pytest.mark.skipif(not _native.WARP_GRID, reason="needs the native library with warp_grid_u8")


class _OffByOne:
    """Counts values off by one over the cases of a test; every value must be within one level."""

    def __init__(self) -> None:
        self.off = 0
        self.total = 0

    def check(self, actual: torch.Tensor, expected: torch.Tensor, what: str) -> None:
        assert actual.shape == expected.shape and actual.dtype == expected.dtype, what
        diff = (actual.int() - expected.int()).abs()
        if diff.numel():
            assert int(diff.max()) <= 1, f"{what}: max diff {int(diff.max())}"
        self.off += int((diff > 0).sum())
        self.total += diff.numel()

    def fraction(self) -> float:
        return self.off / max(self.total, 1)

    def assert_rule(self) -> None:
        assert self.fraction() < 0.01, f"{self.off} of {self.total} values off by one ({self.fraction():.4%})"


@pytest.fixture
def counter():
    c = _OffByOne()
    yield c
    c.assert_rule()


def _random_case(rng: random.Random):
    height, width = rng.randint(1, 40), rng.randint(1, 40)
    channels = rng.choice([1, 2, 3, 4, 5])
    mode = rng.choice(["bilinear", "nearest"])
    fill = rng.choice([None, [rng.uniform(0, 255)], [rng.uniform(0, 255) for _ in range(channels)]])
    return height, width, channels, mode, fill


@pytest.mark.parametrize("seed", range(4))
def test_affine_and_rotate_match_torchvision(seed, counter):
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
        counter.check(F.affine(image, **kwargs, interpolation=mode, fill=fill), expected, f"affine {kwargs}")
        angle, expand = rng.uniform(-180, 180), rng.random() < 0.5
        expected = tv_functional.rotate(image, angle, interpolation=interpolation, expand=expand, fill=fill)
        counter.check(F.rotate(image, angle, interpolation=mode, expand=expand, fill=fill), expected, "rotate")


@pytest.mark.parametrize("seed", range(3))
def test_perspective_matches_torchvision(seed, counter):
    rng = random.Random(100 + seed)
    for _ in range(10):
        _, _, channels, mode, fill = _random_case(rng)
        height, width = rng.randint(16, 48), rng.randint(16, 48)
        image = torch.randint(0, 256, (channels, height, width), dtype=torch.uint8)
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        end = [[x + rng.randint(-5, 5), y + rng.randint(-5, 5)] for x, y in start]
        expected = tv_functional.perspective(image, start, end, tv_functional.InterpolationMode(mode), fill)
        counter.check(F.perspective(image, start, end, mode, fill), expected, f"perspective {end}")


@pytest.mark.parametrize("seed", range(3))
def test_grid_warp_matches_grid_sample(seed, counter):
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
        counter.check(ours.reshape(expected.shape), expected, f"grid {mode} {fill} {tuple(image.shape)}")


def test_elastic_matches_torchvision(counter):
    generator = torch.Generator().manual_seed(7)
    for height, width, channels in ((33, 47, 3), (8, 5, 1), (64, 64, 4)):
        image = torch.randint(0, 256, (channels, height, width), dtype=torch.uint8, generator=generator)
        displacement = torch.randn(1, height, width, 2, generator=generator) * 0.1
        for mode, fill in (("bilinear", None), ("bilinear", [3.0]), ("nearest", [200.0])):
            expected = tv_functional.elastic(image, displacement, tv_functional.InterpolationMode(mode), fill)
            counter.check(F.elastic(image, displacement, mode, fill), expected, f"elastic {mode} {fill}")


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


def _photographs():
    from jitvision._bench import _photos

    images, _, _ = _photos.load_photos()  # scikit-image's photographs (the bench's), or same-size synthetic ones
    return [torch.as_tensor(image).permute(2, 0, 1).contiguous() for image in images]


def test_fixed_point_off_by_one_fraction(monkeypatch):
    """The fixed-point interior blend against torchvision's float path, on the bench photographs and on random
    noise (the worst case: large steps between neighbours), random angles/affines, fill 0 and None: every value
    within one level and under 1% of them off by one, on each kind of image separately."""
    rng = random.Random(5)
    generator = torch.Generator().manual_seed(5)
    noise = [torch.randint(0, 256, (3, rng.randint(60, 200), rng.randint(60, 200)), generator=generator,
                           dtype=torch.uint8) for _ in range(3)]
    photos = [p[:, :256, :256] for p in _photographs()]  # corners of the photographs keep the test quick
    monkeypatch.setattr(_warp, "FIXED_POINT_BLEND", True)
    for images in (photos, noise):
        count = _OffByOne()
        for image in images:
            for fill in (None, [0.0]):
                angle = rng.uniform(-45, 45)
                expected = tv_functional.rotate(image, angle, tv_functional.InterpolationMode.BILINEAR, fill=fill)
                count.check(F.rotate(image, angle, "bilinear", fill=fill), expected, f"rotate {angle}")
                kwargs = {"angle": rng.uniform(-25, 25), "translate": [rng.randint(-9, 9), rng.randint(-9, 9)],
                          "scale": rng.uniform(0.9, 1.1), "shear": [rng.uniform(-10, 10), 0.0]}
                bilinear = tv_functional.InterpolationMode.BILINEAR
                expected = tv_functional.affine(image, **kwargs, interpolation=bilinear, fill=fill)
                ours = F.affine(image, **kwargs, interpolation="bilinear", fill=fill)
                count.check(ours, expected, f"affine {kwargs}")
        assert count.total > 100_000
        count.assert_rule()


@pytest.mark.parametrize("projective", [False, True])
def test_scalar_tail_matches_simd(projective):
    """The scalar pixels (the last OW % 8 of a row) give the bits of the AVX2 groups: the columns 8..12 of a
    13-wide output (scalar) against the same positions inside a 16-wide one (AVX2). Projective positions do not
    depend on the output width; affine ones are centred on it (X = ox - (OW - 1) / 2), so the wide warp's
    translation moves by 1.5 columns, with dyadic coefficients that keep every sum exact."""
    generator = torch.Generator().manual_seed(int(projective))
    image = torch.randint(0, 256, (1, 3, 37, 41), dtype=torch.uint8, generator=generator)
    for _ in range(20):
        c = torch.randint(-64, 65, (1, 8), generator=generator).float() / 1024.0
        c[0, 0] += 1.0 / 16.0
        c[0, 4] += 1.0 / 16.0
        if projective:
            c[0, 6:] /= 64.0
        else:
            c[0, 6:] = 0.0
        wide_c = c.clone()
        if not projective:
            wide_c[0, 2] += 1.5 * c[0, 0]
            wide_c[0, 5] += 1.5 * c[0, 3]
        for mode in (0, 1, 2):
            for fill in (None, [17.0]):
                narrow = torch.ops.jitvision_native.warp_u8(image, c, 30, 13, projective, mode, 1, fill)
                wide = torch.ops.jitvision_native.warp_u8(image, wide_c, 30, 16, projective, mode, 1, fill)
                assert torch.equal(narrow, wide[..., :13]), f"{mode} {fill} {c.tolist()}"


@pytest.mark.parametrize("fixed", [False, True])
def test_fixed_point_switch_runs_every_path(monkeypatch, counter, fixed):
    """Both blends through the functionals (affine, perspective, elastic: warp_u8 and warp_grid_u8), against
    torchvision, with fills; the fixed blend must actually differ from the float one somewhere on noise."""
    monkeypatch.setattr(_warp, "FIXED_POINT_BLEND", fixed)
    generator = torch.Generator().manual_seed(11)
    image = torch.randint(0, 256, (3, 97, 131), dtype=torch.uint8, generator=generator)
    bilinear = tv_functional.InterpolationMode.BILINEAR
    for fill in (None, [0.0], [10.0, 20.0, 30.0]):
        ours = F.affine(image, 17.0, [3, -2], 1.1, [6.0, 2.0], "bilinear", fill)
        counter.check(ours, tv_functional.affine(image, 17.0, [3, -2], 1.1, [6.0, 2.0], bilinear, fill), "affine")
        start = [[0, 0], [130, 0], [130, 96], [0, 96]]
        end = [[4, 2], [125, 5], [128, 90], [3, 93]]
        ours = F.perspective(image, start, end, "bilinear", fill)
        counter.check(ours, tv_functional.perspective(image, start, end, bilinear, fill), "perspective")
        displacement = torch.randn(1, 97, 131, 2, generator=generator) * 0.05
        ours = F.elastic(image, displacement, "bilinear", fill)
        counter.check(ours, tv_functional.elastic(image, displacement, bilinear, fill), "elastic")
    if fixed:
        assert counter.off > 0, "the fixed blend gave torchvision's bits everywhere: does mode 2 reach the kernel?"
