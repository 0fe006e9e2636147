"""resized_crop: crop (zero-padded where the region leaves the image) then resize, per kind.

Two ways in:
- ``resized_crop(inpt, top, left, height, width, size, ...)`` with Python ints (eager, TorchScript), as in
  torchvision;
- ``resized_crop_at(inpt, box, size, ...)`` with ``box`` an int64 tensor ``[top, left, height, width]`` (a
  random draw): dense kinds go through the operator ``jitvision_native::resized_crop_box`` (C++; ints read inside, the
  same native kernel as eager, a fixed output shape for the compiler), boxes and keypoints are tensor
  arithmetic. It traces into one graph and keeps the box live under ``torch.compile``/``torch.export``.
  With the native library loaded the operator is its C++ ``jitvision_native::resized_crop_box`` (runs without
  Python: TorchScript in C++, AOTInductor); without it, this module's Python operator (Python only).
"""

from typing import Any, List, Optional, Tuple, Union

import PIL.Image
import torch

from .... import _native
from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import call_custom_op, get_kernel, is_pure_tensor, register_kernel, unwrap
from .._meta import (
    as_box_format,
    check_boxes,
    convert_bounding_box_format_kernel,
    finish_rotated,
    is_rotated_format,
    rotated_corners,
)
from .._rotated import clamp_corners_to
from ._crop import crop_bounding_boxes, crop_image, crop_translate
from ._interpolation import InterpolationMode, check_interpolation
from ._resize import _compute_resized_output_size, _resize_image, _resize_image_pil, _resize_mask
from ._resize_taps import TAP_MODES, resized_crop_taps


def _check_region(height: int, width: int) -> None:
    # torchvision fails inside its resize for an empty region (RuntimeError); a ValueError naming the op here
    if height <= 0 or width <= 0:
        raise ValueError(f"resized_crop: the crop height and width must be positive, got [{height}, {width}]")


# ---- the crop step ---------------------------------------------------------------------------------------
# Dense kinds use crop_image (torchvision's crop: zero padding outside the image). Boxes and keypoints use
# the tensor arithmetic below, shared by the int path and the tensor-box path so that both agree exactly.


def _crop_resize_boxes(
    boxes: torch.Tensor,
    format: BoundingBoxFormat,
    box: torch.Tensor,
    size: List[int],
    clamping_mode: Optional[str],
) -> torch.Tensor:
    """Boxes shifted into the crop ``box`` = [top, left, height, width] (a tensor), clamped to it like
    torchvision's crop, then scaled to ``size``."""
    # ``box`` is [4], or [R, 4] with one crop per row of ``boxes`` (a batch): everything below broadcasts.
    top, left, height, width = box[..., 0], box[..., 1], box[..., 2], box[..., 3]
    if is_rotated_format(format):
        return _crop_resize_rotated(boxes, format, box, size, clamping_mode)
    if format == BoundingBoxFormat.XYXY:
        offset = torch.stack([left, top, left, top], dim=-1)
    else:
        zero = torch.zeros_like(left)
        offset = torch.stack([left, top, zero, zero], dim=-1)
    boxes = boxes - offset.to(boxes.dtype)
    crop_wh = torch.stack([width, height, width, height], dim=-1)
    if clamping_mode is not None:
        work = boxes if boxes.is_floating_point() else boxes.float()
        xyxy = convert_bounding_box_format_kernel(work, format, BoundingBoxFormat.XYXY)
        xyxy = torch.minimum(xyxy.clamp(min=0), crop_wh.to(xyxy.dtype))
        boxes = convert_bounding_box_format_kernel(xyxy, BoundingBoxFormat.XYXY, format).to(boxes.dtype)
    target = torch.tensor([size[1], size[0], size[1], size[0]], dtype=torch.float32, device=boxes.device)
    return boxes.mul(target / crop_wh.float()).to(boxes.dtype)


def _crop_resize_rotated(
    boxes: torch.Tensor,
    format: BoundingBoxFormat,
    box: torch.Tensor,
    size: List[int],
    clamping_mode: Optional[str],
) -> torch.Tensor:
    """Rotated boxes: torchvision's crop (shift, refit XYXYXYXY, clamp to the crop), then its resize (corners
    scaled, refitted and clamped to ``size``). torchvision skips the resize step when ``size`` is the crop's size;
    with a tensor box that is not known here, and the second refit and clamp then move corners by float rounding
    only."""
    moved = crop_translate(boxes, format, -torch.stack([box[..., 1], box[..., 0]], dim=-1))
    crop_hw = box[..., 2:4]
    cropped = clamp_corners_to(rotated_corners(moved, format), crop_hw, clamping_mode)
    # torchvision converts back to the format (and dtype) between its crop and its resize steps.
    cropped = convert_bounding_box_format_kernel(cropped, BoundingBoxFormat.XYXYXYXY, format).to(boxes.dtype)
    crop_wh = torch.stack([box[..., 3], box[..., 2]], dim=-1).float()
    crop_wh = torch.cat([crop_wh, crop_wh, crop_wh, crop_wh], dim=-1)
    target = torch.tensor([size[1], size[0]] * 4, dtype=torch.float32, device=boxes.device)
    corners = rotated_corners(cropped, format) * (target / crop_wh).reshape(-1, 8)
    return finish_rotated(corners, format, size, clamping_mode, boxes)


def _crop_resize_keypoints(keypoints: torch.Tensor, box: torch.Tensor, size: List[int]) -> torch.Tensor:
    """(x, y) keypoints shifted into the crop ``box`` (a tensor) and scaled to ``size`` (not clamped)."""
    if box.ndim == 2:  # one crop per row of [R, ..., 2] keypoints
        box = box.reshape([box.shape[0]] + [1] * (keypoints.ndim - 2) + [4])
    keypoints = keypoints - torch.stack([box[..., 1], box[..., 0]], dim=-1).to(keypoints.dtype)
    target = torch.tensor([size[1], size[0]], dtype=torch.float32, device=keypoints.device)
    return keypoints.mul(target / torch.stack([box[..., 3], box[..., 2]], dim=-1).float()).to(keypoints.dtype)


def _box_tensor(top: int, left: int, height: int, width: int, device: torch.device) -> torch.Tensor:
    return torch.tensor([top, left, height, width], dtype=torch.int64, device=device)


# ---- kernels ---------------------------------------------------------------------------------------------


def resized_crop_image(
    image: torch.Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: List[int],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    _check_region(height, width)
    if image.ndim < 3:
        raise ValueError("resized_crop: expected an image [..., C, H, W], got " + str(image.ndim) + " dimensions")
    image = crop_image(image, top, left, height, width)
    return _resize_image(image, size, interpolation, None, antialias, "resized_crop")


def resized_crop_video(
    video: torch.Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: List[int],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    return resized_crop_image(video, top, left, height, width, size, interpolation, antialias)


def resized_crop_mask(
    mask: torch.Tensor, top: int, left: int, height: int, width: int, size: List[int]
) -> torch.Tensor:
    """Masks are always resampled with NEAREST, as in torchvision."""
    _check_region(height, width)
    if mask.ndim < 2:
        raise ValueError("resized_crop: expected a mask [..., H, W], got " + str(mask.ndim) + " dimensions")
    mask = crop_image(mask, top, left, height, width)
    return _resize_mask(mask, size, InterpolationMode.NEAREST, None, "resized_crop")


def resized_crop_image_pil(
    image: PIL.Image.Image,
    top: int,
    left: int,
    height: int,
    width: int,
    size: List[int],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
) -> PIL.Image.Image:
    """Pillow's own crop (zero fill outside the image) and resize."""
    _check_region(height, width)
    image = image.crop((left, top, left + width, top + height))
    return _resize_image_pil(image, size, interpolation, None, "resized_crop")


def resized_crop_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    top: int,
    left: int,
    height: int,
    width: int,
    size: List[int],
    clamping_mode: Optional[str] = "soft",
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    """Returns (boxes, new canvas_size); boxes are clamped to the crop (unless clamping_mode is None)."""
    _check_region(height, width)
    new_size = _compute_resized_output_size([height, width], size, None, "resized_crop")
    box = _box_tensor(top, left, height, width, bounding_boxes.device)
    format = as_box_format(format, "resized_crop")
    check_boxes(bounding_boxes, format, "resized_crop")
    if is_rotated_format(format) and new_size[0] == height and new_size[1] == width:
        # As torchvision: its resize step returns rotated boxes unchanged when the size does not change.
        return crop_bounding_boxes(bounding_boxes, format, top, left, height, width, clamping_mode)
    out = _crop_resize_boxes(bounding_boxes, format, box, new_size, clamping_mode)
    return out, (new_size[0], new_size[1])


def resized_crop_keypoints(
    keypoints: torch.Tensor, top: int, left: int, height: int, width: int, size: List[int]
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    """Returns (keypoints, new canvas_size)."""
    _check_region(height, width)
    new_size = _compute_resized_output_size([height, width], size, None, "resized_crop")
    out = _crop_resize_keypoints(keypoints, _box_tensor(top, left, height, width, keypoints.device), new_size)
    return out, (new_size[0], new_size[1])


# ---- functional ------------------------------------------------------------------------------------------


def resized_crop(
    inpt: torch.Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: List[int],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    """Crop ``[top, top + height) x [left, left + width)`` (zero-padded outside the input), then resize it to
    ``size``. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return resized_crop_image(inpt, top, left, height, width, size, interpolation, antialias)
    return get_kernel(resized_crop, type(inpt))(
        inpt, top, left, height, width, size=size, interpolation=interpolation, antialias=antialias
    )


for _kind in (Image, Video):
    register_kernel(resized_crop, _kind)(resized_crop_image)


@register_kernel(resized_crop, Mask)
def _resized_crop_mask_dispatch(
    mask: torch.Tensor, top: int, left: int, height: int, width: int, size: List[int], **kwargs: Any
) -> torch.Tensor:
    return resized_crop_mask(mask, top, left, height, width, size)


@register_kernel(resized_crop, PIL.Image.Image)
def _resized_crop_image_pil_dispatch(
    image: PIL.Image.Image,
    top: int,
    left: int,
    height: int,
    width: int,
    size: List[int],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    antialias: Optional[bool] = True,
) -> PIL.Image.Image:
    return resized_crop_image_pil(image, top, left, height, width, size, interpolation=interpolation)


@register_kernel(resized_crop, BoundingBoxes, tv_tensor_wrapper=False)
def _resized_crop_bounding_boxes_dispatch(
    inpt: torch.Tensor, top: int, left: int, height: int, width: int, size: List[int], **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = resized_crop_bounding_boxes(
        unwrap(inpt), box_format_from(inpt.format), top, left, height, width, size, inpt.clamping_mode
    )
    return wrap(out, like=inpt, canvas_size=canvas_size)


@register_kernel(resized_crop, KeyPoints, tv_tensor_wrapper=False)
def _resized_crop_keypoints_dispatch(
    inpt: torch.Tensor, top: int, left: int, height: int, width: int, size: List[int], **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = resized_crop_keypoints(unwrap(inpt), top, left, height, width, size)
    return wrap(out, like=inpt, canvas_size=canvas_size)


# ---- the tensor-box path ---------------------------------------------------------------------------------


@torch.library.custom_op("jitvision::resized_crop_box", mutates_args=())
def _resized_crop_box(
    image: torch.Tensor, box: torch.Tensor, size: List[int], interpolation: str, antialias: bool
) -> torch.Tensor:
    if box.ndim == 1:
        top, left, height, width = (int(v) for v in box.tolist())
        out = resized_crop_image(image, top, left, height, width, size, interpolation, antialias)
    else:
        out = _resized_crop_rows(image, box, size, interpolation, antialias)
    if out.untyped_storage().data_ptr() == image.untyped_storage().data_ptr():
        out = out.clone()  # a custom op must not return (a view of) its input
    return out.contiguous()


def _resized_crop_rows(
    image: torch.Tensor, box: torch.Tensor, size: List[int], interpolation: str, antialias: bool
) -> torch.Tensor:
    """One crop per row: ``box`` is [*lead, 4] for an image [*lead, ...]. uint8 bilinear antialiased rows run in
    one native call (its loop is in C++); other inputs are resized row by row."""
    lead = box.ndim - 1
    if list(box.shape[:-1]) != list(image.shape[:lead]):
        raise ValueError(
            f"resized_crop_at: a box per row needs shape [*leading dims, 4], got {tuple(box.shape)} for an input of "
            f"shape {tuple(image.shape)}"
        )
    if (
        _native.AVAILABLE
        and image.dtype == torch.uint8
        and image.device.type == "cpu"
        and interpolation == InterpolationMode.BILINEAR.value
        and antialias
        and image.ndim >= lead + 3
    ):
        return torch.ops.jitvision_native.resized_crop(image, box, None, size)
    rows = image.flatten(0, lead - 1) if lead > 1 else image
    outs = [
        resized_crop_image(row, *(int(v) for v in b), size, interpolation, antialias)
        if row.ndim >= 3 or interpolation != InterpolationMode.NEAREST.value
        else resized_crop_mask(row, *(int(v) for v in b), size)
        for row, b in zip(rows, box.reshape(-1, 4).tolist())
    ]
    return (
        torch.stack(outs).reshape([*image.shape[:lead], *outs[0].shape])
        if outs
        else image.new_empty([*image.shape[:-2], size[0], size[1]])
    )


@_resized_crop_box.register_fake
def _(image: torch.Tensor, box: torch.Tensor, size: List[int], interpolation: str, antialias: bool) -> torch.Tensor:
    return image.new_empty([*image.shape[:-2], size[0], size[1]])


# The C++ operator of the native library when it is loaded (an AOTInductor package or TorchScript in C++ can run
# it, csrc/crop.cpp: the same arithmetic); the Python one above otherwise, so traced crops still work in Python.
_resized_crop_box_op = (
    torch.ops.jitvision_native.resized_crop_box.default if _native.AVAILABLE else torch.ops.jitvision.resized_crop_box
)


@torch.jit.unused
def resized_crop_at(
    inpt: Any,
    box: torch.Tensor,
    size: List[int],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    antialias: Optional[bool] = True,
) -> Any:
    """``resized_crop`` with the region given as an int64 tensor ``box = [top, left, height, width]``, for
    any kind (plain tensor, Image, Video, Mask, BoundingBoxes, KeyPoints, PIL; ours or torchvision's).
    ``size`` must be ``[height, width]``: the output shape cannot depend on the box. Traces into one graph
    under ``torch.compile(fullgraph=True)`` and ``torch.export`` with the box kept as a live tensor."""
    size = list(size)
    if len(size) != 2 or size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"resized_crop_at: size must be [height, width] with positive values, got {size}")
    if not isinstance(box, torch.Tensor) or box.ndim not in (1, 2) or box.shape[-1] != 4:
        raise ValueError(
            f"resized_crop_at: box must be a tensor [top, left, height, width], or [R, 4] with one box per row of "
            f"the input, got {box!r}"
        )
    if box.ndim == 2 and (not isinstance(inpt, torch.Tensor) or inpt.ndim == 0 or inpt.shape[0] != box.shape[0]):
        raise ValueError(f"resized_crop_at: {box.shape[0]} boxes need an input with {box.shape[0]} rows")
    mode = check_interpolation(interpolation, "resized_crop_at")
    if is_pure_tensor(inpt):
        return _resized_crop_at_image(inpt, box, size, mode, antialias)
    return get_kernel(resized_crop_at, type(inpt))(inpt, box, size, mode, antialias)


def _resized_crop_box_call(
    dense: torch.Tensor, box: torch.Tensor, size: List[int], mode: str, antialias: bool
) -> torch.Tensor:
    if dense.device.type != "cpu" and mode in TAP_MODES:
        # no native kernel there, and no host read of the region: gathers the compiler fuses (_resize_taps)
        return resized_crop_taps(dense, box, size, mode, antialias)
    # call_custom_op gives the op a leading unit dimension: a box per row gets it too.
    box = box.to(torch.int64).unsqueeze(0) if box.ndim == 2 else box.to(torch.int64)
    return call_custom_op(_resized_crop_box_op, dense, box, size, mode, antialias)


def _resized_crop_at_image(
    image: torch.Tensor, box: torch.Tensor, size: List[int], mode: InterpolationMode, antialias: Optional[bool]
) -> torch.Tensor:
    if image.ndim < 3:
        raise ValueError(f"resized_crop_at: expected an image [..., C, H, W], got {image.ndim} dimensions")
    return _resized_crop_box_call(image, box, size, mode.value, antialias is True)


for _kind in (Image, Video):
    register_kernel(resized_crop_at, _kind)(_resized_crop_at_image)


@register_kernel(resized_crop_at, Mask)
def _resized_crop_at_mask(mask: torch.Tensor, box: torch.Tensor, size: List[int], *args: Any) -> torch.Tensor:
    if mask.ndim < 2:
        raise ValueError(f"resized_crop_at: expected a mask [..., H, W], got {mask.ndim} dimensions")
    return _resized_crop_box_call(mask, box, size, "nearest", False)  # [H, W] becomes [1, H, W] inside


@register_kernel(resized_crop_at, PIL.Image.Image)
def _resized_crop_at_pil(image: PIL.Image.Image, box: torch.Tensor, size: List[int], mode: Any, _: Any) -> Any:
    top, left, height, width = (int(v) for v in box.tolist())
    return resized_crop_image_pil(image, top, left, height, width, size, interpolation=mode)


@register_kernel(resized_crop_at, BoundingBoxes, tv_tensor_wrapper=False)
def _resized_crop_at_bounding_boxes(inpt: torch.Tensor, box: torch.Tensor, size: List[int], *args: Any) -> Any:
    out = _crop_resize_boxes(unwrap(inpt), box_format_from(inpt.format), box, size, inpt.clamping_mode)
    return wrap(out, like=inpt, canvas_size=(size[0], size[1]))


@register_kernel(resized_crop_at, KeyPoints, tv_tensor_wrapper=False)
def _resized_crop_at_keypoints(inpt: torch.Tensor, box: torch.Tensor, size: List[int], *args: Any) -> Any:
    return wrap(_crop_resize_keypoints(unwrap(inpt), box, size), like=inpt, canvas_size=(size[0], size[1]))
