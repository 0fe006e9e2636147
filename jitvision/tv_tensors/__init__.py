"""Tensor subclasses that tell transforms what a tensor holds: the drop-in for ``torchvision.tv_tensors``."""

from __future__ import annotations

import sys
from typing import Any, Optional

import torch

from ._batch_pytree import register as _register_batch_pytree
from ._batched import (
    BatchedBoundingBoxes,
    BatchedImages,
    BatchedKeyPoints,
    BatchedMasks,
    BatchedVideos,
    batch_samples,
    unbatch_samples,
)
from ._bounding_boxes import (
    BoundingBoxes,
    BoundingBoxFormat,
    KeyPoints,
    box_format_from,
    box_width,
    is_rotated_bounding_format,
)
from ._encoded import BatchedEncodedImages, EncodedImage
from ._image import Image, Mask, Video
from ._tv_tensor import TVTensor, set_return_type

__all__ = [
    "TVTensor",
    "Image",
    "Video",
    "Mask",
    "BoundingBoxes",
    "BoundingBoxFormat",
    "KeyPoints",
    "EncodedImage",
    "BatchedEncodedImages",
    "wrap",
    "kind_of",
    "box_format_from",
    "box_width",
    "is_rotated_bounding_format",
    "BatchedImages",
    "BatchedVideos",
    "BatchedMasks",
    "BatchedBoundingBoxes",
    "BatchedKeyPoints",
    "batch_samples",
    "unbatch_samples",
    "set_return_type",
]

_register_batch_pytree()  # ragged batch leaves are pytree nodes for torch.export (see _batch_pytree)

_OUR_KINDS: tuple[type, ...] = (Image, Video, Mask, BoundingBoxes, KeyPoints)


def kind_of(cls: type) -> Optional[type]:
    """The jitvision class an input type stands for: itself (or its jitvision base) for our types, the
    same-named jitvision class for a ``torchvision.tv_tensors`` type, None for anything else."""
    if cls is torch.Tensor:
        # Before the sys.modules lookup below: under torch.compile it is a guard, and importing torchvision after a
        # compile then recompiled every graph that had asked about a plain tensor.
        return None
    for kind in _OUR_KINDS:
        if issubclass(cls, kind):
            return kind
    # torchvision is never imported by us: if one of its tv_tensors exists, its module is already loaded.
    torchvision_tv_tensors = sys.modules.get("torchvision.tv_tensors")
    if torchvision_tv_tensors is not None:
        for kind in _OUR_KINDS:
            if issubclass(cls, getattr(torchvision_tv_tensors, kind.__name__)):
                return kind
    return None


def traceable_class(cls: type) -> type:
    """The same class, found among the known tv_tensor classes.

    Dynamo only traces ``as_subclass(cls)`` when ``cls`` has a source it can guard on; ``type(x)`` of a
    tensor created inside the graph has none, while the same class read from a module-level list has.
    """
    if not torch.compiler.is_compiling():
        return cls
    for known in TVTensor._subclasses:
        if cls is known:
            return known
    torchvision_tv_tensors = sys.modules.get("torchvision.tv_tensors")
    if torchvision_tv_tensors is not None:
        for kind in _OUR_KINDS:
            known = getattr(torchvision_tv_tensors, kind.__name__)
            if cls is known:
                return known
    return cls


def wrap(wrappee: torch.Tensor, *, like: torch.Tensor, **metadata: Any) -> torch.Tensor:
    """``wrappee`` as the type of ``like`` (a jitvision or torchvision tv_tensor), with ``like``'s metadata
    except where ``metadata`` overrides it."""
    cls = traceable_class(type(like))
    if isinstance(like, TVTensor):
        return cls._wrap(wrappee, **{**like._metadata(), **metadata})
    # A torchvision tv_tensor: its own classmethod keeps its own metadata types (its format enum, ...).
    if "format" in metadata:
        metadata["format"] = metadata["format"].name
    return cls.wrap(wrappee, like=like, **metadata)
