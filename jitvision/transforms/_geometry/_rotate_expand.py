"""RandomRotation(expand=True) under torch.compile/export: the output size follows the drawn angle in one graph.

Eager code reads the angle back and calls ``F.rotate`` (torchvision's sizes: ``expanded_size`` for images and
masks, ``_points_expanded_canvas`` for the canvas of boxes and keypoints, which can differ from the image's by a
pixel, as in torchvision: the image turns about its centre by the angle modulo 360, the points about the absolute
centre by the angle itself). Traced, the same float32 arithmetic runs on the angle tensor and the sizes reach the
kernels through
``_drawn.ints_of``: unbacked symbolic sizes, one graph, no recompiles as the angle changes. The sizes are read once
per call (memoised in the params), so the image and its masks share one pair of symbols, the boxes and keypoints
another.
"""

from typing import Any, Dict, List, Optional

import torch

from ...tv_tensors import box_format_from, wrap
from .._drawn import check_positive, ints_of
from ..functional._dispatch import is_pure_tensor, unwrap
from ..functional._geometry._affine_matrix import (
    affine_bounding_boxes_matrix,
    affine_keypoints_matrix,
    corner_shift,
    warp_affine_image,
)
from ..functional._meta import get_canvas_size

_DEG = 0.017453292519943295  # math.radians' factor (pi / 180), as torch.deg2rad's

IMAGE_SIZE = "expanded_size"  # params keys of the drawn [height, width] pairs
CANVAS_SIZE = "expanded_canvas"


def _expanded_extent(angle: torch.Tensor, center: List[float], height: int, width: int) -> torch.Tensor:
    """``[height, width]`` (int64) of the bounding box of a ``height`` x ``width`` canvas turned by ``angle`` degrees
    (a 0-d tensor) about ``center``, as eager code computes it: the inverse matrix in float64 with torchvision's
    association of the translation terms, the corners (``+-half`` the size) moved in float32 by a matmul, each
    bound truncated to a multiple of 1e-4 before the ceil/floor."""
    rot = -angle.double() * _DEG
    cos, sin = torch.cos(rot), torch.sin(rot)
    cx, cy = center[0], center[1]
    m = torch.stack([cos, sin, (cos * -cx + sin * -cy) + cx, -sin, cos, (-sin * -cx + cos * -cy) + cy])
    half_w, half_h = 0.5 * width, 0.5 * height
    signs = torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]], device=angle.device)
    halves = torch.stack([torch.full_like(rot, half_w), torch.full_like(rot, half_h)]).to(torch.float32)
    corners = torch.cat([signs * halves, torch.ones(4, 1, device=angle.device)], dim=1)
    moved = torch.matmul(corners, m.to(torch.float32).reshape(2, 3).t())
    low, high = torch.aminmax(moved, dim=0)
    high = ((high + halves) * (1.0 / 1e-4)).trunc() * 1e-4
    low = ((low + halves) * (1.0 / 1e-4)).trunc() * 1e-4
    size = high.ceil() - low.floor()  # [width, height]
    return torch.stack([size[1], size[0]]).to(torch.int64)


def expanded_image_size(angle: torch.Tensor, centred: List[float], height: int, width: int) -> torch.Tensor:
    """``[height, width]`` of an image rotated by ``angle`` (already ``% 360``) with ``expand``: eager's
    ``expanded_size(rotation_inverse_list(angle, centred), width, height)`` on a tensor angle (``centred``: the
    centre relative to the image's centre)."""
    return _expanded_extent(angle, centred, height, width)


def expanded_canvas(angle: torch.Tensor, center: List[float], canvas_size: List[int]) -> torch.Tensor:
    """``[height, width]`` of the canvas of boxes/keypoints rotated by ``angle`` with ``expand``: eager's
    ``_points_expanded_canvas(angle, center, canvas_size)`` on a tensor angle (``center`` absolute, the angle not
    reduced modulo 360, as there)."""
    return _expanded_extent(angle, center, canvas_size[0], canvas_size[1])


def _memo(params: Dict[str, Any], key: str, compute: Any) -> List[int]:
    """The drawn ints under ``key``, computed on the first leaf that needs them (``ints_of`` memoises the read)."""
    if key not in params:
        params[key] = compute()
    sizes = ints_of(params, key)
    check_positive(sizes)
    return sizes


def traced_expanded(rotation: Any, inpt: Any, kind: str, params: Dict[str, Any], mode: str, fill: Any) -> Any:
    """One leaf of RandomRotation(expand=True) under the compiler (``kind`` from ``_affine._leaf_kind``)."""
    angle: torch.Tensor = params["angle"]
    center: Optional[List[float]] = rotation._center
    if kind == "image" or kind == "mask":
        plain = inpt if is_pure_tensor(inpt) else unwrap(inpt)
        squeeze = kind == "mask" and plain.ndim < 3
        image = plain.unsqueeze(0) if squeeze else plain
        height, width = image.shape[-2], image.shape[-1]
        centred = [0.0, 0.0] if center is None else [center[0] - 0.5 * width, center[1] - 0.5 * height]
        turned = angle.double() % 360.0  # F.rotate's angle % 360 for images
        out_h, out_w = _memo(params, IMAGE_SIZE, lambda: expanded_image_size(turned, centred, height, width))
        inverse = rotation._matrix(turned, centred, True)
        out = warp_affine_image(image, inverse, out_h, out_w, mode, fill, "RandomRotation")
        out = out.squeeze(0) if squeeze else out
        return out if is_pure_tensor(inpt) else wrap(out, like=inpt)
    canvas = get_canvas_size(inpt)
    absolute = center if center is not None else [canvas[1] * 0.5, canvas[0] * 0.5]
    plain = unwrap(inpt)
    forward = rotation._matrix(angle, absolute, False)
    shift = corner_shift(forward, canvas)
    if plain.numel() == 0:  # as F.rotate: no boxes or points keep their canvas
        new_canvas = [canvas[0], canvas[1]]
    else:
        new_canvas = _memo(params, CANVAS_SIZE, lambda: expanded_canvas(angle, absolute, canvas))
    if kind == "boxes":
        format = box_format_from(inpt.format)
        out = affine_bounding_boxes_matrix(
            plain, format, new_canvas, forward, inpt.clamping_mode, shift, "RandomRotation"
        )
    else:
        out = affine_keypoints_matrix(plain, forward, shift)
    return wrap(out, like=inpt, canvas_size=(new_canvas[0], new_canvas[1]))
