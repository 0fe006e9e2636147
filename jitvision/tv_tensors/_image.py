"""Image, Video and Mask: dense tensors whose last two dimensions are height and width."""

from __future__ import annotations

from typing import Any, Optional

import PIL.Image
import torch

from ._tv_tensor import TVTensor


def _dense_from(data: Any, dtype: Optional[torch.dtype], device: Any, requires_grad: Optional[bool]) -> torch.Tensor:
    if isinstance(data, PIL.Image.Image):
        from ..transforms.functional._type_conversion import pil_to_tensor

        data = pil_to_tensor(data)
    return TVTensor._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


class Image(TVTensor):
    """An image (or a batch of images): ``[..., C, H, W]``. A 2D input gets a channel dimension."""

    def __new__(
        cls,
        data: Any,
        *,
        dtype: Optional[torch.dtype] = None,
        device: Optional[torch.device | str | int] = None,
        requires_grad: Optional[bool] = None,
    ) -> Image:
        tensor = _dense_from(data, dtype, device, requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"Image: expected a tensor with at least 2 dimensions ([..., H, W]), got {tensor.ndim}")
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        return tensor.as_subclass(cls)


class Video(TVTensor):
    """A video (or a batch of videos): ``[..., T, C, H, W]``."""

    def __new__(
        cls,
        data: Any,
        *,
        dtype: Optional[torch.dtype] = None,
        device: Optional[torch.device | str | int] = None,
        requires_grad: Optional[bool] = None,
    ) -> Video:
        tensor = TVTensor._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError(
                f"Video: expected a tensor with at least 4 dimensions ([..., T, C, H, W]), got {tensor.ndim}"
            )
        return tensor.as_subclass(cls)


class Mask(TVTensor):
    """A segmentation or detection mask: ``[..., H, W]``."""

    def __new__(
        cls,
        data: Any,
        *,
        dtype: Optional[torch.dtype] = None,
        device: Optional[torch.device | str | int] = None,
        requires_grad: Optional[bool] = None,
    ) -> Mask:
        tensor = _dense_from(data, dtype, device, requires_grad)
        return tensor.as_subclass(cls)
