"""Encoded test images, made here with Pillow and OpenCV: photographs (scikit-image's, re-encoded as JPEG at
ImageNet-typical sizes), synthetic JPEGs of every kind the decoders must handle, and PNGs of every colour type."""

import functools
import io
import os
from typing import Dict, List, Tuple

import cv2
import numpy as np
import PIL.Image
import skimage
import torch

_PHOTOS = ("astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "rocket.jpg", "retina.jpg")
# (width, height): ImageNet-typical sizes, landscape and portrait, odd ones included
PHOTO_SIZES = ((500, 375), (375, 500), (640, 427), (333, 500), (481, 353))


def as_tensor(data: bytes) -> torch.Tensor:
    return torch.frombuffer(bytearray(data), dtype=torch.uint8)


def encode(image: PIL.Image.Image, fmt: str, **options) -> torch.Tensor:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return as_tensor(buffer.getvalue())


@functools.cache
def photographs() -> Tuple[PIL.Image.Image, ...]:
    folder = os.path.dirname(skimage.data.__file__)
    return tuple(PIL.Image.open(os.path.join(folder, name)).convert("RGB") for name in _PHOTOS)


@functools.cache
def photo_jpegs(quality: int = 90) -> Tuple[torch.Tensor, ...]:
    """Each photograph at each of PHOTO_SIZES, JPEG q``quality`` 4:2:0 (what ImageNet files mostly are)."""
    out = []
    for index, photo in enumerate(photographs()):
        size = PHOTO_SIZES[index % len(PHOTO_SIZES)]
        out.append(encode(photo.resize(size, PIL.Image.BICUBIC), "JPEG", quality=quality))
    return tuple(out)


def _noise_rgb(height: int, width: int, seed: int) -> PIL.Image.Image:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, (height // 4 + 1, width // 4 + 1, 3), dtype=np.uint8)
    smooth = cv2.resize(base, (width, height), interpolation=cv2.INTER_CUBIC)
    return PIL.Image.fromarray(smooth)


@functools.cache
def kinds_of_jpeg() -> Dict[str, torch.Tensor]:
    """Every kind of JPEG the decoder meets: subsamplings, gray, CMYK, progressive, restart markers, odd sizes."""
    rgb = _noise_rgb(75, 101, 0)
    photo = photographs()[1].resize((203, 157))
    ok, opencv = cv2.imencode(".jpg", np.asarray(rgb)[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return {
        "420": encode(rgb, "JPEG", quality=90),
        "444": encode(rgb, "JPEG", quality=90, subsampling=0),
        "422": encode(rgb, "JPEG", quality=90, subsampling=1),
        "gray": encode(rgb.convert("L"), "JPEG", quality=90),
        "cmyk": encode(photo.convert("CMYK"), "JPEG", quality=90),
        "progressive": encode(photo, "JPEG", quality=85, progressive=True),
        "optimized": encode(photo, "JPEG", quality=75, optimize=True),
        "tiny": encode(_noise_rgb(1, 1, 1), "JPEG"),
        "thin": encode(_noise_rgb(3, 97, 2), "JPEG"),
        "q100": encode(photo, "JPEG", quality=100),
        "opencv": as_tensor(ok and opencv.tobytes()),
    }


def exif_jpeg(orientation: int) -> torch.Tensor:
    """A non-square JPEG whose EXIF says ``orientation``."""
    image = _noise_rgb(48, 80, 3)
    exif = PIL.Image.Exif()
    exif[0x0112] = orientation
    return encode(image, "JPEG", quality=90, exif=exif.tobytes())


def exif_png(orientation: int) -> torch.Tensor:
    image = _noise_rgb(40, 64, 4)
    exif = PIL.Image.Exif()
    exif[0x0112] = orientation
    return encode(image, "PNG", exif=exif.tobytes())


@functools.cache
def kinds_of_png() -> Dict[str, torch.Tensor]:
    """Every PNG colour type and bit depth: gray (1, 8, 16 bits), gray + alpha, RGB (8, 16), RGBA, palettes."""
    rgb = _noise_rgb(37, 53, 5)
    rgba = rgb.copy()
    rgba.putalpha(PIL.Image.fromarray(np.asarray(rgb)[:, :, 0]))
    gray16 = (np.asarray(rgb.convert("L")).astype(np.uint16) * 257 + 3).astype(np.uint16)
    ok, rgb16 = cv2.imencode(".png", (np.asarray(rgb)[:, :, ::-1].astype(np.uint16) * 251))
    assert ok
    palette = rgb.convert("P", palette=PIL.Image.ADAPTIVE, colors=200)
    transparent = palette.copy()
    transparent.info["transparency"] = 3
    return {
        "rgb": encode(rgb, "PNG"),
        "rgba": encode(rgba, "PNG"),
        "gray": encode(rgb.convert("L"), "PNG"),
        "gray_alpha": encode(rgba.convert("LA"), "PNG"),
        "bits1": encode(rgb.convert("1"), "PNG"),
        "gray16": encode(PIL.Image.fromarray(gray16), "PNG"),
        "rgb16": as_tensor(rgb16.tobytes()),
        "palette": encode(palette, "PNG"),
        "palette_transparent": encode(transparent, "PNG", transparency=3),
        "palette4": encode(rgb.convert("P", palette=PIL.Image.ADAPTIVE, colors=16), "PNG", bits=4),
    }


def other_formats() -> Dict[str, torch.Tensor]:
    rgb = _noise_rgb(30, 41, 6)
    return {
        "gif": encode(rgb.convert("P"), "GIF"),
        "webp_lossless": encode(rgb, "WEBP", lossless=True),
        "bmp": encode(rgb, "BMP"),
    }


def corruptions(data: torch.Tensor) -> List[torch.Tensor]:
    """Truncations of ``data`` at several points and copies with bytes changed in the header and the body."""
    n = data.numel()
    out = [data[:cut].clone() for cut in sorted({1, 2, 3, 4, 10, 20, n // 8, n // 2, n - 2, n - 1}) if 0 < cut < n]
    for position in (2, 3, 5, 10, 20, 30, 60, 100, 160, n // 3, n // 2, n - 3):
        if position < n:
            for value in (0x00, 0xFF, 0xD9):
                changed = data.clone()
                changed[position] = value
                out.append(changed)
    return out


def write_image_folder(root) -> None:
    """An ImageFolder tree under ``root``: classes ``cat`` and ``dog``, each with every photograph as a JPEG."""
    for label in ("cat", "dog"):
        (root / label).mkdir()
        for index, data in enumerate(photo_jpegs()):
            (root / label / f"{index}.jpg").write_bytes(data.numpy().tobytes())
