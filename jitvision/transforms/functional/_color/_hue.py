"""adjust_hue: rotate the hue in HSV space."""

import PIL.Image
import torch

from ....tv_tensors import Image, Video
from .._dispatch import get_kernel, is_pure_tensor, register_kernel
from .._misc import to_dtype_image
from ._utils import as_factor, check_image


def _rgb_to_hsv(image: torch.Tensor) -> torch.Tensor:
    r, g, b = image.unbind(dim=-3)
    maxc = torch.maximum(torch.maximum(r, g), b)
    minc = torch.minimum(torch.minimum(r, g), b)
    gray = maxc == minc
    chroma = maxc - minc
    ones = torch.ones_like(maxc)
    saturation = chroma / torch.where(gray, ones, maxc)
    chroma_divisor = torch.where(gray, ones, chroma)
    rc = (maxc - r) / chroma_divisor
    gc = (maxc - g) / chroma_divisor
    bc = (maxc - b) / chroma_divisor
    is_r = maxc == r
    is_g = (maxc == g) & ~is_r
    is_b = ~(is_r | (maxc == g))
    hue = is_r * (bc - gc) + is_g * (2.0 + rc - bc) + is_b * (4.0 + gc - rc)
    hue = torch.fmod(hue / 6.0 + 1.0, 1.0)
    return torch.stack((hue, saturation, maxc), dim=-3)


def _hsv_to_rgb(h: torch.Tensor, s: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    h6 = h * 6.0
    sector = torch.floor(h6)
    f = h6 - sector
    sector = sector.to(torch.int32) % 6
    p = (v * (1.0 - s)).clamp_(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp_(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp_(0.0, 1.0)
    # Per sector (0..5): r = v q p p t v, g = t v v q p p, b = p p t v v q.
    s0, s1, s2, s3, s4 = sector == 0, sector == 1, sector == 2, sector == 3, sector == 4
    r = torch.where(s0 | ~(s1 | s2 | s3 | s4), v, torch.where(s1, q, torch.where(s4, t, p)))
    g = torch.where(s1 | s2, v, torch.where(s0, t, torch.where(s3, q, p)))
    b = torch.where(s3 | s4, v, torch.where(s2, t, torch.where(s0 | s1, p, q)))
    return torch.stack((r, g, b), dim=-3)


def _adjust_hue(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    if image.shape[-3] == 1 or image.numel() == 0:
        return image
    fimage = image if image.is_floating_point() else to_dtype_image(image, torch.float32, True)
    h, s, v = _rgb_to_hsv(fimage).unbind(dim=-3)
    if factor.ndim > 0:  # a per-row factor viewed against the image: drop its channel dimension, as h has none
        factor = factor.squeeze(-3)
    h = torch.remainder(h + factor.to(h.dtype), 1.0)
    out = _hsv_to_rgb(h, s, v)
    return out if image.is_floating_point() else to_dtype_image(out, image.dtype, True)


def adjust_hue_image(image: torch.Tensor, hue_factor: float) -> torch.Tensor:
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"adjust_hue: hue_factor ({hue_factor}) is not in [-0.5, 0.5]")
    num_channels = check_image(image, "adjust_hue", [1, 3])
    if num_channels == 1 or hue_factor == 0.0:
        return image.clone()
    return _adjust_hue(image, as_factor(hue_factor, image))


def adjust_hue_video(video: torch.Tensor, hue_factor: float) -> torch.Tensor:
    return adjust_hue_image(video, hue_factor)


def adjust_hue_image_pil(image: PIL.Image.Image, hue_factor: float) -> PIL.Image.Image:
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"adjust_hue: hue_factor ({hue_factor}) is not in [-0.5, 0.5]")
    if image.mode in ("L", "1", "I", "F"):
        return image
    mode = image.mode
    h, s, v = image.convert("HSV").split()
    shift = int(hue_factor * 255)
    h = h.point([(level + shift) % 256 for level in range(256)])
    return PIL.Image.merge("HSV", (h, s, v)).convert(mode)


def adjust_hue(inpt: torch.Tensor, hue_factor: float) -> torch.Tensor:
    """Shift the hue by ``hue_factor`` turns (in [-0.5, 0.5]); 1-channel images are returned as they are."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return adjust_hue_image(inpt, hue_factor)
    return get_kernel(adjust_hue, type(inpt))(inpt, hue_factor)


register_kernel(adjust_hue, Image)(adjust_hue_image)
register_kernel(adjust_hue, Video)(adjust_hue_video)
register_kernel(adjust_hue, PIL.Image.Image)(adjust_hue_image_pil)
