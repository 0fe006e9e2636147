"""sanitize_bounding_boxes and sanitize_keypoints: drop degenerate boxes and points that left the canvas.

Each returns the kept rows and the boolean mask of kept rows. The mask is plain tensor arithmetic; the kept rows
are ``rows[valid]``, whose number depends on the data: under ``torch.compile`` and ``torch.export`` that is an
unbacked symbolic size, one graph with no recompiles as the count changes.
"""

from typing import List, Optional, Tuple

import torch

from ...tv_tensors import BoundingBoxes, BoundingBoxFormat, KeyPoints, box_format_from, kind_of, wrap
from ._dispatch import is_pure_tensor, unwrap
from ._meta import as_box_format, check_boxes, convert_bounding_box_format_kernel, get_canvas_size, is_rotated_format


def sanitize_bounding_boxes_mask(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    min_size: float = 1.0,
    min_area: float = 1.0,
) -> torch.Tensor:
    """Which boxes ``[N, K]`` to keep: width and height at least ``min_size``, area at least ``min_area``, and
    every corner on the canvas (0 <= x <= width, 0 <= y <= height). Rotated boxes follow torchvision's rules
    for them (``_rotated_mask``)."""
    check_boxes(bounding_boxes, format, "sanitize_bounding_boxes")
    if is_rotated_format(format):
        return _rotated_mask(bounding_boxes, format, canvas_size, min_size, min_area)
    # Converted in the boxes' own dtype first: integer CXCYWH boxes round their corners as torchvision does.
    xyxy = convert_bounding_box_format_kernel(bounding_boxes, format, BoundingBoxFormat.XYXY).float()
    widths, heights = xyxy[..., 2] - xyxy[..., 0], xyxy[..., 3] - xyxy[..., 1]
    valid = (widths >= min_size) & (heights >= min_size) & (widths * heights >= min_area)
    inside = (xyxy[..., 0] >= 0) & (xyxy[..., 1] >= 0) & (xyxy[..., 2] <= canvas_size[1])
    return valid & inside & (xyxy[..., 3] <= canvas_size[0])


def _rotated_mask(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    min_size: float,
    min_area: float,
) -> torch.Tensor:
    # torchvision 0.29.1's rules for rotated boxes, on the corners: the first side's length is the width; the
    # "height" it measures is the distance between (y2, x3) and (y3, x4) (its index pattern, kept for parity);
    # every coordinate must be >= 0, every x <= W and every y <= H.
    c = convert_bounding_box_format_kernel(bounding_boxes, format, BoundingBoxFormat.XYXYXYXY)
    widths = torch.sqrt((c[..., 0] - c[..., 2]).pow(2) + (c[..., 1] - c[..., 3]).pow(2))
    heights = torch.sqrt((c[..., 3] - c[..., 5]).pow(2) + (c[..., 4] - c[..., 6]).pow(2))
    valid = (widths >= min_size) & (heights >= min_size) & (c >= 0).all(dim=-1) & (widths * heights >= min_area)
    inside_x = (c[..., 0::2] <= canvas_size[1]).all(dim=-1)
    inside_y = (c[..., 1::2] <= canvas_size[0]).all(dim=-1)
    return valid & inside_x & inside_y


def sanitize_keypoints_mask(keypoints: torch.Tensor, canvas_size: List[int]) -> torch.Tensor:
    """Which rows of ``[N, ..., 2]`` keypoints to keep: every point of the row inside the canvas
    (0 <= x < width, 0 <= y < height)."""
    x, y = keypoints[..., 0], keypoints[..., 1]
    inside = (x >= 0) & (x < canvas_size[1]) & (y >= 0) & (y < canvas_size[0])
    return inside.reshape(keypoints.shape[0], -1).all(dim=-1) if keypoints.ndim > 2 else inside


def _check_metadata(inpt: torch.Tensor, given: bool, op: str, what: str, arg: str) -> None:
    # torchvision's wording ("canvas_size cannot be None if ... is a pure tensor"), which callers match on
    if is_pure_tensor(inpt) and not given:
        raise ValueError(
            f"{op}: canvas_size cannot be None if {arg} is a pure tensor: plain tensors need {what} (or pass a "
            "tv_tensor that carries them)"
        )
    if not is_pure_tensor(inpt) and given:
        raise ValueError(
            f"{op}: canvas_size must be None when {arg} is a tv_tensors instance: {what} must be left to None, it "
            "carries its own"
        )


def sanitize_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: Optional[BoundingBoxFormat] = None,
    canvas_size: Optional[List[int]] = None,
    min_size: float = 1.0,
    min_area: float = 1.0,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """``(kept boxes, kept mask)``: boxes smaller than ``min_size`` on a side or ``min_area`` in area, or with a
    corner off the canvas, are dropped. Plain tensors need ``format`` and ``canvas_size``; ``BoundingBoxes`` must
    not be given them."""
    op = "sanitize_bounding_boxes"
    if not torch.jit.is_scripting():
        if not isinstance(bounding_boxes, torch.Tensor) or (
            not is_pure_tensor(bounding_boxes) and kind_of(type(bounding_boxes)) is not BoundingBoxes
        ):
            raise ValueError(
                f"{op}: bounding_boxes must be a tv_tensors.BoundingBoxes instance or a pure tensor, got "
                f"{type(bounding_boxes).__name__}"
            )
        given = format is not None and canvas_size is not None
        if not is_pure_tensor(bounding_boxes):
            given = format is not None or canvas_size is not None
        _check_metadata(bounding_boxes, given, op, "format and canvas_size", "bounding_boxes")
        if not is_pure_tensor(bounding_boxes):
            valid = sanitize_bounding_boxes_mask(
                unwrap(bounding_boxes), box_format_from(bounding_boxes.format), get_canvas_size(bounding_boxes),
                min_size, min_area,
            )
            return wrap(unwrap(bounding_boxes)[valid], like=bounding_boxes), valid
    if format is None or canvas_size is None:
        raise ValueError(f"{op}: plain tensors need format and canvas_size")
    valid = sanitize_bounding_boxes_mask(
        bounding_boxes, as_box_format(format, op), [canvas_size[0], canvas_size[1]], min_size, min_area
    )
    return bounding_boxes[valid], valid


def sanitize_keypoints(
    key_points: torch.Tensor, canvas_size: Optional[List[int]] = None
) -> Tuple[torch.Tensor, torch.Tensor]:
    """``(kept keypoints, kept mask)``: rows with a point off the canvas are dropped. Plain tensors need
    ``canvas_size``; ``KeyPoints`` must not be given it."""
    op = "sanitize_keypoints"
    if not torch.jit.is_scripting():
        if not isinstance(key_points, torch.Tensor) or (
            not is_pure_tensor(key_points) and kind_of(type(key_points)) is not KeyPoints
        ):
            raise TypeError(f"{op}: expected a tensor or KeyPoints, got {type(key_points).__name__}")
        _check_metadata(key_points, canvas_size is not None, op, "canvas_size", "key_points")
        if not is_pure_tensor(key_points):
            valid = sanitize_keypoints_mask(unwrap(key_points), get_canvas_size(key_points))
            return wrap(unwrap(key_points)[valid], like=key_points), valid
    if canvas_size is None:
        raise ValueError(f"{op}: plain tensors need canvas_size")
    if key_points.ndim < 2 or key_points.shape[-1] != 2:
        raise ValueError(f"{op}: expected keypoints [N, ..., 2], got shape {list(key_points.shape)}")
    valid = sanitize_keypoints_mask(key_points, [canvas_size[0], canvas_size[1]])
    return key_points[valid], valid
