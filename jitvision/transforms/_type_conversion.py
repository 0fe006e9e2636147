"""ToImage, ToPureTensor, PILToTensor and ToPILImage: change what a leaf is, never its values."""

from typing import Any, Dict, Optional

import numpy as np
import PIL.Image
import torch

from ..tv_tensors import Image
from . import functional as F
from ._misc import _Deterministic


class ToImage(_Deterministic):
    """Make the image of the sample an ``Image``: PIL images, numpy arrays (``[H, W, C]``) and the pure tensor
    that stands for the image (torchvision's rule); tv_tensors pass through. Scripted: plain tensors pass
    through (a 2D one gets its channel dimension)."""

    _transformed_types = (torch.Tensor, PIL.Image.Image, np.ndarray)
    _transformed_kinds = ()  # a tv_tensor already is one

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.to_image(inpt)


class ToPureTensor(_Deterministic):
    """Turn every tv_tensor (ours or torchvision's) into a plain tensor sharing its data; the rest passes through."""

    _transformed_types = (torch.Tensor,)
    _pure_tensors_pass = True

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.to_pure_tensor(inpt)


class _PythonOnly(_Deterministic):
    def __prepare_scriptable__(self) -> None:
        raise TypeError(f"{type(self).__name__} converts PIL images and cannot be scripted")


class PILToTensor(_PythonOnly):
    """PIL images to ``[C, H, W]`` tensors of their pixel type (not scaled); the rest passes through."""

    _transformed_types = (PIL.Image.Image,)

    @torch.jit.unused
    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        return F.pil_to_tensor(inpt)


class ToPILImage(_PythonOnly):
    """Images (plain tensors, ``Image``, ``[H, W, C]`` numpy arrays) to PIL images; see
    ``functional.to_pil_image`` for how ``mode`` is chosen."""

    _transformed_types = (torch.Tensor, np.ndarray)
    _transformed_kinds = (Image,)

    def __init__(self, mode: Optional[str] = None) -> None:
        super().__init__()
        if mode is not None and not isinstance(mode, str):
            raise TypeError(f"ToPILImage: mode must be a PIL mode string or None, got {mode!r}")
        self.mode = mode

    @torch.jit.unused
    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        return F.to_pil_image(inpt, mode=self.mode)

    def extra_repr(self) -> str:
        return f"mode={self.mode!r}" if self.mode is not None else ""
