"""Metadata kernels: sizes, bounding box format conversion, clamping to the canvas."""

from typing import Any, List, Optional

import PIL.Image
import torch

from ...tv_tensors import BoundingBoxes, BoundingBoxFormat, KeyPoints, box_format_from, kind_of, wrap
from ._dispatch import get_kernel, is_pure_tensor, register_kernel, unwrap
from ._rotated import clamp_corners, convert_rotated, fit_rectangle


def get_canvas_size(inpt: torch.Tensor) -> List[int]:
    """[height, width] of the canvas of a BoundingBoxes/KeyPoints (ours or torchvision's)."""
    canvas_size = getattr(inpt, "canvas_size", None)
    if canvas_size is None:
        raise ValueError(f"{type(inpt).__name__} has no canvas_size: boxes and keypoints need one")
    return [int(canvas_size[0]), int(canvas_size[1])]


def as_box_format(format: BoundingBoxFormat, op: str) -> BoundingBoxFormat:
    """``format`` as our enum. Eager callers may pass a string (any case) or torchvision's enum, as torchvision
    allows; compared with our enum as they are, they would silently select the wrong formula."""
    if torch.jit.is_scripting():
        return format
    return _eager_box_format(format, op)


@torch.jit.unused
def _eager_box_format(format: Any, op: str) -> BoundingBoxFormat:
    return box_format_from(format, op)


def get_size_image(image: torch.Tensor) -> List[int]:
    if image.ndim < 2:
        raise ValueError(f"get_size: expected an image with at least 2 dimensions, got {image.ndim}")
    return [image.shape[-2], image.shape[-1]]


def get_size(inpt: torch.Tensor) -> List[int]:
    """[height, width] of an image, video, mask, PIL image, or the canvas of boxes/keypoints."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return get_size_image(inpt)
    if isinstance(inpt, PIL.Image.Image):
        return [inpt.height, inpt.width]
    if kind_of(type(inpt)) in (BoundingBoxes, KeyPoints):
        return get_canvas_size(inpt)
    if isinstance(inpt, torch.Tensor):
        return get_size_image(inpt)
    raise TypeError(f"get_size: unsupported input type {type(inpt)}")


def _check_last_dim(tensor: torch.Tensor, size: int, op: str) -> None:
    if tensor.ndim < 1 or tensor.shape[-1] != size:
        raise ValueError(f"{op}: expected a tensor [..., {size}], got shape {list(tensor.shape)}")


def is_rotated_format(format: BoundingBoxFormat) -> bool:
    """Whether ``format`` is XYWHR, CXCYWHR or XYXYXYXY (TorchScript-able; ``tv_tensors.is_rotated_bounding_format``
    is the public, Python-only form)."""
    rotated = format == BoundingBoxFormat.XYWHR or format == BoundingBoxFormat.CXCYWHR
    return rotated or format == BoundingBoxFormat.XYXYXYXY


def format_width(format: BoundingBoxFormat) -> int:
    """How many numbers a box has in ``format``."""
    if format == BoundingBoxFormat.XYXYXYXY:
        return 8
    if format == BoundingBoxFormat.XYWHR or format == BoundingBoxFormat.CXCYWHR:
        return 5
    return 4


def check_boxes(boxes: torch.Tensor, format: BoundingBoxFormat, op: str) -> None:
    """``boxes`` must end in the format's width (4, 5 or 8)."""
    width = format_width(format)
    if boxes.ndim < 1 or boxes.shape[-1] != width:
        raise ValueError(f"{op}: boxes in format {format.value} must be [..., {width}], got shape {list(boxes.shape)}")


def convert_bounding_box_format_kernel(
    boxes: torch.Tensor, old_format: BoundingBoxFormat, new_format: BoundingBoxFormat, inplace: bool = False
) -> torch.Tensor:
    """Boxes from one layout to another: a new tensor, or with ``inplace`` the input itself, overwritten (where
    both formats have as many numbers per box; to and from XYXYXYXY a new tensor). Axis-aligned and rotated
    formats do not convert into each other."""
    if old_format == new_format:
        return boxes if inplace else boxes.clone()
    out = _converted(boxes, old_format, new_format)
    if inplace and out.shape == boxes.shape:
        return boxes.copy_(out)
    return out


def _converted(boxes: torch.Tensor, old_format: BoundingBoxFormat, new_format: BoundingBoxFormat) -> torch.Tensor:
    """``boxes`` in ``new_format``, always a new tensor."""
    check_boxes(boxes, old_format, "convert_bounding_box_format")
    if is_rotated_format(old_format) != is_rotated_format(new_format):
        raise ValueError(
            f"convert_bounding_box_format: cannot convert between rotated and axis-aligned formats "
            f"({old_format.value} -> {new_format.value})"
        )
    if is_rotated_format(old_format):
        return convert_rotated(boxes, old_format.value, new_format.value)
    a, b, c, d = boxes.unbind(-1)
    if old_format == BoundingBoxFormat.XYWH:
        x1, y1, x2, y2 = a, b, a + c, b + d
    elif old_format == BoundingBoxFormat.CXCYWH:
        if boxes.is_floating_point():
            half_w, half_h = c / 2, d / 2
            x1, y1, x2, y2 = a - half_w, b - half_h, a - half_w + c, b - half_h + d
        else:
            # As torchvision: integer boxes go through floats and each corner is truncated toward zero, so
            # cx=5, w=3 gives x1=3, x2=6 and cx=-5, w=3 gives x1=-6, x2=-3 (float64: exact for any int32 box).
            cx, cy, half_w, half_h = a.double(), b.double(), c.double() / 2, d.double() / 2
            x1, y1 = (cx - half_w).trunc(), (cy - half_h).trunc()
            x2, y2 = (cx + half_w).trunc(), (cy + half_h).trunc()
    else:
        x1, y1, x2, y2 = a, b, c, d
    if new_format == BoundingBoxFormat.XYWH:
        out = [x1, y1, x2 - x1, y2 - y1]
    elif new_format == BoundingBoxFormat.CXCYWH:
        w, h = x2 - x1, y2 - y1
        if boxes.is_floating_point():
            out = [x1 + w / 2, y1 + h / 2, w, h]
        else:
            out = [
                x1 + torch.div(w, 2, rounding_mode="floor"),
                y1 + torch.div(h, 2, rounding_mode="floor"),
                w,
                h,
            ]
    else:
        out = [x1, y1, x2, y2]
    return torch.stack(out, dim=-1).to(boxes.dtype)


def rotated_corners(boxes: torch.Tensor, format: BoundingBoxFormat) -> torch.Tensor:
    """Rotated boxes as their corners ``[-1, 8]`` (XYXYXYXY), in the boxes' float dtype (float32 for integers)."""
    work = boxes if boxes.is_floating_point() else boxes.float()
    return convert_bounding_box_format_kernel(work, format, BoundingBoxFormat.XYXYXYXY).reshape(-1, 8)


def finish_rotated(
    quad: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    clamping_mode: Optional[str],
    like: torch.Tensor,
    fit: bool = True,
) -> torch.Tensor:
    """Moved corners ``[-1, 8]`` back to boxes like ``like``: the rectangle fitted to them (``fit``), clamped to
    ``canvas_size`` per ``clamping_mode``, in ``format``, ``like``'s shape and dtype."""
    if fit:
        quad = fit_rectangle(quad)
    quad = clamp_corners(quad, canvas_size, clamping_mode)
    out = convert_bounding_box_format_kernel(quad, BoundingBoxFormat.XYXYXYXY, format)
    return out.reshape(like.shape).to(like.dtype)


def convert_bounding_box_format(
    inpt: torch.Tensor,
    old_format: Optional[BoundingBoxFormat] = None,
    new_format: Optional[BoundingBoxFormat] = None,
    inplace: bool = False,
) -> torch.Tensor:
    """Convert boxes between XYXY, XYWH and CXCYWH, or between XYWHR, CXCYWHR and XYXYXYXY. Plain tensors need
    ``old_format``. Integer rotated boxes are converted in float32 and truncated (torchvision raises for most of
    those conversions)."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format() missing 1 required argument: 'new_format'")
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        if old_format is None:
            raise ValueError(
                "convert_bounding_box_format: plain tensors need old_format (`old_format` has to be passed)"
            )
        op = "convert_bounding_box_format"
        old, new = as_box_format(old_format, op), as_box_format(new_format, op)
        if old == new:  # the input itself, as torchvision returns it
            return inpt
        return convert_bounding_box_format_kernel(inpt, old, new, inplace)
    if kind_of(type(inpt)) is not BoundingBoxes:
        raise TypeError(f"convert_bounding_box_format: expected BoundingBoxes, got {type(inpt)}")
    if old_format is not None:
        raise ValueError("convert_bounding_box_format: `old_format` must not be passed with BoundingBoxes")
    new = box_format_from(new_format, "convert_bounding_box_format")
    if new == box_format_from(inpt.format):
        return inpt
    out = convert_bounding_box_format_kernel(unwrap(inpt), box_format_from(inpt.format), new, inplace)
    return wrap(out, like=inpt, format=new)


# torchvision's private per-pair helpers (``functional._meta._xywh_to_xyxy`` ...), which user code imports: each
# ``(boxes, inplace) -> boxes`` in the named formats, the input overwritten when ``inplace``.


def _xywh_to_xyxy(xywh: torch.Tensor, inplace: bool) -> torch.Tensor:
    return convert_bounding_box_format_kernel(xywh, BoundingBoxFormat.XYWH, BoundingBoxFormat.XYXY, inplace)


def _xyxy_to_xywh(xyxy: torch.Tensor, inplace: bool) -> torch.Tensor:
    return convert_bounding_box_format_kernel(xyxy, BoundingBoxFormat.XYXY, BoundingBoxFormat.XYWH, inplace)


def _cxcywh_to_xyxy(cxcywh: torch.Tensor, inplace: bool) -> torch.Tensor:
    return convert_bounding_box_format_kernel(cxcywh, BoundingBoxFormat.CXCYWH, BoundingBoxFormat.XYXY, inplace)


def _xyxy_to_cxcywh(xyxy: torch.Tensor, inplace: bool) -> torch.Tensor:
    return convert_bounding_box_format_kernel(xyxy, BoundingBoxFormat.XYXY, BoundingBoxFormat.CXCYWH, inplace)


def _xywh_to_cxcywh(xywh: torch.Tensor, inplace: bool) -> torch.Tensor:
    return convert_bounding_box_format_kernel(xywh, BoundingBoxFormat.XYWH, BoundingBoxFormat.CXCYWH, inplace)


def _cxcywh_to_xywh(cxcywh: torch.Tensor, inplace: bool) -> torch.Tensor:
    return convert_bounding_box_format_kernel(cxcywh, BoundingBoxFormat.CXCYWH, BoundingBoxFormat.XYWH, inplace)


def clamp_bounding_boxes_kernel(
    boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    clamping_mode: Optional[str] = "soft",
) -> torch.Tensor:
    """Boxes clipped to the canvas (computed in XYXY, or for rotated formats in XYXYXYXY with torchvision's "soft"
    and "hard" rules; returned in ``format`` and the input dtype)."""
    if clamping_mode is None:
        return boxes.clone()
    check_boxes(boxes, format, "clamp_bounding_boxes")
    if is_rotated_format(format):
        corners = convert_bounding_box_format_kernel(boxes, format, BoundingBoxFormat.XYXYXYXY)
        clamped = clamp_corners(corners, canvas_size, clamping_mode)
        return convert_bounding_box_format_kernel(clamped, BoundingBoxFormat.XYXYXYXY, format)
    xyxy = convert_bounding_box_format_kernel(boxes.float(), format, BoundingBoxFormat.XYXY)
    limits = torch.tensor(
        [canvas_size[1], canvas_size[0], canvas_size[1], canvas_size[0]], dtype=xyxy.dtype, device=xyxy.device
    )
    clamped = torch.minimum(xyxy.clamp(min=0), limits)
    return convert_bounding_box_format_kernel(clamped, BoundingBoxFormat.XYXY, format).to(boxes.dtype)


def clamp_bounding_boxes(
    inpt: torch.Tensor,
    format: Optional[BoundingBoxFormat] = None,
    canvas_size: Optional[List[int]] = None,
    clamping_mode: Optional[str] = "auto",
) -> torch.Tensor:
    """Clip boxes to their canvas. Plain tensors need ``format``, ``canvas_size`` and a clamping mode."""
    _check_clamping_mode(clamping_mode)
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        if format is None or canvas_size is None or (clamping_mode is not None and clamping_mode == "auto"):
            raise ValueError(
                "clamp_bounding_boxes: plain tensors need format, canvas_size and clamping_mode (For pure tensor "
                "inputs, `format`, `canvas_size` and `clamping_mode` have to be passed.)"
            )
        box_format = as_box_format(format, "clamp_bounding_boxes")
        return clamp_bounding_boxes_kernel(inpt, box_format, canvas_size, clamping_mode)
    if format is not None or canvas_size is not None:
        raise ValueError(
            "clamp_bounding_boxes: For bounding box tv_tensor inputs, `format` and `canvas_size` must not be passed."
        )
    return get_kernel(clamp_bounding_boxes, type(inpt))(inpt, clamping_mode=clamping_mode)


def _check_clamping_mode(clamping_mode: Optional[str], op: str = "clamp_bounding_boxes") -> None:
    if clamping_mode is not None and clamping_mode not in ["soft", "hard", "auto"]:
        raise ValueError(op + ": clamping_mode must be soft, hard, auto or None, got '" + clamping_mode + "'")


@register_kernel(clamp_bounding_boxes, BoundingBoxes, tv_tensor_wrapper=False)
def _clamp_bounding_boxes_dispatch(inpt: torch.Tensor, clamping_mode: Optional[str] = "auto") -> torch.Tensor:
    mode = inpt.clamping_mode if clamping_mode == "auto" else clamping_mode
    out = clamp_bounding_boxes_kernel(unwrap(inpt), box_format_from(inpt.format), get_canvas_size(inpt), mode)
    return wrap(out, like=inpt)


def clamp_keypoints_kernel(keypoints: torch.Tensor, canvas_size: List[int]) -> torch.Tensor:
    """Keypoints clipped to pixel indices of the canvas: x in [0, W - 1], y in [0, H - 1]."""
    _check_last_dim(keypoints, 2, "clamp_keypoints")
    limits = torch.tensor([canvas_size[1] - 1, canvas_size[0] - 1], dtype=torch.float32, device=keypoints.device)
    return torch.minimum(keypoints.float().clamp(min=0), limits).to(keypoints.dtype)


def clamp_keypoints(inpt: torch.Tensor, canvas_size: Optional[List[int]] = None) -> torch.Tensor:
    """Clip keypoints to their canvas. Plain tensors need ``canvas_size``."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        if canvas_size is None:
            raise ValueError("clamp_keypoints: plain tensors need canvas_size (`canvas_size` has to be passed)")
        return clamp_keypoints_kernel(inpt, canvas_size)
    if canvas_size is not None:
        raise ValueError("clamp_keypoints: `canvas_size` must not be passed with KeyPoints")
    return get_kernel(clamp_keypoints, type(inpt))(inpt)


@register_kernel(clamp_keypoints, KeyPoints, tv_tensor_wrapper=False)
def _clamp_keypoints_dispatch(inpt: torch.Tensor) -> torch.Tensor:
    return wrap(clamp_keypoints_kernel(unwrap(inpt), get_canvas_size(inpt)), like=inpt)
