"""The SIMD blur of csrc/filters.cpp (jitvision_native::gaussian_blur on uint8 and float32) against torchvision, and
its vector body against its scalar tail. Also run under ASan + UBSan (tests/run_sanitized.py)."""

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms.functional as F
from tests.helpers import assert_matches_oracle, make_image


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_native_blur_matches_torchvision_on_random_shapes(dtype):
    # the SIMD filter (16 columns a step, a scalar tail) against torchvision: widths around the vector step,
    # non-square kernels, sigma_x != sigma_y, channels-last and strided inputs, per-row sigmas on batches
    generator = torch.Generator().manual_seed(2026)
    op = torch.ops.jitvision_native.gaussian_blur
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
            assert_matches_oracle(per_row, theirs, float_atol=1e-5)
            # The functional on one image is the same computation as the op's row 0, bit for bit. (Compared with
            # torchvision alone, one rounding flip in a tiny image exceeds the oracle's 1%: under ASan's allocator
            # torchvision's conv2d result moved by a last bit while our op's bits stayed the same; CI, stop 8.)
            assert torch.equal(F.gaussian_blur(image[0], [kx, ky], sigmas[0]), per_row[0])


def test_native_blur_vector_and_scalar_columns_agree():
    # a column's value depends on its neighbourhood only: the same columns blurred from shifted crops (so computed
    # by the vector loop in one and by the scalar tail in another) are bit-identical away from the borders
    image = make_image(20, 70, torch.float32)
    sigma = torch.tensor(1.7, dtype=torch.float64)
    op = torch.ops.jitvision_native.gaussian_blur
    full = op(image, [7, 5], sigma, sigma)
    for start in range(1, 9):
        for width in (19, 24, 33, 40):
            part = op(image[..., start : start + width].contiguous(), [7, 5], sigma, sigma)
            assert torch.equal(part[..., 3:-3], full[..., start + 3 : start + width - 3])
