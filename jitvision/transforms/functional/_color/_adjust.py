"""adjust_brightness, adjust_contrast, adjust_saturation, adjust_sharpness, adjust_gamma.

Each op has a core ``_<op>(image, factor)`` taking a tensor factor ([] or per-row, viewed to broadcast) and the
public kernels with torchvision's float signatures. Results follow torchvision: computed in float32 (float64
for float64 images), clamped to the dtype's range (floats to [0, 1]) and truncated back to integer dtypes.
"""

import functools
from typing import Optional

import PIL.Image
import PIL.ImageEnhance
import torch

from ....tv_tensors import Image, Video
from .._dispatch import get_kernel, is_pure_tensor, register_kernel
from .._misc import to_dtype_image
from . import _native_u8
from ._utils import (
    as_factor,
    blend,
    check_image,
    check_non_negative,
    compute_dtype,
    from_float,
    grayscale_float,
    host_scalar,
    max_value,
)

# ---- brightness -------------------------------------------------------------------------------------------------


def _adjust_brightness(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        return _native_u8.adjust(image, factor, _native_u8.BRIGHTNESS)
    bound = max_value(image.dtype)
    scalar = host_scalar(factor)
    if scalar is not None:  # eager: multiply by the Python number (what torchvision does, and faster)
        if image.is_floating_point():
            return image.mul(scalar).clamp_(0.0, bound)
        return from_float(image.to(torch.float32).mul_(scalar).clamp_(0.0, bound), image.dtype)
    if image.is_floating_point():
        return (image * factor.to(image.dtype)).clamp_(0.0, bound)
    return from_float(image.to(torch.float32).mul_(factor.to(torch.float32)).clamp_(0.0, bound), image.dtype)


def adjust_brightness_image(image: torch.Tensor, brightness_factor: float) -> torch.Tensor:
    check_non_negative(brightness_factor, "brightness_factor", "adjust_brightness")
    check_image(image, "adjust_brightness", [1, 3])
    return _adjust_brightness(image, as_factor(brightness_factor, image))


def adjust_brightness_video(video: torch.Tensor, brightness_factor: float) -> torch.Tensor:
    return adjust_brightness_image(video, brightness_factor)


def adjust_brightness_image_pil(image: PIL.Image.Image, brightness_factor: float) -> PIL.Image.Image:
    check_non_negative(brightness_factor, "brightness_factor", "adjust_brightness")
    return PIL.ImageEnhance.Brightness(image).enhance(brightness_factor)


def adjust_brightness(inpt: torch.Tensor, brightness_factor: float) -> torch.Tensor:
    """Scale intensities by ``brightness_factor`` (0 gives black, 1 the original), clamped to the dtype's range."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return adjust_brightness_image(inpt, brightness_factor)
    return get_kernel(adjust_brightness, type(inpt))(inpt, brightness_factor)


# ---- contrast ---------------------------------------------------------------------------------------------------


def gray_for_blend(image: torch.Tensor) -> torch.Tensor:
    """The gray image saturation blends with (and whose mean contrast blends with): the luma of a 3-channel image,
    floored for integer images as torchvision's integer grayscale is; a 1-channel image itself, as float."""
    if image.shape[-3] == 3:
        gray = grayscale_float(image)
        return gray if image.is_floating_point() else gray.floor_()
    return image if image.is_floating_point() else image.to(torch.float32)


def _adjust_contrast(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    if not torch.jit.is_scripting() and _native_u8.applies_rgb(image):
        return _native_u8.adjust(image, factor, _native_u8.CONTRAST)
    mean = gray_for_blend(image).mean(dim=(-3, -2, -1), keepdim=True)
    return blend(image, mean, factor)


def adjust_contrast_image(image: torch.Tensor, contrast_factor: float) -> torch.Tensor:
    check_non_negative(contrast_factor, "contrast_factor", "adjust_contrast")
    check_image(image, "adjust_contrast", [1, 3])
    return _adjust_contrast(image, as_factor(contrast_factor, image))


def adjust_contrast_video(video: torch.Tensor, contrast_factor: float) -> torch.Tensor:
    return adjust_contrast_image(video, contrast_factor)


def adjust_contrast_image_pil(image: PIL.Image.Image, contrast_factor: float) -> PIL.Image.Image:
    check_non_negative(contrast_factor, "contrast_factor", "adjust_contrast")
    return PIL.ImageEnhance.Contrast(image).enhance(contrast_factor)


def adjust_contrast(inpt: torch.Tensor, contrast_factor: float) -> torch.Tensor:
    """Blend with the mean gray level (0 gives a uniform gray image, 1 the original)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return adjust_contrast_image(inpt, contrast_factor)
    return get_kernel(adjust_contrast, type(inpt))(inpt, contrast_factor)


# ---- saturation -------------------------------------------------------------------------------------------------


def _adjust_saturation(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    if image.shape[-3] == 1:  # a gray image has no saturation to change
        return image
    if not torch.jit.is_scripting() and _native_u8.applies_rgb(image):
        return _native_u8.adjust(image, factor, _native_u8.SATURATION)
    return blend(image, gray_for_blend(image), factor)


def adjust_saturation_image(image: torch.Tensor, saturation_factor: float) -> torch.Tensor:
    check_non_negative(saturation_factor, "saturation_factor", "adjust_saturation")
    check_image(image, "adjust_saturation", [1, 3])
    return _adjust_saturation(image, as_factor(saturation_factor, image))


def adjust_saturation_video(video: torch.Tensor, saturation_factor: float) -> torch.Tensor:
    return adjust_saturation_image(video, saturation_factor)


def adjust_saturation_image_pil(image: PIL.Image.Image, saturation_factor: float) -> PIL.Image.Image:
    check_non_negative(saturation_factor, "saturation_factor", "adjust_saturation")
    return PIL.ImageEnhance.Color(image).enhance(saturation_factor)


def adjust_saturation(inpt: torch.Tensor, saturation_factor: float) -> torch.Tensor:
    """Blend with the grayscale image (0 gives gray, 1 the original); 1-channel images are returned as they are."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return adjust_saturation_image(inpt, saturation_factor)
    return get_kernel(adjust_saturation, type(inpt))(inpt, saturation_factor)


# ---- sharpness --------------------------------------------------------------------------------------------------


def _adjust_sharpness(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    height, width = image.shape[-2], image.shape[-1]
    if image.numel() == 0 or height <= 2 or width <= 2:
        return image
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        return _native_u8.sharpness(image, factor)
    fimage = image if image.is_floating_point() else image.to(torch.float32)
    # The smoothing filter [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 on the interior: a separable 3x3 box sum plus
    # 4 times the center (exact in float for integer images, so rounding to integers matches a convolution).
    rows = fimage[..., :-2, :] + fimage[..., 1:-1, :] + fimage[..., 2:, :]
    box = rows[..., :-2] + rows[..., 1:-1] + rows[..., 2:]
    center = fimage[..., 1:-1, 1:-1]
    smooth = (box + 4.0 * center) / 13.0
    if not image.is_floating_point():
        smooth = smooth.round_()
    # The interior moves from the image towards the smoothed image, x + (1 - factor) * (smooth - x); the one-pixel
    # border keeps the image's values.
    out = fimage.clone() if image.is_floating_point() else fimage
    scalar = host_scalar(factor)
    if scalar is not None:
        out[..., 1:-1, 1:-1] = center.add((smooth - center), alpha=1.0 - scalar)
    else:
        keep = (1.0 - factor.to(torch.float64)).to(compute_dtype(image))
        out[..., 1:-1, 1:-1] = torch.addcmul(center, smooth - center, keep)
    return from_float(out.clamp_(0.0, max_value(image.dtype)), image.dtype)


def adjust_sharpness_image(image: torch.Tensor, sharpness_factor: float) -> torch.Tensor:
    check_non_negative(sharpness_factor, "sharpness_factor", "adjust_sharpness")
    check_image(image, "adjust_sharpness", [1, 3])
    return _adjust_sharpness(image, as_factor(sharpness_factor, image))


def adjust_sharpness_video(video: torch.Tensor, sharpness_factor: float) -> torch.Tensor:
    return adjust_sharpness_image(video, sharpness_factor)


def adjust_sharpness_image_pil(image: PIL.Image.Image, sharpness_factor: float) -> PIL.Image.Image:
    check_non_negative(sharpness_factor, "sharpness_factor", "adjust_sharpness")
    return PIL.ImageEnhance.Sharpness(image).enhance(sharpness_factor)


def adjust_sharpness(inpt: torch.Tensor, sharpness_factor: float) -> torch.Tensor:
    """Blend with a smoothed image (0 gives the smoothed image, 1 the original, 2 doubles the sharpness)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return adjust_sharpness_image(inpt, sharpness_factor)
    return get_kernel(adjust_sharpness, type(inpt))(inpt, sharpness_factor)


# ---- gamma ------------------------------------------------------------------------------------------------------


def _gamma_float(image: torch.Tensor, gamma: torch.Tensor, gain: float) -> torch.Tensor:
    out = image.pow(gamma.to(image.dtype))
    if gain != 1.0:  # torchvision clamps only when a gain is applied
        out = out.mul_(gain).clamp_(0.0, 1.0)
    return out


def _gamma_table(gamma: torch.Tensor, gain: float, device: torch.device) -> torch.Tensor:
    """The 256 uint8 results of the per-pixel float computation, one per input level."""
    levels = torch.arange(256, dtype=torch.uint8, device=device)
    return to_dtype_image(_gamma_float(to_dtype_image(levels, torch.float32, True), gamma, gain), torch.uint8, True)


@functools.lru_cache(maxsize=64)
def _cached_gamma_table(gamma: float, gain: float) -> torch.Tensor:
    # A fixed gamma (a functional call in a loop, a transform's constant) builds its table once: building it is
    # ~6 small ops, a fair share of a lookup pass over a photograph.
    return _gamma_table(torch.full([], gamma, dtype=torch.float64), gain, torch.device("cpu"))


@torch.jit.unused
def _gamma_lookup_u8(image: torch.Tensor, gamma: torch.Tensor, gain: float) -> Optional[torch.Tensor]:
    """The native lookup (``jitvision_native::lut_u8``) of a uint8 CPU image, or None where it does not apply."""
    if not _native_u8.applies(image) or image.ndim < 2:
        return None
    scalar = host_scalar(gamma)
    table = _cached_gamma_table(scalar, float(gain)) if scalar is not None else _gamma_table(gamma, gain, image.device)
    return _native_u8.lookup(image, table)


def _adjust_gamma(image: torch.Tensor, gamma: torch.Tensor, gain: float = 1.0) -> torch.Tensor:
    if image.is_floating_point():
        return _gamma_float(image, gamma, gain)
    if image.dtype == torch.uint8:
        # 256 possible inputs: map them once and look every pixel up (exactly the per-pixel float computation).
        if not torch.jit.is_scripting() and gamma.ndim == 0:
            looked_up = _gamma_lookup_u8(image, gamma, gain)
            if looked_up is not None:
                return looked_up
        lut = _gamma_table(gamma, gain, image.device)
        return lut.index_select(0, image.reshape(-1).to(torch.int32)).view(image.shape)
    out = _gamma_float(to_dtype_image(image, torch.float32, True), gamma, gain).clamp_(0.0, 1.0)
    return to_dtype_image(out, image.dtype, True)


def adjust_gamma_image(image: torch.Tensor, gamma: float, gain: float = 1.0) -> torch.Tensor:
    if gamma < 0:  # torchvision's text, which callers match on
        raise ValueError(f"adjust_gamma: Gamma should be a non-negative real number, got {gamma}")
    check_non_negative(gamma, "gamma", "adjust_gamma")
    if image.ndim < 2:
        raise ValueError(f"adjust_gamma: expected a tensor with at least 2 dimensions [..., H, W], got {image.ndim}")
    return _adjust_gamma(image, as_factor(gamma, image), gain)


def adjust_gamma_video(video: torch.Tensor, gamma: float, gain: float = 1.0) -> torch.Tensor:
    return adjust_gamma_image(video, gamma, gain)


def adjust_gamma_image_pil(image: PIL.Image.Image, gamma: float, gain: float = 1.0) -> PIL.Image.Image:
    if gamma < 0:  # torchvision's text, which callers match on
        raise ValueError(f"adjust_gamma: Gamma should be a non-negative real number, got {gamma}")
    check_non_negative(gamma, "gamma", "adjust_gamma")
    mode = image.mode
    rgb = image.convert("RGB")
    # (255 + 1 - 1e-3) * gain * (level / 255) ** gamma, truncated and capped at 255: the tensor kernel's rule.
    table = [min(255, int(255.999 * gain * (level / 255.0) ** gamma)) for level in range(256)] * 3
    return rgb.point(table).convert(mode)


def adjust_gamma(inpt: torch.Tensor, gamma: float, gain: float = 1.0) -> torch.Tensor:
    """``gain * image ** gamma`` on intensities scaled to [0, 1] (integer images are converted and back)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return adjust_gamma_image(inpt, gamma, gain)
    return get_kernel(adjust_gamma, type(inpt))(inpt, gamma, gain)


for _op, _image_kernel, _video_kernel, _pil_kernel in (
    (adjust_brightness, adjust_brightness_image, adjust_brightness_video, adjust_brightness_image_pil),
    (adjust_contrast, adjust_contrast_image, adjust_contrast_video, adjust_contrast_image_pil),
    (adjust_saturation, adjust_saturation_image, adjust_saturation_video, adjust_saturation_image_pil),
    (adjust_sharpness, adjust_sharpness_image, adjust_sharpness_video, adjust_sharpness_image_pil),
    (adjust_gamma, adjust_gamma_image, adjust_gamma_video, adjust_gamma_image_pil),
):
    register_kernel(_op, Image)(_image_kernel)
    register_kernel(_op, Video)(_video_kernel)
    register_kernel(_op, PIL.Image.Image)(_pil_kernel)
