"""EncodedImage: an image not decoded yet (its file's bytes and the size its header records).

Transforms that start a pipeline with a crop or a resize (RandomResizedCrop, Resize, RandomShortestSize, CenterCrop,
RandomCrop, or a Compose led by one of them) take it directly and decode only what they keep (see
``jitvision.transforms._decode_fused`` and docs/io.md); every other transform decodes it whole first. It is a plain
Python object holding a 1-D uint8 tensor, so it pickles (a DataLoader worker can return it) and no tensor op can
mistake the bytes for pixels.
"""

from __future__ import annotations

import os
import struct
from typing import Any, Optional, Tuple, Union

import torch

from .. import _native
from ..io._exif import read_exif_orientation
from ..io._image import check_encoded, decode_image, image_format, native_error, read_file
from ..io._mode import ImageReadMode, as_read_mode


def _header_size(data: torch.Tensor, kind: str) -> Tuple[int, int]:
    """(height, width) as stored, read from the header only (JPEG: libjpeg's header reader; PNG: IHDR; others:
    Pillow's lazy open, which reads the header). A ValueError naming EncodedImage for unreadable data."""
    if kind == "jpeg" and _native.DECODE_JPEG:
        try:
            height, width = torch.ops.jitvision_native.jpeg_header.default(data)[:2]
        except (RuntimeError, ValueError) as error:
            raise native_error(error, "EncodedImage") from None
        return int(height), int(width)
    if kind == "png" and data.numel() >= 24:
        width, height = struct.unpack(">II", data[16:24].numpy().tobytes())
        return int(height), int(width)
    import io

    import PIL.Image

    try:
        with PIL.Image.open(io.BytesIO(data.numpy().tobytes())) as image:
            return image.height, image.width
    except (OSError, SyntaxError, ValueError) as error:
        raise ValueError(f"EncodedImage: cannot read the image header ({type(error).__name__}: {error})") from None


class EncodedImage:
    """An encoded image (JPEG, PNG, or any format ``jitvision.io.decode_image`` reads) and its ``canvas_size``.

    ``data``: the file's bytes as a 1-D uint8 tensor (or ``bytes``). ``mode`` and ``apply_exif_orientation``: how it
    is decoded, as in ``jitvision.io.decode_image`` (the default ``RGB`` is what ``ImageFolder``'s Pillow loader
    gives). ``canvas_size`` is ``(height, width)`` of the decoded image (after the EXIF orientation, when applied).
    ``EncodedImage.from_file(path)`` reads a file (and remembers the path, which decoding errors name).
    ``decode()`` returns the whole image as a ``tv_tensors.Image``. ``max_dct_scale`` (1, 2, 4 or 8): the coarsest
    DCT scale 1/d a fused resize may decode at; 1 keeps every fused output bit-identical to decode-then-transform.
    """

    __slots__ = (
        "data", "mode", "apply_exif_orientation", "format", "canvas_size", "orientation", "path", "max_dct_scale"
    )

    def __init__(
        self,
        data: Union[torch.Tensor, bytes, bytearray],
        mode: Any = ImageReadMode.RGB,
        apply_exif_orientation: bool = False,
        *,
        max_dct_scale: int = 8,
        path: Optional[str] = None,
    ) -> None:
        if max_dct_scale not in (1, 2, 4, 8):
            raise ValueError(f"EncodedImage: max_dct_scale must be 1, 2, 4 or 8, got {max_dct_scale!r}")
        self.max_dct_scale = max_dct_scale
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = torch.frombuffer(bytearray(data), dtype=torch.uint8)
        self.data = check_encoded(data, "EncodedImage")
        self.mode = as_read_mode(mode, "EncodedImage")
        self.apply_exif_orientation = bool(apply_exif_orientation)
        self.path = path
        self.format = image_format(self.data)
        self.orientation = read_exif_orientation(self.data) if self.apply_exif_orientation else 1
        height, width = _header_size(self.data, self.format)
        self.canvas_size = (width, height) if self.orientation >= 5 else (height, width)

    @classmethod
    def from_file(
        cls,
        path: Union[str, os.PathLike[str]],
        mode: Any = ImageReadMode.RGB,
        apply_exif_orientation: bool = False,
        *,
        max_dct_scale: int = 8,
    ) -> EncodedImage:
        path = os.fspath(path)
        try:
            return cls(read_file(path), mode, apply_exif_orientation, max_dct_scale=max_dct_scale, path=path)
        except ValueError as error:
            raise ValueError(f"{error} (file {path})") from None

    def _where(self) -> str:
        return f" (file {self.path})" if self.path is not None else ""

    def decode(self) -> torch.Tensor:
        """The whole image, decoded, as a ``tv_tensors.Image`` (uint8 ``[C, H, W]``)."""
        from ._image import Image

        try:
            decoded = decode_image(self.data, self.mode, self.apply_exif_orientation)
        except ValueError as error:
            raise ValueError(f"{error}{self._where()}") from None
        return Image(decoded)

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        where = f", path={self.path!r}" if self.path is not None else ""
        return (
            f"EncodedImage(format={self.format}, canvas_size={tuple(self.canvas_size)}, bytes={self.data.numel()}, "
            f"mode={self.mode.name}{where})"
        )


class BatchedEncodedImages:
    """``B`` encoded images (``EncodedImage`` each) that a transform or a ``Compose`` turns into one batch.

    Given to a ``Compose`` (or a transform) that starts with a crop or a resize, every image's parameters are drawn
    first, on the calling thread (so the result is the same for any thread count), then each image's region is
    decoded, resized (and flipped, converted to float and normalised, where the pipeline continues so) on torch's
    intra-op threads (``torch.set_num_threads`` sets how many) in one native call that releases the GIL, each
    written into its row of one ``[B, C, H, W]`` tensor; the rest of the pipeline runs on that
    ``tv_tensors.BatchedImages`` with one draw per sample. A pipeline that starts otherwise decodes the whole images
    the same way. The rows must end in one size (a ``ValueError`` says so where they do not). Row ``i`` equals what
    the pipeline gives ``images[i]`` alone for the same draws (see docs/io.md). ``jitvision.data.Loader`` builds
    these batches from a dataset.

    A plain list of EncodedImages is not a batch: as in torchvision, a transform applies one draw to every image of
    a list.
    """

    __slots__ = ("images",)

    def __init__(self, images: Any) -> None:
        images = list(images)
        if not images:
            raise ValueError("BatchedEncodedImages: expected at least one EncodedImage")
        for position, image in enumerate(images):
            if type(image) is not EncodedImage:
                raise TypeError(
                    f"BatchedEncodedImages: expected EncodedImage items, got {type(image).__name__} at {position}"
                )
        self.images = images

    @classmethod
    def from_files(
        cls,
        paths: Any,
        mode: Any = ImageReadMode.RGB,
        apply_exif_orientation: bool = False,
        *,
        max_dct_scale: int = 8,
    ) -> BatchedEncodedImages:
        return cls(
            EncodedImage.from_file(path, mode, apply_exif_orientation, max_dct_scale=max_dct_scale) for path in paths
        )

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int) -> EncodedImage:
        return self.images[index]

    def __iter__(self) -> Any:
        return iter(self.images)

    def __getstate__(self) -> dict:
        return {"images": self.images}

    def __setstate__(self, state: dict) -> None:
        object.__setattr__(self, "images", state["images"])

    def __repr__(self) -> str:
        return f"BatchedEncodedImages({len(self.images)} images)"
