"""The tensor-matrix kernels of affine and rotate: an image, boxes or keypoints warped by an affine matrix given as a
tensor.

``affine``/``rotate``'s kernels (``_affine``, ``_rotate``) build a matrix from torchvision's Python numbers and run
these; ``RandomAffine``/``RandomRotation`` run them with drawn matrix tensors, so compiled random warps stay random.
"""

from typing import List, Optional, Tuple

import torch

from ....tv_tensors import BoundingBoxFormat
from .._meta import (
    check_boxes,
    clamp_bounding_boxes_kernel,
    convert_bounding_box_format_kernel,
    finish_rotated,
    is_rotated_format,
    rotated_corners,
)
from .._rotated import fit_rectangle
from ._warp import (
    affine_coefficients,
    affine_coefficients_values,
    affine_grid,
    check_image_rank,
    native_applies,
    native_warp,
    sample_grid,
    warp_dtype,
)
from ._warp_matrix import scalar_affine_matrix

# ---- tensor-matrix kernels (shared with the random classes) -------------------------------------------------


def warp_affine_image(
    image: torch.Tensor,
    inverse: torch.Tensor,
    out_h: int,
    out_w: int,
    mode: str,
    fill: Optional[List[float]],
    op: str = "affine",
) -> torch.Tensor:
    """``image`` ``[..., C, H, W]`` warped by inverse matrices ``inverse`` ``[2, 3]`` or ``[G, 2, 3]`` (centred
    pixel coordinates; with G > 1 the first image dimension is the batch) into ``out_h`` x ``out_w``."""
    check_image_rank(image, op)
    theta = inverse.to(warp_dtype(image))
    if theta.ndim == 2:
        theta = theta.unsqueeze(0)
    if not torch.jit.is_scripting() and native_applies(image, mode):
        coefficients = affine_coefficients(theta, image.shape[-2], image.shape[-1])
        return native_warp(image, coefficients, out_h, out_w, False, mode, fill, op)
    grid = affine_grid(theta, image.shape[-2], image.shape[-1], out_h, out_w)
    return sample_grid(image, grid, mode, fill, op)


def warp_affine_values(
    image: torch.Tensor,
    inverse: List[float],
    out_h: int,
    out_w: int,
    mode: str,
    fill: Optional[List[float]],
    op: str = "affine",
) -> torch.Tensor:
    """``warp_affine_image`` with one inverse matrix given as 6 Python floats (eager callers: the functionals and
    the random classes' one-sample draws): the native kernel gets its coefficients straight from the numbers."""
    check_image_rank(image, op)
    if not torch.jit.is_scripting() and native_applies(image, mode):
        coefficients = affine_coefficients_values(inverse, image.shape[-2], image.shape[-1])
        return native_warp(image, coefficients, out_h, out_w, False, mode, fill, op)
    theta = torch.tensor(inverse, dtype=torch.float64, device=image.device).reshape(2, 3)
    return warp_affine_image(image, theta, out_h, out_w, mode, fill, op)


def _matrix_entries(matrix: torch.Tensor, dtype: torch.dtype) -> List[torch.Tensor]:
    """The six entries of ``[2, 3]`` (0-d each) or ``[N, 2, 3]`` (``[N, 1]`` each) matrices, in ``dtype``."""
    m = matrix.to(dtype)
    if m.ndim == 2:
        return [m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2]]
    m = m.reshape(-1, 6, 1)
    return [m[:, 0], m[:, 1], m[:, 2], m[:, 3], m[:, 4], m[:, 5]]


def points_affine_matrix(
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: List[float],
    device: torch.device,
) -> torch.Tensor:
    """The forward ``[2, 3]`` float64 matrix boxes and keypoints are moved by, the same in eager and TorchScript."""
    return scalar_affine_matrix(angle, translate, scale, shear, center, False, device)


def affine_keypoints_matrix(
    keypoints: torch.Tensor, forward: torch.Tensor, shift: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """Points ``[..., 2]`` moved by ``forward`` ``[2, 3]`` (or ``[N, 2, 3]`` for ``[N, 2]`` points), then by
    ``-shift`` (an ``[2]`` or ``[N, 2]`` offset) if given; computed in float, returned in the input dtype."""
    dtype = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    points = keypoints.to(dtype).reshape(-1, 1, 2)
    a, b, c, d, e, f = _matrix_entries(forward, dtype)
    x, y = points[..., 0], points[..., 1]
    nx, ny = a * x + b * y + c, d * x + e * y + f
    if shift is not None:
        s = shift.to(dtype).reshape(-1, 2)
        nx, ny = nx - s[:, 0:1], ny - s[:, 1:2]
    return torch.stack([nx, ny], dim=-1).reshape(keypoints.shape).to(keypoints.dtype)


def affine_bounding_boxes_matrix(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    forward: torch.Tensor,
    clamping_mode: Optional[str] = "soft",
    shift: Optional[torch.Tensor] = None,
    op: str = "affine",
) -> torch.Tensor:
    """Boxes ``[..., 4]`` replaced by the axis-aligned box around their four corners moved by ``forward``
    (``[2, 3]``, or ``[N, 2, 3]`` for ``[N, 4]`` boxes) and ``-shift``, clamped to ``canvas_size`` (the output
    canvas) per ``clamping_mode``. Rotated boxes: the rectangle fitted to their moved corners (torchvision's)."""
    check_boxes(bounding_boxes, format, op)
    if bounding_boxes.numel() == 0:
        return bounding_boxes.clone()
    dtype = bounding_boxes.dtype if bounding_boxes.is_floating_point() else torch.float32
    if is_rotated_format(format):
        return _affine_rotated_boxes(bounding_boxes, format, canvas_size, forward, clamping_mode, shift, dtype)
    xyxy = convert_bounding_box_format_kernel(bounding_boxes.to(dtype), format, BoundingBoxFormat.XYXY)
    xyxy = xyxy.reshape(-1, 4)
    xs = torch.stack([xyxy[:, 0], xyxy[:, 2], xyxy[:, 2], xyxy[:, 0]], dim=-1)
    ys = torch.stack([xyxy[:, 1], xyxy[:, 1], xyxy[:, 3], xyxy[:, 3]], dim=-1)
    nx, ny = _moved(xs, ys, forward, dtype)
    if shift is not None:
        s = shift.to(dtype).reshape(-1, 2)
        nx, ny = nx - s[:, 0:1], ny - s[:, 1:2]
    out = torch.stack([nx.amin(-1), ny.amin(-1), nx.amax(-1), ny.amax(-1)], dim=-1)
    out = clamp_bounding_boxes_kernel(out, BoundingBoxFormat.XYXY, canvas_size, clamping_mode)
    out = convert_bounding_box_format_kernel(out, BoundingBoxFormat.XYXY, format)
    return out.reshape(bounding_boxes.shape).to(bounding_boxes.dtype)


def _affine_rotated_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    forward: torch.Tensor,
    clamping_mode: Optional[str],
    shift: Optional[torch.Tensor],
    dtype: torch.dtype,
) -> torch.Tensor:
    """Rotated boxes: the four corners moved, the rectangle refitted to them, shifted by ``-shift``, clamped."""
    corners = rotated_corners(bounding_boxes, format).to(dtype)
    xs, ys = corners[:, 0::2], corners[:, 1::2]
    nx, ny = _moved(xs, ys, forward, dtype)
    quad = torch.stack([nx, ny], dim=-1).reshape(-1, 8)
    quad = fit_rectangle(quad)
    if shift is not None:
        s = shift.to(dtype).reshape(-1, 2)
        quad = quad - torch.cat([s, s, s, s], dim=-1)
    return finish_rotated(quad, format, canvas_size, clamping_mode, bounding_boxes, fit=False)


def _moved(
    xs: torch.Tensor, ys: torch.Tensor, forward: torch.Tensor, dtype: torch.dtype
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Points ``(xs, ys)`` moved by ``forward``, in ``dtype``. float16/bfloat16 as torchvision's matmul in that
    dtype computes them: the entries rounded to the dtype, the products (exact in float32) summed in float32 and
    rounded once. Per-op arithmetic in float16 rounded each product and sum (an ulp is a whole pixel past x = 1024),
    and the fitted and clamped rotated boxes that followed moved hundreds of pixels away from torchvision's."""
    a, b, c, d, e, f = _matrix_entries(forward, dtype)
    if dtype == torch.float16 or dtype == torch.bfloat16:
        x32, y32 = xs.float(), ys.float()
        nx = a.float() * x32 + b.float() * y32 + c.float()
        ny = d.float() * x32 + e.float() * y32 + f.float()
        return nx.to(dtype), ny.to(dtype)
    return a * xs + b * ys + c, d * xs + e * ys + f


def corner_shift(forward: torch.Tensor, canvas_size: List[int], dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The smallest (x, y) of the canvas corners moved by ``forward`` (``[2, 3]`` -> ``[2]``, ``[N, 2, 3]`` ->
    ``[N, 2]``): what ``expand`` subtracts so the moved canvas starts at the origin. In float64, or for
    float16/bfloat16 boxes in their dtype as torchvision computes it (see ``_moved``)."""
    height, width = float(canvas_size[0]), float(canvas_size[1])
    work = dtype if dtype == torch.float16 or dtype == torch.bfloat16 else torch.float64
    corners = torch.tensor(
        [[0.0, 0.0], [0.0, height], [width, height], [width, 0.0]], dtype=work, device=forward.device
    )
    nx, ny = _moved(corners[:, 0], corners[:, 1], forward, work)
    return torch.stack([nx.amin(-1), ny.amin(-1)], dim=-1)
