"""Dimension queries: get_dimensions, get_num_channels, get_num_frames and the per-kind kernels of get_size.

torchvision names a kernel per kind for each query (``get_dimensions_image``, ``get_num_channels_video``,
``get_size_bounding_boxes``, ...); they are here under the same names. ``get_size`` itself and ``get_size_image``
live in ``_meta``. Plain tensors are images; scripted code sees only plain tensors.
"""

from typing import List

import PIL.Image
import torch

from ...tv_tensors import Image, Video, kind_of
from ._dispatch import is_pure_tensor
from ._meta import get_canvas_size, get_size_image


def _check_at_least_2d(image: torch.Tensor, op: str) -> None:
    if image.ndim < 2:
        raise TypeError(f"{op}: expected a tensor with at least 2 dimensions [..., H, W], got {image.ndim}")


def get_dimensions_image(image: torch.Tensor) -> List[int]:
    """[channels, height, width]; a 2D tensor has one channel."""
    _check_at_least_2d(image, "get_dimensions")
    if image.ndim == 2:
        return [1, image.shape[-2], image.shape[-1]]
    return [image.shape[-3], image.shape[-2], image.shape[-1]]


def get_dimensions_video(video: torch.Tensor) -> List[int]:
    return get_dimensions_image(video)


def get_num_channels_image(image: torch.Tensor) -> int:
    _check_at_least_2d(image, "get_num_channels")
    if image.ndim == 2:
        return 1
    return image.shape[-3]


def get_num_channels_video(video: torch.Tensor) -> int:
    return get_num_channels_image(video)


def get_num_frames_video(video: torch.Tensor) -> int:
    """The number of frames T of a ``[..., T, C, H, W]`` video."""
    if video.ndim < 4:
        raise TypeError(f"get_num_frames: expected a video [..., T, C, H, W], got {video.ndim} dimensions")
    return video.shape[-4]


def get_size_video(video: torch.Tensor) -> List[int]:
    return get_size_image(video)


def get_size_mask(mask: torch.Tensor) -> List[int]:
    return get_size_image(mask)


@torch.jit.unused
def get_size_bounding_boxes(bounding_box: torch.Tensor) -> List[int]:
    """The canvas [height, width] of boxes (they carry it as metadata: Python only)."""
    return _canvas_of(bounding_box, "get_size")


@torch.jit.unused
def get_size_keypoints(keypoints: torch.Tensor) -> List[int]:
    return _canvas_of(keypoints, "get_size")


@torch.jit.unused
def _canvas_of(inpt: torch.Tensor, op: str) -> List[int]:
    if getattr(inpt, "canvas_size", None) is None:
        raise TypeError(
            f"{op}: expected BoundingBoxes or KeyPoints (which carry a canvas_size), got {type(inpt)}"
        )
    return get_canvas_size(inpt)


@torch.jit.unused
def _kind_for_query(inpt: object, op: str) -> type:
    """The kind of a non-plain input of a query functional (PIL images are ``PIL.Image.Image``)."""
    if isinstance(inpt, PIL.Image.Image):
        return PIL.Image.Image
    kind = kind_of(type(inpt)) if isinstance(inpt, torch.Tensor) else None
    if kind is None:
        raise TypeError(f"{op}: unsupported input type {type(inpt)}")
    return kind


def get_dimensions(inpt: torch.Tensor) -> List[int]:
    """[channels, height, width] of an image, video or PIL image. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return get_dimensions_image(inpt)
    return _get_dimensions_python(inpt)


@torch.jit.unused
def _get_dimensions_python(inpt: object) -> List[int]:
    kind = _kind_for_query(inpt, "get_dimensions")
    if kind is PIL.Image.Image:
        return [len(inpt.getbands()), inpt.height, inpt.width]  # type: ignore[attr-defined]
    if kind is Image or kind is Video:
        return get_dimensions_image(inpt)  # type: ignore[arg-type]
    raise TypeError(f"get_dimensions: unsupported input type {type(inpt)} (images, videos, PIL images)")


def get_num_channels(inpt: torch.Tensor) -> int:
    """The number of channels of an image, video or PIL image. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return get_num_channels_image(inpt)
    return _get_num_channels_python(inpt)


@torch.jit.unused
def _get_num_channels_python(inpt: object) -> int:
    kind = _kind_for_query(inpt, "get_num_channels")
    if kind is PIL.Image.Image:
        return len(inpt.getbands())  # type: ignore[attr-defined]
    if kind is Image or kind is Video:
        return get_num_channels_image(inpt)  # type: ignore[arg-type]
    raise TypeError(f"get_num_channels: unsupported input type {type(inpt)} (images, videos, PIL images)")


# torchvision keeps the old name as an alias (not deprecated).
get_image_num_channels = get_num_channels


def get_num_frames(inpt: torch.Tensor) -> int:
    """The number of frames of a video. Plain tensors are treated as videos ``[..., T, C, H, W]``."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return get_num_frames_video(inpt)
    return _get_num_frames_python(inpt)


@torch.jit.unused
def _get_num_frames_python(inpt: object) -> int:
    if _kind_for_query(inpt, "get_num_frames") is not Video:
        raise TypeError(f"get_num_frames: unsupported input type {type(inpt)} (videos only)")
    return get_num_frames_video(inpt)  # type: ignore[arg-type]

