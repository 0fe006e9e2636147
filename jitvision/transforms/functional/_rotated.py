"""Rotated boxes: conversion between XYWHR, CXCYWHR and XYXYXYXY, the rectangle fitted to a moved box, clamping.

Geometry kernels move a rotated box by converting it to its four corners (XYXYXYXY), moving the corners, fitting
a rectangle to the moved quadrilateral (``fit_rectangle``), clamping it (``clamp_corners``) and converting back.
The arithmetic follows torchvision 0.29.1 operation by operation (same association and order), so float32 results
agree bit for bit where the same ATen ops run.

Angles are in degrees, counter-clockwise in image coordinates (y down): a box at angle r has its first side going
from the first corner by (w cos r, -w sin r).
"""

import math
from typing import List, Optional, Tuple

import torch


def _radians(degrees: torch.Tensor) -> torch.Tensor:
    return degrees.mul(math.pi).div(180.0)


def _work(boxes: torch.Tensor) -> torch.Tensor:
    """Integer boxes are converted in float32 (torchvision raises for most rotated conversions of integer boxes)."""
    return boxes if boxes.is_floating_point() else boxes.float()


def xywhr_to_cxcywhr(boxes: torch.Tensor) -> torch.Tensor:
    x, y, w, h, r = _work(boxes).unbind(-1)
    half_w, half_h = w.abs() / 2, h.abs() / 2
    rad = _radians(r)
    cos, sin = rad.cos(), rad.sin()
    cx = x + half_w * cos + half_h * sin
    cy = y - half_w * sin + half_h * cos
    return torch.stack([cx, cy, w, h, r], dim=-1).to(boxes.dtype)


def cxcywhr_to_xywhr(boxes: torch.Tensor) -> torch.Tensor:
    cx, cy, w, h, r = _work(boxes).unbind(-1)
    half_w, half_h = w.abs() / 2, h.abs() / 2
    rad = _radians(r)
    cos, sin = rad.cos(), rad.sin()
    x = cx - half_w * cos - half_h * sin
    y = cy + half_w * sin - half_h * cos
    return torch.stack([x, y, w, h, r], dim=-1).to(boxes.dtype)


def xywhr_to_corners(boxes: torch.Tensor) -> torch.Tensor:
    x, y, w, h, r = _work(boxes).unbind(-1)
    rad = _radians(r)
    cos, sin = rad.cos(), rad.sin()
    w_cos, w_sin, h_cos, h_sin = w * cos, w * sin, h * cos, h * sin
    corners = [x, y, x + w_cos, y - w_sin, x + (w_cos + h_sin), y - (w_sin - h_cos), x + h_sin, y + h_cos]
    return torch.stack(corners, dim=-1).to(boxes.dtype)


def corners_to_xywhr(boxes: torch.Tensor) -> torch.Tensor:
    work = boxes if boxes.dtype in (torch.float32, torch.float64) else boxes.float()
    x1, y1, x2, y2, x3, y3, _, _ = work.unbind(-1)
    angle = torch.atan2(y1 - y2, x2 - x1).div(math.pi).mul(180.0)
    dx12, dy12, dx23, dy23 = x2 - x1, y2 - y1, x3 - x2, y3 - y2
    w = dx12.pow(2).add(dy12.pow(2)).sqrt()
    h = dx23.pow(2).add(dy23.pow(2)).sqrt()
    return torch.stack([x1, y1, w, h, angle], dim=-1).to(boxes.dtype)


def convert_rotated(boxes: torch.Tensor, old: str, new: str) -> torch.Tensor:
    """Rotated boxes from format name ``old`` to ``new`` (both rotated), through XYWHR. Integer boxes are converted
    in float32 and truncated once at the end (torchvision raises for most of these conversions of integer boxes)."""
    work = _work(boxes)
    if old == "CXCYWHR":
        work = cxcywhr_to_xywhr(work)
    elif old == "XYXYXYXY":
        work = corners_to_xywhr(work)
    if new == "CXCYWHR":
        work = xywhr_to_cxcywhr(work)
    elif new == "XYXYXYXY":
        work = xywhr_to_corners(work)
    return work.to(boxes.dtype)


def fit_rectangle(quad: torch.Tensor) -> torch.Tensor:
    """The rectangle ``[..., 8]`` for a quadrilateral ``[..., 8]`` (a parallelogram after an affine map): it keeps
    the center and the direction of the longer side, as torchvision does."""
    work = quad if quad.dtype in (torch.float32, torch.float64) else quad.float()
    x1, y1, x2, y2, x3, y3, x4, y4 = work.unbind(-1)
    cx, cy = (x1 + x3) / 2, (y1 + y3) / 2
    side_12 = torch.sqrt((x2 - x1).pow(2) + (y2 - y1).pow(2))
    side_14 = torch.sqrt((x4 - x1).pow(2) + (y4 - y1).pow(2))
    angle_12 = torch.atan2(y1 - y2, x2 - x1)
    angle_14 = torch.atan2(y1 - y4, x4 - x1)
    between = angle_12 - angle_14
    sign = torch.where(between > math.pi / 2, -1.0, 1.0).to(work.dtype)
    cos, sin = between.cos(), between.sin()
    w = torch.where(side_12 < side_14, side_12 * sin, side_12 + side_14 * cos * sign)
    h = torch.where(side_12 > side_14, side_14 * sin, side_14 + side_12 * cos * sign)
    angle = torch.where(side_14 > side_12, angle_14 + math.pi / 2, angle_12)
    cos, sin = angle.cos(), angle.sin()
    hw_cos, hw_sin, hh_cos, hh_sin = w / 2 * cos, w / 2 * sin, h / 2 * cos, h / 2 * sin
    out = [
        cx - hw_cos - hh_sin,
        cy - hh_cos + hw_sin,
        cx + hw_cos - hh_sin,
        cy - hh_cos - hw_sin,
        cx + hw_cos + hh_sin,
        cy + hh_cos - hw_sin,
        cx - hw_cos + hh_sin,
        cy + hh_cos + hw_sin,
    ]
    return torch.stack(out, dim=-1).to(quad.dtype)


# ---- clamping ----------------------------------------------------------------------------------------------
# One pass clamps a box against the left edge x = 0, with its corners ordered so the first is the leftmost; the
# boxes are then turned a quarter (x, y) -> (y, W - x) and the next edge becomes the left one. Four passes visit
# the four edges and bring the boxes back. A pass works on the four side lines y = a x + b of the box: it moves
# the intercepts within [0, H] (and, for "hard", inward until every corner is on the canvas) and recomputes the
# corners as the intersections of consecutive sides.


def _lines(corners: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Slope and intercept ``[N, 4]`` of the sides (corner i to corner i + 1)."""
    x, y = corners[..., 0::2], corners[..., 1::2]
    next_x = torch.cat([x[..., 1:], x[..., :1]], dim=-1)
    next_y = torch.cat([y[..., 1:], y[..., :1]], dim=-1)
    slope = (next_y - y) / (next_x - x)
    return slope, y - slope * x


def _corners_of(slope: torch.Tensor, intercept: torch.Tensor) -> torch.Tensor:
    """Corner i as the intersection of side i - 1 and side i, ``[N, 8]``."""
    prev_slope = torch.cat([slope[..., 3:], slope[..., :3]], dim=-1)
    prev_intercept = torch.cat([intercept[..., 3:], intercept[..., :3]], dim=-1)
    x = (intercept - prev_intercept).neg() / (slope - prev_slope)
    y = slope * x + intercept
    return torch.stack([x, y], dim=-1).reshape(slope.shape[0], 8)


def _clamp_intercepts(
    corners: torch.Tensor, original: torch.Tensor, height: torch.Tensor, width: torch.Tensor, hard: bool
) -> torch.Tensor:
    a, b = _lines(corners)
    a1, a2, a3, a4 = a.unbind(-1)
    b1, b2, b3, b4 = b.unbind(-1)
    b1m, b2m, b3m, b4m = _lines(original)[1].unbind(-1)
    zero = torch.zeros_like(height)
    new_b1 = torch.clamp(torch.clamp(b2, b1, b3), zero, height)
    new_b4 = torch.clamp(torch.clamp(b3, b2, b4), zero, height)
    new_b2, new_b3 = b2, b3
    if hard:
        middle = (new_b1 + new_b4) / 2
        candidates_2 = torch.stack(
            [middle * a2 / a1, b3 * a2 / a3, (a1 - a2) * width + middle, (a3 - a2) * width + b3], dim=1
        )
        new_b2 = candidates_2.max(dim=1)[0].clamp(max=b2)
        candidates_3 = torch.stack(
            [
                height * (1 - a3 / a4) + middle * a3 / a4,
                height * (1 - a3 / a2) + new_b2 * a3 / a2,
                (a2 - a3) * width + new_b2,
                (a4 - a3) * width + middle,
            ],
            dim=1,
        )
        new_b3 = candidates_3.min(dim=1)[0].clamp(min=b3)
        # The first and last sides share one intercept: both clamps apply to it.
        new_b1 = torch.clamp(torch.clamp(middle, b1m, b3m), b2m, b4m)
        new_b4 = new_b1
    else:
        new_b1 = torch.clamp(new_b1, b1m, b3m)
        new_b4 = torch.clamp(new_b4, b2m, b4m)
    new_b3 = torch.clamp(new_b3, b1m, b3m)
    new_b2 = torch.clamp(new_b2, b2m, b4m)
    return torch.stack([new_b1, new_b2, new_b3, new_b4], dim=-1)


def _clamp_left_edge(
    corners: torch.Tensor, original: torch.Tensor, height: torch.Tensor, width: torch.Tensor, hard: bool
) -> torch.Tensor:
    slope = _lines(corners)[0]
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    intercepts = _clamp_intercepts(corners, original, height, width, hard)
    moved = _corners_of(slope, intercepts)
    shifted = corners.clone()
    shifted[:, 0] = shifted[:, 0].clamp(min=0)
    shifted[:, 6] = shifted[:, 6].clamp(min=0)
    use_moved = (x1 < 0) & ~moved.isnan().any(-1)
    flat_side = y1.isclose(y2) | y3.isclose(y4)
    collapse = (x1 <= 0) & (x2 <= 0) & (x3 <= 0) & (x4 <= 0)
    collapse = collapse | y1.isclose(y4) | y2.isclose(y3) | (flat_side & x1.isclose(x2))
    out = torch.where(use_moved.unsqueeze(1), moved, corners)
    out = torch.where(flat_side.unsqueeze(1), shifted, out)
    return torch.where(collapse.unsqueeze(1), torch.zeros_like(out), out)


def _leftmost_first(corners: torch.Tensor) -> torch.Tensor:
    """Gather indices ``[N, 8]`` that rotate the corner order so the leftmost corner (then the topmost) is first."""
    x, y = corners[..., 0::2], corners[..., 1::2]
    y_scale = y.abs().max(dim=1, keepdim=True)[0]
    x_scale = x.abs().max(dim=1, keepdim=True)[0]
    first = (y / y_scale + (x / x_scale) * 100).min(dim=1)[1]
    steps = torch.arange(8, device=corners.device).unsqueeze(0)
    return (first.unsqueeze(1) * 2 + steps).remainder(8)


def _quarter_turn(corners: torch.Tensor, width: torch.Tensor) -> torch.Tensor:
    x, y = corners[:, 0::2], corners[:, 1::2]
    return torch.stack([y, width.reshape(-1, 1) - x], dim=-1).reshape(corners.shape)


def clamp_corners(corners: torch.Tensor, canvas_size: List[int], clamping_mode: Optional[str]) -> torch.Tensor:
    """XYXYXYXY boxes ``[..., 8]`` clamped to the canvas. "soft": the smallest box of the same angle around the
    part of the box on the canvas (corners may stay outside); "hard": a box of the same angle inside the box and
    the canvas; None: unchanged. Computed in the input's float dtype (float32 for integers)."""
    work = _work(corners)
    canvas = torch.tensor([canvas_size[0], canvas_size[1]], dtype=work.dtype, device=corners.device)
    return clamp_corners_to(corners, canvas, clamping_mode)


def clamp_corners_to(corners: torch.Tensor, canvas: torch.Tensor, clamping_mode: Optional[str]) -> torch.Tensor:
    """``clamp_corners`` with the canvas as a tensor ``[2]`` (height, width), or ``[N, 2]``: one canvas per box
    (a random crop's, under tracing or on a batch)."""
    if clamping_mode is None:
        return corners.clone()
    hard = clamping_mode == "hard"
    shape = corners.shape
    out = _work(corners).reshape(-1, 8)
    original = out.clone()
    canvas = canvas.to(out.dtype).reshape(-1, 2)
    height, width = canvas[:, 0], canvas[:, 1]
    for _ in range(4):
        order = _leftmost_first(out)
        out = out.gather(1, order)
        original = original.gather(1, order)
        out = _clamp_left_edge(out, original, height, width, hard)
        out = out.gather(1, order)
        original = original.gather(1, order)
        out = _quarter_turn(out, width)
        original = _quarter_turn(original, width)
        height, width = width, height
    return out.reshape(shape).to(corners.dtype)
