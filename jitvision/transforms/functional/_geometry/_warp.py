"""What affine, rotate, perspective and elastic share: argument parsing, the sampling grids, and grid sampling with
torchvision's ``fill`` semantics (the matrices are ``_warp_matrix``'s).

Every grid is a tensor, with an optional leading batch dimension ``G``: one matrix per sample, so a random
transform's parameters stay tensors under torch.compile and a batch of samples is one grid_sample call.

Conventions (torchvision's, checked against it in tests): sampling is
``grid_sample(..., padding_mode="zeros", align_corners=False)``. With ``fill`` not None a second sample of a
constant-one plane gives the in-bounds weight ``m`` and pixels become ``(v - fill) * m + fill`` (bilinear) or
``fill`` where ``m < 0.5`` (nearest): so ``fill=0`` darkens edge pixels where ``fill=None`` does not, as in
torchvision. Integer images are sampled in float32 and rounded back.
"""

import math
from typing import List, Optional, Union

import torch
from torch.nn.functional import grid_sample

from .... import _native
from .._dispatch import is_tracing
from ._interpolation import InterpolationMode, check_interpolation

# torchvision's scripted signature for the warps' fill: TorchScript matches a Python tuple or list (of ints or
# floats) to List[float], but never to a member of a Union, so Union[int, float, List[float]] refused the tuple
# fill (0.5, 0.5, 0.5) that torchvision's scripted kernels take. Scripted calls pass None or a sequence, as in
# torchvision; eager calls also take a number (``fill_as_list``).
FillType = Optional[List[float]]


# ---- arguments ---------------------------------------------------------------------------------------------


def fill_as_list(fill: FillType, op: str) -> Optional[List[float]]:
    """``fill`` (None, a number or a sequence of numbers) as None or a list of floats."""
    if fill is None or torch.jit.is_scripting():
        return fill
    return _eager_fill_list(fill, op)


@torch.jit.unused
def _eager_fill_list(fill: object, op: str) -> List[float]:
    if isinstance(fill, (int, float)) and not isinstance(fill, bool):
        return [float(fill)]
    if isinstance(fill, bool) or not isinstance(fill, (list, tuple)):
        raise TypeError(f"{op}: Got inappropriate fill arg: {fill!r} (None, a number or a sequence of numbers)")
    values = []
    for v in fill:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{op}: Got inappropriate fill arg: {fill!r} (None, a number or a sequence of numbers)")
        values.append(float(v))
    if not values:
        raise ValueError(f"{op}: fill must not be an empty sequence")
    return values


def grid_mode(interpolation: Union[str, InterpolationMode, int], op: str, allow_bicubic: bool = False) -> str:
    """The ``grid_sample`` mode for ``interpolation``: NEAREST or BILINEAR (and BICUBIC where torchvision's
    kernel accepts it); ValueError naming ``op`` otherwise."""
    mode = check_interpolation(interpolation, op)
    if mode == InterpolationMode.NEAREST:
        return "nearest"
    if mode == InterpolationMode.BILINEAR:
        return "bilinear"
    if allow_bicubic and mode == InterpolationMode.BICUBIC:
        return "bicubic"
    supported = "NEAREST, BILINEAR or BICUBIC" if allow_bicubic else "NEAREST or BILINEAR"
    raise ValueError(op + ": interpolation " + str(mode.value) + " is not supported on tensors; use " + supported)


def check_finite(value: float, name: str, op: str) -> None:
    # Not under dynamo: with dynamic=True a Python float argument is symbolic (no isfinite, and a check would
    # guard on its value); a non-finite value there gives a NaN warp instead of the error.
    if is_tracing():
        return
    if not math.isfinite(value):
        raise ValueError(op + ": " + name + " must be finite, got " + str(value))


def parse_shear(shear: Union[int, float, List[float]], op: str) -> List[float]:
    """``shear`` (a number: x shear only, or [s] / [sx, sy]) as [sx, sy]."""
    if isinstance(shear, (int, float)):
        return [float(shear), 0.0]
    if not torch.jit.is_scripting():
        shear = _eager_float_list(shear, "shear", op)
    if len(shear) == 1:
        return [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(op + ": shear must be a number or a sequence of one or two numbers, got " + str(shear))
    return [shear[0], shear[1]]


@torch.jit.unused
def _eager_float_list(values: object, name: str, op: str) -> List[float]:
    if not isinstance(values, (list, tuple)) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
    ):
        raise TypeError(f"{op}: {name} must be a sequence of numbers, got {values!r}")
    return [float(v) for v in values]


def parse_pair(values: List[float], name: str, op: str) -> List[float]:
    """A sequence of exactly two finite numbers (translate, center) as a list of floats."""
    if not torch.jit.is_scripting():
        values = _eager_float_list(values, name, op)
    if len(values) != 2:
        raise ValueError(op + ": " + name + " must be a sequence of two numbers, got " + str(values))
    for v in values:
        check_finite(v, name, op)
    return [float(values[0]), float(values[1])]


def check_image_rank(image: torch.Tensor, op: str) -> None:
    """A ValueError naming ``op`` unless ``image`` is ``[..., C, H, W]``."""
    if image.ndim < 3:
        raise ValueError(op + ": expected an image [..., C, H, W] with at least 3 dimensions, got " + str(image.ndim))


def _is_half(dtype: torch.dtype) -> bool:
    return dtype == torch.float16 or dtype == torch.bfloat16


def half_linspace(
    start: float, end: float, steps: int, dtype: torch.dtype, device: torch.device
) -> Optional[torch.Tensor]:
    """``torch.linspace(start, end, steps)`` computed in a float16/bfloat16 ``dtype``, where torchvision builds its
    perspective and elastic grids so (half linspace rounds each step in the dtype, and its CPU kernel vectorises
    part of the range: only the op itself gives those values). None for other dtypes, and under torch.compile/export
    (``is_tracing``), where linspace's float endpoints would specialise a symbolic size under dynamic shapes: the
    caller then builds the exact values, which differ from half linspace's by an ulp in bfloat16 past 128 pixels
    (float16: past 1024), so traced half-precision warps of such sizes may differ from eager's by one grid ulp."""
    if not _is_half(dtype) or is_tracing():
        return None
    return torch.linspace(start, end, steps, dtype=dtype, device=device)


def _rows_by_half(matrix: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """``[G, 2, 3]`` with the x row divided by ``width / 2`` and the y row by ``height / 2`` (scalar divisions:
    a tensor of the sizes would specialise symbolic sizes under dynamic shapes). In float16/bfloat16 the divisors
    are first rounded to that dtype (``ones * size``), as torchvision divides by a tensor of the sizes in it."""
    if _is_half(matrix.dtype):
        one = torch.ones((1,), dtype=matrix.dtype, device=matrix.device)
        return torch.stack([matrix[:, 0] / (one * (0.5 * width)), matrix[:, 1] / (one * (0.5 * height))], dim=1)
    return torch.stack([matrix[:, 0] / (0.5 * width), matrix[:, 1] / (0.5 * height)], dim=1)


# ---- grids -------------------------------------------------------------------------------------------------


def _centred(n: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    return torch.arange(n, dtype=dtype, device=device) - (n - 1) * 0.5


def _homogeneous_pixels(
    out_h: int, out_w: int, offset_x: torch.Tensor, offset_y: torch.Tensor, dtype: torch.dtype
) -> torch.Tensor:
    """``[1, out_h * out_w, 3]``: (x, y, 1) per output pixel, row-major, x and y given per column/row."""
    xs = offset_x.to(dtype).reshape(1, -1).expand(out_h, out_w)
    ys = offset_y.to(dtype).reshape(-1, 1).expand(out_h, out_w)
    ones = torch.ones((out_h, out_w), dtype=dtype, device=offset_x.device)
    return torch.stack([xs, ys, ones], dim=-1).reshape(1, out_h * out_w, 3)


def affine_grid(theta: torch.Tensor, height: int, width: int, out_h: int, out_w: int) -> torch.Tensor:
    """The ``[G, out_h, out_w, 2]`` sampling grid (grid_sample's normalised coordinates, align_corners=False)
    of the inverse matrices ``theta`` ``[G, 2, 3]`` (centred pixel coordinates) from an input of ``height`` x
    ``width``: ``x * s0 + y * s1 + s2`` with ``s = theta^T / (size / 2)``, broadcast over rows and columns (the
    same float32 values as torchvision's batched matmul of homogeneous pixels, at a fraction of its cost)."""
    dtype, device = theta.dtype, theta.device
    scaled = _rows_by_half(theta, height, width).transpose(1, 2)  # [G, 3, 2]
    if _is_half(dtype):
        # float16/bfloat16: the grid as torchvision rounds it, one batched matmul of the homogeneous pixels in the
        # image's dtype (products accumulated in float32, rounded once); per-step rounding of the multiply-adds
        # below moved half-precision source coordinates by an ulp (~0.4 px near pixel 100 in bfloat16).
        xs16 = _centred(out_w, torch.float32, device).to(dtype)
        ys16 = _centred(out_h, torch.float32, device).to(dtype)
        base = _homogeneous_pixels(out_h, out_w, xs16, ys16, dtype).expand(theta.shape[0], out_h * out_w, 3)
        return base.bmm(scaled).reshape(theta.shape[0], out_h, out_w, 2)
    xs = _centred(out_w, dtype, device).reshape(1, 1, -1, 1)
    ys = _centred(out_h, dtype, device).reshape(1, -1, 1, 1)
    groups = theta.shape[0]
    s0, s1, s2 = scaled[:, 0].reshape(groups, 1, 1, 2), scaled[:, 1].reshape(groups, 1, 1, 2), scaled[:, 2]
    return xs * s0 + ys * s1 + s2.reshape(groups, 1, 1, 2)


def perspective_grid(coefficients: torch.Tensor, out_h: int, out_w: int, dtype: torch.dtype) -> torch.Tensor:
    """The ``[G, out_h, out_w, 2]`` grid of perspective coefficients ``[G, 8]`` (output pixel -> input pixel:
    ``x = (c0 X + c1 Y + c2) / (c6 X + c7 Y + 1)``, ``y = (c3 X + c4 Y + c5) / (c6 X + c7 Y + 1)`` on pixel
    corners, X = column + 0.5)."""
    device = coefficients.device
    coeffs = coefficients.to(dtype)
    groups = coeffs.shape[0]
    numerator = coeffs[:, 0:6].reshape(groups, 2, 3)
    ones = torch.ones((groups, 1), dtype=dtype, device=device)
    denominator = torch.cat([coeffs[:, 6:8], ones], dim=1).reshape(groups, 1, 3).expand(groups, 2, 3)
    xs = half_linspace(0.5, out_w - 0.5, out_w, dtype, device)
    ys = half_linspace(0.5, out_h - 0.5, out_h, dtype, device)
    if xs is None or ys is None:
        xs = torch.arange(out_w, dtype=dtype, device=device) + 0.5
        ys = torch.arange(out_h, dtype=dtype, device=device) + 0.5
    base = _homogeneous_pixels(out_h, out_w, xs, ys, dtype).expand(groups, out_h * out_w, 3)
    grid = base.bmm(_rows_by_half(numerator, out_h, out_w).transpose(1, 2)) / base.bmm(denominator.transpose(1, 2))
    grid = grid - 1.0
    return grid.reshape(groups, out_h, out_w, 2)


# ---- sampling ----------------------------------------------------------------------------------------------


def warp_dtype(image: torch.Tensor) -> torch.dtype:
    """The dtype grids and sampling use for ``image``: its own if floating point, float32 otherwise."""
    return image.dtype if image.is_floating_point() else torch.float32


def sample_grid(
    image: torch.Tensor, grid: torch.Tensor, mode: str, fill: Optional[List[float]], op: str
) -> torch.Tensor:
    """``image`` ``[..., C, H, W]`` sampled at ``grid`` ``[G, oh, ow, 2]``: with G == 1 every image shares the
    grid; otherwise the first dimension of ``image`` is the batch of G samples, one grid each.

    All other leading dimensions fold into grid_sample's channels (one index computation per output pixel for
    the whole stack). Integer images are sampled in float32 and rounded (and clamped) back."""
    check_image_rank(image, op)
    channels, height, width = image.shape[-3], image.shape[-2], image.shape[-1]
    if fill is not None and len(fill) > 1 and len(fill) != channels:
        raise ValueError(
            op + ": fill has " + str(len(fill)) + " values but the image has " + str(channels) + " channels"
        )
    groups, out_h, out_w = grid.shape[0], grid.shape[1], grid.shape[2]
    out_shape = list(image.shape[:-2]) + [out_h, out_w]
    if image.numel() == 0:
        return torch.empty(out_shape, dtype=image.dtype, device=image.device)
    dtype = warp_dtype(image)
    stacked = image.reshape(groups, -1, height, width)
    planes = stacked if stacked.dtype == dtype else stacked.to(dtype)
    grid = grid.to(dtype)
    out = grid_sample(planes, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        ones = torch.ones((groups, 1, height, width), dtype=dtype, device=image.device)
        weight = grid_sample(ones, grid, mode=mode, padding_mode="zeros", align_corners=False)
        fill_values = torch.tensor(fill, dtype=dtype, device=image.device)
        period = channels if len(fill) > 1 else 1  # a scalar fill: any plane count (e.g. a [B, H, W] mask batch)
        per_plane = fill_values.reshape(1, 1, -1, 1, 1)
        out5 = out.reshape(groups, -1, period, out_h, out_w)
        weight5 = weight.reshape(groups, 1, 1, out_h, out_w)
        if mode == "nearest":
            out5 = torch.where(weight5 < 0.5, per_plane, out5)
        else:
            out5 = (out5 - per_plane) * weight5 + per_plane
        out = out5.reshape(groups, -1, out_h, out_w)
    if not image.is_floating_point():
        out = out.round_()
        if image.dtype == torch.uint8 and (mode == "bicubic" or fill is not None):
            out = out.clamp_(0, 255)  # only bicubic overshoot or a fill outside [0, 255] can leave the range
        out = out.to(image.dtype)
    return out.reshape(out_shape)


# The native uint8 bilinear warps' interior blend: False (the default) keeps torchvision's float32 arithmetic, bit for
# bit (what TorchScript, ONNX and the pure-PyTorch fallback compute with grid_sample, so every mode gives the same
# pixels); True blends interior pixels in fixed point (csrc/warp.cpp fixed_blend: a faster kernel, within one
# level of torchvision with a small share of the values off by one), and eager/compiled outputs then differ from
# TorchScript/ONNX outputs by those values. Read at call time (eager and tracing), so it can be set at runtime.
FIXED_POINT_BLEND = False


def _native_mode(mode: str) -> int:
    """warp_u8's mode argument: 0 nearest, 1 bilinear (float blend), 2 bilinear with the fixed-point interior."""
    if mode == "nearest":
        return 0
    return 2 if FIXED_POINT_BLEND else 1


@torch.jit.unused
def native_applies(image: torch.Tensor, mode: str) -> bool:
    return _native.AVAILABLE and image.dtype == torch.uint8 and image.device.type == "cpu" and mode != "bicubic"


@torch.jit.unused
def native_warp(
    image: torch.Tensor,
    coefficients: torch.Tensor,
    out_h: int,
    out_w: int,
    projective: bool,
    mode: str,
    fill: Optional[List[float]],
    op: str,
) -> torch.Tensor:
    """uint8 ``image`` warped by ``jitvision_native::warp_u8`` from float32 grid coefficients ``[G, 8]`` (see
    csrc/warp.cpp): the grid positions are computed per pixel instead of read from a grid tensor."""
    channels = image.shape[-3]
    if fill is not None and len(fill) > 1 and len(fill) != channels:
        raise ValueError(
            op + ": fill has " + str(len(fill)) + " values but the image has " + str(channels) + " channels"
        )
    out_shape = list(image.shape[:-2]) + [out_h, out_w]
    if image.numel() == 0:
        return torch.empty(out_shape, dtype=image.dtype, device=image.device)
    # The fill period along the stacked planes: the channels for a per-channel fill, else 1 (a mask batch
    # [B, H, W] has one plane per group whatever its "channel" dimension says).
    period = channels if fill is not None and len(fill) > 1 else 1
    out = torch.ops.jitvision_native.warp_u8(
        image.unsqueeze(0), coefficients, out_h, out_w, projective, _native_mode(mode), period, fill
    )
    return out.reshape(out_shape)


@torch.jit.unused
def native_grid_applies(image: torch.Tensor, grid: torch.Tensor, mode: str) -> bool:
    return _native.WARP_GRID and native_applies(image, mode) and grid.device.type == "cpu"


@torch.jit.unused
def native_grid_warp(
    image: torch.Tensor, grid: torch.Tensor, mode: str, fill: Optional[List[float]], op: str
) -> torch.Tensor:
    """uint8 ``image`` ``[..., C, H, W]`` sampled at ``grid`` ``[G, oh, ow, 2]`` by ``jitvision_native::warp_grid_u8``
    (``sample_grid``'s values and layout without the float image)."""
    check_image_rank(image, op)
    channels = image.shape[-3]
    if fill is not None and len(fill) > 1 and len(fill) != channels:
        raise ValueError(
            op + ": fill has " + str(len(fill)) + " values but the image has " + str(channels) + " channels"
        )
    out_shape = list(image.shape[:-2]) + [grid.shape[1], grid.shape[2]]
    if image.numel() == 0:
        return torch.empty(out_shape, dtype=image.dtype, device=image.device)
    period = channels if fill is not None and len(fill) > 1 else 1
    out = torch.ops.jitvision_native.warp_grid_u8(
        image.unsqueeze(0), grid.float(), _native_mode(mode), period, fill
    )
    return out.reshape(out_shape)


def affine_coefficients(theta: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """``[G, 8]``: the grid coefficients of inverse matrices ``theta`` ``[G, 2, 3]`` as ``affine_grid`` uses
    them (each row divided by half the input size, in theta's dtype), padded with two zeros."""
    scaled = _rows_by_half(theta, height, width).reshape(-1, 6)
    return torch.cat([scaled, torch.zeros_like(scaled[:, :2])], dim=1)


@torch.jit.unused
def affine_coefficients_values(inverse: List[float], height: int, width: int) -> torch.Tensor:
    """``affine_coefficients`` of one inverse matrix given as 6 Python floats: ``[1, 8]`` float32 with the same
    bits (each entry rounded to float32, then divided in float32 by half the size)."""
    theta = torch.tensor(inverse + [0.0, 0.0], dtype=torch.float32)
    hw, hh = 0.5 * width, 0.5 * height
    return theta.div_(torch.tensor([hw, hw, hw, hh, hh, hh, 1.0, 1.0], dtype=torch.float32)).reshape(1, 8)


def projective_coefficients(coefficients: torch.Tensor, out_h: int, out_w: int) -> torch.Tensor:
    """``[G, 8]``: perspective coefficients with the numerator rows divided by half the output size (in
    float32), as ``perspective_grid`` uses them."""
    coeffs = coefficients.float().reshape(-1, 8)
    rows = _rows_by_half(coeffs[:, 0:6].reshape(-1, 2, 3), out_h, out_w)
    return torch.cat([rows.reshape(-1, 6), coeffs[:, 6:8]], dim=1)
