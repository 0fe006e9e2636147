"""Pad, and the ``fill`` argument shared by transforms that pad (a number, per-channel values, or a dict
from input type to either)."""

from typing import Any, Dict, List, Optional, Union

import torch

from ... import _native
from ..._eager_ops import entry
from ...tv_tensors import Image, kind_of
from .. import functional as F
from .._transform import Transform
from ..functional._geometry._pad import (
    _PADDING_MODES,
    _ROW_PAD_DTYPES,
    _check_fill_fits,
    _native_pad,
    _native_pad_applies,
    _op_fill,
    _padding_as_list,
    _parse_pad_padding,
)

FillValue = Optional[Union[int, float, List[float]]]

# The native row-copy pad's eager entry point (jitvision._eager_ops: the CPython binding, else ``OpOverload._op``;
# both skip the functional's dispatch); None without the native library.
_CONSTANT_PAD = entry("constant_pad") if _native.AVAILABLE else None


@torch.jit.unused
def setup_fill(fill: Any, owner: str) -> Dict[Any, FillValue]:
    """``fill`` as torchvision keeps it: ``{input type or "others": number, list of floats or None}``, with
    torchvision tv_tensor types mapped to ours."""
    entries = fill if isinstance(fill, dict) else {"others": fill}
    out: Dict[Any, FillValue] = {}
    for key, value in entries.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, list, tuple))):
            raise TypeError(
                f"{owner}: Got inappropriate fill arg: {value!r} (a number, a sequence of numbers or a dict of them)"
            )
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
        raise ValueError(
            f"{owner}: Padding must be an int or a 1, 2, or 4 element of tuple or list (ints), got {padding}"
        )
    return padding


@torch.jit.unused
def check_padding_mode(padding_mode: Any, owner: str) -> str:
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            f"{owner}: Padding mode should be either constant, edge, reflect or symmetric, got {padding_mode!r}"
        )
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
    __jit_ignored_attributes__ = PaddingTransform.__jit_ignored_attributes__ + ["padding", "_plain_pad"]

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
        self._plain_pad = None  # _eager_plain's cached plan (Python only; ignored by TorchScript)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._pad(inpt, self._padding)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # A constant pad by non-negative amounts: the native pad op directly, without the functional's layers (the
        # op pad_image reaches, and its checks). What depends only on the configuration (torch's padding order, the
        # plain tensors' fill, whether it fits uint8) is worked out once and reused while ``_padding`` and
        # ``padding_mode`` keep their values and ``_fills`` stays the same dict. The image needs no more checks than
        # its rank, dtype and autograd: the op writes a contiguous CPU image row by row and gives anything else
        # (strided, empty, another device) to ATen's constant_pad_nd, what pad_image calls for those.
        plan = self._plain_pad
        if plan is None or plan[0] != self._padding or plan[1] is not self._fills or plan[2] != self.padding_mode:
            plan = self._plain_pad = self._plan_plain_pad()
        torch_padding = plan[3]
        if torch_padding is not None and image.ndim >= 3 and not image.requires_grad:
            dtype = image.dtype
            if dtype == torch.uint8 and plan[5]:
                return _CONSTANT_PAD(image, torch_padding, plan[4])
            if dtype in _ROW_PAD_DTYPES:
                _check_fill_fits(plan[4], dtype)
                return _CONSTANT_PAD(image, torch_padding, plan[4])
        return self._eager_plain_checked(image)

    @torch.jit.unused
    def _plan_plain_pad(self) -> tuple:
        """(``_padding``, ``_fills``, ``padding_mode``, torch's [left, right, top, bottom] or None where the fast path
        does not apply, the op's fill value, whether it fits uint8)."""
        torch_padding: Optional[List[int]] = None
        value: Union[int, float] = 0
        fill = self._fills.get(torch.Tensor, self._fills.get("others"))  # fill_for(self._fills, plain tensor)
        if isinstance(fill, list):
            fill = fill[0] if len(fill) == 1 else "many"
        if self.padding_mode == "constant" and fill != "many":
            padding = _parse_pad_padding(self._padding)
            fill = 0.0 if fill is None else float(fill)
            if min(padding) >= 0 and _CONSTANT_PAD is not None:
                torch_padding = padding
                value = _op_fill(fill)  # _native_pad's conversion
        fits_u8 = isinstance(value, int) and 0 <= value <= 255
        return (list(self._padding), self._fills, self.padding_mode, torch_padding, value, fits_u8)

    @torch.jit.unused
    def _eager_plain_checked(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        """The fast path with every check per call (images the cached plan does not cover)."""
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
