"""Pad, and the ``fill`` argument shared by transforms that pad (a number, per-channel values, or a dict
from input type to either)."""

from typing import Any, Dict, List, Optional, Union

import torch

from ...tv_tensors import Image, kind_of
from .. import functional as F
from .._transform import Transform
from ..functional._geometry._pad import (
    _PADDING_MODES,
    _check_fill_fits,
    _native_pad,
    _native_pad_applies,
    _padding_as_list,
    _parse_pad_padding,
)

FillValue = Optional[Union[int, float, List[float]]]


@torch.jit.unused
def setup_fill(fill: Any, owner: str) -> Dict[Any, FillValue]:
    """``fill`` as torchvision keeps it: ``{input type or "others": number, list of floats or None}``, with
    torchvision tv_tensor types mapped to ours."""
    entries = fill if isinstance(fill, dict) else {"others": fill}
    out: Dict[Any, FillValue] = {}
    for key, value in entries.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, list, tuple))):
            raise TypeError(f"{owner}: fill must be a number, a sequence of numbers or a dict of them, got {value!r}")
        if isinstance(value, (list, tuple)):
            value = [float(v) for v in value]
        if isinstance(key, type):
            key = kind_of(key) or key
        out[key] = value
    return out


@torch.jit.unused
def fill_for(fills: Dict[Any, FillValue], inpt: Any) -> FillValue:
    """The fill for one leaf: its type's entry, else ``"others"``, else None."""
    kind = kind_of(type(inpt)) or type(inpt)
    if kind in fills:
        return fills[kind]
    return fills.get("others")


@torch.jit.unused
def scripted_fill(fills: Dict[Any, FillValue]) -> Optional[List[float]]:
    """The fill TorchScript uses (it only sees plain tensors, i.e. images), as a list."""
    value = fills.get(Image, fills.get(torch.Tensor, fills.get("others")))
    if value is None or isinstance(value, list):
        return value
    return [float(value)]


@torch.jit.unused
def check_padding(padding: Any, owner: str) -> List[int]:
    """A class's ``padding``: a wrong type is a ValueError here, as torchvision's classes raise (its functional
    ``pad`` raises TypeError, and so does ours)."""
    try:
        padding = _padding_as_list(padding, owner)
    except TypeError as error:
        raise ValueError(str(error)) from None
    if len(padding) not in (1, 2, 4):
        raise ValueError(f"{owner}: padding must be an int or a sequence of 1, 2 or 4 ints, got {padding}")
    return padding


@torch.jit.unused
def check_padding_mode(padding_mode: Any, owner: str) -> str:
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"{owner}: padding_mode must be one of {_PADDING_MODES}, got {padding_mode!r}")
    return padding_mode


class PaddingTransform(Transform):
    """Base of the transforms that pad: checks and keeps ``fill`` and ``padding_mode`` and pads one leaf with
    them (the fill for its type in Python; the image fill, as a list, in TorchScript)."""

    __jit_ignored_attributes__ = Transform.__jit_ignored_attributes__ + ["fill", "_fills"]
    _script_fill: Optional[List[float]]

    def __init__(self, fill: Any, padding_mode: str, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(generator=generator)
        owner = type(self).__name__
        self.padding_mode = check_padding_mode(padding_mode, owner)
        self.fill = fill
        self._fills = setup_fill(fill, owner)
        self._script_fill = scripted_fill(self._fills)

    def _pad(self, inpt: torch.Tensor, padding: List[int]) -> torch.Tensor:
        if torch.jit.is_scripting():
            return F.pad(inpt, padding, self._script_fill, self.padding_mode)
        return F.pad(inpt, padding, fill_for(self._fills, inpt), self.padding_mode)


class Pad(PaddingTransform):
    """Pad every side of the sample by ``padding`` (int, [left/right, top/bottom] or [left, top, right,
    bottom]) with ``fill`` (constant mode) or by edge/reflect/symmetric extension."""

    _functional = staticmethod(F.pad)
    __jit_ignored_attributes__ = PaddingTransform.__jit_ignored_attributes__ + ["padding"]

    def __init__(
        self,
        padding: Union[int, List[int]],
        fill: Any = 0,
        padding_mode: str = "constant",
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(fill, padding_mode, generator=generator)
        self._padding = check_padding(padding, type(self).__name__)
        self.padding = padding if isinstance(padding, int) else list(padding)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._pad(inpt, self._padding)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # A constant pad by non-negative amounts of a contiguous CPU image: the native row-copy pad directly,
        # without the functional's layers (the same op and checks pad_image reaches).
        if self.padding_mode != "constant" or image.ndim < 3:
            return None
        fill = fill_for(self._fills, image)
        if isinstance(fill, list):
            if len(fill) != 1:
                return None
            fill = fill[0]
        fill = 0.0 if fill is None else float(fill)
        torch_padding = _parse_pad_padding(self._padding)
        if not _native_pad_applies(image, torch_padding):
            return None
        _check_fill_fits(fill, image.dtype)
        return _native_pad(image, torch_padding, fill)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode}"
