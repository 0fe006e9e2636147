"""five_crop and ten_crop: the four corners and the centre of an image or video (and their mirror images).

The crops are fixed slices of the input, so both trace to one graph and script. As torchvision, only images and
videos (tensor, ``Image``, ``Video``, PIL) are supported; the classes refuse samples with boxes or masks.
"""

from typing import Any, List, Tuple

import PIL.Image
import torch

from ....tv_tensors import Image, Video, wrap
from .._dispatch import get_kernel, is_pure_tensor, register_kernel, unwrap
from ._crop import center_crop_image, center_crop_image_pil, crop_image, crop_image_pil
from ._flip import horizontal_flip_image, horizontal_flip_image_pil, vertical_flip_image, vertical_flip_image_pil

FiveCrops = Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]
TenCrops = Tuple[
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
]


def _crop_size(size: List[int], op: str) -> List[int]:
    if not torch.jit.is_scripting():
        size = _size_as_list(size, op)
    if len(size) == 1:
        size = [size[0], size[0]]
    if len(size) != 2 or size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{op}: size must be a positive int or a sequence of 1 or 2 positive ints, got {size}")
    return size


@torch.jit.unused
def _size_as_list(size: Any, op: str) -> List[int]:
    if isinstance(size, int) and not isinstance(size, bool):
        return [size, size]
    if not isinstance(size, (list, tuple)) or not all(isinstance(s, int) and not isinstance(s, bool) for s in size):
        raise TypeError(f"{op}: size must be an int or a sequence of ints, got {size!r}")
    return list(size)


def _check_fits(crop_height: int, crop_width: int, height: int, width: int, op: str) -> None:
    if crop_height > height or crop_width > width:
        raise ValueError(
            f"{op}: the crop size {[crop_height, crop_width]} is larger than the input size {[height, width]}"
        )


def five_crop_image(image: torch.Tensor, size: List[int]) -> FiveCrops:
    return _five_crops(image, size, "five_crop")


def _five_crops(image: torch.Tensor, size: List[int], op: str) -> FiveCrops:
    crop_height, crop_width = _crop_size(size, op)
    if image.ndim < 2:
        raise ValueError(f"{op}: expected a tensor [..., H, W], got {image.ndim} dimensions")
    height, width = image.shape[-2], image.shape[-1]
    _check_fits(crop_height, crop_width, height, width, op)
    bottom, right = height - crop_height, width - crop_width
    return (
        crop_image(image, 0, 0, crop_height, crop_width),
        crop_image(image, 0, right, crop_height, crop_width),
        crop_image(image, bottom, 0, crop_height, crop_width),
        crop_image(image, bottom, right, crop_height, crop_width),
        center_crop_image(image, [crop_height, crop_width]),
    )


def five_crop_video(video: torch.Tensor, size: List[int]) -> FiveCrops:
    return five_crop_image(video, size)


def five_crop_image_pil(
    image: PIL.Image.Image, size: List[int], op: str = "five_crop"
) -> Tuple[PIL.Image.Image, PIL.Image.Image, PIL.Image.Image, PIL.Image.Image, PIL.Image.Image]:
    crop_height, crop_width = _crop_size(size, op)
    _check_fits(crop_height, crop_width, image.height, image.width, op)
    bottom, right = image.height - crop_height, image.width - crop_width
    return (
        crop_image_pil(image, 0, 0, crop_height, crop_width),
        crop_image_pil(image, 0, right, crop_height, crop_width),
        crop_image_pil(image, bottom, 0, crop_height, crop_width),
        crop_image_pil(image, bottom, right, crop_height, crop_width),
        center_crop_image_pil(image, [crop_height, crop_width]),
    )


def ten_crop_image(image: torch.Tensor, size: List[int], vertical_flip: bool = False) -> TenCrops:
    first = _five_crops(image, size, "ten_crop")
    mirrored = _five_crops(
        vertical_flip_image(image) if vertical_flip else horizontal_flip_image(image), size, "ten_crop"
    )
    return first + mirrored


def ten_crop_video(video: torch.Tensor, size: List[int], vertical_flip: bool = False) -> TenCrops:
    return ten_crop_image(video, size, vertical_flip)


def ten_crop_image_pil(image: PIL.Image.Image, size: List[int], vertical_flip: bool = False) -> Tuple[Any, ...]:
    mirrored = vertical_flip_image_pil(image) if vertical_flip else horizontal_flip_image_pil(image)
    return five_crop_image_pil(image, size, "ten_crop") + five_crop_image_pil(mirrored, size, "ten_crop")


def five_crop(inpt: torch.Tensor, size: List[int]) -> FiveCrops:
    """The top-left, top-right, bottom-left, bottom-right and centre crops of ``size`` (an int or [h, w])."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return five_crop_image(inpt, size)
    return get_kernel(five_crop, type(inpt))(inpt, size)


def ten_crop(inpt: torch.Tensor, size: List[int], vertical_flip: bool = False) -> TenCrops:
    """``five_crop`` of the input, then of its mirror image (left-right, or top-bottom with ``vertical_flip``)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return ten_crop_image(inpt, size, vertical_flip=vertical_flip)
    return get_kernel(ten_crop, type(inpt))(inpt, size, vertical_flip=vertical_flip)


@torch.jit.unused
def _five_crop_dense(inpt: torch.Tensor, size: List[int]) -> Tuple[torch.Tensor, ...]:
    return tuple(wrap(crop, like=inpt) for crop in five_crop_image(unwrap(inpt), size))


@torch.jit.unused
def _ten_crop_dense(inpt: torch.Tensor, size: List[int], vertical_flip: bool = False) -> Tuple[torch.Tensor, ...]:
    return tuple(wrap(crop, like=inpt) for crop in ten_crop_image(unwrap(inpt), size, vertical_flip))


for _kind in (Image, Video):
    register_kernel(five_crop, _kind, tv_tensor_wrapper=False)(_five_crop_dense)
    register_kernel(ten_crop, _kind, tv_tensor_wrapper=False)(_ten_crop_dense)
register_kernel(five_crop, PIL.Image.Image)(five_crop_image_pil)
register_kernel(ten_crop, PIL.Image.Image)(ten_crop_image_pil)
