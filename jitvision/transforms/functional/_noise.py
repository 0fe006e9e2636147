"""gaussian_noise: kernels per kind and the functional.

torchvision's semantics: float images get ``mean + sigma * N(0, 1)`` added (then clipped to [0, 1] with
``clip``); uint8 images get the same noise in uint8 units (``255 * mean + 255 * sigma * N(0, 1)``, truncated to
integers), added in int16 and clipped to [0, 255] (without ``clip`` the sum wraps around, as in torchvision).
Other dtypes and PIL images are rejected. Every element gets its own draw, so batches are per-sample for free.
"""

from typing import Optional

import PIL.Image
import torch

from ...tv_tensors import Image, Video
from ._dispatch import get_kernel, is_pure_tensor, register_kernel


def add_gaussian_noise(
    image: torch.Tensor, mean: float, sigma: float, clip: bool, generator: Optional[torch.Generator] = None
) -> torch.Tensor:
    """The kernel with an optional generator for the draw (what ``GaussianNoise`` calls)."""
    if sigma < 0:
        raise ValueError(f"gaussian_noise: sigma must not be negative, got {sigma}")
    if image.is_floating_point():
        if generator is None:
            noise = torch.randn_like(image)
        else:
            noise = torch.randn(image.shape, generator=generator, dtype=image.dtype, device=image.device)
        out = image + noise.mul_(sigma).add_(mean)
        return out.clamp_(0.0, 1.0) if clip else out
    if image.dtype == torch.uint8:
        if generator is None:
            noise = torch.randn_like(image, dtype=torch.float32)
        else:
            noise = torch.randn(image.shape, generator=generator, dtype=torch.float32, device=image.device)
        out = image.to(torch.int16).add_(noise.mul_(sigma * 255.0).add_(mean * 255.0).to(torch.int16))
        if clip:
            out = out.clamp_(0, 255)
        return out.to(torch.uint8)
    raise ValueError(f"gaussian_noise: expected a float or uint8 image, got {image.dtype}")


def gaussian_noise_image(image: torch.Tensor, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> torch.Tensor:
    return add_gaussian_noise(image, mean, sigma, clip)


def gaussian_noise_video(video: torch.Tensor, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> torch.Tensor:
    return add_gaussian_noise(video, mean, sigma, clip)


def gaussian_noise(inpt: torch.Tensor, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> torch.Tensor:
    """Add Gaussian noise to images and videos (see the module docstring). Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return gaussian_noise_image(inpt, mean, sigma, clip)
    return get_kernel(gaussian_noise, type(inpt))(inpt, mean=mean, sigma=sigma, clip=clip)


@torch.jit.unused
def _gaussian_noise_pil(image: PIL.Image.Image, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> None:
    raise TypeError("gaussian_noise: PIL images are not supported; convert them to tensors first (ToImage)")


register_kernel(gaussian_noise, Image)(gaussian_noise_image)
register_kernel(gaussian_noise, Video)(gaussian_noise_video)
register_kernel(gaussian_noise, PIL.Image.Image)(_gaussian_noise_pil)
