"""Edge cases where a differential comparison of every shared functional against torchvision 0.29.1 found us
wrong: degenerate sizes, int64 and float16 arithmetic, expand sizes, value shapes, and the errors bad arguments
must raise (TypeError/ValueError naming the op)."""

import math

import pytest
import torch
import torchvision.transforms.v2.functional as tv_functional

import jitvision.transforms.functional as F
from jitvision import tv_tensors
from tests.helpers import assert_matches_oracle, assert_one_graph, to_torchvision


def _both(name: str, *args, **kwargs):
    ours = getattr(F, name)(*args, **kwargs)
    theirs = getattr(tv_functional, name)(*to_torchvision(args), **kwargs)
    return ours, theirs


# ---- elastic on a side of one pixel ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1, 26), (3, 7, 1), (2, 1, 1)])
@pytest.mark.parametrize("scripted", [False, True])
def test_elastic_image_with_a_one_pixel_side_is_the_identity_for_a_zero_field(shape, scripted):
    image = torch.randint(0, 256, shape, dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    displacement = torch.zeros(1, shape[-2], shape[-1], 2)
    kernel = torch.jit.script(F.elastic_image) if scripted else F.elastic_image
    out = kernel(image, displacement)
    torch.testing.assert_close(out, tv_functional.elastic_image(image, displacement))
    torch.testing.assert_close(out, image)


@pytest.mark.parametrize("canvas_size", [(20, 1), (1, 20), (1, 1)])
def test_elastic_keypoints_on_a_one_pixel_canvas_stay_finite(canvas_size):
    points = torch.tensor([[0.5, 0.25]]) * torch.tensor([canvas_size[1], canvas_size[0]])
    displacement = torch.zeros(1, canvas_size[0], canvas_size[1], 2)
    ours = F.elastic_keypoints(points, canvas_size, displacement)
    theirs = tv_functional.elastic_keypoints(points, canvas_size=canvas_size, displacement=displacement)
    assert torch.isfinite(ours).all()
    torch.testing.assert_close(ours, theirs)


# ---- int64 images: the maximum never goes through a float ------------------------------------------------------

_INT64 = torch.tensor([[[0, 1, 255, 1000, 2**62 + 12345, 2**63 - 1]]], dtype=torch.int64)


@pytest.mark.parametrize("scripted", [False, True])
def test_invert_int64_is_max_minus_x(scripted):
    invert = torch.jit.script(F.invert) if scripted else F.invert
    out = invert(_INT64)
    torch.testing.assert_close(out, tv_functional.invert(_INT64))
    torch.testing.assert_close(out, (2**63 - 1) - _INT64)


@pytest.mark.parametrize("bits", [0, 1, 3, 8])
def test_posterize_int64_matches_torchvision(bits):
    torch.testing.assert_close(*_both("posterize", _INT64, bits))


@pytest.mark.parametrize("threshold", [3.0, 2.0**62, 9.2e18])
def test_solarize_int64_matches_torchvision(threshold):
    torch.testing.assert_close(*_both("solarize", _INT64, threshold))


def test_solarize_int64_refuses_a_threshold_of_2_to_the_63():
    with pytest.raises(TypeError, match="Threshold should be less or equal the maximum value of the dtype"):
        tv_functional.solarize(_INT64, float(2**63))
    with pytest.raises(TypeError, match="solarize: Threshold should be less or equal the maximum value of the dtype"):
        F.solarize(_INT64, float(2**63))


# ---- solarize thresholds outside the range ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.float32])
@pytest.mark.parametrize("threshold", [-math.inf, math.nan, -3.0])
def test_solarize_with_minus_infinity_or_nan_matches_torchvision(dtype, threshold):
    image = torch.arange(0, 48).reshape(3, 4, 4).to(dtype)
    if dtype.is_floating_point:
        image = image / 47
    torch.testing.assert_close(*_both("solarize", image, threshold))


def test_random_solarize_with_a_nan_threshold_changes_nothing():
    from jitvision.transforms import RandomSolarize

    image = torch.arange(0, 48, dtype=torch.uint8).reshape(3, 4, 4)
    torch.testing.assert_close(RandomSolarize(math.nan, p=1.0)(image), image)


def test_solarize_with_plus_infinity_is_a_type_error_naming_solarize():
    with pytest.raises(TypeError, match="solarize: Threshold"):
        F.solarize(torch.zeros(3, 4, 4, dtype=torch.uint8), math.inf)


# ---- rotate with expand: the canvas size ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, angle, center",
    [((4, 9), 180.0, [5, 3]), ((4, 9), 180.0, [5.0, 3.0]), ((7, 5), 90.0, [1, 2]), ((6, 11), -270.0, [0, 0])],
)
def test_rotate_expand_about_a_point_gives_torchvision_s_size(size, angle, center):
    mask = tv_tensors.Mask(torch.rand(size))
    ours, theirs = _both("rotate", mask, angle, expand=True, center=center)
    assert ours.shape == theirs.shape
    image = torch.rand(1, *size)
    assert F.rotate(image, angle, expand=True, center=center).shape == theirs.unsqueeze(0).shape
    scripted = torch.jit.script(F.rotate_image)
    assert scripted(image, angle, "nearest", True, [float(c) for c in center]).shape == (1, *theirs.shape)
    compiled = assert_one_graph(lambda x: F.rotate_image(x, angle, expand=True, center=center), image)
    assert compiled.shape == (1, *theirs.shape)


def test_expanded_sizes_match_torchvision_on_random_rotations():
    # The eager (float32 tensors) and traced (Python floats rounded to float32) computations of the size, against
    # torchvision's on random sizes, angles and centres (quarter turns about off-centre points included).
    from torchvision.transforms.v2.functional._geometry import (
        _compute_affine_output_size_tensor,
        _get_inverse_affine_matrix,
    )

    from jitvision.transforms.functional._geometry import _rotate, _warp_matrix

    g = torch.Generator().manual_seed(0)
    for _ in range(400):
        height, width = (int(v) for v in torch.randint(1, 60, (2,), generator=g))
        angle = float(torch.tensor([90.0, 180.0, 270.0, 45.0])[torch.randint(4, (), generator=g)])
        if torch.rand((), generator=g) < 0.5:
            angle = float(torch.rand((), generator=g) * 720 - 360)
        center = [float(v) for v in torch.randint(0, 60, (2,), generator=g) + 0.5 * torch.randint(2, (2,), generator=g)]
        centred = [center[0] - 0.5 * width, center[1] - 0.5 * height]
        expected = _compute_affine_output_size_tensor(
            _get_inverse_affine_matrix(centred, -angle, [0.0, 0.0], 1.0, [0.0, 0.0]), width, height
        )
        inverse = _rotate.rotation_inverse_list(angle, centred)
        assert tuple(_warp_matrix.expanded_size(inverse, width, height)) == expected
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_warp_matrix, "is_tracing", lambda: True)
            assert tuple(_warp_matrix.expanded_size(inverse, width, height)) == expected


# ---- float16 boxes moved as torchvision's matmul computes them -------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("format", ["XYXYXYXY", "CXCYWHR", "XYWHR", "XYXY"])
@pytest.mark.parametrize("expand", [False, True])
def test_half_precision_boxes_rotate_as_in_torchvision(dtype, format, expand):
    g = torch.Generator().manual_seed(0)
    canvas_size = (400, 2000)
    for _ in range(20):
        r = torch.rand(6, generator=g)
        x, y = 1500 + 400 * r[0], 300 * r[1]
        data = {
            "XYXY": [x, y, x + 60 * r[2], y + 50 * r[3]],
            "XYXYXYXY": [x, y, x + 60, y, x + 60, y + 40 * r[2], x, y + 40 * r[2]],
            "CXCYWHR": [x, y, 60 * r[2], 50 * r[3], 180 * r[4] - 90],
            "XYWHR": [x, y, 60 * r[2], 50 * r[3], 180 * r[4] - 90],
        }[format]
        boxes = tv_tensors.BoundingBoxes(torch.tensor([data]).to(dtype), format=format, canvas_size=canvas_size)
        angle = float(r[5] * 360 - 180)
        center = [1482.09, 0.7]
        ours, theirs = _both("rotate", boxes, angle, expand=expand, center=center)
        assert_matches_oracle(ours, theirs, float_atol=0.0)


# ---- gaussian_noise on float16 with a huge sigma ---------------------------------------------------------------


def test_gaussian_noise_float16_keeps_the_draws_that_fit():
    image = torch.zeros(3, 40, 40, dtype=torch.float16)
    torch.manual_seed(0)
    ours = F.gaussian_noise(image, sigma=1e6, clip=False)
    torch.manual_seed(0)
    theirs = tv_functional.gaussian_noise(image, sigma=1e6, clip=False)
    assert int(torch.isfinite(ours).sum()) > 0
    torch.testing.assert_close(ours, theirs, equal_nan=True)


@pytest.mark.parametrize("kwargs", [{"mean": "0"}, {"sigma": "0.1"}, {"mean": None}])
def test_gaussian_noise_refuses_arguments_that_are_not_numbers(kwargs):
    with pytest.raises(TypeError, match="gaussian_noise: (mean|sigma) must be a number"):
        F.gaussian_noise(torch.zeros(3, 4, 4), **kwargs)


# ---- erase: the value against the clipped region, Python numbers ------------------------------------------------


@pytest.mark.parametrize(
    "i, j, h, w, value_shape",
    [(12, 0, 15, 1, (3, 8, 1)), (0, 18, 4, 10, (1, 4, 2)), (-3, 0, 2, 20, (2, 20)), (5, 5, 0, 3, (3, 0, 3))],
)
def test_erase_checks_the_value_against_the_region_as_slicing_clips_it(i, j, h, w, value_shape):
    image = torch.zeros(3, 20, 20)
    value = torch.ones(value_shape)
    torch.testing.assert_close(*_both("erase", image, i, j, h, w, value))


@pytest.mark.parametrize("value", [0.5, 7, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.uint8])
def test_erase_takes_a_python_number_as_torchvision_does(value, dtype):
    image = torch.zeros(3, 6, 6, dtype=dtype)
    torch.testing.assert_close(*_both("erase", image, 1, 2, 3, 2, value))


def test_erase_refuses_a_value_that_is_neither_a_tensor_nor_a_number():
    with pytest.raises(TypeError, match="erase: v must be a tensor or a number"):
        F.erase(torch.zeros(3, 6, 6), 1, 2, 3, 2, "0")


def test_erase_with_a_value_that_does_not_fit_the_clipped_region_is_a_value_error():
    with pytest.raises(ValueError, match="erase: the value of shape"):
        F.erase(torch.zeros(3, 20, 20), 12, 0, 15, 1, torch.ones(3, 9, 1))


# ---- permute_channels with negative indices --------------------------------------------------------------------


@pytest.mark.parametrize("permutation", [[-1, 0, 1], [2, -2, -3], [-1, -1, -1]])
@pytest.mark.parametrize("kind", ["tensor", "image", "pil", "scripted"])
def test_permute_channels_takes_negative_indices_as_torchvision(permutation, kind):
    image = torch.arange(3 * 2 * 2, dtype=torch.uint8).reshape(3, 2, 2)
    expected = tv_functional.permute_channels(image, permutation)
    if kind == "image":
        image = tv_tensors.Image(image)
    if kind == "pil":
        pil = F.to_pil_image(image)
        out = F.pil_to_tensor(F.permute_channels(pil, permutation))
    elif kind == "scripted":
        out = torch.jit.script(F.permute_channels)(image, permutation)
    else:
        out = F.permute_channels(image, permutation)
    torch.testing.assert_close(out.as_subclass(torch.Tensor), expected)


@pytest.mark.parametrize("permutation", [[3, 0, 1], [-4, 0, 1]])
def test_permute_channels_index_out_of_range_is_a_value_error(permutation):
    with pytest.raises(ValueError, match="permute_channels: channel index"):
        F.permute_channels(torch.zeros(3, 2, 2, dtype=torch.uint8), permutation)


# ---- adjust_* factors: NaN and infinity alike ------------------------------------------------------------------


@pytest.mark.parametrize("op", ["adjust_contrast", "adjust_brightness", "adjust_saturation", "adjust_sharpness"])
@pytest.mark.parametrize(
    ("factor", "text"),
    [(math.inf, "must be a finite number >= 0"), (math.nan, "must be a finite number >= 0"),
     (-1.0, "is not non-negative")],  # a negative factor in torchvision's words
)
def test_non_finite_or_negative_factors_are_value_errors_naming_the_op(op, factor, text):
    with pytest.raises(ValueError, match=f"{op}: .*{text}"):
        getattr(F, op)(torch.zeros(3, 4, 4, dtype=torch.uint8), factor)
