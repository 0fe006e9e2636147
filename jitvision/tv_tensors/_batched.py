"""Batch tv_tensors: N independent samples in one tensor, so random transforms draw N parameter sets.

Every batch type subclasses its single-sample type, so every kernel registered for ``Image``, ``Video``,
``Mask``, ``BoundingBoxes`` or ``KeyPoints`` applies to it unchanged (deterministic ops need nothing new); only
random transforms look at the batch structure (``transforms._batch``).

- ``BatchedImages`` ``[B, C, H, W]`` and ``BatchedVideos`` ``[B, T, C, H, W]``: dense, row ``i`` is sample ``i``.
- ``BatchedMasks``: dense ``[B, ..., H, W]`` (row ``i`` is sample ``i``), or ragged instance masks ``[M, H, W]``
  with ``sample_index`` (``int64 [M]``: the sample each mask belongs to) and ``batch_size``.
- ``BatchedBoundingBoxes`` ``[M, 4]`` and ``BatchedKeyPoints`` ``[M, ..., 2]``: ragged, with ``sample_index`` and
  ``batch_size`` (a sample may have no rows at all, so the batch size cannot be read off the index).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ._bounding_boxes import BoundingBoxes, KeyPoints
from ._image import Image, Mask, Video


def _check_index(cls_name: str, rows: int, sample_index: Any, batch_size: Optional[int]) -> tuple[torch.Tensor, int]:
    if not isinstance(sample_index, torch.Tensor):
        sample_index = torch.as_tensor(sample_index)
    if sample_index.ndim != 1 or sample_index.shape[0] != rows:
        raise ValueError(
            f"{cls_name}: sample_index must be a 1-D tensor with one entry per row ({rows}), "
            f"got shape {tuple(sample_index.shape)}"
        )
    if sample_index.is_floating_point() or sample_index.dtype == torch.bool:
        raise TypeError(f"{cls_name}: sample_index must hold integers, got {sample_index.dtype}")
    sample_index = sample_index.to(torch.int64)
    if batch_size is None:
        batch_size = int(sample_index.max()) + 1 if rows else 0
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 0:
        raise ValueError(f"{cls_name}: batch_size must be a non-negative int, got {batch_size!r}")
    if rows and (int(sample_index.min()) < 0 or int(sample_index.max()) >= batch_size):
        raise ValueError(f"{cls_name}: sample_index values must lie in [0, {batch_size}), got {sample_index.tolist()}")
    return sample_index, batch_size


class BatchedImages(Image):
    """``B`` independent images ``[B, C, H, W]``: a random transform draws one parameter set per image."""

    def __new__(cls, data: Any, **kwargs: Any) -> BatchedImages:
        tensor = Image(data, **kwargs)
        if tensor.ndim != 4:
            raise ValueError(f"BatchedImages: expected a [B, C, H, W] tensor, got shape {tuple(tensor.shape)}")
        return tensor.as_subclass(cls)


class BatchedVideos(Video):
    """``B`` independent videos ``[B, T, C, H, W]``: one parameter set per video (shared by its frames)."""

    def __new__(cls, data: Any, **kwargs: Any) -> BatchedVideos:
        tensor = Video(data, **kwargs)
        if tensor.ndim != 5:
            raise ValueError(f"BatchedVideos: expected a [B, T, C, H, W] tensor, got shape {tuple(tensor.shape)}")
        return tensor.as_subclass(cls)


class BatchedMasks(Mask):
    """Masks of a batch: dense ``[B, ..., H, W]`` without ``sample_index``, or ragged ``[M, H, W]`` rows each
    belonging to sample ``sample_index[m]`` (instance masks, as many per sample as it has objects)."""

    sample_index: Optional[torch.Tensor]
    batch_size: Optional[int]

    def __new__(
        cls, data: Any, *, sample_index: Any = None, batch_size: Optional[int] = None, **kwargs: Any
    ) -> BatchedMasks:
        tensor = Mask(data, **kwargs)
        if tensor.ndim < 3:
            raise ValueError(f"BatchedMasks: expected a [B or M, ..., H, W] tensor, got shape {tuple(tensor.shape)}")
        if sample_index is None:
            if batch_size is not None and batch_size != tensor.shape[0]:
                raise ValueError(f"BatchedMasks: batch_size {batch_size} != leading dimension {tensor.shape[0]}")
            return cls._wrap(tensor.as_subclass(torch.Tensor), sample_index=None, batch_size=None)
        index, size = _check_index("BatchedMasks", tensor.shape[0], sample_index, batch_size)
        return cls._wrap(tensor.as_subclass(torch.Tensor), sample_index=index, batch_size=size)

    def _metadata(self) -> dict[str, Any]:
        return {"sample_index": self.sample_index, "batch_size": self.batch_size}


class BatchedBoundingBoxes(BoundingBoxes):
    """Boxes of a batch, ``[M, K]`` (K = 4, 5 or 8 per format): row ``m`` belongs to sample ``sample_index[m]``
    of ``batch_size``."""

    sample_index: torch.Tensor
    batch_size: int

    def __new__(
        cls, data: Any, *, sample_index: Any, batch_size: Optional[int] = None, **kwargs: Any
    ) -> BatchedBoundingBoxes:
        boxes = BoundingBoxes(data, **kwargs)
        index, size = _check_index("BatchedBoundingBoxes", boxes.shape[0], sample_index, batch_size)
        return cls._wrap(boxes.as_subclass(torch.Tensor), **boxes._metadata(), sample_index=index, batch_size=size)

    def _metadata(self) -> dict[str, Any]:
        return {**BoundingBoxes._metadata(self), "sample_index": self.sample_index, "batch_size": self.batch_size}


class BatchedKeyPoints(KeyPoints):
    """Keypoints of a batch, ``[M, ..., 2]``: row ``m`` belongs to sample ``sample_index[m]`` of ``batch_size``."""

    sample_index: torch.Tensor
    batch_size: int

    def __new__(
        cls, data: Any, *, sample_index: Any, batch_size: Optional[int] = None, **kwargs: Any
    ) -> BatchedKeyPoints:
        points = KeyPoints(data, **kwargs)
        index, size = _check_index("BatchedKeyPoints", points.shape[0], sample_index, batch_size)
        return cls._wrap(points.as_subclass(torch.Tensor), **points._metadata(), sample_index=index, batch_size=size)

    def _metadata(self) -> dict[str, Any]:
        return {**KeyPoints._metadata(self), "sample_index": self.sample_index, "batch_size": self.batch_size}


def _is_tv_tensor(node: Any) -> bool:
    from ._tv_tensor import TVTensor

    return isinstance(node, TVTensor)


BATCH_TYPES: tuple[type, ...] = (BatchedImages, BatchedVideos, BatchedMasks, BatchedBoundingBoxes, BatchedKeyPoints)


# ---- building a batch from samples, and back -------------------------------------------------------------------


def _batch_leaves(leaves: list[Any]) -> Any:
    """One leaf of the batch from the same leaf of every sample."""
    first = leaves[0]
    if not isinstance(first, torch.Tensor) or not all(type(leaf) is type(first) for leaf in leaves):
        return list(leaves)  # labels, strings, mixed types: kept per sample
    plain = [leaf.as_subclass(torch.Tensor) for leaf in leaves]
    sizes = torch.tensor([p.shape[0] if p.ndim else 1 for p in plain], dtype=torch.int64)
    index = torch.repeat_interleave(torch.arange(len(leaves)), sizes)
    if isinstance(first, Image):
        return BatchedImages(torch.stack(plain))
    if isinstance(first, Video):
        return BatchedVideos(torch.stack(plain))
    if isinstance(first, Mask):
        if first.ndim == 2:  # one [H, W] mask per sample: dense
            return BatchedMasks(torch.stack(plain))
        return BatchedMasks(torch.cat(plain), sample_index=index, batch_size=len(leaves))
    if isinstance(first, BoundingBoxes):
        meta = first._metadata()
        return BatchedBoundingBoxes(torch.cat(plain), sample_index=index, batch_size=len(leaves), **meta)
    if isinstance(first, KeyPoints):
        return BatchedKeyPoints(
            torch.cat(plain), sample_index=index, batch_size=len(leaves), canvas_size=first.canvas_size
        )
    return list(leaves)  # pure tensors (labels) stay a list of per-sample tensors


def batch_samples(samples: list[Any]) -> Any:
    """``B`` samples of the same structure as one batch sample (a ``collate_fn`` for DataLoader).

    ``Image``/``Video`` leaves are stacked into ``BatchedImages``/``BatchedVideos`` (same shapes required), ``[H,
    W]`` masks into dense ``BatchedMasks``; instance masks ``[K, H, W]``, boxes and keypoints are concatenated
    with a ``sample_index``; every other leaf (labels, ...) becomes a list with one entry per sample."""
    from torch.utils import _pytree as pytree

    if not samples:
        raise ValueError("batch_samples: expected at least one sample")
    flat = [pytree.tree_flatten(sample, is_leaf=_is_tv_tensor) for sample in samples]
    spec = flat[0][1]
    if any(s != spec for _, s in flat):
        raise ValueError("batch_samples: every sample must have the same structure")
    columns = zip(*(leaves for leaves, _ in flat))
    return pytree.tree_unflatten([_batch_leaves(list(column)) for column in columns], spec)


def _sample_leaf(leaf: Any, i: int) -> Any:
    if isinstance(leaf, list):
        return leaf[i]
    if not isinstance(leaf, (BatchedImages, BatchedVideos, BatchedMasks, BatchedBoundingBoxes, BatchedKeyPoints)):
        return leaf
    plain = leaf.as_subclass(torch.Tensor)
    index = getattr(leaf, "sample_index", None)
    rows = plain[i] if index is None else plain[index == i]
    if isinstance(leaf, BatchedImages):
        return Image(rows)
    if isinstance(leaf, BatchedVideos):
        return Video(rows)
    if isinstance(leaf, BatchedMasks):
        return Mask(rows)
    if isinstance(leaf, BatchedBoundingBoxes):
        meta = {k: v for k, v in leaf._metadata().items() if k not in ("sample_index", "batch_size")}
        return BoundingBoxes(rows, **meta)
    return KeyPoints(rows, canvas_size=leaf.canvas_size)


def unbatch_samples(batch: Any) -> list[Any]:
    """The per-sample samples of a batch sample made by ``batch_samples`` (or transformed from one)."""
    from torch.utils import _pytree as pytree

    leaves, spec = pytree.tree_flatten(batch, is_leaf=lambda x: isinstance(x, list) or _is_tv_tensor(x))
    sizes = set()
    for leaf in leaves:
        if isinstance(leaf, list):
            sizes.add(len(leaf))
        elif isinstance(leaf, (BatchedImages, BatchedVideos)) or (
            isinstance(leaf, BatchedMasks) and leaf.sample_index is None
        ):
            sizes.add(leaf.shape[0])
        elif isinstance(leaf, (BatchedMasks, BatchedBoundingBoxes, BatchedKeyPoints)):
            sizes.add(leaf.batch_size)
    if len(sizes) != 1:
        raise ValueError(f"unbatch_samples: the batch's leaves disagree on the batch size: {sorted(sizes)}")
    (size,) = sizes
    return [pytree.tree_unflatten([_sample_leaf(leaf, i) for leaf in leaves], spec) for i in range(size)]
