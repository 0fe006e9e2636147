"""torchvision's public sample helpers (``torchvision.transforms.v2.check_type``, ``has_any``, ``has_all``,
``query_size``, ``query_chw``, ``get_bounding_boxes``, ``get_keypoints``), for custom transforms written against
that API.

A class in ``types_or_checks`` that is a tv_tensor kind matches jitvision's and torchvision's class of that name
alike (``has_any(sample, tv_tensors.Image)`` is true for either); other classes match by ``isinstance`` and
callables are predicates, as in torchvision.
"""

from typing import Any, Callable, List, Tuple, Union

import PIL.Image
import torch

from ..tv_tensors import BoundingBoxes, Image, KeyPoints, Video, kind_of
from . import functional as F
from ._sample import query_size as _query_size
from .functional._dispatch import is_pure_tensor

TypeOrCheck = Union[type, Callable[[Any], bool]]


def _matches(obj: Any, type_or_check: TypeOrCheck) -> bool:
    if not isinstance(type_or_check, type):
        return bool(type_or_check(obj))
    if isinstance(obj, type_or_check):
        return True
    if not (issubclass(type_or_check, torch.Tensor) and isinstance(obj, torch.Tensor)):
        return False
    # A tv_tensor kind class itself (ours or torchvision's, not a subclass such as BatchedImages) matches any input
    # of that kind from either library.
    kind = kind_of(type_or_check)
    return kind is not None and type_or_check.__name__ == kind.__name__ and kind_of(type(obj)) is kind


def check_type(obj: Any, types_or_checks: Tuple[TypeOrCheck, ...]) -> bool:
    """Whether ``obj`` is an instance of one of the types, or passes one of the checks."""
    return any(_matches(obj, type_or_check) for type_or_check in types_or_checks)


def has_any(flat_inputs: List[Any], *types_or_checks: TypeOrCheck) -> bool:
    """Whether some input matches some of the types or checks."""
    return any(check_type(inpt, types_or_checks) for inpt in flat_inputs)


def has_all(flat_inputs: List[Any], *types_or_checks: TypeOrCheck) -> bool:
    """Whether every type or check is matched by some input."""
    return all(any(check_type(inpt, (type_or_check,)) for inpt in flat_inputs) for type_or_check in types_or_checks)


def query_size(flat_inputs: List[Any]) -> Tuple[int, int]:
    """The (height, width) shared by every image, video, mask, boxes and keypoints of the sample."""
    height, width = _query_size(flat_inputs, "query_size")
    return height, width


def query_chw(flat_inputs: List[Any]) -> Tuple[int, int, int]:
    """The (channels, height, width) shared by every image and video of the sample (the pure tensor standing for
    the image included)."""
    dims = []
    for inpt in flat_inputs:
        if isinstance(inpt, PIL.Image.Image) or (
            isinstance(inpt, torch.Tensor) and (is_pure_tensor(inpt) or kind_of(type(inpt)) in (Image, Video))
        ):
            chw = tuple(F.get_dimensions(inpt))
            if chw not in dims:
                dims.append(chw)
    if not dims:
        raise TypeError("query_chw: No image or video was found in the sample")
    if len(dims) > 1:
        raise ValueError(f"query_chw: Found multiple CxHxW dimensions in the sample: {sorted(dims)}")
    c, h, w = dims[0]
    return c, h, w


def get_bounding_boxes(flat_inputs: List[Any]) -> torch.Tensor:
    """The first ``BoundingBoxes`` of the sample."""
    for inpt in flat_inputs:
        if isinstance(inpt, torch.Tensor) and kind_of(type(inpt)) is BoundingBoxes:
            return inpt
    raise ValueError("get_bounding_boxes: no bounding boxes were found in the sample")


def get_keypoints(flat_inputs: List[Any]) -> torch.Tensor:
    """The first ``KeyPoints`` of the sample."""
    for inpt in flat_inputs:
        if isinstance(inpt, torch.Tensor) and kind_of(type(inpt)) is KeyPoints:
            return inpt
    raise ValueError("get_keypoints: no keypoints were found in the sample")
