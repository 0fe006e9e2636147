"""What a leaf of a sample is and how big the sample is: the inspection every transform class runs before it
draws parameters (``_utils`` re-exports it under torchvision's ``v2._utils`` names; ``_query``'s public helpers are
built on it)."""

from typing import Any, Optional, Sequence

import PIL.Image
import torch

from ..tv_tensors import BoundingBoxes, Image, KeyPoints, Mask, Video, kind_of
from .functional._dispatch import is_pure_tensor

_IMAGE_LIKE_KINDS = (Image, Video)


def is_image_like(inpt: Any) -> bool:
    """An ``Image``, a ``Video`` (ours or torchvision's) or a PIL image: what makes pure tensors labels."""
    if isinstance(inpt, PIL.Image.Image):
        return True
    return isinstance(inpt, torch.Tensor) and kind_of(type(inpt)) in _IMAGE_LIKE_KINDS


def leaf_size(inpt: Any) -> Optional[tuple[int, int]]:
    """(height, width) of the canvas a leaf lives on, None for leaves without one (labels, strings, ...)."""
    if isinstance(inpt, PIL.Image.Image):
        return inpt.height, inpt.width
    if not isinstance(inpt, torch.Tensor):
        return None
    kind = kind_of(type(inpt))
    if kind is BoundingBoxes or kind is KeyPoints:
        return tuple(inpt.canvas_size)  # type: ignore[return-value]
    if kind in (Image, Video, Mask) or is_pure_tensor(inpt):
        if inpt.ndim < 2:
            return None
        return inpt.shape[-2], inpt.shape[-1]
    return None


def query_size(flat_inputs: Sequence[Any], owner: str = "query_size") -> tuple[int, int]:
    """The one (height, width) shared by every sized leaf of a sample (``owner`` names the caller in errors)."""
    sizes = []
    for inpt in flat_inputs:
        size = leaf_size(inpt)
        if size is not None and all(size != seen for seen in sizes):
            sizes.append(size)
    if not sizes:
        raise TypeError(f"{owner}: No image, video, mask, bounding boxes or keypoints was found in the sample")
    if len(sizes) > 1:
        raise ValueError(f"{owner}: Found multiple HxW dimensions in the sample (leaves of different sizes): {sizes}")
    return sizes[0]


def query_device(flat_inputs: Sequence[Any]) -> torch.device:
    """Where parameters are drawn: the device of the first tensor in the sample (PIL-only samples: CPU)."""
    for inpt in flat_inputs:
        if isinstance(inpt, torch.Tensor):
            return inpt.device
    return torch.device("cpu")
