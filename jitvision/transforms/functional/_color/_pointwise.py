"""invert, posterize, solarize and autocontrast.

uint8 images stay uint8 where that is exact (bit operations for invert and posterize); bool images are
rejected by invert/posterize/solarize, as torchvision does.
"""

import math

import PIL.Image
import PIL.ImageOps
import torch

from ....tv_tensors import Image, Video
from .._dispatch import get_kernel, is_pure_tensor, register_kernel
from .._misc import _is_float_dtype, _max_value, _value_bits
from . import _native_u8
from ._utils import check_image, from_float, max_value, pil_op


def _check_not_bool(image: torch.Tensor, op: str) -> None:
    if image.dtype == torch.bool:
        raise TypeError(f"{op}: bool images are not supported (integer or float images are)")
    if image.ndim < 2:
        raise ValueError(f"{op}: expected a tensor with at least 2 dimensions [..., H, W], got {image.ndim}")


def _threshold_above_range(threshold: float, dtype: torch.dtype) -> bool:
    """Whether ``threshold`` exceeds the dtype's full intensity, compared with the integer maximum itself: as a
    float, int64's 2**63 - 1 is 2**63, so a threshold of 2**63 passed."""
    if _is_float_dtype(dtype):
        return threshold > 1.0
    return threshold > _max_value(dtype)


# ---- invert -----------------------------------------------------------------------------------------------------


def _invert(image: torch.Tensor) -> torch.Tensor:
    if image.is_floating_point():
        return 1.0 - image
    if image.dtype == torch.uint8:
        if not torch.jit.is_scripting() and _native_u8.applies(image):
            return _native_u8.point(image, _native_u8.INVERT, 0)
        return image.bitwise_not()
    # The dtype's maximum is all value bits set (the sign bit kept): an int, never through a float, where int64's
    # 2**63 - 1 would become 2**63.
    return image.bitwise_xor(_max_value(image.dtype))


def invert_image(image: torch.Tensor) -> torch.Tensor:
    _check_not_bool(image, "invert")
    return _invert(image)


def invert_video(video: torch.Tensor) -> torch.Tensor:
    return invert_image(video)


def invert_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    return pil_op("invert", PIL.ImageOps.invert, image)


def invert(inpt: torch.Tensor) -> torch.Tensor:
    """Invert intensities: ``max - x`` (``1 - x`` for float images)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return invert_image(inpt)
    return get_kernel(invert, type(inpt))(inpt)


# ---- posterize --------------------------------------------------------------------------------------------------


def _check_bits(bits: int) -> None:
    if not (0 <= bits <= 8) or (not torch.jit.is_scripting() and not isinstance(bits, int)):
        raise TypeError(f"posterize: bits must be a positive integer in the range [0, 8], got {bits} instead.")


def posterize_image(image: torch.Tensor, bits: int) -> torch.Tensor:
    _check_bits(bits)
    _check_not_bool(image, "posterize")
    if image.is_floating_point():
        levels = 1 << bits
        return image.mul(levels).floor_().clamp_(0, levels - 1).mul_(1.0 / levels)
    value_bits = _value_bits(image.dtype)
    if bits >= value_bits:
        return image.clone()
    keep = _max_value(image.dtype) ^ ((1 << (value_bits - bits)) - 1)
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        return _native_u8.point(image, _native_u8.POSTERIZE, keep)
    return image.bitwise_and(keep)


def posterize_video(video: torch.Tensor, bits: int) -> torch.Tensor:
    return posterize_image(video, bits)


def posterize_image_pil(image: PIL.Image.Image, bits: int) -> PIL.Image.Image:
    _check_bits(bits)
    return pil_op("posterize", PIL.ImageOps.posterize, image, bits)


def posterize(inpt: torch.Tensor, bits: int) -> torch.Tensor:
    """Keep the ``bits`` most significant bits of each intensity (0..8)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return posterize_image(inpt, bits)
    return get_kernel(posterize, type(inpt))(inpt, bits)


# ---- solarize ---------------------------------------------------------------------------------------------------


def _solarize(image: torch.Tensor, threshold: float) -> torch.Tensor:
    if image.dtype == torch.uint8 and not torch.jit.is_scripting() and _native_u8.applies(image):
        # One native compare-and-select pass (eager and one node under compile).
        return _native_u8.point(image, _native_u8.SOLARIZE, solarize_cut(threshold))
    if image.dtype == torch.uint8:
        return _solarize_u8(image, threshold)
    return torch.where(image >= threshold, _invert(image), image)


def solarize_cut(threshold: float) -> int:
    """The first integer level at or above ``threshold`` (x >= t for an integer x is x >= ceil(t)), at least 0
    (a threshold of -inf too: every pixel is inverted, as torchvision does)."""
    if threshold <= 0.0:
        return 0
    return math.ceil(threshold)


def _solarize_u8(image: torch.Tensor, threshold: float) -> torch.Tensor:
    # (x - cut) >> 15 in int16 is -1 below the threshold and 0 above, so XOR-ing with its complement's low byte
    # inverts exactly the pixels at or above it.
    cut = solarize_cut(threshold)
    below = image.to(torch.int16).sub_(cut).bitwise_right_shift_(15)
    return image.bitwise_xor(below.bitwise_not_().to(torch.uint8))


def solarize_image(image: torch.Tensor, threshold: float) -> torch.Tensor:
    _check_not_bool(image, "solarize")
    if _threshold_above_range(threshold, image.dtype):
        bound = "1.0" if image.is_floating_point() else str(_max_value(image.dtype))
        raise TypeError(
            f"solarize: Threshold should be less or equal the maximum value of the dtype {image.dtype} "
            f"({bound}), got {threshold}"
        )
    if threshold != threshold:  # NaN: no pixel compares >= NaN, so none is inverted (torchvision's result)
        return image.clone()
    return _solarize(image, threshold)


def solarize_video(video: torch.Tensor, threshold: float) -> torch.Tensor:
    return solarize_image(video, threshold)


def solarize_image_pil(image: PIL.Image.Image, threshold: float) -> PIL.Image.Image:
    if threshold > 255:
        raise TypeError(f"solarize: threshold must be at most 255 for PIL images, got {threshold}")
    return pil_op("solarize", PIL.ImageOps.solarize, image, threshold)


def solarize(inpt: torch.Tensor, threshold: float) -> torch.Tensor:
    """Invert the pixels whose intensity is at least ``threshold``."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return solarize_image(inpt, threshold)
    return get_kernel(solarize, type(inpt))(inpt, threshold)


# ---- autocontrast -----------------------------------------------------------------------------------------------


def autocontrast_image(image: torch.Tensor) -> torch.Tensor:
    check_image(image, "autocontrast", [1, 3])
    if image.numel() == 0:
        return image.clone()
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        return _native_u8.autocontrast(image)
    bound = max_value(image.dtype)
    fimage = image if image.is_floating_point() else image.to(torch.float32)
    minimum = fimage.amin(dim=(-2, -1), keepdim=True)
    maximum = fimage.amax(dim=(-2, -1), keepdim=True)
    flat = maximum == minimum
    # (x - min) / ((max - min) / bound): dividing by the inverse scale rounds as torchvision does (multiplying by
    # bound / (max - min) instead gave some maxima one level higher in uint8).
    inverse_scale = torch.where(flat, torch.ones_like(maximum), (maximum - minimum) * (1.0 / bound))
    minimum = torch.where(flat, torch.zeros_like(minimum), minimum)
    out = (fimage - minimum).div_(inverse_scale).clamp_(0.0, bound)
    return from_float(out, image.dtype)


def autocontrast_video(video: torch.Tensor) -> torch.Tensor:
    return autocontrast_image(video)


def autocontrast_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    return pil_op("autocontrast", PIL.ImageOps.autocontrast, image)


def autocontrast(inpt: torch.Tensor) -> torch.Tensor:
    """Stretch each channel's intensities to the full range (its minimum to 0, its maximum to the top)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return autocontrast_image(inpt)
    return get_kernel(autocontrast, type(inpt))(inpt)


for _op, _image_kernel, _video_kernel, _pil_kernel in (
    (invert, invert_image, invert_video, invert_image_pil),
    (posterize, posterize_image, posterize_video, posterize_image_pil),
    (solarize, solarize_image, solarize_video, solarize_image_pil),
    (autocontrast, autocontrast_image, autocontrast_video, autocontrast_image_pil),
):
    register_kernel(_op, Image)(_image_kernel)
    register_kernel(_op, Video)(_video_kernel)
    register_kernel(_op, PIL.Image.Image)(_pil_kernel)
