"""torchvision's deprecated classes kept for drop-in use: ``ToTensor`` and ``ConvertImageDtype``."""

import warnings
from typing import Any, Dict

import numpy as np
import PIL.Image
import torch

from . import functional as F
from ._misc import _Deterministic
from ._type_conversion import _PythonOnly


class ToTensor(_PythonOnly):
    """PIL images and ``[H, W, C]`` numpy arrays to ``[C, H, W]`` tensors, uint8 data scaled to float [0, 1]
    (``functional.to_tensor``). Deprecated upstream (it warns, as torchvision's does): use
    ``Compose([ToImage(), ToDtype(torch.float32, scale=True)])``. Python only: scripting raises a TypeError."""

    _transformed_types = (PIL.Image.Image, np.ndarray)

    def __init__(self) -> None:
        warnings.warn(
            "The transform `ToTensor()` is deprecated and will be removed in a future release (as in "
            "torchvision). Instead, use `Compose([ToImage(), ToDtype(torch.float32, scale=True)])`",
            stacklevel=2,
        )
        super().__init__()

    @torch.jit.unused
    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the class already warned once, at construction
            return F.to_tensor(inpt)


class ConvertImageDtype(_Deterministic):
    """``functional.to_dtype(inpt, dtype, scale=True)`` on every leaf ``to_dtype`` supports, as torchvision's
    legacy class: images and videos are converted and rescaled, masks, boxes and keypoints converted without
    scaling (unlike ``ToDtype(dtype)``, which leaves them alone)."""

    _functional = staticmethod(F.to_dtype)

    def __init__(self, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        if not isinstance(dtype, torch.dtype):
            raise TypeError(f"ConvertImageDtype: dtype must be a torch.dtype, got {dtype!r}")
        self.dtype = dtype

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.to_dtype(inpt, self.dtype, scale=True)

    def extra_repr(self) -> str:
        return f"dtype={self.dtype}"
