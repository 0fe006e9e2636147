"""gaussian_noise: kernels per kind and the functional.

torchvision's semantics: float images get ``mean + sigma * N(0, 1)`` added (then clipped to [0, 1] with
``clip``); uint8 images get the same noise in uint8 units (``255 * mean + 255 * sigma * N(0, 1)``, truncated to
integers), added in int16 and clipped to [0, 255] (without ``clip`` the sum wraps around, as in torchvision).
Other dtypes and PIL images are rejected. Every element gets its own draw, so batches are per-sample for free.

The noise is ``randn_like(image)`` (``transforms._random.normal_like``: laid out like the image, as torchvision
draws it, with or without a generator). Without a generator, the kernel is the native op
``jitvision_native::gaussian_noise`` (the same ATen calls in C++, one graph node under torch.compile/export:
inductor's own ``randn`` is a per-element Philox call, slower than ATen's, and draws from another stream, so the
native node is what gives a compiled GaussianNoise eager's values for a seed); with a generator (eager only) or in
TorchScript, the same calls run from Python.
"""

from typing import Optional

import PIL.Image
import torch

from ... import _native
from ...tv_tensors import Image, Video
from .._random import normal_like
from ._dispatch import call_custom_op, get_kernel, is_pure_tensor, is_tracing, register_kernel


def add_gaussian_noise(
    image: torch.Tensor, mean: float, sigma: float, clip: bool, generator: Optional[torch.Generator] = None
) -> torch.Tensor:
    """The kernel with an optional generator for the draw (what ``GaussianNoise`` calls)."""
    if not torch.jit.is_scripting() and not is_tracing():  # traced numbers may be symbolic (SymFloat)
        _check_numbers(mean, sigma)
    if sigma < 0:
        raise ValueError(f"gaussian_noise: sigma shouldn't be negative, got {sigma}")
    if not image.is_floating_point() and image.dtype != torch.uint8:
        raise ValueError(f"gaussian_noise: Input tensor is expected to be in uint8 or float dtype, got {image.dtype}")
    if not torch.jit.is_scripting():
        if generator is None and _native.FILTERS and not image.requires_grad and image.device.type == "cpu":
            return call_custom_op(torch.ops.jitvision_native.gaussian_noise.default, image, mean, sigma, clip)
    if image.is_floating_point():
        noise = normal_like(image, generator, image.dtype)
        out = image + noise.mul_(sigma).add_(mean)
        return out.clamp_(0.0, 1.0) if clip else out
    noise = normal_like(image, generator, torch.float32)
    out = image.to(torch.int16).add_(noise.mul_(sigma * 255.0).add_(mean * 255.0).to(torch.int16))
    if clip:
        out = out.clamp_(0, 255)
    return out.to(torch.uint8)


@torch.jit.unused
def _check_numbers(mean: float, sigma: float) -> None:
    # Python numbers only: the native op takes floats, and anything else would fail inside it, without the op's name.
    for name, value in (("mean", mean), ("sigma", sigma)):
        if not isinstance(value, (int, float)):
            raise TypeError(f"gaussian_noise: {name} must be a number, got {type(value).__name__} {value!r}")


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
    raise ValueError("gaussian_noise: Gaussian Noise is not implemented for PIL images.")


register_kernel(gaussian_noise, Image)(gaussian_noise_image)
register_kernel(gaussian_noise, Video)(gaussian_noise_video)
register_kernel(gaussian_noise, PIL.Image.Image)(_gaussian_noise_pil)
