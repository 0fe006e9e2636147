"""perspective: kernels per kind and the functional, plus the tensor-coefficient kernels RandomPerspective uses.

The 8 coefficients map an output pixel to the input (torchvision's and Pillow's convention):
``x = (c0 X + c1 Y + c2) / (c6 X + c7 Y + 1)``, ``y = (c3 X + c4 Y + c5) / (c6 X + c7 Y + 1)``. From
``startpoints``/``endpoints`` (four corners each) they solve the 8x8 linear system in float64 (one exact
solution for four points; torchvision solves the same system by least squares) and are rounded to float32.
Boxes and keypoints move with the inverse homography (the adjugate, normalised).

Deliberate differences from torchvision: degenerate points (three of the four corners collinear, or repeated)
and a non-invertible homography raise a ValueError naming ``perspective`` (torchvision returns the least-squares
garbage, or a RuntimeError for boxes and keypoints).
"""

import math
from typing import Any, List, Optional, Union

import PIL.Image
import torch

from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import get_kernel, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import (
    as_box_format,
    check_boxes,
    clamp_bounding_boxes_kernel,
    convert_bounding_box_format_kernel,
    finish_rotated,
    get_canvas_size,
    is_rotated_format,
    rotated_corners,
)
from ._affine import pil_fill
from ._interpolation import InterpolationMode, check_interpolation, pil_resample_code
from ._warp import (
    FillType,
    fill_as_list,
    grid_mode,
    native_applies,
    native_warp,
    perspective_grid,
    projective_coefficients,
    sample_grid,
    warp_dtype,
)
from ._warp_matrix import exact_float64

# ---- coefficients -------------------------------------------------------------------------------------------


def perspective_coefficients(startpoints: torch.Tensor, endpoints: torch.Tensor) -> torch.Tensor:
    """Coefficients ``[..., 8]`` (float64, rounded through float32) of the homography taking each endpoint to
    its startpoint; points are ``[..., 4, 2]`` tensors (a batch of quads gives a batch of coefficients). A
    degenerate quad (three collinear corners: RandomPerspective's draw on an image with a side of 1 pixel, or on a
    small one) has no homography: it gets the identity, without a host sync (torchvision's least squares raises
    a LinAlgError there)."""
    start, end = startpoints.double(), endpoints.double()
    sx, sy = start[..., 0], start[..., 1]
    ex, ey = end[..., 0], end[..., 1]
    zeros, ones = torch.zeros_like(ex), torch.ones_like(ex)
    row_x = torch.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], dim=-1)
    row_y = torch.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], dim=-1)
    system = torch.stack([row_x, row_y], dim=-2).reshape(list(ex.shape[:-1]) + [8, 8])
    target = torch.stack([sx, sy], dim=-1).reshape(list(ex.shape[:-1]) + [8])
    solution, info = torch.linalg.solve_ex(system, target)
    identity = torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], dtype=torch.float64, device=system.device)
    solution = torch.where((info == 0).unsqueeze(-1), solution, identity)
    return solution.float().double()


def _check_quad(points: List[List[int]], name: str) -> None:
    if is_tracing():
        return  # dynamo may see the points as symbolic numbers: checking them would guard on their values
    if len(points) != 4:
        raise ValueError("perspective: " + name + " must be four [x, y] points, got " + str(points))
    for p in points:
        if len(p) != 2:
            raise ValueError("perspective: " + name + " must be four [x, y] points, got " + str(points))
        for v in p:
            if not math.isfinite(float(v)):
                raise ValueError("perspective: " + name + " must be finite, got " + str(points))
    scale = 1.0
    for p in points:
        scale = max(scale, abs(float(p[0])), abs(float(p[1])))
    for i in range(4):
        for j in range(i + 1, 4):
            for k in range(j + 1, 4):
                ax, ay = float(points[j][0] - points[i][0]), float(points[j][1] - points[i][1])
                bx, by = float(points[k][0] - points[i][0]), float(points[k][1] - points[i][1])
                if abs(ax * by - ay * bx) <= 1e-9 * scale * scale:
                    raise ValueError(
                        "perspective: degenerate " + name + " " + str(points) + ": three of the corners are collinear"
                    )


def _coefficients_from_args(
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    coefficients: Optional[List[float]],
    device: torch.device,
) -> torch.Tensor:
    """``[1, 8]`` float64 coefficients from torchvision's arguments (exactly one of the two forms)."""
    if coefficients is not None:
        if startpoints is not None and endpoints is not None:
            raise ValueError(
                "perspective: startpoints/endpoints and the coefficients shouldn't be defined concurrently"
            )
        if len(coefficients) != 8:
            raise ValueError("perspective: coefficients should have 8 float values, got " + str(len(coefficients)))
        out = exact_float64(coefficients, device).reshape(1, 8)
        if not torch.jit.is_scripting() and not is_tracing() and not bool(torch.isfinite(out).all()):
            raise ValueError("perspective: coefficients must be finite, got " + str(coefficients))
        return out
    if startpoints is None or endpoints is None:
        raise ValueError("perspective: startpoints/endpoints or the coefficients must have non `None` values")
    _check_quad(startpoints, "startpoints")
    _check_quad(endpoints, "endpoints")
    start = torch.tensor(startpoints, dtype=torch.float64, device=device).reshape(1, 4, 2)
    end = torch.tensor(endpoints, dtype=torch.float64, device=device).reshape(1, 4, 2)
    return perspective_coefficients(start, end)


def inverse_coefficients(coefficients: torch.Tensor) -> torch.Tensor:
    """``[..., 8]`` -> ``[..., 8]``: the inverse homography (input pixel -> output pixel), float64."""
    c = coefficients.double()
    c0, c1, c2, c3, c4, c5, c6, c7 = c.unbind(-1)
    denominator = c0 * c4 - c1 * c3
    adjugate = [
        c4 - c5 * c7,
        c2 * c7 - c1,
        c1 * c5 - c2 * c4,
        c5 * c6 - c3,
        c0 - c2 * c6,
        c2 * c3 - c0 * c5,
        c3 * c7 - c4 * c6,
        c1 * c6 - c0 * c7,
    ]
    return torch.stack(adjugate, dim=-1) / denominator.unsqueeze(-1)


def _check_invertible(coefficients: torch.Tensor) -> None:
    if torch.jit.is_scripting() or not is_tracing():
        c = coefficients.double()
        if bool(((c[..., 0] * c[..., 4] - c[..., 1] * c[..., 3]) == 0).any()):
            raise ValueError("perspective: the coefficients cannot be inverted to move boxes or keypoints")


# ---- tensor-coefficient kernels -----------------------------------------------------------------------------


def warp_perspective_image(
    image: torch.Tensor, coefficients: torch.Tensor, mode: str, fill: Optional[List[float]]
) -> torch.Tensor:
    """``image`` warped by ``coefficients`` ``[8]`` or ``[G, 8]`` (G > 1: the first image dim is the batch)."""
    if image.ndim < 3:
        raise ValueError(
            "perspective: expected an image [..., C, H, W] with at least 3 dimensions, got " + str(image.ndim)
        )
    if not torch.jit.is_scripting() and native_applies(image, mode):
        coeffs = projective_coefficients(coefficients, image.shape[-2], image.shape[-1])
        return native_warp(image, coeffs, image.shape[-2], image.shape[-1], True, mode, fill, "perspective")
    grid = perspective_grid(coefficients.reshape(-1, 8), image.shape[-2], image.shape[-1], warp_dtype(image))
    return sample_grid(image, grid, mode, fill, "perspective")


def _move_points(points: torch.Tensor, inverse: torch.Tensor) -> torch.Tensor:
    """``points`` ``[N, K, 2]`` (float) through the homography ``inverse`` ``[8]`` or ``[N, 8]``."""
    i = inverse.to(points.dtype)
    if i.ndim == 1:
        i = i.reshape(1, 1, 8)
    else:
        i = i.reshape(-1, 1, 8)
    x, y = points[..., 0], points[..., 1]
    denominator = i[..., 6] * x + i[..., 7] * y + 1.0
    nx = (i[..., 0] * x + i[..., 1] * y + i[..., 2]) / denominator
    ny = (i[..., 3] * x + i[..., 4] * y + i[..., 5]) / denominator
    return torch.stack([nx, ny], dim=-1)


def perspective_keypoints_coefficients(keypoints: torch.Tensor, coefficients: torch.Tensor) -> torch.Tensor:
    """Keypoints ``[..., 2]`` moved by the inverse of ``coefficients`` ``[8]`` (or ``[N, 8]`` for ``[N, 2]``)."""
    if keypoints.numel() == 0:
        return keypoints.clone()
    dtype = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    points = keypoints.to(dtype).reshape(-1, 1, 2)
    moved = _move_points(points, inverse_coefficients(coefficients))
    return moved.reshape(keypoints.shape).to(keypoints.dtype)


def perspective_bounding_boxes_coefficients(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    coefficients: torch.Tensor,
    clamping_mode: Optional[str] = "soft",
) -> torch.Tensor:
    """Boxes around their four corners moved by the inverse of ``coefficients``, clamped to the canvas."""
    check_boxes(bounding_boxes, format, "perspective")
    if bounding_boxes.numel() == 0:
        return bounding_boxes.clone()
    dtype = bounding_boxes.dtype if bounding_boxes.is_floating_point() else torch.float32
    if is_rotated_format(format):
        # Rotated boxes: the corners moved, the rectangle refitted to them and clamped, as torchvision does.
        corners = rotated_corners(bounding_boxes, format).to(dtype).reshape(-1, 4, 2)
        quad = _move_points(corners, inverse_coefficients(coefficients)).reshape(-1, 8)
        return finish_rotated(quad, format, canvas_size, clamping_mode, bounding_boxes)
    # As torchvision: the format conversion runs in the boxes' own dtype, the corners in float.
    xyxy = convert_bounding_box_format_kernel(bounding_boxes, format, BoundingBoxFormat.XYXY).reshape(-1, 4)
    xyxy = xyxy.to(dtype)
    xs = torch.stack([xyxy[:, 0], xyxy[:, 2], xyxy[:, 2], xyxy[:, 0]], dim=-1)
    ys = torch.stack([xyxy[:, 1], xyxy[:, 1], xyxy[:, 3], xyxy[:, 3]], dim=-1)
    moved = _move_points(torch.stack([xs, ys], dim=-1), inverse_coefficients(coefficients))
    nx, ny = moved[..., 0], moved[..., 1]
    out = torch.stack([nx.amin(-1), ny.amin(-1), nx.amax(-1), ny.amax(-1)], dim=-1)
    out = clamp_bounding_boxes_kernel(out, BoundingBoxFormat.XYXY, canvas_size, clamping_mode)
    out = convert_bounding_box_format_kernel(out, BoundingBoxFormat.XYXY, format)
    return out.reshape(bounding_boxes.shape).to(bounding_boxes.dtype)


# ---- kernels with torchvision's arguments -------------------------------------------------------------------


def perspective_image(
    image: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
    coefficients: Optional[List[float]] = None,
) -> torch.Tensor:
    """Perspective warp of ``[..., C, H, W]`` (NEAREST or BILINEAR), output size = input size."""
    coeffs = _coefficients_from_args(startpoints, endpoints, coefficients, image.device)
    mode = grid_mode(interpolation, "perspective")
    return warp_perspective_image(image, coeffs, mode, fill_as_list(fill, "perspective"))


def perspective_video(
    video: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
    coefficients: Optional[List[float]] = None,
) -> torch.Tensor:
    return perspective_image(video, startpoints, endpoints, interpolation, fill, coefficients)


def perspective_mask(
    mask: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    fill: FillType = None,
    coefficients: Optional[List[float]] = None,
) -> torch.Tensor:
    """Perspective warp of masks ``[..., H, W]`` (always NEAREST)."""
    if mask.ndim < 3:
        return perspective_image(mask.unsqueeze(0), startpoints, endpoints, "nearest", fill, coefficients).squeeze(0)
    return perspective_image(mask, startpoints, endpoints, "nearest", fill, coefficients)


@torch.jit.unused
def perspective_image_pil(
    image: PIL.Image.Image,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
    coefficients: Optional[List[float]] = None,
) -> PIL.Image.Image:
    coeffs = _coefficients_from_args(startpoints, endpoints, coefficients, torch.device("cpu")).reshape(8).tolist()
    mode = check_interpolation(interpolation, "perspective")
    return image.transform(
        image.size,
        PIL.Image.PERSPECTIVE,
        coeffs,
        pil_resample_code(mode),
        fillcolor=pil_fill(fill, image, "perspective"),
    )


def perspective_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    coefficients: Optional[List[float]] = None,
    clamping_mode: Optional[str] = "soft",
) -> torch.Tensor:
    format = as_box_format(format, "perspective")
    coeffs = _coefficients_from_args(startpoints, endpoints, coefficients, bounding_boxes.device).reshape(8)
    _check_invertible(coeffs)
    return perspective_bounding_boxes_coefficients(bounding_boxes, format, canvas_size, coeffs, clamping_mode)


def perspective_keypoints(
    keypoints: torch.Tensor,
    canvas_size: List[int],
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    coefficients: Optional[List[float]] = None,
) -> torch.Tensor:
    coeffs = _coefficients_from_args(startpoints, endpoints, coefficients, keypoints.device).reshape(8)
    _check_invertible(coeffs)
    return perspective_keypoints_coefficients(keypoints, coeffs)


def perspective(
    inpt: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
    coefficients: Optional[List[float]] = None,
) -> torch.Tensor:
    """Perspective warp mapping ``startpoints`` to ``endpoints`` (or given by 8 ``coefficients``). Plain
    tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return perspective_image(inpt, startpoints, endpoints, interpolation, fill, coefficients)
    return get_kernel(perspective, type(inpt))(
        inpt,
        startpoints=startpoints,
        endpoints=endpoints,
        interpolation=interpolation,
        fill=fill,
        coefficients=coefficients,
    )


for _kind in (Image, Video):
    register_kernel(perspective, _kind)(perspective_image)
register_kernel(perspective, PIL.Image.Image)(perspective_image_pil)


@register_kernel(perspective, Mask)
def _perspective_mask_dispatch(
    mask: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    fill: FillType = None,
    coefficients: Optional[List[float]] = None,
    **kwargs: Any,
) -> torch.Tensor:
    return perspective_mask(mask, startpoints, endpoints, fill, coefficients)


@register_kernel(perspective, BoundingBoxes, tv_tensor_wrapper=False)
def _perspective_bounding_boxes_dispatch(
    inpt: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    coefficients: Optional[List[float]] = None,
    **kwargs: Any,
) -> torch.Tensor:
    out = perspective_bounding_boxes(
        unwrap(inpt),
        box_format_from(inpt.format),
        get_canvas_size(inpt),
        startpoints,
        endpoints,
        coefficients,
        inpt.clamping_mode,
    )
    return wrap(out, like=inpt)


@register_kernel(perspective, KeyPoints, tv_tensor_wrapper=False)
def _perspective_keypoints_dispatch(
    inpt: torch.Tensor,
    startpoints: Optional[List[List[int]]],
    endpoints: Optional[List[List[int]]],
    coefficients: Optional[List[float]] = None,
    **kwargs: Any,
) -> torch.Tensor:
    out = perspective_keypoints(unwrap(inpt), get_canvas_size(inpt), startpoints, endpoints, coefficients)
    return wrap(out, like=inpt)
