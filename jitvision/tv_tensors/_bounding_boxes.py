"""BoundingBoxes and KeyPoints: coordinates that live on a canvas of a known size."""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional, Sequence

import torch

from ._tv_tensor import TVTensor


class BoundingBoxFormat(Enum):
    """How the four numbers of a box are laid out.

    Axis-aligned (four numbers): ``XYXY``: top-left and bottom-right corners; ``XYWH``: top-left corner, width,
    height; ``CXCYWH``: center, width, height.
    Rotated: ``XYWHR`` (five numbers): first corner, width, height, and the angle in degrees, counter-clockwise, of
    the side from the first corner to the second; ``CXCYWHR``: the same about the center; ``XYXYXYXY`` (eight
    numbers): the four corners in order.
    """

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"
    XYWHR = "XYWHR"
    CXCYWHR = "CXCYWHR"
    XYXYXYXY = "XYXYXYXY"


# What ``BoundingBoxes.clamping_mode`` holds: "soft", "hard" or None (torchvision's alias of the same name).
CLAMPING_MODE_TYPE = Optional[str]

_ROTATED_NAMES = ("XYWHR", "CXCYWHR", "XYXYXYXY")
_WIDTHS = {"XYXY": 4, "XYWH": 4, "CXCYWH": 4, "XYWHR": 5, "CXCYWHR": 5, "XYXYXYXY": 8}


def is_rotated_bounding_format(format: Any) -> bool:
    """Whether ``format`` (our enum, torchvision's, or a string, compared as given like torchvision) is one of
    the rotated formats."""
    if isinstance(format, str):
        return format in _ROTATED_NAMES
    name = getattr(format, "name", None)
    if not isinstance(name, str) or not isinstance(format, Enum):
        raise ValueError(f"is_rotated_bounding_format: format should be a str or BoundingBoxFormat, got {type(format)}")
    return name in _ROTATED_NAMES


def box_width(format: BoundingBoxFormat) -> int:
    """How many numbers one box has in ``format``: 4, 5 or 8."""
    return _WIDTHS[format.name]


def _canvas_size(canvas_size: Any, owner: str) -> tuple[int, int]:
    if not isinstance(canvas_size, Sequence) or len(canvas_size) != 2:
        raise ValueError(f"{owner}: canvas_size must be a (height, width) pair, got {canvas_size!r}")
    height, width = (int(v) for v in canvas_size)
    if height <= 0 or width <= 0:
        raise ValueError(f"{owner}: canvas_size must be positive, got {canvas_size!r}")
    return height, width


def box_format_from(format: Any, owner: str = "BoundingBoxes") -> BoundingBoxFormat:
    """Our ``BoundingBoxFormat`` for a format given as ours, a string (any case), or torchvision's enum."""
    if isinstance(format, BoundingBoxFormat):
        return format
    name = format.upper() if isinstance(format, str) else getattr(format, "name", None)
    if name not in BoundingBoxFormat.__members__:
        raise ValueError(f"{owner}: format must be one of {list(BoundingBoxFormat.__members__)}, got {format!r}")
    return BoundingBoxFormat[name]


class BoundingBoxes(TVTensor):
    """Boxes ``[N, K]`` in ``format`` (K = 4, 5 or 8, see ``BoundingBoxFormat``) on an image of
    ``canvas_size = (height, width)``.

    ``clamping_mode`` ("soft", "hard" or None): how geometric kernels clamp the boxes to the canvas, as in
    torchvision: None leaves them, "soft" and "hard" differ for rotated boxes ("soft": the smallest box of the same
    angle around the part on the canvas; "hard": a box of the same angle with every corner on the canvas).

    Differs from torchvision: the last dimension is checked against the format (4, 5 or 8; torchvision accepts any
    width). Rotated boxes must be floating point, as in torchvision.
    """

    format: BoundingBoxFormat
    canvas_size: tuple[int, int]
    clamping_mode: Optional[str]

    def __new__(
        cls,
        data: Any,
        *,
        format: BoundingBoxFormat | str | None = None,
        canvas_size: tuple[int, int] | None = None,
        clamping_mode: Optional[str] = "soft",
        dtype: Optional[torch.dtype] = None,
        device: Optional[torch.device | str | int] = None,
        requires_grad: Optional[bool] = None,
    ) -> BoundingBoxes:
        if format is None or canvas_size is None:
            raise ValueError("BoundingBoxes: format and canvas_size (height, width) are required")
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1:
            tensor = tensor.unsqueeze(0)
        box_format = box_format_from(format)
        if box_format.name in _ROTATED_NAMES and not tensor.is_floating_point():
            raise ValueError(f"BoundingBoxes: rotated boxes must be floating point, got {tensor.dtype}")
        width = box_width(box_format)
        if tensor.ndim != 2 or tensor.shape[-1] != width:
            raise ValueError(
                f"BoundingBoxes: expected a [N, {width}] tensor for format {box_format.name}, "
                f"got shape {tuple(tensor.shape)}"
            )
        if clamping_mode not in ("soft", "hard", None):
            raise ValueError(f"BoundingBoxes: clamping_mode must be soft, hard or None, got {clamping_mode!r}")
        return cls._wrap(
            tensor,
            format=box_format,
            canvas_size=_canvas_size(canvas_size, "BoundingBoxes"),
            clamping_mode=clamping_mode,
        )

    def _metadata(self) -> dict[str, Any]:
        return {"format": self.format, "canvas_size": self.canvas_size, "clamping_mode": self.clamping_mode}


class KeyPoints(TVTensor):
    """Points ``[..., 2]`` as (x, y) on an image of ``canvas_size = (height, width)``."""

    canvas_size: tuple[int, int]

    def __new__(
        cls,
        data: Any,
        *,
        canvas_size: tuple[int, int] | None = None,
        dtype: Optional[torch.dtype] = None,
        device: Optional[torch.device | str | int] = None,
        requires_grad: Optional[bool] = None,
    ) -> KeyPoints:
        if canvas_size is None:
            raise ValueError("KeyPoints: canvas_size (height, width) is required")
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1:
            tensor = tensor.unsqueeze(0)
        if tensor.shape[-1] != 2:
            raise ValueError(f"KeyPoints: expected a [..., 2] tensor, got shape {tuple(tensor.shape)}")
        return cls._wrap(tensor, canvas_size=_canvas_size(canvas_size, "KeyPoints"))

    def _metadata(self) -> dict[str, Any]:
        return {"canvas_size": self.canvas_size}
