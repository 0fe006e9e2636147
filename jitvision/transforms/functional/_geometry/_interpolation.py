"""InterpolationMode: how resampling kernels compute pixels, and the parsing of what users pass for it."""

from enum import Enum
from typing import Any, Union

import torch


class InterpolationMode(Enum):
    """Resampling filters, with torchvision's names and values.

    ``NEAREST``, ``NEAREST_EXACT``, ``BILINEAR``, ``BICUBIC`` and ``LANCZOS`` (antialiased only) work on tensors
    and PIL images; ``BOX`` and ``HAMMING`` only on PIL images (a tensor resize that changes the size raises
    ``NotImplementedError``, as in torchvision). Members compare equal only to members of this enum;
    every functional also accepts torchvision's ``InterpolationMode``, the mode's string value and Pillow's
    integer constants.
    """

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's resampling constants (PIL.Image.Resampling), as torchvision maps them.
_PIL_CODES = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.NEAREST_EXACT: 0,
    InterpolationMode.LANCZOS: 1,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
    InterpolationMode.BOX: 4,
    InterpolationMode.HAMMING: 5,
}


def pil_resample_code(interpolation: InterpolationMode) -> int:
    """The ``resample`` argument of ``PIL.Image.resize`` for a mode."""
    return _PIL_CODES[interpolation]


def _from_pil_code(code: int, op: str) -> InterpolationMode:
    if code == 0:
        return InterpolationMode.NEAREST
    if code == 1:
        return InterpolationMode.LANCZOS
    if code == 2:
        return InterpolationMode.BILINEAR
    if code == 3:
        return InterpolationMode.BICUBIC
    if code == 4:
        return InterpolationMode.BOX
    if code == 5:
        return InterpolationMode.HAMMING
    raise ValueError(op + ": interpolation code " + str(code) + " is not a Pillow resampling constant (0 to 5)")


def _from_value(value: str, op: str) -> InterpolationMode:
    for mode in InterpolationMode:
        if mode.value == value:
            return mode
    raise ValueError(
        op
        + ": unknown interpolation '"
        + value
        + "'; expected one of nearest, nearest-exact, bilinear, bicubic, box, hamming, lanczos"
    )


@torch.jit.unused
def _from_foreign(interpolation: Any, op: str) -> InterpolationMode:
    # torchvision's InterpolationMode (or any enum with the same values), read by value.
    value = getattr(interpolation, "value", None)
    if isinstance(interpolation, Enum) and isinstance(value, str):
        return _from_value(value, op)
    raise ValueError(
        f"{op}: interpolation must be an InterpolationMode, its string value or a Pillow integer constant, "
        f"got {interpolation!r}"
    )


def check_interpolation(
    interpolation: Union[str, InterpolationMode, int], op: str = "interpolation"
) -> InterpolationMode:
    """Our ``InterpolationMode`` for ``interpolation`` given as ours, torchvision's, a string value such as
    ``"bilinear"`` or a Pillow constant such as ``2``. Raises ValueError (naming ``op``) otherwise."""
    if isinstance(interpolation, InterpolationMode):
        return interpolation
    if isinstance(interpolation, str):
        return _from_value(interpolation, op)
    if isinstance(interpolation, int):
        if not torch.jit.is_scripting() and isinstance(interpolation, bool):
            raise ValueError(op + ": interpolation must be an InterpolationMode, got a bool")
        return _from_pil_code(interpolation, op)
    if torch.jit.is_scripting():
        raise ValueError(op + ": unsupported interpolation")
    return _from_foreign(interpolation, op)
