"""FiveCrop and TenCrop."""

import warnings
from typing import Any, Dict, List, Sequence, Union

import torch

from ...tv_tensors import BoundingBoxes, KeyPoints, Mask, kind_of
from .. import functional as F
from .._transform import Transform
from .._utils import setup_size
from ..functional._geometry._five_crop import FiveCrops, TenCrops


@torch.jit.unused
def _refuse_boxes_and_masks(flat_inputs: List[Any], owner: str) -> None:
    for inpt in flat_inputs:
        kind = kind_of(type(inpt)) if isinstance(inpt, torch.Tensor) else None
        if kind in (BoundingBoxes, Mask):
            raise TypeError(
                f"{owner}: bounding boxes and masks are not supported (got {type(inpt).__name__}); "
                "it returns several crops of the image"
            )
        if kind is KeyPoints:  # as torchvision: passed through, with a warning
            warnings.warn(f"{owner}: keypoints are passed through unchanged", UserWarning, stacklevel=4)


class FiveCrop(Transform):
    """The four corner crops and the centre crop of ``size``: a tuple of 5 in place of each image or video.

    As torchvision, a sample holding boxes or masks is refused (each crop would need its own); keypoints pass
    through unchanged with a warning."""

    _functional = staticmethod(F.five_crop)

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        super().__init__()
        self.size = setup_size(size, type(self).__name__)

    def forward(self, inpt: torch.Tensor) -> FiveCrops:
        if torch.jit.is_scripting():
            return F.five_crop(inpt, self.size)
        return self._forward_sample(inpt)

    @torch.jit.export
    def forward_batch(self, images: torch.Tensor) -> FiveCrops:
        return F.five_crop(images, self.size)

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        _refuse_boxes_and_masks(flat_inputs, type(self).__name__)

    @torch.jit.unused
    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        return F.five_crop(inpt, self.size)

    def extra_repr(self) -> str:
        return f"size={self.size}"


class TenCrop(Transform):
    """``FiveCrop`` of the image and of its mirror image (left-right, or top-bottom with ``vertical_flip``)."""

    _functional = staticmethod(F.ten_crop)

    def __init__(self, size: Union[int, Sequence[int]], vertical_flip: bool = False) -> None:
        super().__init__()
        self.size = setup_size(size, type(self).__name__)
        self.vertical_flip = bool(vertical_flip)

    def forward(self, inpt: torch.Tensor) -> TenCrops:
        if torch.jit.is_scripting():
            return F.ten_crop(inpt, self.size, self.vertical_flip)
        return self._forward_sample(inpt)

    @torch.jit.export
    def forward_batch(self, images: torch.Tensor) -> TenCrops:
        return F.ten_crop(images, self.size, self.vertical_flip)

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        _refuse_boxes_and_masks(flat_inputs, type(self).__name__)

    @torch.jit.unused
    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        return F.ten_crop(inpt, self.size, self.vertical_flip)

    def extra_repr(self) -> str:
        return f"size={self.size}, vertical_flip={self.vertical_flip}"
