"""Sample inspection shared by the transform classes: what a leaf is and how big the sample is."""

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


def query_size(flat_inputs: Sequence[Any], owner: str) -> tuple[int, int]:
    """The one (height, width) shared by every sized leaf of a sample."""
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


def setup_size(size: Any, owner: str) -> list[int]:
    """``size`` (an int, or a sequence of 1 or 2 ints) as a positive [height, width]."""
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size, size]
    elif isinstance(size, Sequence) and len(size) == 1:
        size = [size[0], size[0]]
    if not isinstance(size, Sequence) or len(size) != 2 or not all(isinstance(s, int) for s in size):
        raise ValueError(
            f"{owner}: size should be an int or a sequence of 1 or 2 ints (Please provide only two dimensions (h, w) "
            f"for size), got {size!r}"
        )
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{owner}: size must be positive, got {list(size)}")
    return [int(size[0]), int(size[1])]


@torch.jit.unused
def find_labels(sample: Any, owner: str) -> Any:
    """The labels of a sample by torchvision's default ``labels_getter`` rule (Sanitize*, MixUp, CutMix): the sample
    is a dict, or a tuple whose second item is a dict or the labels tensor; in a dict, the key "labels" (any case),
    else the first key containing "label"."""
    candidate = sample[1] if isinstance(sample, (tuple, list)) and len(sample) >= 2 else sample
    if isinstance(candidate, torch.Tensor) and is_pure_tensor(candidate):
        return candidate
    if not isinstance(candidate, dict):
        raise ValueError(
            f"{owner}: When using the default labels_getter, the input passed to forward must be a dict or a two-tuple "
            f"whose second item is a dict or the labels tensor, got {type(sample).__name__}; pass labels_getter=None "
            "if there are no labels"
        )
    keys = [key for key in candidate if isinstance(key, str)]
    exact = [key for key in keys if key.lower() == "labels"]
    found = exact or [key for key in keys if "label" in key.lower()]
    if not found:
        raise ValueError(
            f"{owner}: Could not infer where the labels are in the sample (no key containing 'label'); pass a "
            "callable as labels_getter, or labels_getter=None if the sample has no labels"
        )
    return candidate[found[0]]


def require_image(flat_inputs: Sequence[Any], owner: str) -> None:
    """torchvision's check for the transforms that only make sense on pictures: the sample must hold an image, a
    video, a PIL image or a pure tensor (which stands for the image)."""
    for inpt in flat_inputs:
        if is_image_like(inpt) or (isinstance(inpt, torch.Tensor) and is_pure_tensor(inpt)):
            return
    raise TypeError(f"{owner}: No image or video was found in the sample")


@torch.jit.unused
def _find_labels_default_heuristic(inputs: Any) -> Any:
    """torchvision's private name for the default ``labels_getter`` (``find_labels``), which user code calls."""
    return find_labels(inputs, "labels_getter='default'")
