"""affine: the kernels per kind and the functional, plus the argument checks ``rotate`` shares.

Each kernel turns torchvision's Python numbers into a matrix tensor and runs the tensor-matrix kernel of
``_affine_matrix`` (``warp_affine_image``, ``affine_bounding_boxes_matrix``, ``affine_keypoints_matrix``), the same
one ``RandomAffine`` calls with drawn tensors.

Deliberate differences from torchvision: non-finite angles/translations/scales/shears, ``scale <= 0`` and a wrong
``fill`` length raise a ValueError/TypeError naming ``affine``/``rotate``; integer images are clamped to the
dtype's range before the cast back (torchvision's cast wraps a uint8 ``fill`` above 255).
"""

from typing import Any, List, Optional, Tuple, Union

import PIL.Image
import torch

from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import get_kernel, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import (
    as_box_format,
    get_canvas_size,
)
from ._affine_matrix import (
    affine_bounding_boxes_matrix,
    affine_keypoints_matrix,
    points_affine_matrix,
    warp_affine_image,
    warp_affine_values,
)
from ._interpolation import InterpolationMode, check_interpolation, pil_resample_code
from ._warp import FillType, check_finite, check_image_rank, fill_as_list, grid_mode, parse_pair, parse_shear
from ._warp_matrix import affine_matrix_values, centred_center, scalar_affine_matrix

# ---- arguments ----------------------------------------------------------------------------------------------


def _affine_args(
    angle: float,
    translate: List[float],
    scale: float,
    shear: Union[int, float, List[float]],
    center: Optional[List[float]],
    op: str,
) -> Tuple[float, List[float], float, List[float], Optional[List[float]]]:
    if not torch.jit.is_scripting():
        _check_number(angle, "angle", op)
        _check_number(scale, "scale", op)
    angle, scale = float(angle), float(scale)
    check_finite(angle, "angle", op)
    check_finite(scale, "scale", op)
    if scale <= 0.0:
        raise ValueError(op + ": scale must be positive, got " + str(scale))
    translate = parse_pair(translate, "translate", op)
    shear = parse_shear(shear, op)
    check_finite(shear[0], "shear", op)
    check_finite(shear[1], "shear", op)
    if center is not None:
        center = parse_pair(center, "center", op)
    return angle, translate, scale, shear, center


@torch.jit.unused
def _check_number(value: Any, name: str, op: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{op}: {name} must be a number, got {value!r}")


def _absolute_center(center: Optional[List[float]], canvas_size: List[int]) -> List[float]:
    if center is None:
        return [canvas_size[1] * 0.5, canvas_size[0] * 0.5]
    return center


def _check_image(image: torch.Tensor, op: str) -> None:
    check_image_rank(image, op)


# ---- affine -------------------------------------------------------------------------------------------------


def affine_image(
    image: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    fill: FillType = None,
    center: Optional[List[float]] = None,
) -> torch.Tensor:
    """Affine warp of ``[..., C, H, W]`` about ``center`` (default: the image centre), NEAREST or BILINEAR."""
    angle, translate, scale, shear, center = _affine_args(angle, translate, scale, shear, center, "affine")
    mode = grid_mode(interpolation, "affine")
    fill_list = fill_as_list(fill, "affine")
    _check_image(image, "affine")
    height, width = image.shape[-2], image.shape[-1]
    centred = centred_center(center, height, width)
    if not torch.jit.is_scripting() and not is_tracing():
        values = affine_matrix_values(angle, translate, scale, shear, centred, True)
        return warp_affine_values(image, values, height, width, mode, fill_list, "affine")
    inverse = scalar_affine_matrix(angle, translate, scale, shear, centred, True, image.device)
    return warp_affine_image(image, inverse, height, width, mode, fill_list, "affine")


def affine_video(
    video: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    fill: FillType = None,
    center: Optional[List[float]] = None,
) -> torch.Tensor:
    return affine_image(video, angle, translate, scale, shear, interpolation, fill, center)


def affine_mask(
    mask: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    fill: FillType = None,
    center: Optional[List[float]] = None,
) -> torch.Tensor:
    """Affine warp of masks ``[..., H, W]`` (always NEAREST)."""
    if mask.ndim < 3:
        return affine_image(mask.unsqueeze(0), angle, translate, scale, shear, "nearest", fill, center).squeeze(0)
    return affine_image(mask, angle, translate, scale, shear, "nearest", fill, center)


@torch.jit.unused
def affine_image_pil(
    image: PIL.Image.Image,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    fill: FillType = None,
    center: Optional[List[float]] = None,
) -> PIL.Image.Image:
    angle, translate, scale, shear, center = _affine_args(angle, translate, scale, shear, center, "affine")
    mode = check_interpolation(interpolation, "affine")
    center = _absolute_center(center, [image.height, image.width])
    inverse = scalar_affine_matrix(angle, translate, scale, shear, center, True, torch.device("cpu"))
    coefficients = inverse.reshape(6).tolist()
    return image.transform(
        image.size, PIL.Image.AFFINE, coefficients, pil_resample_code(mode), fillcolor=pil_fill(fill, image, "affine")
    )


@torch.jit.unused
def pil_fill(fill: Any, image: PIL.Image.Image, op: str) -> Any:
    """``fill`` as Pillow's ``fillcolor``: one value per band (ints unless the image is float)."""
    channels = len(image.getbands())
    values = [0.0] if fill is None else fill_as_list(fill, op)
    if len(values) == 1:
        values = values * channels
    if len(values) != channels:
        raise ValueError(f"{op}: fill has {len(values)} values but the image has {channels} channels")
    out = [v if image.mode == "F" else int(v) for v in values]
    return out[0] if channels == 1 else tuple(out)


def affine_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: Optional[List[float]] = None,
    clamping_mode: Optional[str] = "soft",
) -> torch.Tensor:
    angle, translate, scale, shear, center = _affine_args(angle, translate, scale, shear, center, "affine")
    format = as_box_format(format, "affine")
    forward = points_affine_matrix(
        angle, translate, scale, shear, _absolute_center(center, canvas_size), bounding_boxes.device
    )
    return affine_bounding_boxes_matrix(bounding_boxes, format, canvas_size, forward, clamping_mode)


def affine_keypoints(
    keypoints: torch.Tensor,
    canvas_size: List[int],
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: Optional[List[float]] = None,
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    """Keypoints moved by the affine map; returns (keypoints, canvas_size) as torchvision does."""
    angle, translate, scale, shear, center = _affine_args(angle, translate, scale, shear, center, "affine")
    forward = points_affine_matrix(
        angle, translate, scale, shear, _absolute_center(center, canvas_size), keypoints.device
    )
    return affine_keypoints_matrix(keypoints, forward), (canvas_size[0], canvas_size[1])


def affine(
    inpt: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    fill: FillType = None,
    center: Optional[List[float]] = None,
) -> torch.Tensor:
    """Rotate by ``angle`` degrees (clockwise), shear by ``shear`` degrees, scale and translate (pixels) about
    ``center`` (default: the centre). Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return affine_image(inpt, angle, translate, scale, shear, interpolation, fill, center)
    return get_kernel(affine, type(inpt))(
        inpt,
        angle=angle,
        translate=translate,
        scale=scale,
        shear=shear,
        interpolation=interpolation,
        fill=fill,
        center=center,
    )


for _kind in (Image, Video):
    register_kernel(affine, _kind)(affine_image)
register_kernel(affine, PIL.Image.Image)(affine_image_pil)


@register_kernel(affine, Mask)
def _affine_mask_dispatch(
    mask: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    fill: FillType = None,
    center: Optional[List[float]] = None,
    **kwargs: Any,
) -> torch.Tensor:
    return affine_mask(mask, angle, translate, scale, shear, fill, center)


@register_kernel(affine, BoundingBoxes, tv_tensor_wrapper=False)
def _affine_bounding_boxes_dispatch(
    inpt: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: Optional[List[float]] = None,
    **kwargs: Any,
) -> torch.Tensor:
    out = affine_bounding_boxes(
        unwrap(inpt),
        box_format_from(inpt.format),
        get_canvas_size(inpt),
        angle,
        translate,
        scale,
        shear,
        center,
        inpt.clamping_mode,
    )
    return wrap(out, like=inpt)


@register_kernel(affine, KeyPoints, tv_tensor_wrapper=False)
def _affine_keypoints_dispatch(
    inpt: torch.Tensor,
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: Optional[List[float]] = None,
    **kwargs: Any,
) -> torch.Tensor:
    out, canvas_size = affine_keypoints(unwrap(inpt), get_canvas_size(inpt), angle, translate, scale, shear, center)
    return wrap(out, like=inpt, canvas_size=canvas_size)
