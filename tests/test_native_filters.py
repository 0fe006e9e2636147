"""The native blur (jitvision_native::gaussian_blur: csrc/blur_u8.cpp's fixed-point filter on uint8,
csrc/filters.cpp's SIMD float32 filter on float32) against torchvision, and its vector body against its scalar
tail. Also run under ASan + UBSan (tests/run_sanitized.py)."""

import math

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms.functional as F
from tests.helpers import assert_matches_oracle, make_image


def _fixed_point_reference(image, kernel_size, sigma_x, sigma_y):
    """csrc/blur_u8.cpp's arithmetic in int64 tensor ops, written from its description (not its code): weights in
    double, quantised (vertical pair weights in Q16 and the centre in Q15; horizontal taps in Q15; the centre takes
    the residual of 1, capped below 1); vertical pass on p << 6 with vpmulhrsw's rounding per mirrored pair into a
    Q7 row; exact horizontal sums, (sum + 2^21) >> 22, clamped. image [P, H, W] uint8, one sigma pair."""

    def weights(k, sigma):
        step = 1.0 / math.sqrt(2.0)  # the spacing of x over [-(k - 1) / (2 sqrt 2), (k - 1) / (2 sqrt 2)]
        e = [math.exp(-(((i - k // 2) * step / sigma) ** 2)) for i in range(k)]
        return [v / sum(e) for v in e]

    def reflect(n, pad):
        index = torch.arange(-pad, n + pad).abs()
        return torch.where(index >= n, 2 * (n - 1) - index, index)

    kx, ky = kernel_size
    cx, cy = kx // 2, ky // 2
    wy, wx = weights(ky, sigma_y), weights(kx, sigma_x)
    pair_y = [round(w * 65536) for w in wy[:cy]]
    taps_x = [round(w * 32768) for w in wx]
    taps_x[cx] = 32768 - 2 * sum(taps_x[:cx])
    height, width = image.shape[-2:]
    rows = (image.long() << 6)[:, reflect(height, cy), :]

    def mulhrs(a, b):
        return (a * b + (1 << 14)) >> 15

    if sum(pair_y) == 0:  # a centre weight of exactly 1 (ky == 1 or a tiny sigma): taken exactly
        mid = 2 * rows[:, cy : cy + height]
    else:
        mid = mulhrs(2 * rows[:, cy : cy + height], 32768 - sum(pair_y))
    for j in range(cy):
        mid = mid + mulhrs(rows[:, j : j + height] + rows[:, ky - 1 - j : ky - 1 - j + height], pair_y[j])
    mid = mid[:, :, reflect(width, cx)]
    total = sum(mid[:, :, i : i + width] * taps_x[i] for i in range(kx))
    return ((total + (1 << 21)) >> 22).clamp(0, 255).to(torch.uint8)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_native_blur_matches_torchvision_on_random_shapes(dtype):
    # the SIMD filter (16 columns a step, a scalar tail) against torchvision: widths around the vector step,
    # non-square kernels, sigma_x != sigma_y, channels-last and strided inputs, per-row sigmas on batches
    generator = torch.Generator().manual_seed(2026)
    op = torch.ops.jitvision_native.gaussian_blur
    flips = elements = 0
    for _ in range(12):
        h, w = torch.randint(2, 70, (2,), generator=generator).tolist()
        kx = 2 * int(torch.randint(0, min(w, 12), (), generator=generator)) + 1
        ky = 2 * int(torch.randint(0, min(h, 12), (), generator=generator)) + 1
        kx, ky = min(kx, 2 * w - 1), min(ky, 2 * h - 1)  # kernel_size // 2 < the size
        sigmas = (torch.rand(2, 2, generator=generator, dtype=torch.float64) * 4 + 0.05).tolist()
        batch = make_image(h, w + 1, dtype, batch=(2,))[..., 1:]  # a strided view
        for image in (batch, batch.contiguous(memory_format=torch.channels_last)):
            theirs = torch.stack(
                [tv_functional.gaussian_blur(image[i], [kx, ky], sigmas[i]) for i in range(2)]
            )
            per_row = op(image, [kx, ky], torch.tensor([s[0] for s in sigmas], dtype=torch.float64),
                         torch.tensor([s[1] for s in sigmas], dtype=torch.float64))
            if dtype == torch.uint8:
                # bit for bit the fixed-point arithmetic; against torchvision within a level, the off-by-one
                # fraction counted over all the cases (one flip in a 2x3 image is 17% of it)
                for i in range(2):
                    assert torch.equal(per_row[i], _fixed_point_reference(image[i], [kx, ky], *sigmas[i]))
                diff = (per_row.long() - theirs.long()).abs()
                assert diff.max() <= 1
                flips, elements = flips + int((diff > 0).sum()), elements + diff.numel()
            else:
                assert_matches_oracle(per_row, theirs, float_atol=1e-5)
            # The functional on one image is the same computation as the op's row 0, bit for bit. (Compared with
            # torchvision alone, one rounding flip in a tiny image exceeds the oracle's 1%: under ASan's allocator
            # torchvision's conv2d result moved by a last bit while our op's bits stayed the same.)
            assert torch.equal(F.gaussian_blur(image[0], [kx, ky], sigmas[0]), per_row[0])
    assert flips <= 0.01 * elements


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_native_blur_vector_and_scalar_columns_agree(dtype):
    # a column's value depends on its neighbourhood only: the same columns blurred from shifted crops (so computed
    # by the vector loop in one and by the scalar tail in another) are bit-identical away from the borders
    image = make_image(20, 90, dtype)
    sigma = torch.tensor(1.7, dtype=torch.float64)
    op = torch.ops.jitvision_native.gaussian_blur
    full = op(image, [7, 5], sigma, sigma)
    for start in range(1, 9):
        for width in (19, 24, 33, 40, 47, 70):
            part = op(image[..., start : start + width].contiguous(), [7, 5], sigma, sigma)
            assert torch.equal(part[..., 3:-3], full[..., start + 3 : start + width - 3])


def _off_by_one(ours, theirs):
    diff = (ours.long() - theirs.long()).abs()
    return int(diff.max()), float((diff > 0).float().mean())


def test_fixed_point_blur_stays_within_the_parity_rule_on_random_images():
    # The uint8 filter is fixed point (csrc/blur_u8.cpp: a Q7 intermediate and rounded 16-bit vertical products):
    # a level off torchvision on ~0.1-0.7% of pixels. Uniform noise is the worst case (the fractional parts of the
    # sums are spread evenly, so every rounding error can flip a result); kernel sizes 3..31, random sigmas.
    generator = torch.Generator().manual_seed(7)
    op = torch.ops.jitvision_native.gaussian_blur
    worst = 0.0
    for _ in range(14):
        h, w = torch.randint(40, 90, (2,), generator=generator).tolist()
        kx, ky = (2 * torch.randint(1, 16, (2,), generator=generator) + 1).tolist()
        sx, sy = (torch.rand(2, generator=generator, dtype=torch.float64) * 8 + 0.1).tolist()
        image = torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=generator)
        ours = op(image, [kx, ky], torch.tensor(sx, dtype=torch.float64), torch.tensor(sy, dtype=torch.float64))
        assert torch.equal(ours, _fixed_point_reference(image, [kx, ky], sx, sy))
        biggest, fraction = _off_by_one(ours, tv_functional.gaussian_blur(image, [kx, ky], [sx, sy]))
        assert biggest <= 1 and fraction < 0.01, (h, w, kx, ky, sx, sy, biggest, fraction)
        worst = max(worst, fraction)
    assert worst > 0  # the comparison sees the fixed point's rounding (not, say, torchvision against itself)


def test_fixed_point_blur_keeps_constants_and_the_range():
    # the quantised weights sum to exactly 1 per pass: a constant image stays constant (0 and 255 too, no
    # saturation or wrap-around), for any kernel size and sigma, including a centre weight that rounds to 1
    op = torch.ops.jitvision_native.gaussian_blur
    for kx, ky, sigma in ((1, 1, 1.0), (3, 5, 0.05), (7, 3, 1.3), (31, 9, 6.0), (5, 5, 100.0)):
        s = torch.tensor(sigma, dtype=torch.float64)
        for value in (0, 1, 127, 254, 255):
            image = torch.full((2, 40, 37), value, dtype=torch.uint8)
            assert torch.equal(op(image, [kx, ky], s, s), image), (kx, ky, sigma, value)


def test_tensor_fixed_point_path_is_the_native_filter():
    # TorchScript (and devices without the op) run functional._blur.blur_u8_fixed_point: the same integers as the
    # C++ filter, per-row sigmas and identity axes (k = 1, tiny sigma) included, so scripted == eager exactly
    from jitvision.transforms.functional import _blur

    generator = torch.Generator().manual_seed(3)
    op = torch.ops.jitvision_native.gaussian_blur.default
    scripted = torch.jit.script(F.gaussian_blur)
    for _ in range(10):
        h, w = torch.randint(3, 60, (2,), generator=generator).tolist()
        kx = min(2 * int(torch.randint(0, min(w, 16), (), generator=generator)) + 1, 2 * w - 1)
        ky = min(2 * int(torch.randint(0, min(h, 16), (), generator=generator)) + 1, 2 * h - 1)
        sigmas = torch.rand(2, generator=generator, dtype=torch.float64) * 5 + 0.05
        sigmas[0] = 0.05 if kx == 3 else sigmas[0]  # an identity axis now and then
        image = torch.randint(0, 256, (2, 3, h, w), dtype=torch.uint8, generator=generator)
        expected = op(image, [kx, ky], sigmas, sigmas.flip(0))
        assert torch.equal(_blur.blur_u8_fixed_point(image, [kx, ky], sigmas, sigmas.flip(0)), expected)
        sx, sy = sigmas.tolist()
        single = op(image[0], [kx, ky], sigmas[0], sigmas[0].clone().fill_(sy))
        assert torch.equal(scripted(image[0], [kx, ky], [sx, sy]), single)
