"""elastic (alias elastic_transform): kernels per kind and the functional.

``displacement`` is ``[1, H, W, 2]`` in grid_sample's normalised units, added to the identity grid (torchvision's
layout); the random class passes ``[G, H, W, 2]``, one field per sample of a batch. Boxes and keypoints move
with torchvision's approximation of the inverse field (``identity - displacement``, read at the integer pixel of
each point).

Deliberate differences from torchvision: a displacement that is not a tensor, or of the wrong shape, raises a
TypeError/ValueError naming ``elastic``; integer images are clamped to the dtype's range before the cast back
(BICUBIC overshoot wraps around in torchvision's uint8 output).
"""

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
    get_canvas_size,
    is_rotated_format,
)
from ._interpolation import InterpolationMode
from ._warp import (
    FillType,
    check_image_rank,
    fill_as_list,
    grid_mode,
    half_linspace,
    native_grid_applies,
    native_grid_warp,
    sample_grid,
    warp_dtype,
)


def _check_displacement(displacement: torch.Tensor, height: int, width: int, batched: bool) -> None:
    if not torch.jit.is_scripting():
        _check_is_tensor(displacement)
    shape = displacement.shape
    if (
        displacement.ndim != 4
        or shape[1] != height
        or shape[2] != width
        or shape[3] != 2
        or (not batched and shape[0] != 1)
    ):
        expected = "[G, " if batched else "[1, "
        if not torch.jit.is_scripting() and is_tracing():
            # symbolic sizes have no str() under dynamo: the same error without the numbers
            raise ValueError("elastic: displacement shape should be " + expected + "H, W, 2] with the image's H and W")
        raise ValueError(
            "elastic: displacement shape should be "
            + expected
            + str(height)
            + ", "
            + str(width)
            + ", 2], got "
            + str(list(shape))
        )


@torch.jit.unused
def _check_is_tensor(displacement: Any) -> None:
    if not isinstance(displacement, torch.Tensor):
        raise TypeError(f"elastic: displacement should be a Tensor [1, H, W, 2], got {type(displacement).__name__}")


def _linspace(n: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """``torch.linspace((1 - n) / n, (n - 1) / n, n)`` value for value (its float32 arithmetic: a step from the
    float endpoints, the first half counted from the start and the second from the end, fused multiply-adds),
    written with tensor ops: linspace's float endpoints would specialise a symbolic ``n`` under dynamic shapes."""
    half = half_linspace((1 - n) / n, (n - 1) / n, n, dtype, device)  # float16/bfloat16: linspace's own rounding
    if half is not None:
        return half
    index = torch.arange(n, dtype=dtype, device=device)
    start = torch.full([], (1 - n) / n, dtype=dtype, device=device)
    end = torch.full([], (n - 1) / n, dtype=dtype, device=device)
    # One point: linspace gives [start] (0 here); dividing by n - 1 = 0 made the step 0/0 and the point NaN.
    step = (end - start) / (n - 1 if n > 1 else 1)
    return torch.where(
        index < n // 2, torch.addcmul(start, index, step), torch.addcmul(end, n - 1 - index, step, value=-1)
    )


def _identity_grid(height: int, width: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """``[1, H, W, 2]``: grid_sample coordinates of the pixel centres (align_corners=False), torchvision's values."""
    grid = torch.empty((1, height, width, 2), dtype=dtype, device=device)
    grid[..., 0].copy_(_linspace(width, dtype, device).reshape(1, -1))
    grid[..., 1].copy_(_linspace(height, dtype, device).reshape(-1, 1))
    return grid


def warp_elastic_image(
    image: torch.Tensor, displacement: torch.Tensor, mode: str, fill: Optional[List[float]]
) -> torch.Tensor:
    """``image`` sampled at identity + ``displacement`` (``[G, H, W, 2]``; G > 1: the first image dim is the
    batch)."""
    check_image_rank(image, "elastic")
    height, width = image.shape[-2], image.shape[-1]
    _check_displacement(displacement, height, width, True)
    half = image.dtype == torch.float16 and image.device.type == "cpu"
    work = image.float() if half else image
    dtype = warp_dtype(work)
    grid = _identity_grid(height, width, dtype, image.device)
    grid = (
        grid + displacement.to(dtype=dtype, device=image.device)
        if displacement.shape[0] > 1
        else grid.add_(displacement.to(dtype=dtype, device=image.device))
    )
    if not torch.jit.is_scripting() and native_grid_applies(work, grid, mode):
        return native_grid_warp(work, grid, mode, fill, "elastic")
    out = sample_grid(work, grid, mode, fill, "elastic")
    return out.half() if half else out


def _inverse_lookup(
    points: torch.Tensor, canvas_size: List[int], displacement: torch.Tensor, dtype: torch.dtype
) -> torch.Tensor:
    """``points`` ``[N, K, 2]`` (float, already rounded as the caller wants) moved by the approximate inverse
    field read at their integer pixel; ``displacement`` is ``[1, H, W, 2]`` or ``[N, H, W, 2]``."""
    height, width = canvas_size[0], canvas_size[1]
    field = displacement.to(dtype=dtype, device=points.device)
    inverse = _identity_grid(height, width, dtype, points.device) - field
    index = points.to(torch.long)
    ix = index[..., 0].clamp(0, width - 1)
    iy = index[..., 1].clamp(0, height - 1)
    if inverse.shape[0] == 1:
        looked_up = inverse[0, iy, ix]
    else:
        rows = torch.arange(inverse.shape[0], device=points.device).reshape(-1, 1).expand_as(ix)
        looked_up = inverse[rows, iy, ix]
    size = torch.tensor([float(width), float(height)], dtype=dtype, device=points.device)
    return (looked_up + 1) * (0.5 * size) - 0.5


def elastic_keypoints_field(
    keypoints: torch.Tensor, canvas_size: List[int], displacement: torch.Tensor
) -> torch.Tensor:
    """Keypoints ``[..., 2]`` moved by a ``[1, H, W, 2]`` field (or ``[N, H, W, 2]`` for ``[N, 2]`` points)."""
    if keypoints.numel() == 0:
        return keypoints.clone()
    dtype = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    points = keypoints.to(dtype).reshape(-1, 1, 2)
    return _inverse_lookup(points, canvas_size, displacement, dtype).reshape(keypoints.shape).to(keypoints.dtype)


def elastic_bounding_boxes_field(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    displacement: torch.Tensor,
    clamping_mode: Optional[str] = "soft",
) -> torch.Tensor:
    """Boxes around their four corners moved by the field, clamped to the canvas."""
    check_boxes(bounding_boxes, format, "elastic")
    if bounding_boxes.numel() == 0:
        return bounding_boxes.clone()
    dtype = bounding_boxes.dtype if bounding_boxes.is_floating_point() else torch.float32
    if is_rotated_format(format):
        # As torchvision: only the center moves; width, height and angle stay.
        work = bounding_boxes if bounding_boxes.is_floating_point() else bounding_boxes.float()
        centered = convert_bounding_box_format_kernel(work, format, BoundingBoxFormat.CXCYWHR).reshape(-1, 5)
        moved = _inverse_lookup(centered[:, :2].ceil().reshape(-1, 1, 2), canvas_size, displacement, dtype)
        out = torch.cat([moved.reshape(-1, 2).to(centered.dtype), centered[:, 2:]], dim=1)
        out = clamp_bounding_boxes_kernel(out, BoundingBoxFormat.CXCYWHR, canvas_size, clamping_mode)
        out = convert_bounding_box_format_kernel(out, BoundingBoxFormat.CXCYWHR, format)
        return out.reshape(bounding_boxes.shape).to(bounding_boxes.dtype)
    xyxy = convert_bounding_box_format_kernel(bounding_boxes, format, BoundingBoxFormat.XYXY).reshape(-1, 4)
    xs = torch.stack([xyxy[:, 0], xyxy[:, 2], xyxy[:, 2], xyxy[:, 0]], dim=-1)
    ys = torch.stack([xyxy[:, 1], xyxy[:, 1], xyxy[:, 3], xyxy[:, 3]], dim=-1)
    corners = torch.stack([xs, ys], dim=-1)
    if corners.is_floating_point():
        corners = corners.ceil()
    moved = _inverse_lookup(corners.to(dtype), canvas_size, displacement, dtype)
    nx, ny = moved[..., 0], moved[..., 1]
    out = torch.stack([nx.amin(-1), ny.amin(-1), nx.amax(-1), ny.amax(-1)], dim=-1).to(xyxy.dtype)
    out = clamp_bounding_boxes_kernel(out, BoundingBoxFormat.XYXY, canvas_size, clamping_mode)
    out = convert_bounding_box_format_kernel(out, BoundingBoxFormat.XYXY, format)
    return out.reshape(bounding_boxes.shape).to(bounding_boxes.dtype)


# ---- kernels with torchvision's arguments -------------------------------------------------------------------


def elastic_image(
    image: torch.Tensor,
    displacement: torch.Tensor,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
) -> torch.Tensor:
    """``[..., C, H, W]`` resampled at the identity grid plus ``displacement`` ``[1, H, W, 2]``."""
    mode = grid_mode(interpolation, "elastic", allow_bicubic=True)
    fill_list = fill_as_list(fill, "elastic")
    check_image_rank(image, "elastic")
    _check_displacement(displacement, image.shape[-2], image.shape[-1], False)
    return warp_elastic_image(image, displacement, mode, fill_list)


def elastic_video(
    video: torch.Tensor,
    displacement: torch.Tensor,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
) -> torch.Tensor:
    return elastic_image(video, displacement, interpolation, fill)


def elastic_mask(mask: torch.Tensor, displacement: torch.Tensor, fill: FillType = None) -> torch.Tensor:
    """``[..., H, W]`` masks (always NEAREST)."""
    if mask.ndim < 3:
        return elastic_image(mask.unsqueeze(0), displacement, "nearest", fill).squeeze(0)
    return elastic_image(mask, displacement, "nearest", fill)


@torch.jit.unused
def elastic_image_pil(
    image: PIL.Image.Image,
    displacement: torch.Tensor,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
) -> PIL.Image.Image:
    """Through the tensor kernel, as torchvision does (Pillow has no elastic warp)."""
    import numpy as np

    array = np.asarray(image)
    tensor = torch.from_numpy(array.copy())
    tensor = tensor.unsqueeze(0) if tensor.ndim == 2 else tensor.permute(2, 0, 1)
    out = elastic_image(tensor, displacement, interpolation, fill)
    out = out.squeeze(0) if array.ndim == 2 else out.permute(1, 2, 0)
    return PIL.Image.fromarray(out.contiguous().numpy(), mode=image.mode)


def elastic_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    displacement: torch.Tensor,
    clamping_mode: Optional[str] = "soft",
) -> torch.Tensor:
    format = as_box_format(format, "elastic")
    _check_displacement(displacement, canvas_size[0], canvas_size[1], False)
    return elastic_bounding_boxes_field(bounding_boxes, format, canvas_size, displacement, clamping_mode)


def elastic_keypoints(keypoints: torch.Tensor, canvas_size: List[int], displacement: torch.Tensor) -> torch.Tensor:
    _check_displacement(displacement, canvas_size[0], canvas_size[1], False)
    return elastic_keypoints_field(keypoints, canvas_size, displacement)


def elastic(
    inpt: torch.Tensor,
    displacement: torch.Tensor,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    fill: FillType = None,
) -> torch.Tensor:
    """Resample at the identity grid plus ``displacement`` ``[1, H, W, 2]`` (normalised units). Plain tensors
    are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return elastic_image(inpt, displacement, interpolation, fill)
    return get_kernel(elastic, type(inpt))(inpt, displacement=displacement, interpolation=interpolation, fill=fill)


elastic_transform = elastic

for _kind in (Image, Video):
    register_kernel(elastic, _kind)(elastic_image)
register_kernel(elastic, PIL.Image.Image)(elastic_image_pil)


@register_kernel(elastic, Mask)
def _elastic_mask_dispatch(
    mask: torch.Tensor, displacement: torch.Tensor, fill: FillType = None, **kwargs: Any
) -> torch.Tensor:
    return elastic_mask(mask, displacement, fill)


@register_kernel(elastic, BoundingBoxes, tv_tensor_wrapper=False)
def _elastic_bounding_boxes_dispatch(inpt: torch.Tensor, displacement: torch.Tensor, **kwargs: Any) -> torch.Tensor:
    out = elastic_bounding_boxes(
        unwrap(inpt), box_format_from(inpt.format), get_canvas_size(inpt), displacement, inpt.clamping_mode
    )
    return wrap(out, like=inpt)


@register_kernel(elastic, KeyPoints, tv_tensor_wrapper=False)
def _elastic_keypoints_dispatch(inpt: torch.Tensor, displacement: torch.Tensor, **kwargs: Any) -> torch.Tensor:
    return wrap(elastic_keypoints(unwrap(inpt), get_canvas_size(inpt), displacement), like=inpt)
