"""jpeg: JPEG compression and decompression of uint8 images ``[..., 1 or 3, H, W]`` (CPU), ``quality`` 1..100.

With the native library built against libjpeg (``_native.JPEG``, see setup.py) every mode runs the C++ operator
``jitvision_native::jpeg_u8(Tensor images, Tensor quality)`` (csrc/jpeg.cpp): libjpeg(-turbo) with torchvision's
``encode_jpeg``/``decode_jpeg`` settings (4:2:0 chroma subsampling, the integer DCT, baseline tables scaled by
``quality``, grayscale for one channel). RGB images go through libjpeg's raw-data interface: the colour conversion
and the 4:2:0 chroma resampling are done on the CHW planes in libjpeg-turbo's own integer arithmetic (the pixels are
libjpeg's, bit for bit), so no pixel is interleaved; grayscale rows go to libjpeg as they are. In
eager mode it is called directly; under torch.compile and torch.export it is one graph node whose quality is a
tensor (so ``JPEG((lo, hi))`` stays random, per call or per sample of a batch); a scripted ``jpeg`` calls it too,
so a scripted or exported JPEG runs in a C++ program that loaded the native library (no Python).

Without it (a build with no libjpeg): OpenCV's codec when ``cv2`` imports, else Pillow's, in eager mode; under
tracing and scripting the Python operator ``jitvision::jpeg`` (a Python implementation with a fake one), which
works in a Python process that imported jitvision and not in a C++ runtime. Pillow's and OpenCV's codecs with
their defaults give torchvision's pixels back on the images we compared (the tests compare them).
"""

import io
from typing import List

import numpy as np
import PIL.Image
import torch

from ... import _native
from ...tv_tensors import Image, Video
from ._dispatch import call_custom_op, get_kernel, is_pure_tensor, is_tracing, register_kernel

try:  # OpenCV's codec, when importable, is faster for the same bytes (see the module docstring)
    import cv2 as _cv2
except ImportError:  # pragma: no cover - depends on the environment
    _cv2 = None


def _check_image(image: torch.Tensor) -> None:
    if image.dtype != torch.uint8:
        raise TypeError(f"jpeg: expected a uint8 image, got {image.dtype}")
    if image.ndim < 3 or (image.shape[-3] != 1 and image.shape[-3] != 3):
        raise ValueError(f"jpeg: expected an image [..., 1 or 3, H, W], got shape {list(image.shape)}")


def _check_quality(quality: int) -> None:
    if quality < 1 or quality > 100:
        raise ValueError(f"jpeg: quality must be an integer from 1 to 100, got {quality}")


def _roundtrip_one(image: torch.Tensor, quality: int, out: torch.Tensor) -> None:
    """JPEG-encode the ``[C, H, W]`` uint8 ``image`` and decode it into ``out`` (same shape)."""
    if _cv2 is not None:
        _roundtrip_opencv(image, quality, out)
        return
    channels, height, width = image.shape
    planes = [
        PIL.Image.frombuffer("L", (width, height), image[c].contiguous().numpy(), "raw", "L", 0, 1)
        for c in range(channels)
    ]
    picture = planes[0] if channels == 1 else PIL.Image.merge("RGB", planes)  # planes -> pixels in C, no permute
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=quality)
    buffer.seek(0)
    decoded = PIL.Image.open(buffer)
    decoded.load()
    # band by band: each plane is one contiguous copy (an HWC -> CHW permute of the whole image is a strided gather)
    bands = [decoded] if channels == 1 else decoded.split()
    for c, band in enumerate(bands):
        out[c].copy_(torch.from_numpy(np.array(band, copy=True)))


def _roundtrip_opencv(image: torch.Tensor, quality: int, out: torch.Tensor) -> None:
    """The same round trip with OpenCV's libjpeg-turbo (planes merged to BGR and split back in C)."""
    planes = image.contiguous().numpy()
    source = planes[0] if planes.shape[0] == 1 else _cv2.merge([planes[2], planes[1], planes[0]])
    ok, encoded = _cv2.imencode(".jpg", source, [_cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("jpeg: OpenCV could not encode the image")
    if planes.shape[0] == 1:
        out[0].copy_(torch.from_numpy(_cv2.imdecode(encoded, _cv2.IMREAD_GRAYSCALE)))
        return
    decoded = _cv2.imdecode(encoded, _cv2.IMREAD_COLOR)
    if out.is_contiguous():  # split straight into the output planes (saves a copy of the image)
        targets = out.numpy()
        planes_bgr = [targets[2], targets[1], targets[0]]
        split = _cv2.split(decoded, planes_bgr)
        # OpenCV hands back the very arrays it wrote into (an identity test: cheaper than reading .ctypes.data)
        if all(plane is target for plane, target in zip(split, planes_bgr)):
            return
    blue, green, red = _cv2.split(decoded)
    for c, plane in enumerate((red, green, blue)):
        out[c].copy_(torch.from_numpy(plane))


def _jpeg_rows(images: torch.Tensor, qualities: List[int]) -> torch.Tensor:
    """``images`` ``[..., C, H, W]`` through the codec; ``qualities`` has 1 entry, or one per block of
    consecutive images (the rows of a batch)."""
    _check_image(images)
    for quality in qualities:
        _check_quality(quality)
    flat = images.reshape([-1] + list(images.shape[-3:]))
    out = torch.empty(flat.shape, dtype=torch.uint8)
    per_quality = max(flat.shape[0] // max(len(qualities), 1), 1)
    source = flat.cpu()
    for m in range(flat.shape[0]):
        _roundtrip_one(source[m], qualities[min(m // per_quality, len(qualities) - 1)], out[m])
    return out.to(images.device).reshape(images.shape)


_LIBRARY = torch.library.Library("jitvision", "FRAGMENT")
_LIBRARY.define("jpeg(Tensor images, Tensor quality) -> Tensor")


def _jpeg_impl(images: torch.Tensor, quality: torch.Tensor) -> torch.Tensor:
    qualities = [int(q) for q in quality.reshape(-1).tolist()]
    if quality.ndim == 1 and images.numel() and (images[..., 0, 0, 0].numel() % max(len(qualities), 1)) != 0:
        raise ValueError(f"jpeg: {len(qualities)} qualities for {images[..., 0, 0, 0].numel()} images")
    return _jpeg_rows(images, qualities)


_LIBRARY.impl("jpeg", _jpeg_impl, "CompositeExplicitAutograd")


@torch.library.register_fake("jitvision::jpeg")
def _jpeg_fake(images: torch.Tensor, quality: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(images, memory_format=torch.contiguous_format)


def jpeg_with_tensor_quality(image: torch.Tensor, quality: torch.Tensor) -> torch.Tensor:
    """The codec with the quality as an integer tensor: ``[]``, or ``[R]`` for one quality per block of
    consecutive images of the flattened batch (a batch's rows). Eager: the codec directly; traced and scripted:
    one operator (the native one when the library has it, else the Python ``jitvision::jpeg``)."""
    if torch.jit.is_scripting():
        if _native.JPEG:
            return torch.ops.jitvision_native.jpeg_u8(image, quality)
        return torch.ops.jitvision.jpeg(image, quality)
    if _native.JPEG:
        if not is_tracing():
            return torch.ops.jitvision_native.jpeg_u8(image, quality)
        _check_image(image)
        return call_custom_op(torch.ops.jitvision_native.jpeg_u8.default, image, quality)
    if not is_tracing():
        return _jpeg_rows(image, [int(q) for q in quality.reshape(-1).tolist()])
    _check_image(image)
    # call_custom_op adds a leading unit dimension to the images; the qualities still split them in R blocks.
    return call_custom_op(torch.ops.jitvision.jpeg.default, image, quality)


def jpeg_image(image: torch.Tensor, quality: int) -> torch.Tensor:
    _check_quality(quality)
    if torch.jit.is_scripting():
        return jpeg_with_tensor_quality(image, torch.tensor(quality, dtype=torch.int64))
    if not is_tracing():
        if _native.JPEG:
            if image.device.type != "cpu":
                _check_image(image)  # the op's own checks run on the host copy; a meta tensor has none
            return torch.ops.jitvision_native.jpeg_u8(image, torch.tensor(quality, dtype=torch.int64))
        return _jpeg_rows(image, [quality])
    return jpeg_with_tensor_quality(image, torch.tensor(quality, dtype=torch.int64, device=image.device))


def jpeg_video(video: torch.Tensor, quality: int) -> torch.Tensor:
    return jpeg_image(video, quality)


@torch.jit.unused
def jpeg_image_pil(image: PIL.Image.Image, quality: int) -> PIL.Image.Image:
    _check_quality(quality)
    buffer = io.BytesIO()
    try:
        image.save(buffer, format="JPEG", quality=quality)
    except OSError as exc:
        raise TypeError(f"jpeg: PIL images of mode {image.mode} cannot be JPEG-encoded ({exc})") from exc
    buffer.seek(0)
    return PIL.Image.open(buffer).copy()  # a plain Image, not a JpegImageFile


def jpeg(image: torch.Tensor, quality: int) -> torch.Tensor:
    """JPEG-compress and decompress images and videos (uint8, 1 or 3 channels) at ``quality`` (1..100). Plain
    tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(image):
        return jpeg_image(image, quality)
    return get_kernel(jpeg, type(image))(image, quality)


register_kernel(jpeg, Image)(jpeg_image)
register_kernel(jpeg, Video)(jpeg_video)
register_kernel(jpeg, PIL.Image.Image)(jpeg_image_pil)
