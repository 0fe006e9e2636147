"""affine and rotate: kernels per kind and the functionals, plus the tensor-matrix kernels the random classes use.

The functionals take torchvision's Python numbers; every kernel turns them into a matrix tensor and runs the same
tensor-matrix kernel (``warp_affine_image``, ``affine_bounding_boxes_matrix``, ``affine_keypoints_matrix``) that
``RandomAffine``/``RandomRotation`` call with drawn tensors, so compiled random warps stay random.

Deliberate differences from torchvision: non-finite angles/translations/scales/shears, ``scale <= 0`` and a wrong
``fill`` length raise a ValueError/TypeError naming ``affine``/``rotate``; integer images are clamped to the
dtype's range before the cast back (torchvision's cast wraps a uint8 ``fill`` above 255).
"""

import math
from typing import Any, List, Optional, Tuple, Union

import PIL.Image
import torch

from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import get_kernel, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import (
    as_box_format,
    check_boxes,
    clamp_bounding_boxes_kernel,
    convert_bounding_box_format_kernel,
    finish_rotated,
    get_canvas_size,
    is_rotated_format,
    rotated_corners,
)
from .._rotated import fit_rectangle
from ._interpolation import InterpolationMode, check_interpolation, pil_resample_code
from ._warp import (
    FillType,
    affine_coefficients,
    affine_coefficients_values,
    affine_grid,
    affine_matrix_values,
    check_finite,
    check_image_rank,
    corners_canvas_float32,
    expanded_size,
    fill_as_list,
    grid_mode,
    native_applies,
    native_warp,
    parse_pair,
    parse_shear,
    sample_grid,
    scalar_affine_matrix,
    warp_dtype,
)

# ---- tensor-matrix kernels (shared with the random classes) -------------------------------------------------


def warp_affine_image(
    image: torch.Tensor,
    inverse: torch.Tensor,
    out_h: int,
    out_w: int,
    mode: str,
    fill: Optional[List[float]],
    op: str = "affine",
) -> torch.Tensor:
    """``image`` ``[..., C, H, W]`` warped by inverse matrices ``inverse`` ``[2, 3]`` or ``[G, 2, 3]`` (centred
    pixel coordinates; with G > 1 the first image dimension is the batch) into ``out_h`` x ``out_w``."""
    check_image_rank(image, op)
    theta = inverse.to(warp_dtype(image))
    if theta.ndim == 2:
        theta = theta.unsqueeze(0)
    if not torch.jit.is_scripting() and native_applies(image, mode):
        coefficients = affine_coefficients(theta, image.shape[-2], image.shape[-1])
        return native_warp(image, coefficients, out_h, out_w, False, mode, fill, op)
    grid = affine_grid(theta, image.shape[-2], image.shape[-1], out_h, out_w)
    return sample_grid(image, grid, mode, fill, op)


def warp_affine_values(
    image: torch.Tensor,
    inverse: List[float],
    out_h: int,
    out_w: int,
    mode: str,
    fill: Optional[List[float]],
    op: str = "affine",
) -> torch.Tensor:
    """``warp_affine_image`` with one inverse matrix given as 6 Python floats (eager callers: the functionals and
    the random classes' one-sample draws): the native kernel gets its coefficients straight from the numbers."""
    check_image_rank(image, op)
    if not torch.jit.is_scripting() and native_applies(image, mode):
        coefficients = affine_coefficients_values(inverse, image.shape[-2], image.shape[-1])
        return native_warp(image, coefficients, out_h, out_w, False, mode, fill, op)
    theta = torch.tensor(inverse, dtype=torch.float64, device=image.device).reshape(2, 3)
    return warp_affine_image(image, theta, out_h, out_w, mode, fill, op)


def _matrix_entries(matrix: torch.Tensor, dtype: torch.dtype) -> List[torch.Tensor]:
    """The six entries of ``[2, 3]`` (0-d each) or ``[N, 2, 3]`` (``[N, 1]`` each) matrices, in ``dtype``."""
    m = matrix.to(dtype)
    if m.ndim == 2:
        return [m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2]]
    m = m.reshape(-1, 6, 1)
    return [m[:, 0], m[:, 1], m[:, 2], m[:, 3], m[:, 4], m[:, 5]]


def points_affine_matrix(
    angle: float,
    translate: List[float],
    scale: float,
    shear: List[float],
    center: List[float],
    device: torch.device,
) -> torch.Tensor:
    """The forward ``[2, 3]`` float64 matrix boxes and keypoints are moved by, the same in eager and TorchScript."""
    return scalar_affine_matrix(angle, translate, scale, shear, center, False, device)


def affine_keypoints_matrix(
    keypoints: torch.Tensor, forward: torch.Tensor, shift: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """Points ``[..., 2]`` moved by ``forward`` ``[2, 3]`` (or ``[N, 2, 3]`` for ``[N, 2]`` points), then by
    ``-shift`` (an ``[2]`` or ``[N, 2]`` offset) if given; computed in float, returned in the input dtype."""
    dtype = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    points = keypoints.to(dtype).reshape(-1, 1, 2)
    a, b, c, d, e, f = _matrix_entries(forward, dtype)
    x, y = points[..., 0], points[..., 1]
    nx, ny = a * x + b * y + c, d * x + e * y + f
    if shift is not None:
        s = shift.to(dtype).reshape(-1, 2)
        nx, ny = nx - s[:, 0:1], ny - s[:, 1:2]
    return torch.stack([nx, ny], dim=-1).reshape(keypoints.shape).to(keypoints.dtype)


def affine_bounding_boxes_matrix(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    forward: torch.Tensor,
    clamping_mode: Optional[str] = "soft",
    shift: Optional[torch.Tensor] = None,
    op: str = "affine",
) -> torch.Tensor:
    """Boxes ``[..., 4]`` replaced by the axis-aligned box around their four corners moved by ``forward``
    (``[2, 3]``, or ``[N, 2, 3]`` for ``[N, 4]`` boxes) and ``-shift``, clamped to ``canvas_size`` (the output
    canvas) per ``clamping_mode``. Rotated boxes: the rectangle fitted to their moved corners (torchvision's)."""
    check_boxes(bounding_boxes, format, op)
    if bounding_boxes.numel() == 0:
        return bounding_boxes.clone()
    dtype = bounding_boxes.dtype if bounding_boxes.is_floating_point() else torch.float32
    if is_rotated_format(format):
        return _affine_rotated_boxes(bounding_boxes, format, canvas_size, forward, clamping_mode, shift, dtype)
    xyxy = convert_bounding_box_format_kernel(bounding_boxes.to(dtype), format, BoundingBoxFormat.XYXY)
    xyxy = xyxy.reshape(-1, 4)
    xs = torch.stack([xyxy[:, 0], xyxy[:, 2], xyxy[:, 2], xyxy[:, 0]], dim=-1)
    ys = torch.stack([xyxy[:, 1], xyxy[:, 1], xyxy[:, 3], xyxy[:, 3]], dim=-1)
    nx, ny = _moved(xs, ys, forward, dtype)
    if shift is not None:
        s = shift.to(dtype).reshape(-1, 2)
        nx, ny = nx - s[:, 0:1], ny - s[:, 1:2]
    out = torch.stack([nx.amin(-1), ny.amin(-1), nx.amax(-1), ny.amax(-1)], dim=-1)
    out = clamp_bounding_boxes_kernel(out, BoundingBoxFormat.XYXY, canvas_size, clamping_mode)
    out = convert_bounding_box_format_kernel(out, BoundingBoxFormat.XYXY, format)
    return out.reshape(bounding_boxes.shape).to(bounding_boxes.dtype)


def _affine_rotated_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    forward: torch.Tensor,
    clamping_mode: Optional[str],
    shift: Optional[torch.Tensor],
    dtype: torch.dtype,
) -> torch.Tensor:
    """Rotated boxes: the four corners moved, the rectangle refitted to them, shifted by ``-shift``, clamped."""
    corners = rotated_corners(bounding_boxes, format).to(dtype)
    xs, ys = corners[:, 0::2], corners[:, 1::2]
    nx, ny = _moved(xs, ys, forward, dtype)
    quad = torch.stack([nx, ny], dim=-1).reshape(-1, 8)
    quad = fit_rectangle(quad)
    if shift is not None:
        s = shift.to(dtype).reshape(-1, 2)
        quad = quad - torch.cat([s, s, s, s], dim=-1)
    return finish_rotated(quad, format, canvas_size, clamping_mode, bounding_boxes, fit=False)


def _moved(
    xs: torch.Tensor, ys: torch.Tensor, forward: torch.Tensor, dtype: torch.dtype
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Points ``(xs, ys)`` moved by ``forward``, in ``dtype``. float16/bfloat16 as torchvision's matmul in that
    dtype computes them: the entries rounded to the dtype, the products (exact in float32) summed in float32 and
    rounded once. Per-op arithmetic in float16 rounded each product and sum (an ulp is a whole pixel past x = 1024),
    and the fitted and clamped rotated boxes that followed moved hundreds of pixels away from torchvision's."""
    a, b, c, d, e, f = _matrix_entries(forward, dtype)
    if dtype == torch.float16 or dtype == torch.bfloat16:
        x32, y32 = xs.float(), ys.float()
        nx = a.float() * x32 + b.float() * y32 + c.float()
        ny = d.float() * x32 + e.float() * y32 + f.float()
        return nx.to(dtype), ny.to(dtype)
    return a * xs + b * ys + c, d * xs + e * ys + f


def corner_shift(forward: torch.Tensor, canvas_size: List[int], dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The smallest (x, y) of the canvas corners moved by ``forward`` (``[2, 3]`` -> ``[2]``, ``[N, 2, 3]`` ->
    ``[N, 2]``): what ``expand`` subtracts so the moved canvas starts at the origin. In float64, or for
    float16/bfloat16 boxes in their dtype as torchvision computes it (see ``_moved``)."""
    height, width = float(canvas_size[0]), float(canvas_size[1])
    work = dtype if dtype == torch.float16 or dtype == torch.bfloat16 else torch.float64
    corners = torch.tensor(
        [[0.0, 0.0], [0.0, height], [width, height], [width, 0.0]], dtype=work, device=forward.device
    )
    nx, ny = _moved(corners[:, 0], corners[:, 1], forward, work)
    return torch.stack([nx.amin(-1), ny.amin(-1)], dim=-1)


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


def _centred_center(center: Optional[List[float]], height: int, width: int) -> List[float]:
    """``center`` (absolute pixel coordinates, or None for the image centre) relative to the image centre."""
    if center is None:
        return [0.0, 0.0]
    return [center[0] - 0.5 * width, center[1] - 0.5 * height]


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
    centred = _centred_center(center, height, width)
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
    centred = _centred_center(center, height, width)
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
    Doubles with another association (what this was before) gave another canvas for ~9% of random angles."""
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
