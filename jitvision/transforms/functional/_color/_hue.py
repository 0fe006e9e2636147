"""adjust_hue: rotate the hue in HSV space."""

from typing import List

import PIL.Image
import torch

from ....tv_tensors import Image, Video
from .._dispatch import get_kernel, is_pure_tensor, register_kernel
from . import _native_u8
from ._utils import as_factor, check_image, from_float, max_value


def _adjust_hue(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """Hue rotated by ``factor`` turns, value and saturation kept.

    Not a round trip through HSV: with the hue in sixths ``h6``, the max ``v``, min ``m`` and chroma ``c = v - m``
    of each pixel, output channel n (5 for red, 3 for green, 1 for blue) is ``v - c * clamp(min(k, 4 - k), 0, 1)``
    with ``k = (n + h6) mod 6`` (the closed form of HSV -> RGB). Integer images are processed in their own scale
    and truncated back as ``to_dtype`` does (``x / max * (max + 1 - 1e-3)``); the results match torchvision's
    HSV round trip within float rounding, at about a third of the operations.

    Deliberate difference from torchvision: float values outside [0, 1] follow the same closed form (linear in the
    max and chroma), while torchvision's round trip clamps some intermediate values to [0, 1] there."""
    if image.shape[-3] == 1 or image.numel() == 0:
        return image
    if not torch.jit.is_scripting() and _native_u8.applies_rgb(image):
        return _native_u8.adjust(image, factor, _native_u8.HUE)
    is_float = image.is_floating_point()
    fimage = image if is_float else image.to(torch.float32)
    r, g, b = fimage.unbind(dim=-3)
    maxc = torch.maximum(torch.maximum(r, g), b)
    minc = torch.minimum(torch.minimum(r, g), b)
    chroma = maxc - minc
    is_r = maxc == r
    is_g = maxc == g
    numerator = torch.where(is_r, g - b, torch.where(is_g, b - r, r - g))
    offset = torch.where(is_r, 0.0, torch.where(is_g, 2.0, 4.0))
    if factor.ndim > 0:  # a per-row factor viewed against the image: drop its channel dimension
        factor = factor.squeeze(-3)
    sixths = numerator / torch.where(chroma == 0, torch.ones_like(chroma), chroma) + offset
    sixths = sixths + (factor * 6.0).to(sixths.dtype)
    channels: List[torch.Tensor] = []
    for n in (5.0, 3.0, 1.0):
        k = torch.remainder(sixths + n, 6.0)
        weight = torch.clamp(torch.minimum(k, 4.0 - k), 0.0, 1.0)
        channels.append(maxc - chroma * weight)
    out = torch.stack(channels, dim=-3)
    if is_float:
        return out.to(image.dtype)  # the 0/2/4 offsets are float32 scalars: a float16 image came out float32
    bound = max_value(image.dtype)
    return from_float(out.mul_((bound + 1.0 - 1e-3) / bound).clamp_(0.0, bound), image.dtype)


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
