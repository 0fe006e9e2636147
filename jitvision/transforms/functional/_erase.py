"""erase: kernels per kind and the functional, and the box-as-tensor form that RandomErasing compiles.

``erase(inpt, i, j, h, w, v)`` sets rows ``i:i+h`` and columns ``j:j+w`` to ``v`` (broadcast to ``[..., C, h, w]``,
cast to the image dtype), as torchvision does. ``erase_where`` does the same for a box given as a tensor
(``[4]``: i, j, h, w; or ``[R, 4]``, one box per leading row): the native op ``jitvision_native::erase_box`` (a
copy and one slice assignment per box, read from the box tensor inside the op), else (TorchScript, no extension) a
``where`` over a mask built from the box. Either way the output shape never depends on the box, and a compiled
RandomErasing stays one graph; inductor's code for the mask formulation reads and writes every pixel, the copy
only the box.
"""

from typing import Any, List

import PIL.Image
import torch

from ... import _native
from ...tv_tensors import Image, Video
from ._dispatch import call_custom_op, get_kernel, is_pure_tensor, is_tracing, register_kernel
from ._type_conversion import pil_to_tensor, to_pil_image


def _check_value(image: torch.Tensor, i: int, j: int, h: int, w: int, v: torch.Tensor) -> None:
    # The region as the assignment's slicing clips it (rows i:i+h past the bottom are dropped, a negative i counts
    # from the end): a view, so its shape costs nothing and is exactly what ``v`` must broadcast to.
    region: List[int] = list(image[..., i : i + h, j : j + w].shape)
    if v.ndim > len(region):
        raise ValueError(f"erase: the value of shape {list(v.shape)} does not broadcast to the region {region}")
    for k in range(1, v.ndim + 1):
        if v.shape[-k] != 1 and v.shape[-k] != region[-k]:
            raise ValueError(f"erase: the value of shape {list(v.shape)} does not broadcast to the region {region}")


def erase_image(
    image: torch.Tensor, i: int, j: int, h: int, w: int, v: torch.Tensor, inplace: bool = False
) -> torch.Tensor:
    if image.ndim < 2:
        raise ValueError(f"erase: expected an image [..., H, W], got {image.ndim} dimensions")
    if h < 0 or w < 0:
        raise ValueError(f"erase: h and w must not be negative, got h={h}, w={w}")
    if not torch.jit.is_scripting():
        v = _value_tensor(v, image)
    _check_value(image, i, j, h, w, v)
    if not inplace:
        image = image.clone()
    if not torch.jit.is_scripting():
        if not is_tracing() and _fill_by_channel(image, i, j, h, w, v):
            return image
    image[..., i : i + h, j : j + w] = v
    return image


@torch.jit.unused
def _value_tensor(v: Any, image: torch.Tensor) -> torch.Tensor:
    """``v`` as a tensor: a Python number is accepted as torchvision's slice assignment accepts it; anything else
    that is not a tensor is a TypeError naming erase."""
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, (int, float)):  # bool included, as the assignment takes it
        return torch.tensor(v, device=image.device)
    raise TypeError(f"erase: v must be a tensor or a number, got {type(v).__name__}")


@torch.jit.unused
def _fill_by_channel(image: torch.Tensor, i: int, j: int, h: int, w: int, v: torch.Tensor) -> bool:
    """Eager: a value that is one number, or one per channel (``[C, 1, 1]``), is written with ``fill_`` of Python
    numbers (cast to the image dtype first, as the assignment casts): a plain fill, where the broadcasting
    assignment of a float value into a uint8 window converts element by element."""
    if v.numel() == 1:
        image[..., i : i + h, j : j + w].fill_(v.to(image.dtype).item())
        return True
    if image.ndim >= 3 and v.ndim == 3 and v.shape[0] == image.shape[-3] and v.shape[1] == 1 and v.shape[2] == 1:
        region = image[..., i : i + h, j : j + w]
        for c, value in enumerate(v.to(image.dtype).reshape(-1).tolist()):
            region[..., c, :, :].fill_(value)
        return True
    return False


def erase_video(
    video: torch.Tensor, i: int, j: int, h: int, w: int, v: torch.Tensor, inplace: bool = False
) -> torch.Tensor:
    return erase_image(video, i, j, h, w, v, inplace=inplace)


@torch.jit.unused
def erase_image_pil(
    image: PIL.Image.Image, i: int, j: int, h: int, w: int, v: torch.Tensor, inplace: bool = False
) -> PIL.Image.Image:
    return to_pil_image(erase_image(pil_to_tensor(image), i, j, h, w, v), mode=image.mode)


def erase(
    inpt: torch.Tensor, i: int, j: int, h: int, w: int, v: torch.Tensor, inplace: bool = False
) -> torch.Tensor:
    """Set the ``h x w`` window at row ``i``, column ``j`` of images and videos to ``v``. Plain tensors are
    treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return erase_image(inpt, i, j, h, w, v, inplace=inplace)
    return get_kernel(erase, type(inpt))(inpt, i, j, h, w, v, inplace=inplace)


def box_mask(box: torch.Tensor, height: int, width: int, ndim: int) -> torch.Tensor:
    """bool mask of the box (``[4]`` -> ``[H, W]``; ``[R, 4]`` -> ``[R, 1, ..., H, W]`` with ``ndim`` dims)."""
    rows = torch.arange(height, device=box.device).view(-1, 1)
    cols = torch.arange(width, device=box.device).view(1, -1)
    if box.ndim == 2:
        box = box.reshape([box.shape[0]] + [1] * (ndim - 3) + [4])
    top, left, h, w = box[..., 0:1], box[..., 1:2], box[..., 2:3], box[..., 3:4]
    # [..., 1] against rows [H, 1] / cols [1, W]: the trailing 1 of each coordinate meets W (or H) columns.
    in_rows = (rows >= top.unsqueeze(-1)) & (rows < (top + h).unsqueeze(-1))
    in_cols = (cols >= left.unsqueeze(-1)) & (cols < (left + w).unsqueeze(-1))
    return in_rows & in_cols


def erase_where(image: torch.Tensor, box: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """``image`` with the box(es) set to ``value`` (broadcast to ``image``, cast to its dtype)."""
    if not torch.jit.is_scripting():
        # the native op reads the box on the host: on the CPU only (elsewhere the mask below, no sync)
        if _native.FILTERS and not image.requires_grad and not value.requires_grad and image.device.type == "cpu":
            return call_custom_op(torch.ops.jitvision_native.erase_box.default, image, box, value)
    mask = box_mask(box, image.shape[-2], image.shape[-1], image.ndim)
    return torch.where(mask, value.to(image.dtype), image)


for _kind in (Image, Video):
    register_kernel(erase, _kind)(erase_image)
register_kernel(erase, PIL.Image.Image)(erase_image_pil)
