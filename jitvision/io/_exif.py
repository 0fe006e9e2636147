"""EXIF orientation: read from the encoded bytes (a JPEG's APP1 segment, a PNG's eXIf chunk) and applied to a
decoded ``[..., C, H, W]`` image as torchvision.io applies it."""

import struct
from typing import Optional

import torch

_ORIENTATION_TAG = 0x0112
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _orientation_in_tiff(tiff: bytes) -> int:
    """The orientation entry of IFD0 of a TIFF-structured EXIF block (1 when absent or unreadable)."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return 1
    endian = "<" if tiff[:2] == b"II" else ">"
    (offset,) = struct.unpack_from(endian + "I", tiff, 4)
    if offset + 2 > len(tiff):
        return 1
    (count,) = struct.unpack_from(endian + "H", tiff, offset)
    for entry in range(count):
        at = offset + 2 + 12 * entry
        if at + 12 > len(tiff):
            return 1
        tag, kind, _count = struct.unpack_from(endian + "HHI", tiff, at)
        if tag == _ORIENTATION_TAG:
            if kind == 3:  # SHORT: the value sits in the first two bytes of the value field
                (value,) = struct.unpack_from(endian + "H", tiff, at + 8)
            elif kind == 4:  # LONG
                (value,) = struct.unpack_from(endian + "I", tiff, at + 8)
            else:
                return 1
            return int(value) if 1 <= value <= 8 else 1
    return 1


def _jpeg_exif(data: bytes) -> Optional[bytes]:
    """The TIFF block of the first ``Exif`` APP1 segment, walking the markers up to the first scan."""
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            at += 2
            continue
        if marker in (0xDA, 0xD9):  # start of scan, end of image: no header segment follows
            return None
        (length,) = struct.unpack_from(">H", data, at + 2)
        segment = data[at + 4 : at + 2 + length]
        if marker == 0xE1 and segment[:6] == b"Exif\x00\x00":
            return segment[6:]
        at += 2 + length
    return None


def _png_exif(data: bytes) -> Optional[bytes]:
    """The content of the ``eXIf`` chunk, walking the chunks up to the image data."""
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, at)
        if kind == b"eXIf":
            return data[at + 8 : at + 8 + length]
        if kind in (b"IDAT", b"IEND"):
            return None
        at += 12 + length
    return None


def read_exif_orientation(data: torch.Tensor) -> int:
    """The EXIF orientation (1-8) recorded in encoded JPEG or PNG bytes (a 1-D uint8 tensor); 1 when there is
    none, for other formats, and when the metadata cannot be read (it never raises on bad metadata)."""
    head = data[:8].numpy().tobytes()
    try:
        if head[:3] == b"\xff\xd8\xff":  # APP1 segments are at most 64 KiB and come before the scan
            block = _jpeg_exif(data[: 1 << 17].numpy().tobytes())
        elif head == _PNG_SIGNATURE:  # the eXIf chunk may sit anywhere before the image data
            block = _png_exif(data.numpy().tobytes())
        else:
            return 1
        return 1 if block is None else _orientation_in_tiff(block)
    except struct.error:  # a segment or entry cut short
        return 1


def apply_exif_orientation(image: torch.Tensor, orientation: int) -> torch.Tensor:
    """``image`` (``[..., C, H, W]``) as displayed for an EXIF ``orientation`` of 1-8 (1: as stored; 2: mirrored;
    3: rotated 180; 4: flipped upside down; 5: transposed; 6: rotated 90 clockwise; 7: transversed; 8: rotated 90
    counterclockwise), as torchvision.io's ``apply_exif_orientation=True`` does. Other values return the image."""
    if orientation == 2:
        return image.flip(-1)
    if orientation == 3:
        return image.rot90(2, [-2, -1])
    if orientation == 4:
        return image.flip(-2)
    if orientation == 5:
        return image.transpose(-1, -2)
    if orientation == 6:
        return image.rot90(-1, [-2, -1])
    if orientation == 7:
        return image.rot90(2, [-2, -1]).transpose(-1, -2)
    if orientation == 8:
        return image.rot90(1, [-2, -1])
    return image
