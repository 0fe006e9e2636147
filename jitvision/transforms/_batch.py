"""Per-sample randomness on batches: which leaves of a sample are batches, how many samples, which rows of a
parameter batch belong to which leaf row.

A sample is a batch when one of its transformed leaves is a batch tv_tensor (``tv_tensors.BatchedImages``, ...).
Dense batch leaves (images, videos, dense masks, and a pure tensor standing for the image) have one row per
sample; ragged ones (boxes, keypoints, instance masks) carry ``sample_index``, and ``rows_of`` gathers each row's
parameters with it, so a kernel sees per-row parameters aligned with its input's leading dimension.
"""

from typing import Any, Dict, List, Optional

import torch

from ..tv_tensors import (
    BatchedBoundingBoxes,
    BatchedImages,
    BatchedKeyPoints,
    BatchedMasks,
    BatchedVideos,
)
from .functional._dispatch import is_pure_tensor, is_tracing

_RAGGED = (BatchedBoundingBoxes, BatchedKeyPoints, BatchedMasks)
_DENSE_RANK = ((BatchedImages, 4, "[B, C, H, W]"), (BatchedVideos, 5, "[B, T, C, H, W]"))


def is_batch_leaf(inpt: Any) -> bool:
    return isinstance(inpt, (BatchedImages, BatchedVideos, BatchedMasks, BatchedBoundingBoxes, BatchedKeyPoints))


def sample_index_of(inpt: Any) -> Optional[torch.Tensor]:
    """The ``sample_index`` of a ragged batch leaf, None for a dense one (row ``i`` is sample ``i``)."""
    return getattr(inpt, "sample_index", None) if isinstance(inpt, _RAGGED) else None


def query_batch_size(flat_inputs: List[Any], owner: str) -> Optional[int]:
    """The number of samples of a batch sample (None when no leaf is a batch), checking that its leaves agree."""
    if not any(is_batch_leaf(inpt) for inpt in flat_inputs):
        return None
    sizes: List[int] = []
    for inpt in flat_inputs:
        if not isinstance(inpt, torch.Tensor):
            continue
        for cls, rank, layout in _DENSE_RANK:
            if isinstance(inpt, cls) and inpt.ndim != rank:
                raise ValueError(f"{owner}: a {cls.__name__} must be {layout}, got shape {tuple(inpt.shape)}")
        index = sample_index_of(inpt)
        if index is not None:
            if index.ndim != 1 or index.shape[0] != inpt.shape[0]:
                raise ValueError(
                    f"{owner}: {type(inpt).__name__} has {inpt.shape[0]} rows but a sample_index of shape "
                    f"{tuple(index.shape)}"
                )
            size = int(inpt.batch_size)
            if index.numel() and not is_tracing() and (int(index.min()) < 0 or int(index.max()) >= size):
                raise ValueError(
                    f"{owner}: {type(inpt).__name__}.sample_index must lie in [0, {size}), got values "
                    f"{int(index.min())}..{int(index.max())}"
                )
        elif is_batch_leaf(inpt) or is_pure_tensor(inpt):
            if inpt.ndim < 3:
                raise ValueError(f"{owner}: a dense batch leaf needs a leading batch dimension, got {inpt.ndim}-D")
            size = inpt.shape[0]
        else:
            raise TypeError(
                f"{owner}: a batch sample cannot mix single-sample {type(inpt).__name__} leaves with batch leaves; "
                "use tv_tensors.batch_samples to build the batch"
            )
        if size not in sizes:
            sizes.append(size)
    if len(sizes) != 1:
        raise ValueError(f"{owner}: the batch's leaves disagree on the number of samples: {sizes}")
    return sizes[0]


def rows_of(params: Dict[str, Any], inpt: Any) -> Dict[str, Any]:
    """The batch ``params`` (leading dimension B) for the rows of ``inpt``: unchanged for a dense leaf, gathered
    with ``sample_index`` for a ragged one."""
    index = sample_index_of(inpt)
    if index is None:
        return params
    index = index.to(device=inpt.device)
    return {name: value.index_select(0, index) if isinstance(value, torch.Tensor) else value
            for name, value in params.items()}
