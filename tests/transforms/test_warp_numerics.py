"""Numerics of the warp helpers (functional/_geometry/_warp.py): exact float64 parameters in TorchScript, the 1e-4
truncation of the expanded canvas, and half-precision warps against torchvision."""

import random

import pytest
import torch
import torchvision.transforms.v2.functional as TF

import jitvision.transforms.functional as F
from jitvision.transforms.functional._geometry._warp_matrix import expanded_size, scalar_affine_matrix


def _awkward(rng: random.Random, low: float, high: float) -> float:
    """A float with many float64 digits (1.1-like: not exact in float32), where the float32 detour shows."""
    return round(rng.uniform(low, high), 3) + 0.1


@pytest.mark.parametrize("seed", range(3))
def test_scripted_affine_matrix_equals_eager_bit_for_bit(seed):
    rng = random.Random(seed)
    args = (
        _awkward(rng, -90, 90),
        [_awkward(rng, -5, 5), _awkward(rng, -5, 5)],
        _awkward(rng, 0.5, 1.5),
        [_awkward(rng, -20, 20), _awkward(rng, -20, 20)],
        [_awkward(rng, 0, 30), _awkward(rng, 0, 30)],
    )
    scripted = torch.jit.script(scalar_affine_matrix)
    for inverted in (True, False):
        eager = scalar_affine_matrix(*args, inverted, torch.device("cpu"))
        assert torch.equal(scripted(*args, inverted, torch.device("cpu")), eager)
    # The scripted image path (tensor matrix) equals the eager one on float64 images, where float32 rounding of the
    # parameters would show.
    image = torch.rand(2, 3, 19, 23, dtype=torch.float64)
    angle, translate, scale, shear, _ = args
    scripted_affine = torch.jit.script(F.affine_image)
    expected = F.affine_image(image, angle, translate, scale, shear, "bilinear", None, None)
    assert torch.equal(scripted_affine(image, angle, translate, scale, shear, "bilinear", None, None), expected)


@pytest.mark.parametrize("seed", range(3))
def test_scripted_perspective_coefficients_equal_eager_bit_for_bit(seed):
    rng = random.Random(seed)
    coefficients = [
        _awkward(rng, 0.8, 1.2),
        _awkward(rng, -0.2, 0.2),
        _awkward(rng, -3, 3),
        _awkward(rng, -0.2, 0.2),
        _awkward(rng, 0.8, 1.2),
        _awkward(rng, -3, 3),
        _awkward(rng, -0.01, 0.01) / 100,
        _awkward(rng, -0.01, 0.01) / 100,
    ]
    image = torch.rand(3, 17, 21, dtype=torch.float64)
    scripted = torch.jit.script(F.perspective_image)
    expected = F.perspective_image(image, None, None, "bilinear", None, coefficients)
    assert torch.equal(scripted(image, None, None, "bilinear", None, coefficients), expected)


@pytest.mark.parametrize("angle", [0.0, 90.0, -90.0, 180.0, 30.0, 45.0, 12.5, -77.3])
def test_expanded_size_matches_torchvision(angle):
    for height, width in [(17, 17), (13, 29), (32, 40)]:
        image = torch.zeros(1, height, width)
        expected = list(TF.rotate(image, angle, expand=True).shape[-2:])
        assert list(F.rotate(image, angle, expand=True).shape[-2:]) == expected
        # the identity's canvas is the image itself
        assert expanded_size([1.0, 0.0, 0.0, 0.0, 1.0, 0.0], width, height) == [width, height]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("seed", range(4))
def test_half_precision_warps_match_torchvision(dtype, seed):
    # torchvision builds half-precision grids in the image's dtype; a grid an ulp away picks another neighbour
    # (nearest: values up to 1 apart) or weight, so equality here means the same grid.
    rng = random.Random(seed)
    height, width = rng.randint(100, 160), rng.randint(100, 160)  # past bfloat16's exact 128-pixel linspace
    image = torch.rand(2, 3, height, width).to(dtype)
    mode = rng.choice(["nearest", "bilinear"])
    fill = rng.choice([None, 0.5])
    affine = dict(angle=rng.uniform(-180, 180), translate=[rng.uniform(-5, 5), rng.uniform(-5, 5)],
                  scale=rng.uniform(0.7, 1.3), shear=[rng.uniform(-20, 20), rng.uniform(-20, 20)])
    torch.testing.assert_close(F.affine(image, **affine, interpolation=mode, fill=fill),
                               TF.affine(image, **affine, interpolation=mode, fill=fill), rtol=0, atol=0)
    angle, expand = rng.uniform(-180, 180), rng.random() < 0.5
    torch.testing.assert_close(F.rotate(image, angle, mode, expand, fill=fill),
                               TF.rotate(image, angle, mode, expand, fill=fill), rtol=0, atol=0)
    start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
    end = [[x + rng.randint(-6, 6), y + rng.randint(-6, 6)] for x, y in start]
    torch.testing.assert_close(F.perspective(image, start, end, mode, fill),
                               TF.perspective(image, start, end, mode, fill), rtol=0, atol=0)
    displacement = (torch.rand(1, height, width, 2) - 0.5) * 0.1
    torch.testing.assert_close(F.elastic(image, displacement, mode, fill),
                               TF.elastic(image, displacement, mode, fill), rtol=0, atol=0)
