"""rotate: the kernels per kind and the functional, including the expanded canvas (``expand=True``).

The kernels build a rotation matrix from torchvision's Python numbers and run the tensor-matrix kernels of
``_affine_matrix``, the same ones ``RandomRotation`` calls with drawn tensors. Argument checks and their
deliberate differences from torchvision are ``_affine``'s.
"""

import math
from typing import Any, List, Optional, Tuple, Union

import PIL.Image
import torch

from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import get_kernel, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import (
    as_box_format,
    get_canvas_size,
)
from ._affine import _absolute_center, _check_image, _check_number, pil_fill
from ._affine_matrix import (
    affine_bounding_boxes_matrix,
    affine_keypoints_matrix,
    corner_shift,
    points_affine_matrix,
    warp_affine_image,
    warp_affine_values,
)
from ._interpolation import InterpolationMode, check_interpolation, pil_resample_code
from ._warp import FillType, check_finite, fill_as_list, grid_mode, parse_pair
from ._warp_matrix import (
    affine_matrix_values,
    centred_center,
    corners_canvas_float32,
    expanded_size,
    scalar_affine_matrix,
)

# ---- rotate -------------------------------------------------------------------------------------------------


def rotation_inverse_list(angle: float, center: List[float]) -> List[float]:
    """The inverse matrix (6 floats) of ``rotate``'s map: ``affine`` by ``-angle`` about ``center``."""
    rot = math.radians(-angle)
    cos, sin = math.cos(rot), math.sin(rot)
    # torchvision's association of the translation terms (it decides last bits, and so a size near an integer)
    cx, cy = center[0], center[1]
    return [cos, sin, (cos * -cx + sin * -cy) + cx, -sin, cos, (-sin * -cx + cos * -cy) + cy]


def _check_angle(angle: float, op: str) -> float:
    if not torch.jit.is_scripting():
        _check_number(angle, "angle", op)
    angle = float(angle)
    check_finite(angle, "angle", op)
    return angle


def rotate_image(
    image: torch.Tensor,
    angle: float,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Optional[List[float]] = None,
    fill: FillType = None,
) -> torch.Tensor:
    """Rotate ``[..., C, H, W]`` by ``angle`` degrees counter-clockwise about ``center`` (default: the centre);
    with ``expand`` the output grows to hold the whole rotated image. Multiples of 90 degrees about the centre
    are exact ``rot90`` copies, as in torchvision."""
    angle = _check_angle(angle, "rotate") % 360.0
    mode = grid_mode(interpolation, "rotate")
    fill_list = fill_as_list(fill, "rotate")
    if center is not None:
        center = parse_pair(center, "center", "rotate")
    _check_image(image, "rotate")
    height, width = image.shape[-2], image.shape[-1]
    if center is None:
        if angle == 0.0:
            return image.clone()
        if angle == 180.0:
            return torch.rot90(image, 2, [-2, -1])
        if expand or height == width:
            if angle == 90.0:
                return torch.rot90(image, 1, [-2, -1])
            if angle == 270.0:
                return torch.rot90(image, 3, [-2, -1])
    centred = centred_center(center, height, width)
    out_h, out_w = height, width
    if expand:
        size = expanded_size(rotation_inverse_list(angle, centred), width, height)
        out_w, out_h = size[0], size[1]
    if not torch.jit.is_scripting() and not is_tracing():
        values = affine_matrix_values(-angle, [0.0, 0.0], 1.0, [0.0, 0.0], centred, True)
        return warp_affine_values(image, values, out_h, out_w, mode, fill_list, "rotate")
    inverse = scalar_affine_matrix(-angle, [0.0, 0.0], 1.0, [0.0, 0.0], centred, True, image.device)
    return warp_affine_image(image, inverse, out_h, out_w, mode, fill_list, "rotate")


def rotate_video(
    video: torch.Tensor,
    angle: float,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Optional[List[float]] = None,
    fill: FillType = None,
) -> torch.Tensor:
    return rotate_image(video, angle, interpolation, expand, center, fill)


def rotate_mask(
    mask: torch.Tensor,
    angle: float,
    expand: bool = False,
    center: Optional[List[float]] = None,
    fill: FillType = None,
) -> torch.Tensor:
    """Rotate masks ``[..., H, W]`` (always NEAREST)."""
    if mask.ndim < 3:
        return rotate_image(mask.unsqueeze(0), angle, "nearest", expand, center, fill).squeeze(0)
    return rotate_image(mask, angle, "nearest", expand, center, fill)


@torch.jit.unused
def rotate_image_pil(
    image: PIL.Image.Image,
    angle: float,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Optional[List[float]] = None,
    fill: FillType = None,
) -> PIL.Image.Image:
    angle = _check_angle(angle, "rotate")
    mode = check_interpolation(interpolation, "rotate")
    if center is not None:
        center = parse_pair(center, "center", "rotate")
    return image.rotate(
        angle,
        pil_resample_code(mode),
        expand,
        None if center is None else tuple(center),
        fillcolor=pil_fill(fill, image, "rotate"),
    )


def _rotate_points_setup(
    angle: float, canvas_size: List[int], expand: bool, center: Optional[List[float]], device: torch.device
) -> Tuple[torch.Tensor, Optional[torch.Tensor], Tuple[int, int]]:
    """(forward matrix, expand shift or None, output canvas) of ``rotate`` for boxes and keypoints."""
    angle = _check_angle(angle, "rotate")
    if center is not None:
        center = parse_pair(center, "center", "rotate")
    absolute = _absolute_center(center, canvas_size)
    forward = points_affine_matrix(-angle, [0.0, 0.0], 1.0, [0.0, 0.0], absolute, device)
    if not expand:
        return forward, None, (canvas_size[0], canvas_size[1])
    return forward, corner_shift(forward, canvas_size), _points_expanded_canvas(angle, absolute, canvas_size)


def _points_expanded_canvas(angle: float, center: List[float], canvas_size: List[int]) -> Tuple[int, int]:
    """(height, width) of the canvas of boxes/keypoints rotated with ``expand=True``, computed as torchvision
    does for them (not as for images): the inverse matrix about the absolute ``center`` (its association of the
    translation terms), its corners in float32 with values within 1e-4 of an integer taken as that integer in
    eager/TorchScript, and in Python floats without that tolerance under dynamo (torchvision's compiled path).
    The association matters: doubles associated otherwise give another canvas for some angles."""
    rot = math.radians(-angle)
    cos, sin = math.cos(rot), math.sin(rot)
    cx, cy = center[0], center[1]
    m = [cos, sin, (cos * -cx + sin * -cy) + cx, -sin, cos, (-sin * -cx + cos * -cy) + cy]
    height, width = canvas_size[0], canvas_size[1]
    half_w, half_h = 0.5 * width, 0.5 * height
    if is_tracing():
        xs: List[float] = []
        ys: List[float] = []
        for x, y in [(-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h)]:
            xs.append(m[0] * x + m[1] * y + m[2] + half_w)
            ys.append(m[3] * x + m[4] * y + m[5] + half_h)
        return (
            int(math.ceil(max(ys)) - math.floor(min(ys))),
            int(math.ceil(max(xs)) - math.floor(min(xs))),
        )
    new_width, new_height = corners_canvas_float32(m, width, height)
    return new_height, new_width


def rotate_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    angle: float,
    expand: bool = False,
    center: Optional[List[float]] = None,
    clamping_mode: Optional[str] = "soft",
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    """Boxes around the rotated corners; returns (boxes, new canvas_size)."""
    format = as_box_format(format, "rotate")
    forward, shift, new_canvas = _rotate_points_setup(angle, canvas_size, expand, center, bounding_boxes.device)
    if shift is not None and (bounding_boxes.dtype == torch.float16 or bounding_boxes.dtype == torch.bfloat16):
        shift = corner_shift(forward, canvas_size, bounding_boxes.dtype)
    if bounding_boxes.numel() == 0:  # as torchvision: no boxes keep their canvas even with expand=True
        new_canvas = (canvas_size[0], canvas_size[1])
    out = affine_bounding_boxes_matrix(
        bounding_boxes, format, [new_canvas[0], new_canvas[1]], forward, clamping_mode, shift, "rotate"
    )
    return out, new_canvas


def rotate_keypoints(
    keypoints: torch.Tensor,
    canvas_size: List[int],
    angle: float,
    expand: bool = False,
    center: Optional[List[float]] = None,
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    forward, shift, new_canvas = _rotate_points_setup(angle, canvas_size, expand, center, keypoints.device)
    if keypoints.numel() == 0:  # as torchvision: no points keep their canvas even with expand=True
        new_canvas = (canvas_size[0], canvas_size[1])
    return affine_keypoints_matrix(keypoints, forward, shift), new_canvas


def rotate(
    inpt: torch.Tensor,
    angle: float,
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Optional[List[float]] = None,
    fill: FillType = None,
) -> torch.Tensor:
    """Rotate by ``angle`` degrees counter-clockwise about ``center``. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return rotate_image(inpt, angle, interpolation, expand, center, fill)
    return get_kernel(rotate, type(inpt))(
        inpt, angle=angle, interpolation=interpolation, expand=expand, center=center, fill=fill
    )


for _kind in (Image, Video):
    register_kernel(rotate, _kind)(rotate_image)
register_kernel(rotate, PIL.Image.Image)(rotate_image_pil)


@register_kernel(rotate, Mask)
def _rotate_mask_dispatch(
    mask: torch.Tensor,
    angle: float,
    expand: bool = False,
    center: Optional[List[float]] = None,
    fill: FillType = None,
    **kwargs: Any,
) -> torch.Tensor:
    return rotate_mask(mask, angle, expand, center, fill)


@register_kernel(rotate, BoundingBoxes, tv_tensor_wrapper=False)
def _rotate_bounding_boxes_dispatch(
    inpt: torch.Tensor, angle: float, expand: bool = False, center: Optional[List[float]] = None, **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = rotate_bounding_boxes(
        unwrap(inpt), box_format_from(inpt.format), get_canvas_size(inpt), angle, expand, center, inpt.clamping_mode
    )
    return wrap(out, like=inpt, canvas_size=canvas_size)


@register_kernel(rotate, KeyPoints, tv_tensor_wrapper=False)
def _rotate_keypoints_dispatch(
    inpt: torch.Tensor, angle: float, expand: bool = False, center: Optional[List[float]] = None, **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = rotate_keypoints(unwrap(inpt), get_canvas_size(inpt), angle, expand, center)
    return wrap(out, like=inpt, canvas_size=canvas_size)
