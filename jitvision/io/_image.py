"""read_file, decode_jpeg, decode_png, decode_image, read_image: torchvision.io's image functions (same names,
arguments, defaults and outputs).

JPEG and PNG decode in the native library (libjpeg-turbo and libpng, ``csrc/decode_jpeg.cpp`` and
``csrc/decode_png.cpp``) with torchvision's settings, so the pixels are torchvision.io's, bit for bit; the output is
the ``[C, H, W]`` view of the ``[H, W, C]`` buffer the codec writes, as torchvision returns it (the native kernels
read that channels-last layout directly). Other formats (GIF, WebP, BMP, TIFF, ...) go through Pillow, as does a
format whose codec the library was built without (``jitvision._native.DECODE_JPEG`` / ``DECODE_PNG``). Outputs are
plain uint8 tensors (uint16 for 16-bit PNGs), as torchvision's. The native calls release the GIL.
"""

import os
from typing import Any, List, Union

import torch

from .. import _native

# aliased: the decoders' argument of the same name shadows it
from ._exif import apply_exif_orientation as _orient
from ._exif import read_exif_orientation
from ._mode import ImageReadMode, as_read_mode
from ._pillow import decode_with_pillow

_JPEG_MODES = (ImageReadMode.UNCHANGED, ImageReadMode.GRAY, ImageReadMode.RGB)


def read_file(path: Union[str, "os.PathLike[str]"]) -> torch.Tensor:
    """The bytes of the file at ``path`` as a 1-D uint8 tensor (read once, straight into the tensor)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        data = torch.empty(size, dtype=torch.uint8)
        if size and f.readinto(data.numpy()) != size:
            raise RuntimeError(f"read_file: {path} changed size while being read")
    return data


def check_encoded(data: Any, op: str) -> torch.Tensor:
    """``data`` checked as encoded bytes: a non-empty 1-D uint8 CPU tensor (a TypeError/ValueError naming ``op``)."""
    if not isinstance(data, torch.Tensor):
        raise TypeError(f"{op}: expected the encoded bytes as a 1-D uint8 tensor, got {type(data).__name__}")
    if data.dtype != torch.uint8:
        raise TypeError(f"{op}: expected the encoded bytes as a uint8 tensor, got {data.dtype}")
    if data.ndim != 1 or data.numel() == 0:
        raise ValueError(f"{op}: expected a non-empty 1-D tensor of encoded bytes, got shape {list(data.shape)}")
    if data.device.type != "cpu":
        raise ValueError(f"{op}: the encoded bytes must be on the CPU, got {data.device}")
    return data


def image_format(data: torch.Tensor) -> str:
    """``"jpeg"``, ``"png"`` or ``"other"`` from the first bytes (the signature decode_image dispatches on)."""
    head = data[:8].tolist()
    if head[:3] == [0xFF, 0xD8, 0xFF]:
        return "jpeg"
    if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]:
        return "png"
    return "other"


def native_error(error: Exception, op: str) -> ValueError:
    """The native decoder's error (a ValueError or RuntimeError whose first line names the native op) as a
    ValueError naming ``op``, the public function the user called."""
    message = str(error).splitlines()[0] if str(error) else type(error).__name__
    for native in ("decode_jpeg: ", "decode_png: ", "jpeg_header: "):
        if message.startswith(native):
            message = message[len(native) :]
    return ValueError(f"{op}: {message}")


def _decode_jpeg_one(data: torch.Tensor, mode: ImageReadMode, apply_exif: bool, op: str) -> torch.Tensor:
    check_encoded(data, op)
    if mode not in _JPEG_MODES:
        raise ValueError(f"{op}: mode {mode.name} is not supported for JPEG files (UNCHANGED, GRAY or RGB)")
    if _native.DECODE_JPEG:
        try:
            image = torch.ops.jitvision_native.decode_jpeg.default(data, mode.value, [], 1)
        except (RuntimeError, ValueError) as error:  # libjpeg's message, as a ValueError naming the function
            raise native_error(error, op) from None
    else:
        image = decode_with_pillow(data, mode, op)
    if apply_exif:
        image = _orient(image, read_exif_orientation(data))
    return image


def decode_jpeg(
    input: Union[torch.Tensor, List[torch.Tensor]],
    mode: Any = ImageReadMode.UNCHANGED,
    device: Union[str, torch.device] = "cpu",
    apply_exif_orientation: bool = False,
) -> Union[torch.Tensor, List[torch.Tensor]]:
    """Decode JPEG bytes (a 1-D uint8 CPU tensor, or a list of them) into uint8 ``[C, H, W]`` tensors.

    ``mode``: ``UNCHANGED`` (the stored components: 1 gray, 3 RGB, 4 CMYK), ``GRAY`` or ``RGB`` (CMYK files are
    converted as torchvision converts them); the alpha modes raise a ValueError, as in torchvision. The pixels are
    torchvision.io.decode_jpeg's (libjpeg-turbo, the integer "slow" IDCT, fancy upsampling). ``device``: the output is
    moved there after a CPU decode (torchvision decodes with nvjpeg on CUDA: the pixels may then differ slightly).
    ``apply_exif_orientation``: turn the image as its EXIF orientation says. Corrupt, truncated, empty or non-JPEG
    bytes raise a ValueError naming this function and libjpeg's reason.
    """
    read_mode = as_read_mode(mode, "decode_jpeg")
    target = torch.device(device) if isinstance(device, str) else device
    if isinstance(input, (list, tuple)):
        if len(input) == 0:
            raise ValueError("decode_jpeg: the list of inputs is empty")
        out = [_decode_jpeg_one(data, read_mode, apply_exif_orientation, "decode_jpeg") for data in input]
        return out if target.type == "cpu" else [image.to(target) for image in out]
    image = _decode_jpeg_one(input, read_mode, apply_exif_orientation, "decode_jpeg")
    return image if target.type == "cpu" else image.to(target)


def decode_png(input: torch.Tensor, mode: Any = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False):
    """Decode PNG bytes (a 1-D uint8 CPU tensor) into a ``[C, H, W]`` tensor: uint8, or uint16 for 16-bit files.

    ``mode`` as torchvision: ``UNCHANGED`` keeps the stored channels (a palette image gives its palette indices),
    ``GRAY``, ``GRAY_ALPHA``, ``RGB``, ``RGB_ALPHA`` convert with libpng's own transforms, torchvision's choices,
    so the pixels are torchvision.io.decode_png's. Corrupt, truncated, empty or non-PNG bytes raise a ValueError
    naming this function.
    """
    read_mode = as_read_mode(mode, "decode_png")
    check_encoded(input, "decode_png")
    if _native.DECODE_PNG:
        try:
            image = torch.ops.jitvision_native.decode_png.default(input, read_mode.value)
        except (RuntimeError, ValueError) as error:
            raise native_error(error, "decode_png") from None
    else:
        if image_format(input) != "png":
            raise ValueError("decode_png: the data is not a PNG file")
        image = decode_with_pillow(input, read_mode, "decode_png")
    if apply_exif_orientation:
        image = _orient(image, read_exif_orientation(input))
    return image


def decode_image(
    input: Union[torch.Tensor, str, "os.PathLike[str]"],
    mode: Any = ImageReadMode.UNCHANGED,
    apply_exif_orientation: bool = False,
) -> torch.Tensor:
    """Decode an image from its bytes (a 1-D uint8 tensor) or a path: JPEG and PNG natively (see decode_jpeg and
    decode_png), any other format Pillow reads through Pillow (GIF frames stack as ``[N, C, H, W]`` when there are
    several, as torchvision's). Bytes no decoder reads raise a ValueError naming this function."""
    read_mode = as_read_mode(mode, "decode_image")
    if isinstance(input, torch.Tensor):
        data = input
    elif isinstance(input, (str, os.PathLike)):
        data = read_file(input)
    else:
        raise TypeError(
            f"decode_image: expected the encoded bytes as a 1-D uint8 tensor or a path, got {type(input).__name__}"
        )
    check_encoded(data, "decode_image")
    kind = image_format(data)
    if kind == "jpeg":
        return _decode_jpeg_one(data, read_mode, apply_exif_orientation, "decode_image")
    if kind == "png":
        try:
            return decode_png(data, read_mode, apply_exif_orientation)
        except ValueError as error:
            raise ValueError(str(error).replace("decode_png", "decode_image", 1)) from None
    return decode_with_pillow(data, read_mode, "decode_image")


def read_image(
    path: Union[str, "os.PathLike[str]"], mode: Any = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False
) -> torch.Tensor:
    """``decode_image(read_file(path), mode, apply_exif_orientation)``."""
    return decode_image(read_file(path), mode, apply_exif_orientation=apply_exif_orientation)
