"""JPEG."""

from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from .. import _native
from ..tv_tensors import Image, Video, wrap
from . import functional as F
from ._random import uniform
from ._transform import Transform
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap
from .functional._jpeg import jpeg_with_tensor_quality


@torch.jit.unused
def _native_takes(inpt: Any) -> bool:
    """Whether the native op takes ``inpt`` with the drawn quality tensor as it is (no int() and tensor rebuild)."""
    return _native.JPEG and (is_pure_tensor(inpt) or isinstance(inpt, (Image, Video)))


class JPEG(Transform):
    """JPEG-compress and decompress images and videos (uint8, 1 or 3 channels) at ``quality`` (an int in
    1..100, or (min, max): an integer drawn uniformly, both ends included, per call or per sample on batches).

    The quality is an int64 tensor; compiled or exported, the codec is one graph node (``jitvision_native::jpeg_u8``,
    or the Python ``jitvision::jpeg`` where the library was built without libjpeg) that reads it, so the draw stays
    live. See ``functional.jpeg`` for what runs in each mode."""

    _functional = staticmethod(F.jpeg)

    _draw_uses_size = False  # the draw ignores the size (make_params takes a sample without a sized leaf)

    def __init__(self, quality: Union[int, Sequence[int]], *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(generator=generator)
        if isinstance(quality, bool):
            raise TypeError("JPEG: quality must be an int or a sequence (min, max) of ints, got a bool")
        if isinstance(quality, int):
            quality = [quality, quality]
        if isinstance(quality, Sequence) and not isinstance(quality, str) and len(quality) != 2:
            raise ValueError(f"JPEG: quality should be a sequence of length 2 (min, max), got {quality!r}")
        if not isinstance(quality, Sequence) or not all(
            isinstance(q, int) and not isinstance(q, bool) for q in quality
        ):
            raise TypeError(f"JPEG: quality must be an int or a sequence (min, max) of ints, got {quality!r}")
        if not 1 <= quality[0] <= quality[1] <= 100:
            raise ValueError(
                f"JPEG: quality must be an integer from 1 to 100 (with min <= max), got {list(quality)}"
            )
        self.quality: List[int] = [int(quality[0]), int(quality[1])]

    def _qualities(self, shape: List[int], device: torch.device) -> torch.Tensor:
        low, high = self.quality[0], self.quality[1]
        u = uniform(shape, self._rng(), device, torch.float64)
        return (u * (high - low + 1)).floor().clamp(max=high - low).to(torch.int64) + low

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"quality": self._qualities(batch_shape, device)}

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        quality = params["quality"]
        if not is_tracing() and not torch.jit.is_scripting() and not _native_takes(inpt):
            return F.jpeg(inpt, int(quality))  # eager without the native op: torchvision's path (PIL images too)
        return self.transform_batch(inpt, params)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        quality = params["quality"]
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return jpeg_with_tensor_quality(inpt, quality)
        return wrap(jpeg_with_tensor_quality(unwrap(inpt), quality), like=inpt)

    def extra_repr(self) -> str:
        return f"quality={self.quality}"
