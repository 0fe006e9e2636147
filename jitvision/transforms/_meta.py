"""ConvertBoundingBoxFormat, ClampBoundingBoxes, ClampKeyPoints, SetClampingMode: box and keypoint metadata steps.

They act on ``BoundingBoxes`` (``KeyPoints`` for ``ClampKeyPoints``), ours or torchvision's; every other leaf,
plain tensors included, passes through, as in torchvision. TorchScript has no tv_tensors, so the scripted class
returns its (plain tensor) input unchanged: the same thing the eager class does with a plain tensor.
"""

from typing import Dict, Optional, Union

import torch

from ..tv_tensors import BoundingBoxes, BoundingBoxFormat, KeyPoints, box_format_from, wrap
from ._transform import Transform
from .functional import _meta as F_meta
from .functional._dispatch import is_pure_tensor, unwrap


class _MetadataTransform(Transform):
    """Transforms only tv_tensor leaves of one kind (``_transformed_kinds``); the rest, pure tensors included, pass
    through. Draws nothing and reads no size."""

    _transformed_types = (torch.Tensor,)
    _transformed_kinds = (BoundingBoxes,)
    _pure_tensors_pass = True
    _draw_uses_size = False

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        # A plain tensor (TorchScript sees nothing else; ``forward_batch`` hands a plain batch here) has no box
        # format or canvas: it passes through, as in torchvision.
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return inpt
        return self._apply_eager(inpt)

    @torch.jit.unused
    def _apply_eager(self, inpt: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class ConvertBoundingBoxFormat(_MetadataTransform):
    """Convert ``BoundingBoxes`` to ``format`` (a ``BoundingBoxFormat`` or its name, any case). Axis-aligned and
    rotated formats do not convert into each other (a ValueError, as in torchvision)."""

    def __init__(self, format: Union[str, BoundingBoxFormat]) -> None:
        super().__init__()
        self.format = box_format_from(format, "ConvertBoundingBoxFormat")

    @torch.jit.unused
    def _apply_eager(self, inpt: torch.Tensor) -> torch.Tensor:
        old = box_format_from(inpt.format)
        if F_meta.is_rotated_format(old) != F_meta.is_rotated_format(self.format):
            raise ValueError(
                f"ConvertBoundingBoxFormat: cannot convert between rotated and axis-aligned formats "
                f"({old.name} -> {self.format.name})"
            )
        return F_meta.convert_bounding_box_format(inpt, new_format=self.format)

    def extra_repr(self) -> str:
        return f"format={self.format.name}"


class ClampBoundingBoxes(_MetadataTransform):
    """Clamp ``BoundingBoxes`` to their canvas. ``clamping_mode`` "auto" (default) uses each boxes' own
    ``clamping_mode``; "soft", "hard" or None override it."""

    def __init__(self, clamping_mode: Optional[str] = "auto") -> None:
        super().__init__()
        F_meta._check_clamping_mode(clamping_mode, "ClampBoundingBoxes")
        self.clamping_mode = clamping_mode

    @torch.jit.unused
    def _apply_eager(self, inpt: torch.Tensor) -> torch.Tensor:
        return F_meta.clamp_bounding_boxes(inpt, clamping_mode=self.clamping_mode)

    def extra_repr(self) -> str:
        return f"clamping_mode={self.clamping_mode!r}"


class ClampKeyPoints(_MetadataTransform):
    """Clamp ``KeyPoints`` to the pixels of their canvas (x in [0, W - 1], y in [0, H - 1])."""

    _transformed_kinds = (KeyPoints,)

    def __init__(self) -> None:
        super().__init__()

    @torch.jit.unused
    def _apply_eager(self, inpt: torch.Tensor) -> torch.Tensor:
        return F_meta.clamp_keypoints(inpt)


class SetClampingMode(_MetadataTransform):
    """Set the ``clamping_mode`` ("soft", "hard" or None) of ``BoundingBoxes``: the boxes are copied, their values
    unchanged; later geometric transforms clamp them per this mode."""

    def __init__(self, clamping_mode: Optional[str]) -> None:
        super().__init__()
        if clamping_mode not in (None, "soft", "hard"):
            raise ValueError(f"SetClampingMode: clamping_mode must be 'soft', 'hard' or None, got {clamping_mode!r}")
        self.clamping_mode = clamping_mode

    @torch.jit.unused
    def _apply_eager(self, inpt: torch.Tensor) -> torch.Tensor:
        return wrap(unwrap(inpt).clone(), like=inpt, clamping_mode=self.clamping_mode)

    def extra_repr(self) -> str:
        return f"clamping_mode={self.clamping_mode!r}"
