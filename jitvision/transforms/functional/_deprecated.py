"""torchvision's deprecated functionals: ``to_tensor`` and ``get_image_size`` (kept for drop-in use; both warn
as torchvision's do)."""

import warnings
from typing import Any, List

import numpy as np
import PIL.Image
import torch

from ._dispatch import is_pure_tensor, is_tracing
from ._meta import get_size
from ._misc import to_dtype
from ._type_conversion import pil_to_tensor


@torch.jit.unused
def to_tensor(inpt: Any) -> torch.Tensor:
    """A PIL image or an ``[H, W, C]`` / ``[H, W]`` numpy array as a ``[C, H, W]`` tensor; uint8 (and mode "1")
    data become float32 in [0, 1], other dtypes keep their values (torchvision's legacy ``to_tensor``).
    Deprecated upstream: use ``to_image`` then ``to_dtype(..., torch.float32, scale=True)``."""
    warnings.warn(
        "The function `to_tensor(...)` is deprecated and will be removed in a future release (as in torchvision). "
        "Instead, use `to_image(...)` followed by `to_dtype(..., dtype=torch.float32, scale=True)`",
        stacklevel=2,
    )
    if isinstance(inpt, PIL.Image.Image):
        tensor = pil_to_tensor(inpt).contiguous()
    elif isinstance(inpt, np.ndarray):
        if inpt.ndim not in (2, 3):
            raise ValueError(f"to_tensor: expected an array [H, W] or [H, W, C], got {inpt.ndim} dimensions")
        array = inpt[:, :, None] if inpt.ndim == 2 else inpt
        tensor = torch.from_numpy(np.ascontiguousarray(array.transpose((2, 0, 1))))
    else:
        raise TypeError(f"to_tensor: expected a PIL image or a numpy array, got {type(inpt)}")
    if tensor.dtype == torch.uint8 or tensor.dtype == torch.bool:
        return to_dtype(tensor, torch.get_default_dtype(), scale=True)
    return tensor


def get_image_size(inpt: torch.Tensor) -> List[int]:
    """[width, height] (note the order: ``get_size`` returns [height, width]). Deprecated upstream.

    Deliberate difference: boxes and keypoints give their canvas size (torchvision gives the last two
    dimensions of the coordinate tensor)."""
    if not is_tracing():  # dynamo does not trace warnings.warn: warn in eager and TorchScript only
        warnings.warn(
            "The function `get_image_size(...)` is deprecated and will be removed in a future release (as in "
            "torchvision). Instead, use `get_size(...)`, which returns [h, w] instead of [w, h]",
            stacklevel=2,
        )
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        if inpt.ndim < 2:
            raise TypeError("get_image_size: expected a tensor with at least 2 dimensions [..., H, W]")
        return [inpt.shape[-1], inpt.shape[-2]]
    size = get_size(inpt)
    return [size[1], size[0]]
