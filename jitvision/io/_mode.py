"""ImageReadMode: the channels a decoder returns (torchvision.io's enum, same names and values)."""

from enum import Enum
from typing import Any


class ImageReadMode(Enum):
    """What a decoder converts the image to: ``UNCHANGED`` (as stored), ``GRAY``, ``GRAY_ALPHA``, ``RGB``,
    ``RGB_ALPHA`` (alias ``RGBA``). Decoders also take the names as strings (``"RGB"``) and torchvision's enum."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


def as_read_mode(mode: Any, op: str) -> ImageReadMode:
    """``mode`` as an ImageReadMode: ours, torchvision's (by name) or a name in any case; a ValueError naming ``op``
    otherwise."""
    if isinstance(mode, ImageReadMode):
        return mode
    name = mode.upper() if isinstance(mode, str) else getattr(mode, "name", None)
    if isinstance(name, str) and name in ImageReadMode.__members__:
        return ImageReadMode[name]
    raise ValueError(f"{op}: mode must be an ImageReadMode or one of {list(ImageReadMode.__members__)}, got {mode!r}")
