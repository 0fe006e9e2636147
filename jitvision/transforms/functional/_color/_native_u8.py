"""The native uint8 photometric ops (``csrc/color.cpp``, ``jitvision_native::*``): the CPU fast path of the kernels.

A uint8 CPU image with the extension loaded goes through one native op per adjustment (one graph node under
torch.compile/export, see the fake impls in ``jitvision._native``); other dtypes and devices, TorchScript and a
build without the extension take the PyTorch code beside each call. The ops keep torchvision's float32 arithmetic
per value (see the file's header), so their results equal the PyTorch path's within the parity tolerance (most
pixels bit for bit; tests/test_native_color.py holds them to it).
"""

from typing import List, Optional

import torch

from .... import _native
from .._dispatch import call_custom_op

# Adjustment codes of ``adjust_u8`` / ``color_jitter_u8``.
BRIGHTNESS, CONTRAST, SATURATION, HUE = 0, 1, 2, 3
# Point operation codes of ``point_u8`` / ``random_point_u8`` (``csrc/color_point.cpp``).
INVERT, SOLARIZE, POSTERIZE = 0, 1, 2


@torch.jit.unused
def applies(image: torch.Tensor) -> bool:
    """Whether ``image`` takes the native path: uint8, on the CPU, extension loaded."""
    return _native.AVAILABLE and image.dtype == torch.uint8 and image.device.type == "cpu"


@torch.jit.unused
def applies_rgb(image: torch.Tensor) -> bool:
    """``applies`` for the ops defined on 1- or 3-channel images."""
    return applies(image) and image.ndim >= 3 and image.shape[-3] in (1, 3)


@torch.jit.unused
def row_factors(factor: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
    """A ``[]`` factor as it is; per-row factors (viewed to broadcast, e.g. ``[R, 1, 1, 1]``) flattened to one per
    ``[C, H, W]`` image of ``image`` (repeated over a video's frames)."""
    if factor.ndim == 0 or factor.numel() == 1:
        return factor.reshape([])
    flat = factor.reshape(-1)
    images = image.numel() // max(1, image.shape[-3] * image.shape[-2] * image.shape[-1])
    if images == flat.shape[0]:
        return flat
    return flat.reshape(-1, 1).expand(-1, images // flat.shape[0]).reshape(-1)


@torch.jit.unused
def adjust(image: torch.Tensor, factor: torch.Tensor, op: int) -> torch.Tensor:
    """Brightness, contrast, saturation or hue (``op``) of a uint8 image, one factor or one per row."""
    return call_custom_op(torch.ops.jitvision_native.adjust_u8, image, row_factors(factor, image), op)


@torch.jit.unused
def lookup(image: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Every value of a uint8 image through one 256-entry uint8 table (``jitvision_native::lut_u8``)."""
    return call_custom_op(torch.ops.jitvision_native.lut_u8, image, table.reshape(1, 256))


@torch.jit.unused
def color_jitter(image: torch.Tensor, order: torch.Tensor, factors: torch.Tensor, present: int) -> torch.Tensor:
    """ColorJitter's adjustments in the drawn order (``order`` ``[4]`` or ``[R, 4]``), ``present`` a bit mask."""
    if order.ndim == 2 and image.ndim > 4:  # per-sample parameters over a batch of videos: one set per frame
        frames = image.numel() // (image.shape[0] * image.shape[-3] * image.shape[-2] * image.shape[-1])
        order = order.repeat_interleave(frames, dim=0)
        factors = factors.repeat_interleave(frames, dim=0)
    return call_custom_op(torch.ops.jitvision_native.color_jitter_u8, image, order, factors, present)


@torch.jit.unused
def point(image: torch.Tensor, op: int, arg: int) -> torch.Tensor:
    """Invert (``arg`` unused), solarize (``arg`` the first level inverted, 0-256) or posterize (``arg`` the bit
    mask) of a uint8 image: one vectorised pass at memory speed in eager, one node under compile (inductor's uint8
    code, and a 256-entry lookup table, are both slower than ATen's vectorised kernels)."""
    return call_custom_op(torch.ops.jitvision_native.point_u8, image, op, arg)


@torch.jit.unused
def random_point(
    image: torch.Tensor, p: float, op: int, arg: int, generator: Optional[torch.Generator]
) -> List[torch.Tensor]:
    """A RandomApplyTransform's eager call for a point op: the coin (``torch.rand([])`` on ``generator``, applied
    when below ``p`` in float32, RandomApplyTransform's draw) and the op in one native call: ``[output]``, or ``[]``
    when the coin says no."""
    return torch.ops.jitvision_native.random_point_u8(image, p, op, arg, generator)


@torch.jit.unused
def color_jitter_random(
    image: torch.Tensor, low: List[float], high: List[float], present: int, generator: Optional[torch.Generator]
) -> torch.Tensor:
    """ColorJitter's eager call on one image: ``_draw``'s draws (same generator calls, same values) and
    ``color_jitter`` in one native call."""
    return torch.ops.jitvision_native.color_jitter_random_u8(image, low, high, present, generator)


@torch.jit.unused
def grayscale(image: torch.Tensor) -> torch.Tensor:
    return call_custom_op(torch.ops.jitvision_native.grayscale_u8, image)


@torch.jit.unused
def equalize(image: torch.Tensor) -> torch.Tensor:
    return call_custom_op(torch.ops.jitvision_native.equalize_u8, image)


@torch.jit.unused
def autocontrast(image: torch.Tensor) -> torch.Tensor:
    return call_custom_op(torch.ops.jitvision_native.autocontrast_u8, image)


@torch.jit.unused
def sharpness(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return call_custom_op(torch.ops.jitvision_native.sharpness_u8, image, row_factors(factor, image))
