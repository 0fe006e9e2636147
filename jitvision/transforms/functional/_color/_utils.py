"""Shared pieces of the photometric kernels: value ranges, channel checks, factor tensors, blending.

Every kernel has a core taking its factor as a TENSOR (a 0-d tensor, or per-sample factors already viewed to
broadcast against the image, e.g. ``[R, 1, 1, 1]`` for ``[R, C, H, W]``), so a random transform can pass drawn
factors under torch.compile without ``.item()``. The public kernels with torchvision's float signatures validate
their arguments, turn the factor into a 0-d tensor and call the core.
"""

import math
from typing import Any, List, Optional

import torch

from .._dispatch import is_tracing
from .._misc import _is_float_dtype, _max_value


def is_float(image: torch.Tensor) -> bool:
    return image.is_floating_point()


def max_value(dtype: torch.dtype) -> float:
    """Full intensity of an image of ``dtype``: 1.0 for floats, ``_misc._max_value`` (the dtype's maximum, 1 for
    bool) for the integer dtypes it knows, 1.0 for any other dtype."""
    if _is_float_dtype(dtype) or dtype not in [
        torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32, torch.int64, torch.bool
    ]:
        return 1.0
    return float(_max_value(dtype))


def check_image(image: torch.Tensor, op: str, channels: List[int]) -> int:
    """The channel count of an ``[..., C, H, W]`` image, checked against ``channels`` (empty: any)."""
    if image.ndim < 3:
        raise ValueError(f"{op}: expected an image tensor [..., C, H, W] with at least 3 dimensions, got {image.ndim}")
    num_channels = image.shape[-3]
    if len(channels) > 0 and num_channels not in channels:
        allowed = " or ".join([str(c) for c in channels])
        raise TypeError(
            f"{op}: Input image tensor permitted channel values are {allowed} (it can have {allowed} channels), "
            f"but found {num_channels}"
        )
    return num_channels


def check_non_negative(value: float, name: str, op: str) -> None:
    """ValueError unless ``value`` is a finite number >= 0. NaN and infinity are both refused: torchvision takes
    both, and their results are NaN arithmetic cast to the dtype (an infinite contrast of a uint8 image came out
    black), so accepting inf while refusing NaN would be neither torchvision's rule nor a useful one."""
    if value < 0.0:  # torchvision's wording, which code written for it matches on
        raise ValueError(f"{op}: {name} ({value}) is not non-negative")
    if not (0.0 <= value < math.inf):
        raise ValueError(f"{op}: {name} must be a finite number >= 0, got {value}")


def as_factor(value: float, image: torch.Tensor) -> torch.Tensor:
    """A Python factor as the 0-d float64 tensor the cores take (exactly the Python number).

    Cores cast it to the compute dtype themselves and compute ``1 - factor`` in float64 first, as torchvision does
    with its Python floats; a float32 factor drawn by a transform is exact in float64 too."""
    # torch.full, not torch.tensor: TorchScript's torch.tensor(float) rounds the number through float32.
    return torch.full([], value, dtype=torch.float64, device=image.device)


def compute_dtype(image: torch.Tensor) -> torch.dtype:
    """The dtype photometric kernels compute in: the image's for floating images, float32 for the rest."""
    return image.dtype if image.is_floating_point() else torch.float32


def rows_factor(factor: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
    """A ``[]`` factor unchanged, a per-row ``[R]`` factor viewed as ``[R, 1, ..., 1]`` to broadcast over ``image``."""
    if factor.ndim == 0:
        return factor
    shape = [factor.shape[0]] + [1] * (image.ndim - 1)
    return factor.reshape(shape)


def to_float(image: torch.Tensor) -> torch.Tensor:
    """The image as float for computing (float images as they are; float64 stays float64)."""
    if image.is_floating_point():
        return image
    return image.to(torch.float32)


def from_float(result: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A float result already within ``[0, max_value(dtype)]`` back in ``dtype``, truncating like torchvision.

    float32 -> uint8 goes through int16: the same truncation, and vectorised on CPU where torch's direct cast is not."""
    if result.dtype == dtype:
        return result
    if dtype == torch.uint8:
        return result.to(torch.int16).to(torch.uint8)
    return result.to(dtype)


def host_scalar(factor: torch.Tensor) -> Optional[float]:
    """A 0-d CPU factor as a Python float where eager code may read it (never under torch.compile/export).

    ATen multiplies by a Python number without the broadcasting of a 0-d tensor operand, and ``addcmul`` with a
    broadcast operand is slower than ``mul`` + ``add_(alpha=...)`` (which round identically, checked bit for bit)."""
    if factor.ndim != 0 or factor.device.type != "cpu" or is_tracing():
        return None
    return float(factor.item())


def blend(image: torch.Tensor, other: torch.Tensor, ratio: torch.Tensor) -> torch.Tensor:
    """``ratio * image + (1 - ratio) * other`` clamped to the image's range, in the image's dtype.

    ``other`` is float (in the compute dtype). ``1 - ratio`` is computed in float64 and the sum with ``addcmul``,
    which is how torchvision's ``mul`` then ``add_(alpha=1 - ratio)`` rounds (a plain ``a + b * c`` differs in
    the last bit, and integer results are truncated, so ~2% of uint8 pixels came out one level lower)."""
    dtype = compute_dtype(image)
    bound = max_value(image.dtype)
    scalar = host_scalar(ratio)
    if scalar is not None:
        out = to_float(image).mul(scalar).add_(other, alpha=1.0 - scalar)
        return from_float(out.clamp_(0.0, bound), image.dtype)
    out = torch.addcmul(to_float(image) * ratio.to(dtype), other, (1.0 - ratio.to(torch.float64)).to(dtype))
    return from_float(out.clamp_(0.0, bound), image.dtype)


def grayscale_float(image: torch.Tensor) -> torch.Tensor:
    """ITU-R 601-2 luma of an ``[..., 3, H, W]`` image as float ``[..., 1, H, W]`` (no rounding)."""
    r, g, b = to_float(image).unbind(-3)
    return (r * 0.2989 + g * 0.587 + b * 0.114).unsqueeze(-3)


@torch.jit.unused
def pil_op(op: str, fn: Any, image: Any, *args: Any) -> Any:
    """``fn(image, *args)`` for a PIL.ImageOps function, its refusals named after the op: of a mode (OSError) as a
    TypeError, of an argument (ValueError) as a ValueError."""
    try:
        return fn(image, *args)
    except OSError as exc:
        raise TypeError(f"{op}: PIL images of mode {image.mode} are not supported ({exc})") from exc
    except ValueError as exc:
        raise ValueError(f"{op}: {exc}") from exc
