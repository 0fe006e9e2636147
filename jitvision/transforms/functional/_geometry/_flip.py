"""horizontal_flip and vertical_flip: kernels per kind and their functionals."""

import math
from typing import List

import PIL.Image
import torch

from .... import _native
from ....tv_tensors import (
    BoundingBoxes,
    BoundingBoxFormat,
    Image,
    KeyPoints,
    Mask,
    Video,
    box_format_from,
    wrap,
)
from .._dispatch import get_kernel, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import as_box_format, check_boxes, get_canvas_size, is_rotated_format


def _check_rank(image: torch.Tensor, op: str) -> None:
    if image.ndim < 2:
        raise ValueError(f"{op}: expected a tensor with at least 2 dimensions [..., H, W], got {image.ndim}")


def horizontal_flip_image(image: torch.Tensor) -> torch.Tensor:
    _check_rank(image, "horizontal_flip")
    return image.flip(-1)


def vertical_flip_image(image: torch.Tensor) -> torch.Tensor:
    _check_rank(image, "vertical_flip")
    if not torch.jit.is_scripting():
        if _row_flip_applies(image):
            return torch.ops.jitvision_native.vertical_flip.default(image)
    return image.flip(-2)


@torch.jit.unused
def _row_flip_applies(image: torch.Tensor) -> bool:
    """Eager, a contiguous CPU tensor: the native flip copies whole rows in reverse order (csrc/fastgeo.cpp), where
    torch's flip walks the image element by element; the same values, a contiguous output as
    torch's. Traced graphs and autograd keep torch's flip."""
    return (
        _native.GEOMETRY
        and not torch._C._get_tracing_state()
        and image.is_cpu
        and not image.requires_grad
        and image.is_contiguous()
        and not is_tracing()
    )


def horizontal_flip_mask(mask: torch.Tensor) -> torch.Tensor:
    return horizontal_flip_image(mask)


def vertical_flip_mask(mask: torch.Tensor) -> torch.Tensor:
    return vertical_flip_image(mask)


def horizontal_flip_video(video: torch.Tensor) -> torch.Tensor:
    return horizontal_flip_image(video)


def vertical_flip_video(video: torch.Tensor) -> torch.Tensor:
    return vertical_flip_image(video)


def horizontal_flip_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    return image.transpose(PIL.Image.Transpose.FLIP_LEFT_RIGHT)


def vertical_flip_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    return image.transpose(PIL.Image.Transpose.FLIP_TOP_BOTTOM)


def _flip_rotated(boxes: torch.Tensor, format: BoundingBoxFormat, extent: int, axis: int) -> torch.Tensor:
    # The mirrored box keeps its corners' roles as torchvision orders them: XYXYXYXY swaps corners 1<->2 and
    # 3<->4; XYWHR's first corner becomes the mirror of its second, and the angle turns to -r (horizontal) or
    # 180 - r (vertical).
    columns: List[torch.Tensor] = list(boxes.unbind(-1))
    if format == BoundingBoxFormat.XYXYXYXY:
        for i in range(axis, 8, 2):
            columns[i] = extent - columns[i]
        order = [2, 3, 0, 1, 6, 7, 4, 5]
        return torch.stack([columns[i] for i in order], dim=-1)
    angle = columns[4]
    if format == BoundingBoxFormat.XYWHR:
        rad = angle.mul(math.pi).div(180)
        if axis == 0:
            columns[0] = extent - (columns[0] + columns[2] * rad.cos())
            columns[1] = columns[1] - columns[2] * rad.sin()
        else:
            columns[1] = extent - (columns[1] - columns[2] * rad.sin())
            columns[0] = columns[0] + columns[2] * rad.cos()
    else:  # CXCYWHR: the center mirrors
        columns[axis] = extent - columns[axis]
    columns[4] = angle.neg() if axis == 0 else angle.neg() + 180
    return torch.stack(columns, dim=-1).to(boxes.dtype)


def _flip_boxes(boxes: torch.Tensor, format: BoundingBoxFormat, extent: int, axis: int) -> torch.Tensor:
    # axis 0 flips x (horizontal), axis 1 flips y (vertical).
    op = "horizontal_flip" if axis == 0 else "vertical_flip"
    check_boxes(boxes, format, op)
    if is_rotated_format(format):
        return _flip_rotated(boxes, format, extent, axis)
    lo, hi = axis, axis + 2
    if format == BoundingBoxFormat.XYXY:
        mirrored_lo = extent - boxes[..., hi]
        mirrored_hi = extent - boxes[..., lo]
    elif format == BoundingBoxFormat.XYWH:
        mirrored_lo = extent - boxes[..., lo] - boxes[..., hi]
        mirrored_hi = boxes[..., hi]
    else:  # CXCYWH: the center mirrors, the size stays
        mirrored_lo = extent - boxes[..., lo]
        mirrored_hi = boxes[..., hi]
    columns: List[torch.Tensor] = [boxes[..., 0], boxes[..., 1], boxes[..., 2], boxes[..., 3]]
    columns[lo] = mirrored_lo
    columns[hi] = mirrored_hi
    return torch.stack(columns, dim=-1)


def horizontal_flip_bounding_boxes(
    bounding_boxes: torch.Tensor, format: BoundingBoxFormat, canvas_size: List[int]
) -> torch.Tensor:
    return _flip_boxes(bounding_boxes, as_box_format(format, "horizontal_flip"), canvas_size[1], 0)


def vertical_flip_bounding_boxes(
    bounding_boxes: torch.Tensor, format: BoundingBoxFormat, canvas_size: List[int]
) -> torch.Tensor:
    return _flip_boxes(bounding_boxes, as_box_format(format, "vertical_flip"), canvas_size[0], 1)


def _flip_keypoints(keypoints: torch.Tensor, extent: int, axis: int) -> torch.Tensor:
    # Keypoints are pixel indices: the mirror of x is (extent - 1) - x.
    flipped = keypoints.clone()
    flipped[..., axis] = (extent - 1) - keypoints[..., axis]
    return flipped


def horizontal_flip_keypoints(keypoints: torch.Tensor, canvas_size: List[int]) -> torch.Tensor:
    return _flip_keypoints(keypoints, canvas_size[1], 0)


def vertical_flip_keypoints(keypoints: torch.Tensor, canvas_size: List[int]) -> torch.Tensor:
    return _flip_keypoints(keypoints, canvas_size[0], 1)


def horizontal_flip(inpt: torch.Tensor) -> torch.Tensor:
    """Mirror left-right. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return horizontal_flip_image(inpt)
    return get_kernel(horizontal_flip, type(inpt))(inpt)


def vertical_flip(inpt: torch.Tensor) -> torch.Tensor:
    """Mirror top-bottom. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return vertical_flip_image(inpt)
    return get_kernel(vertical_flip, type(inpt))(inpt)


hflip = horizontal_flip
vflip = vertical_flip

for _kind in (Image, Video, Mask):
    register_kernel(horizontal_flip, _kind)(horizontal_flip_image)
    register_kernel(vertical_flip, _kind)(vertical_flip_image)
register_kernel(horizontal_flip, PIL.Image.Image)(horizontal_flip_image_pil)
register_kernel(vertical_flip, PIL.Image.Image)(vertical_flip_image_pil)


@register_kernel(horizontal_flip, BoundingBoxes, tv_tensor_wrapper=False)
def _horizontal_flip_bounding_boxes_dispatch(inpt: torch.Tensor) -> torch.Tensor:
    out = horizontal_flip_bounding_boxes(unwrap(inpt), box_format_from(inpt.format), get_canvas_size(inpt))
    return wrap(out, like=inpt)


@register_kernel(vertical_flip, BoundingBoxes, tv_tensor_wrapper=False)
def _vertical_flip_bounding_boxes_dispatch(inpt: torch.Tensor) -> torch.Tensor:
    out = vertical_flip_bounding_boxes(unwrap(inpt), box_format_from(inpt.format), get_canvas_size(inpt))
    return wrap(out, like=inpt)


@register_kernel(horizontal_flip, KeyPoints, tv_tensor_wrapper=False)
def _horizontal_flip_keypoints_dispatch(inpt: torch.Tensor) -> torch.Tensor:
    return wrap(horizontal_flip_keypoints(unwrap(inpt), get_canvas_size(inpt)), like=inpt)


@register_kernel(vertical_flip, KeyPoints, tv_tensor_wrapper=False)
def _vertical_flip_keypoints_dispatch(inpt: torch.Tensor) -> torch.Tensor:
    return wrap(vertical_flip_keypoints(unwrap(inpt), get_canvas_size(inpt)), like=inpt)
