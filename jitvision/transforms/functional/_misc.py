"""to_dtype and normalize: kernels per kind and their functionals.

``to_dtype(..., scale=True)`` follows torchvision's value ranges: floats live in [0, 1], integer images in
[0, max] of their dtype (uint8: 255, int8: 127, int16: 32767, uint16: 65535, int32/int64: 2**31-1/2**63-1),
bool in {0, 1}. Conversions between integer dtypes shift bits, float -> int multiplies by ``max + 1 - 1e-3``
and truncates, as torchvision does.

Where we deliberately differ from torchvision: float -> int saturates at the integer dtype's range instead
of wrapping (torchvision turns a float16 ``1.0`` into uint8 ``0`` because ``1.0 * 255.999`` rounds to 256 in
float16, and out-of-range floats give platform-dependent values); every value torchvision converts without
overflow is unchanged. float16 -> int32/int64 is refused like float32 -> int32 (torchvision overflows to
infinity and returns INT_MIN). Scaling to or from uint32/uint64 raises a TypeError (torchvision silently
treats their range as [0, 1]).
"""

from typing import List

import torch

from ...tv_tensors import BoundingBoxes, Image, KeyPoints, Mask, Video, wrap
from ._dispatch import device_constant, get_kernel, is_pure_tensor, register_kernel, unwrap


class UnsafeDtypeConversionError(RuntimeError, ValueError):
    """A float -> int conversion that cannot be done exactly (float16/float32 -> int32/int64, float64 -> int64).

    A RuntimeError as in torchvision, and a ValueError like our other bad-argument errors."""


def _is_float_dtype(dtype: torch.dtype) -> bool:
    if torch.jit.is_scripting():  # TorchScript has no dtype.is_floating_point
        return dtype in [torch.float16, torch.bfloat16, torch.float32, torch.float64]
    return dtype.is_floating_point


def _max_value(dtype: torch.dtype) -> int:
    """The value that stands for "full intensity" in an integer (or bool) image."""
    if dtype == torch.uint8:
        return 255
    if dtype == torch.int8:
        return 127
    if dtype == torch.int16:
        return 32767
    if dtype == torch.uint16:
        return 65535
    if dtype == torch.int32:
        return 2147483647
    if dtype == torch.int64:
        return 9223372036854775807
    if dtype == torch.bool:
        return 1
    raise TypeError(f"to_dtype: scaling is not defined for {dtype} (supported: bool, uint8, uint16, int8-int64)")


def _value_bits(dtype: torch.dtype) -> int:
    """Bits that carry the value in an integer image (the sign bit excluded)."""
    if dtype == torch.bool:
        raise TypeError("to_dtype: scaling between bool and integer dtypes is not defined")
    max_value = _max_value(dtype)
    bits = 0
    while max_value > 0:
        max_value = max_value // 2
        bits += 1
    return bits


def _mantissa_bits(dtype: torch.dtype) -> int:
    if dtype == torch.float16:
        return 11
    if dtype == torch.bfloat16:
        return 8
    if dtype == torch.float32:
        return 24
    return 53


def _largest_float_at_most(value: int, dtype: torch.dtype) -> float:
    """The largest number of float ``dtype`` that is <= ``value`` (a positive integer)."""
    if dtype == torch.float16 and value > 65504:
        return 65504.0
    step = 1
    while value >= (step << _mantissa_bits(dtype)):
        step *= 2
    return float((value // step) * step)


def _float_to_int(image: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    wide_int = dtype == torch.int32 or dtype == torch.int64
    # torchvision's rule, plus float16, whose range (65504) cannot even reach int32's levels
    if ((image.dtype == torch.float32 or image.dtype == torch.float16) and wide_int) or (
        image.dtype == torch.float64 and dtype == torch.int64
    ):
        raise UnsafeDtypeConversionError(
            f"to_dtype: the conversion from {image.dtype} to {dtype} cannot be performed safely"
        )
    max_value = _max_value(dtype)
    # torchvision's formula: multiply by max + 1 - eps and truncate, so that [0, 1] spreads evenly over the levels.
    scaled = image.mul(float(max_value) + 1.0 - 1e-3)
    if dtype == torch.bool:
        return scaled.to(dtype)
    lowest = 0.0
    if dtype == torch.int8 or dtype == torch.int16 or dtype == torch.int32 or dtype == torch.int64:
        lowest = -_largest_float_at_most(max_value + 1, image.dtype)
    scaled = scaled.clamp_(lowest, _largest_float_at_most(max_value, image.dtype))
    if dtype == torch.uint8:
        # float -> uint8 is not vectorized on CPU (float -> int16 is); the values are in range, so
        # narrowing afterwards is exact.
        scaled = scaled.to(torch.int16)
    return scaled.to(dtype)


def _int_to_int(image: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    bits_in = _value_bits(image.dtype)
    bits_out = _value_bits(dtype)
    if bits_in > bits_out:
        shift = bits_in - bits_out
        if image.dtype == torch.uint16:  # no bit shifts on uint16: a division truncates the same way
            return (image / (1 << shift)).to(dtype)
        return image.bitwise_right_shift(shift).to(dtype)
    shift = bits_out - bits_in
    if dtype == torch.uint16:
        return image.to(dtype) * (1 << shift)
    return image.to(dtype).bitwise_left_shift_(shift)


def to_dtype_image(image: torch.Tensor, dtype: torch.dtype = torch.float, scale: bool = False) -> torch.Tensor:
    if image.dtype == dtype:
        return image
    if not scale:
        return image.to(dtype)
    float_out = _is_float_dtype(dtype)
    if image.is_floating_point():
        if float_out:
            return image.to(dtype)
        return _float_to_int(image, dtype)
    if float_out:
        return image.to(dtype).mul_(1.0 / _max_value(image.dtype))
    return _int_to_int(image, dtype)


def to_dtype_video(video: torch.Tensor, dtype: torch.dtype = torch.float, scale: bool = False) -> torch.Tensor:
    return to_dtype_image(video, dtype, scale=scale)


def convert_image_dtype(image: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """torchvision's legacy (deprecated) conversion: ``to_dtype_image(image, dtype, scale=True)`` for any tensor.

    As in torchvision, every input is treated as an image and its values scaled, also for a Mask, BoundingBoxes or
    KeyPoints (use ``to_dtype`` to keep those unscaled); the result is a plain tensor except where torchvision
    keeps the type (the same dtype: the input itself; float to float).
    Errors name ``to_dtype``."""
    if not torch.jit.is_scripting():
        _check_dtype(dtype)
        if not isinstance(image, torch.Tensor):
            raise TypeError(f"convert_image_dtype: expected a tensor, got {type(image).__name__}")
        if image.dtype == dtype:  # the input itself, whatever its type, as torchvision returns it
            return image
        if image.is_floating_point() and dtype.is_floating_point:
            return image.to(dtype)  # a tv_tensor stays one here, as torchvision's .to() keeps the type
        if type(image) is not torch.Tensor:
            image = unwrap(image)
    return to_dtype_image(image, dtype, scale=True)


def to_dtype(inpt: torch.Tensor, dtype: torch.dtype = torch.float, scale: bool = False) -> torch.Tensor:
    """Convert to ``dtype``; with ``scale``, images and videos are rescaled to the value range of ``dtype``.
    Masks, boxes and keypoints change dtype without scaling. Plain tensors are treated as images."""
    if not torch.jit.is_scripting():
        _check_dtype(dtype)
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return to_dtype_image(inpt, dtype, scale=scale)
    return get_kernel(to_dtype, type(inpt))(inpt, dtype, scale=scale)


@torch.jit.unused
def _check_dtype(dtype: torch.dtype) -> None:
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"to_dtype: dtype must be a torch.dtype, got {dtype!r}")


def _to_dtype_unscaled(inpt: torch.Tensor, dtype: torch.dtype, scale: bool = False) -> torch.Tensor:
    # Masks, boxes and keypoints hold labels and coordinates, not intensities: never scaled.
    return wrap(unwrap(inpt).to(dtype), like=inpt)


register_kernel(to_dtype, Image)(to_dtype_image)
register_kernel(to_dtype, Video)(to_dtype_video)
for _kind in (Mask, BoundingBoxes, KeyPoints):
    register_kernel(to_dtype, _kind, tv_tensor_wrapper=False)(_to_dtype_unscaled)


def normalize_image(image: torch.Tensor, mean: List[float], std: List[float], inplace: bool = False) -> torch.Tensor:
    if not torch.jit.is_scripting():  # a single number (or a tensor) too, as torchvision accepts
        mean, std = _float_list(mean, "mean"), _float_list(std, "std")
    if not image.is_floating_point():
        raise TypeError(
            f"normalize: Input tensor should be a float tensor, got {image.dtype}; convert it with to_dtype(..., "
            "scale=True) first"
        )
    if image.ndim < 3:
        raise ValueError(
            f"normalize: Expected tensor to be a tensor image of size (..., C, H, W), got shape {list(image.shape)}"
        )
    channels = image.shape[-3]
    if (len(mean) != 1 and len(mean) != channels) or (len(std) != 1 and len(std) != channels):
        raise ValueError(
            f"normalize: mean and std need 1 or {channels} values (one per channel), got {len(mean)} and {len(std)}"
        )
    for s in std:
        if s == 0:
            raise ValueError(f"normalize: std evaluated to zero, leading to division by zero, got {std}")
    mean_t = device_constant(mean, image.dtype, image.device).view(-1, 1, 1)
    std_t = device_constant(std, image.dtype, image.device).view(-1, 1, 1)
    centered = image.sub_(mean_t) if inplace else image.sub(mean_t)
    return centered.div_(std_t)


def normalize_video(video: torch.Tensor, mean: List[float], std: List[float], inplace: bool = False) -> torch.Tensor:
    return normalize_image(video, mean, std, inplace=inplace)


def normalize(inpt: torch.Tensor, mean: List[float], std: List[float], inplace: bool = False) -> torch.Tensor:
    """``(inpt - mean) / std`` per channel, for float images and videos. Plain tensors are treated as images."""
    if not torch.jit.is_scripting():
        mean, std = _float_list(mean, "mean"), _float_list(std, "std")
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return normalize_image(inpt, mean, std, inplace=inplace)
    return get_kernel(normalize, type(inpt))(inpt, mean, std, inplace=inplace)


@torch.jit.unused
def _float_list(values: List[float], name: str) -> List[float]:
    """mean/std as a list of Python floats (a single number, a sequence, or a 1D tensor of them)."""
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        return [float(values)]
    if isinstance(values, torch.Tensor):  # a host sync: pass lists to compiled code
        values = values.reshape(-1).tolist()
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError(f"normalize: {name} must be a sequence of numbers, got {values!r}") from None
    if not out:
        raise ValueError(f"normalize: {name} must not be empty")
    return out


register_kernel(normalize, Image)(normalize_image)
register_kernel(normalize, Video)(normalize_video)
