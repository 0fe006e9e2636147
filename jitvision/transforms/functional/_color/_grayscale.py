"""rgb_to_grayscale (to_grayscale), grayscale_to_rgb and permute_channels.

As in torchvision, ``rgb_to_grayscale`` and ``grayscale_to_rgb`` have no video kernel: the functionals reject a
``Video`` and the ``Grayscale``/``RGB`` transforms pass videos through untouched.
"""

from typing import List

import PIL.Image
import torch

from .... import _native
from ....tv_tensors import Image, Video
from .._dispatch import call_custom_op, get_kernel, is_pure_tensor, register_kernel
from . import _native_u8
from ._utils import check_image


def _luma(image: torch.Tensor) -> torch.Tensor:
    """ITU-R 601-2 luma ``[..., 1, H, W]`` in the image's dtype (integer images truncated)."""
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        return _native_u8.grayscale(image)
    r, g, b = image.unbind(dim=-3)
    if image.is_floating_point():
        return r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114).unsqueeze(-3)
    luma = r.to(torch.float32).mul_(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114)
    if image.dtype == torch.uint8:
        luma = luma.to(torch.int16)
    return luma.to(image.dtype).unsqueeze(-3)


def rgb_to_grayscale_image(image: torch.Tensor, num_output_channels: int = 1) -> torch.Tensor:
    if num_output_channels not in (1, 3):
        raise ValueError(f"rgb_to_grayscale: num_output_channels must be 1 or 3, got {num_output_channels}")
    num_channels = check_image(image, "rgb_to_grayscale", [1, 3])
    if num_channels == 1:
        return image.clone() if num_output_channels == 1 else image.repeat_interleave(3, dim=-3)
    luma = _luma(image)
    if num_output_channels == 3:
        shape = list(luma.shape)
        shape[-3] = 3
        return luma.expand(shape)
    return luma


def rgb_to_grayscale_image_pil(image: PIL.Image.Image, num_output_channels: int = 1) -> PIL.Image.Image:
    if num_output_channels not in (1, 3):
        raise ValueError(f"rgb_to_grayscale: num_output_channels must be 1 or 3, got {num_output_channels}")
    gray = image.convert("L")
    return gray.convert("RGB") if num_output_channels == 3 else gray


def rgb_to_grayscale(inpt: torch.Tensor, num_output_channels: int = 1) -> torch.Tensor:
    """Convert RGB to gray (ITU-R 601-2 luma), repeated to ``num_output_channels`` (1 or 3) channels."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return rgb_to_grayscale_image(inpt, num_output_channels)
    return get_kernel(rgb_to_grayscale, type(inpt))(inpt, num_output_channels)


# torchvision's legacy name, the same function (code written for torchvision checks ``to_grayscale is
# rgb_to_grayscale``).
to_grayscale = rgb_to_grayscale


def grayscale_to_rgb_image(image: torch.Tensor) -> torch.Tensor:
    num_channels = check_image(image, "grayscale_to_rgb", [])
    if num_channels >= 3:  # torchvision returns images with 3 or more channels as they are
        return image
    if num_channels != 1:
        raise TypeError(f"grayscale_to_rgb: expected a 1-channel (or already RGB) image, got {num_channels} channels")
    return image.repeat_interleave(3, dim=-3)


def grayscale_to_rgb_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    return image.convert("RGB")


def grayscale_to_rgb(inpt: torch.Tensor) -> torch.Tensor:
    """Repeat a 1-channel image to 3 channels; images with 3 or more channels are returned as they are."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return grayscale_to_rgb_image(inpt)
    return get_kernel(grayscale_to_rgb, type(inpt))(inpt)


# ---- permute_channels -------------------------------------------------------------------------------------------


@torch.jit.unused
def _native_permute_applies(image: torch.Tensor) -> bool:
    """Whether ``_permute_channels`` takes the native op: the library has it and no gradient is needed (the op has
    no autograd formula)."""
    return _native.CHANNELS and image.ndim >= 3 and not image.requires_grad


def _permute_channels(image: torch.Tensor, permutation: torch.Tensor) -> torch.Tensor:
    """Channels reordered by an int64 ``permutation``: ``[C]`` for the whole tensor, or ``[R, C]`` per row.

    Outside TorchScript, without autograd, one ``jitvision_native::permute_channels`` call (a plane copy per channel
    on the CPU; one graph node under compile, where inductor would emit an element-wise uint8 gather); its output
    is contiguous, which index_select's is too for a contiguous input."""
    if not torch.jit.is_scripting() and _native_permute_applies(image):
        return call_custom_op(torch.ops.jitvision_native.permute_channels, image, permutation)
    if permutation.ndim == 1:
        return image.index_select(-3, permutation)
    index_shape = [permutation.shape[0]] + [1] * (image.ndim - 1)
    index_shape[-3] = permutation.shape[1]
    rows = permutation.reshape(index_shape).expand(image.shape)
    return torch.gather(image, image.ndim - 3, rows)


def permute_channels_image(image: torch.Tensor, permutation: List[int]) -> torch.Tensor:
    num_channels = check_image(image, "permute_channels", [])
    if len(permutation) != num_channels:
        raise ValueError(
            f"permute_channels: the permutation has {len(permutation)} entries but the image {num_channels} channels"
        )
    indices = _channel_indices(permutation, num_channels)
    return _permute_channels(image, torch.tensor(indices, dtype=torch.int64, device=image.device))


def _channel_indices(permutation: List[int], num_channels: int) -> List[int]:
    """``permutation`` with negative entries counted from the end (``-1`` is the last channel), as torchvision's
    indexing takes them; an entry outside ``[-C, C)`` is a ValueError naming permute_channels."""
    indices: List[int] = []
    for index in permutation:
        if index < -num_channels or index >= num_channels:
            raise ValueError(
                f"permute_channels: channel index {index} is out of range for an image of {num_channels} channels"
            )
        indices.append(index + num_channels if index < 0 else index)
    return indices


def permute_channels_video(video: torch.Tensor, permutation: List[int]) -> torch.Tensor:
    return permute_channels_image(video, permutation)


def permute_channels_image_pil(image: PIL.Image.Image, permutation: List[int]) -> PIL.Image.Image:
    bands = image.split()
    if len(permutation) != len(bands):
        raise ValueError(
            f"permute_channels: the permutation has {len(permutation)} entries but the image {len(bands)} channels"
        )
    return PIL.Image.merge(image.mode, [bands[index] for index in _channel_indices(permutation, len(bands))])


def permute_channels(inpt: torch.Tensor, permutation: List[int]) -> torch.Tensor:
    """Reorder the channels: output channel ``i`` is input channel ``permutation[i]``."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return permute_channels_image(inpt, permutation)
    return get_kernel(permute_channels, type(inpt))(inpt, permutation)


register_kernel(rgb_to_grayscale, Image)(rgb_to_grayscale_image)
register_kernel(rgb_to_grayscale, PIL.Image.Image)(rgb_to_grayscale_image_pil)
register_kernel(grayscale_to_rgb, Image)(grayscale_to_rgb_image)
register_kernel(grayscale_to_rgb, PIL.Image.Image)(grayscale_to_rgb_image_pil)
register_kernel(permute_channels, Image)(permute_channels_image)
register_kernel(permute_channels, Video)(permute_channels_video)
register_kernel(permute_channels, PIL.Image.Image)(permute_channels_image_pil)
