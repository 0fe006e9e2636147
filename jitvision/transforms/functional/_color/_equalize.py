"""equalize: per-channel histogram equalization, one traced graph (static shapes throughout).

Float and other integer images are equalized on their uint8 version and converted back, as torchvision does.
Deliberate difference: float values outside [0, 1] saturate in that conversion (``to_dtype``'s rule), where
torchvision's conversion wraps them; so a float image is equalized as if clamped to [0, 1] first.
The histogram is ``bincount`` of channel-offset pixel values in eager mode and a ``scatter_add`` into a fixed
``[N, 256]`` tensor under torch.compile/export (``bincount``'s output size depends on the data there).
"""

import PIL.Image
import PIL.ImageOps
import torch

from ....tv_tensors import Image, Video
from .._dispatch import get_kernel, is_pure_tensor, is_tracing, register_kernel
from .._misc import to_dtype_image
from . import _native_u8
from ._utils import pil_op


def _equalize_uint8(image: torch.Tensor) -> torch.Tensor:
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        return _native_u8.equalize(image)
    shape = image.shape
    pixels = shape[-2] * shape[-1]
    flat = image.reshape(-1, pixels)
    rows = flat.shape[0]
    # Pixel value + 256 * channel row: one index into all the rows' histograms and look-up tables.
    offsets = torch.arange(rows, dtype=torch.int32, device=image.device).mul_(256).unsqueeze(1)
    index = flat.to(torch.int32).add_(offsets).reshape(-1)
    if is_tracing() or image.device.type != "cpu":  # bincount reads its input's maximum: a sync on a GPU
        hist = torch.zeros(rows * 256, dtype=torch.int64, device=image.device)
        hist = hist.scatter_add(0, index.to(torch.int64), torch.ones_like(index, dtype=torch.int64))
    else:
        hist = torch.bincount(index, minlength=rows * 256)
    hist = hist.reshape(rows, 256)
    levels = torch.arange(256, dtype=torch.int64, device=image.device)
    # PIL's rule: the count of the highest level present is left out of the step between output levels.
    top = ((hist > 0) * levels).amax(dim=1, keepdim=True)
    step = (pixels - hist.gather(1, top)) // 255
    exclusive = hist.cumsum(dim=1) - hist
    lut = ((exclusive + step // 2) // step.clamp(min=1)).clamp_(max=255)
    lut = torch.where(step > 0, lut, levels)  # a step of 0 (almost uniform channel) leaves the channel as it is
    out = lut.to(torch.uint8).reshape(-1).index_select(0, index)
    return out.reshape(shape)


def equalize_image(image: torch.Tensor) -> torch.Tensor:
    if image.dtype == torch.bool:
        raise TypeError("equalize: bool images are not supported (integer or float images are)")
    if image.ndim < 2:
        raise ValueError(f"equalize: expected a tensor with at least 2 dimensions [..., H, W], got {image.ndim}")
    if image.numel() == 0:
        return image.clone()
    if image.dtype == torch.uint8:
        return _equalize_uint8(image)
    return to_dtype_image(_equalize_uint8(to_dtype_image(image, torch.uint8, True)), image.dtype, True)


def equalize_video(video: torch.Tensor) -> torch.Tensor:
    return equalize_image(video)


def equalize_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    return pil_op("equalize", PIL.ImageOps.equalize, image)


def equalize(inpt: torch.Tensor) -> torch.Tensor:
    """Equalize each channel's histogram (PIL's rule), computed on uint8 intensities."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return equalize_image(inpt)
    return get_kernel(equalize, type(inpt))(inpt)


register_kernel(equalize, Image)(equalize_image)
register_kernel(equalize, Video)(equalize_video)
register_kernel(equalize, PIL.Image.Image)(equalize_image_pil)
