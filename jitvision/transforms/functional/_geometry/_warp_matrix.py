"""The matrices of affine and rotate: the affine matrix from angle/translate/scale/shear (as a tensor, with an
optional leading batch dimension ``G``, and as Python floats), and the output size of an expanded rotation.

Conventions (torchvision's, checked against it in tests): the affine map is
``M = T * C * R(angle) * Shear * Scale * C^-1`` (translation T, center C); images sample with the inverse of ``M``
in coordinates centred on the image (pixel centres at ``i - (n - 1) / 2``), boxes and keypoints move with ``M``
itself in absolute coordinates.
"""

import math
from typing import List, Optional

import torch

from .._dispatch import is_tracing

# ---- matrices ----------------------------------------------------------------------------------------------


def affine_matrix(
    angle: torch.Tensor,
    translate: torch.Tensor,
    scale: torch.Tensor,
    shear: torch.Tensor,
    center: torch.Tensor,
    inverted: bool,
) -> torch.Tensor:
    """The ``[..., 2, 3]`` affine matrix (float64) of a rotation by ``angle`` degrees (clockwise on the screen
    for positive angles, as torchvision's ``affine``; ``rotate`` passes ``-angle``), a shear by
    ``shear = [..., (sx, sy)]`` degrees, a scale and a translation, about ``center = [..., (cx, cy)]``.
    ``angle`` and ``scale`` are ``[...]``, the others ``[..., 2]``; ``inverted`` gives ``M^-1`` instead."""
    angle, scale = angle.double(), scale.double()
    translate, shear, center = translate.double(), shear.double(), center.double()
    rot = torch.deg2rad(angle)
    shear_x, shear_y = torch.deg2rad(shear[..., 0]), torch.deg2rad(shear[..., 1])
    cx, cy = center[..., 0], center[..., 1]
    tx, ty = translate[..., 0], translate[..., 1]
    # R(rot) * ShearY(sy) * ShearX(sx) (unit determinant), entries row by row.
    a = torch.cos(rot - shear_y) / torch.cos(shear_y)
    b = -(a * torch.tan(shear_x) + torch.sin(rot))
    c = torch.sin(rot - shear_y) / torch.cos(shear_y)
    d = torch.cos(rot) - c * torch.tan(shear_x)
    if inverted:
        m00, m01, m10, m11 = d / scale, -b / scale, -c / scale, a / scale
        # C * RSS^-1 * C^-1 * T^-1: x -> RSS^-1 (x - c - t) + c
        m02 = cx - m00 * (cx + tx) - m01 * (cy + ty)
        m12 = cy - m10 * (cx + tx) - m11 * (cy + ty)
    else:
        m00, m01, m10, m11 = a * scale, b * scale, c * scale, d * scale
        # T * C * RSS * C^-1: x -> RSS (x - c) + c + t
        m02 = cx + tx - m00 * cx - m01 * cy
        m12 = cy + ty - m10 * cx - m11 * cy
    rows = [torch.stack([m00, m01, m02], dim=-1), torch.stack([m10, m11, m12], dim=-1)]
    return torch.stack(rows, dim=-2)


def exact_float64(values: List[float], device: torch.device) -> torch.Tensor:
    """``values`` as a float64 ``[len(values)]`` tensor, exactly in TorchScript too: there ``torch.tensor(python
    floats, dtype=torch.float64)`` builds a float32 tensor first (1.1 becomes 1.100000023841858), which moved the
    scripted matrices ~4e-7 away from eager's (the hard clamp of rotated boxes amplified it to 1e-3)."""
    if torch.jit.is_scripting():
        return torch.stack([torch.scalar_tensor(v, dtype=torch.float64, device=device) for v in values])
    return torch.tensor(values, dtype=torch.float64, device=device)


def scalar_affine_matrix(
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: List[float],
    inverted: bool,
    device: torch.device,
) -> torch.Tensor:
    """``affine_matrix`` of Python numbers, ``[2, 3]`` float64 (the same bits in eager and TorchScript)."""
    return affine_matrix(
        exact_float64([angle], device)[0],
        exact_float64(translate, device),
        exact_float64([scale], device)[0],
        exact_float64(shear, device),
        exact_float64(center, device),
        inverted,
    )


# Degrees to radians: the constant torch.deg2rad multiplies by (M_PI / 180), so both matrix forms agree.
_DEG = math.pi / 180.0


def affine_matrix_values(
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: List[float],
    inverted: bool,
) -> List[float]:
    """``affine_matrix`` of Python numbers as 6 floats (row by row): the same formulas in float64, without a
    tensor op (the eager image path: a few float operations instead of dozens of small tensor ops). ``math``'s
    cos/sin/tan may differ from torch's in the last float64 bit, far below the float32 the warp uses."""
    rot = angle * _DEG
    shear_x, shear_y = shear[0] * _DEG, shear[1] * _DEG
    cx, cy = center[0], center[1]
    tx, ty = translate[0], translate[1]
    a = math.cos(rot - shear_y) / math.cos(shear_y)
    b = -(a * math.tan(shear_x) + math.sin(rot))
    c = math.sin(rot - shear_y) / math.cos(shear_y)
    d = math.cos(rot) - c * math.tan(shear_x)
    if inverted:
        m00, m01, m10, m11 = d / scale, -b / scale, -c / scale, a / scale
        m02 = cx - m00 * (cx + tx) - m01 * (cy + ty)
        m12 = cy - m10 * (cx + tx) - m11 * (cy + ty)
    else:
        m00, m01, m10, m11 = a * scale, b * scale, c * scale, d * scale
        m02 = cx + tx - m00 * cx - m01 * cy
        m12 = cy + ty - m10 * cx - m11 * cy
    return [m00, m01, m02, m10, m11, m12]


@torch.jit.unused
def eager_values(tensors: List[torch.Tensor]) -> Optional[List[float]]:
    """The values of one sample's drawn parameters (0-d or 1-d CPU tensors, in order, flattened) as Python floats,
    or None where they must stay tensors: under torch.compile/export (``is_tracing``), for a batch of draws
    (``tensors[0]`` not 0-d) or off the CPU (a device sync). The one place the random warps' image path picks
    the eager form (host numbers, ``affine_matrix_values``) over the traced one (tensor matrices)."""
    if is_tracing() or tensors[0].ndim != 0:
        return None
    values: List[float] = []
    for t in tensors:
        if t.device.type != "cpu":
            return None
        values.extend(t.reshape(-1).tolist())
    return values


def corners_canvas_float32(matrix: List[float], width: int, height: int) -> List[int]:
    """[width, height] of the bounding box of the ``width`` x ``height`` canvas's four corners (centred coordinates)
    moved by the 2x3 ``matrix``, in float32 as torchvision computes it: a matmul, each bound truncated to a multiple
    of 1e-4 (x * (1 / 1e-4), trunc, * 1e-4: one float32 rounding each), then ceil/floor."""
    half_w, half_h = 0.5 * width, 0.5 * height
    corners = torch.tensor(
        [[-half_w, -half_h, 1.0], [-half_w, half_h, 1.0], [half_w, half_h, 1.0], [half_w, -half_h, 1.0]],
        dtype=torch.float32,
    )
    moved = torch.matmul(corners, torch.tensor(matrix, dtype=torch.float32).reshape(2, 3).t())
    low, high = torch.aminmax(moved, dim=0)
    halves = torch.tensor([half_w, half_h], dtype=torch.float32)
    high = (high + halves).mul_(1.0 / 1e-4).trunc_().mul_(1e-4).ceil_()
    low = (low + halves).mul_(1.0 / 1e-4).trunc_().mul_(1e-4).floor_()
    size = high - low
    return [int(size[0]), int(size[1])]


def expanded_size(inverse: List[float], width: int, height: int) -> List[int]:
    """[width, height] of the canvas that holds an image warped by the inverse matrix ``inverse`` (6 numbers,
    centred coordinates): the bounding box of the four corners, computed as torchvision computes it: in float32
    (the matrix rounded to float32, the corners by a matmul), each bound truncated to a multiple of 1e-4 before the
    ceil/floor. The float32 rounding matters: a 180-degree turn about an off-centre point put a corner at
    1.9999999999999998 in doubles (floor 1, one row too many) where float32 has 2.0.

    Under torch.compile/export (``is_tracing``) the size must come from Python numbers (a tensor read back would be
    data-dependent), so the same steps run on Python floats rounded to float32 after each operation; torchvision's
    matmul may round its sums in another order, so a corner within a float32 ulp of a multiple of 1e-4 could land
    differently there (none of the sizes checked in tests/transforms/test_functional_edge_cases.py did)."""
    half_w, half_h = 0.5 * width, 0.5 * height
    if torch.jit.is_scripting() or not is_tracing():
        return corners_canvas_float32(inverse, width, height)
    m = [_float32(v) for v in inverse]
    xs: List[float] = []
    ys: List[float] = []
    for x, y in [(-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h)]:
        xs.append(_float32(_float32(_float32(_float32(m[0] * x) + _float32(m[1] * y)) + m[2]) + half_w))
        ys.append(_float32(_float32(_float32(_float32(m[3] * x) + _float32(m[4] * y)) + m[5]) + half_h))
    new_w = math.ceil(_truncated_float32(max(xs))) - math.floor(_truncated_float32(min(xs)))
    new_h = math.ceil(_truncated_float32(max(ys))) - math.floor(_truncated_float32(min(ys)))
    return [int(new_w), int(new_h)]


def _float32(value: float) -> float:
    """``value`` rounded to the nearest float32 (ties to even), as a Python float (normal range: these are canvas
    coordinates)."""
    if value == 0.0 or not math.isfinite(value):
        return value
    exponent = math.floor(math.log2(abs(value)))
    scale = 2.0 ** (23 - exponent)  # a float32 significand has 24 bits: 2**23 steps within [2**e, 2**(e + 1))
    return float(round(value * scale)) / scale


def _truncated_float32(value: float) -> float:
    """torchvision's ``x * (1 / 1e-4)``, ``trunc``, ``* 1e-4`` on a float32 ``value``, in float32."""
    return _float32(float(math.trunc(_float32(value * _float32(1.0 / 1e-4)))) * _float32(1e-4))


def centred_center(center: Optional[List[float]], height: int, width: int) -> List[float]:
    """``center`` (absolute pixel coordinates, or None for the image centre) relative to the image centre, as the
    affine matrices take it."""
    if center is None:
        return [0.0, 0.0]
    return [center[0] - 0.5 * width, center[1] - 0.5 * height]
