"""RandomAffine, RandomRotation, RandomPerspective and ElasticTransform.

Parameters are tensors drawn with torch's RNG (one set per sample; ``_draw([B], ...)`` draws B sets with a leading
batch dimension), and every tensor leaf is warped by the tensor-matrix kernels, so compiled random warps stay
random without recompiling. PIL images (and leaf types registered by users) go through the functional with the
drawn values read back as Python numbers (eager only).

RandomRotation with ``expand=True``: the output size depends on the drawn angle. In eager and TorchScript the
angle is read back and ``rotate`` runs with it (torchvision's result); under torch.compile/export the same sizes
are computed from the angle tensor and reach the kernels as unbacked symbolic sizes (``_rotate_expand``, through
``_drawn``): one graph, the angle live, no recompiles. Batches are refused (every sample would get its own size).
"""

import math
import numbers
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from ... import _native
from ...tv_tensors import BoundingBoxes, Image, KeyPoints, Mask, Video, box_format_from, kind_of, wrap
from .. import functional as F
from .._random import as_drawn, draw_coins, row_count, uniform
from .._transform import RandomApplyTransform, Transform
from ..functional._blur import blur_with_sigma, gaussian_weights
from ..functional._dispatch import call_custom_op, is_pure_tensor, is_tracing, unwrap
from ..functional._geometry._affine import (
    affine_bounding_boxes_matrix,
    affine_keypoints_matrix,
    warp_affine_image,
    warp_affine_values,
)
from ..functional._geometry._elastic import (
    elastic_bounding_boxes_field,
    elastic_keypoints_field,
    warp_elastic_image,
)
from ..functional._geometry._interpolation import InterpolationMode, check_interpolation
from ..functional._geometry._perspective import (
    perspective_bounding_boxes_coefficients,
    perspective_coefficients,
    perspective_keypoints_coefficients,
    warp_perspective_image,
)
from ..functional._geometry._warp import affine_matrix, affine_matrix_values, eager_values, fill_as_list, grid_mode
from ..functional._meta import get_canvas_size
from ._pad import fill_for, scripted_fill, setup_fill
from ._rotate_expand import traced_expanded

# ---- argument checks ----------------------------------------------------------------------------------------


@torch.jit.unused
def _setup_range(value: Any, what: str, owner: str, sizes: Sequence[int] = (2,)) -> List[float]:
    """A number ``d`` as ``[-d, d]`` (``d >= 0``), or a sequence of ``sizes`` finite numbers."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if not math.isfinite(float(value)) or float(value) < 0:
            raise ValueError(
                f"{owner}: If {what} is a single number, it must be positive (non-negative and finite), got {value!r}"
            )
        return [-float(value), float(value)]
    # torchvision's split: not a sequence is a TypeError, a sequence of another length a ValueError
    lengths = " or ".join(map(str, sizes))
    if not isinstance(value, Sequence):
        raise TypeError(f"{owner}: {what} should be a sequence of length {lengths} (or a number), got {value!r}")
    if len(value) not in sizes:
        raise ValueError(f"{owner}: {what} should be a sequence of length {lengths}, got {value!r}")
    if not all(isinstance(v, numbers.Number) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{owner}: {what} must hold numbers, got {value!r}")
    out = [float(v) for v in value]
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{owner}: {what} must be finite, got {value!r}")
    return out


@torch.jit.unused
def _setup_sequence(value: Any, what: str, owner: str) -> List[float]:
    if not isinstance(value, Sequence):
        raise TypeError(f"{owner}: {what} should be a sequence of length 2, got {value!r}")
    if len(value) != 2:
        raise ValueError(f"{owner}: {what} should be a sequence of length 2, got {value!r}")
    return _setup_range(value, what, owner)


@torch.jit.unused
def _setup_center(center: Any, owner: str) -> Optional[List[float]]:
    if center is None:
        return None
    if not isinstance(center, Sequence):
        raise TypeError(f"{owner}: center should be a sequence of length 2, got {center!r}")
    if len(center) != 2:
        raise ValueError(f"{owner}: center should be a sequence of length 2, got {center!r}")
    return [float(center[0]), float(center[1])]


@torch.jit.unused
def _leaf_kind(inpt: Any) -> str:
    """ "image", "mask", "boxes", "points" or "other" (PIL images, user-registered types)."""
    if isinstance(inpt, torch.Tensor):
        if is_pure_tensor(inpt):
            return "image"
        kind = kind_of(type(inpt))
        if kind is Image or kind is Video:
            return "image"
        if kind is Mask:
            return "mask"
        if kind is BoundingBoxes:
            return "boxes"
        if kind is KeyPoints:
            return "points"
    return "other"


class _WarpTransform(Transform):
    """What the four share: ``fill`` (per input type), ``interpolation`` and the dispatch of a leaf to the kernel
    for its kind. Subclasses implement ``_image``, ``_boxes``, ``_points`` (tensor parameters) and ``_other``
    (Python numbers, eager only)."""

    __jit_ignored_attributes__ = Transform.__jit_ignored_attributes__ + ["fill", "_fills", "interpolation"]
    _script_fill: Optional[List[float]]

    def __init__(
        self,
        interpolation: Union[str, InterpolationMode, int],
        fill: Any,
        *,
        generator: Optional[torch.Generator] = None,
        allow_bicubic: bool = False,
    ) -> None:
        super().__init__(generator=generator)
        owner = type(self).__name__
        self._name: str = owner
        self._bicubic: bool = allow_bicubic
        self.interpolation = check_interpolation(interpolation, owner)
        self._mode_value: str = self.interpolation.value
        self.fill = fill
        self._fills = setup_fill(fill, owner)
        self._script_fill = scripted_fill(self._fills)

    def _image(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], mode: str, fill: Optional[List[float]]
    ) -> torch.Tensor:
        raise NotImplementedError(type(self).__name__ + " does not implement _image()")

    def _warp(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """The leaf warped with ``params`` (one sample's, or a batch's with leading dims matching ``inpt``)."""
        if torch.jit.is_scripting():
            mode = grid_mode(self._mode_value, self._name, self._bicubic)
            return self._image(inpt, params, mode, self._script_fill)
        return self._eager_warp(inpt, params)

    @torch.jit.unused
    def _eager_warp(self, inpt: Any, params: Dict[str, torch.Tensor]) -> Any:
        kind = _leaf_kind(inpt)
        owner = type(self).__name__
        if kind == "image" or kind == "mask":
            mode = "nearest" if kind == "mask" else grid_mode(self._mode_value, owner, self._bicubic)
            fill = fill_as_list(fill_for(self._fills, inpt), owner)
            plain = inpt if is_pure_tensor(inpt) else unwrap(inpt)
            squeeze = kind == "mask" and plain.ndim < 3
            out = self._image(plain.unsqueeze(0) if squeeze else plain, params, mode, fill)
            out = out.squeeze(0) if squeeze else out
            return out if is_pure_tensor(inpt) else wrap(out, like=inpt)
        if kind == "boxes":
            out = self._boxes(unwrap(inpt), inpt, params)
            return wrap(out, like=inpt)
        if kind == "points":
            return wrap(self._points(unwrap(inpt), inpt, params), like=inpt)
        if is_tracing():
            raise ValueError(f"{owner}: {type(inpt).__name__} inputs cannot be traced (Python-only kernel)")
        return self._other(inpt, params, fill_for(self._fills, inpt))

    @torch.jit.unused
    def _boxes(self, plain: torch.Tensor, boxes: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError

    @torch.jit.unused
    def _points(self, plain: torch.Tensor, points: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError

    @torch.jit.unused
    def _other(self, inpt: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        raise NotImplementedError

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._warp(inpt, params)


def _uniform(low: float, high: float, u: torch.Tensor) -> torch.Tensor:
    return u * (high - low) + low


# ---- RandomAffine ---------------------------------------------------------------------------------------------


class RandomAffine(_WarpTransform):
    """Random rotation (``degrees``), translation (fractions of the size, rounded to whole pixels), ``scale``
    and ``shear`` about ``center`` (default: the centre), torchvision's ranges and defaults."""

    _functional = staticmethod(F.affine)
    __jit_ignored_attributes__ = _WarpTransform.__jit_ignored_attributes__ + ["degrees", "translate", "scale", "shear"]

    def __init__(
        self,
        degrees: Union[float, Sequence[float]],
        translate: Optional[Sequence[float]] = None,
        scale: Optional[Sequence[float]] = None,
        shear: Optional[Union[float, Sequence[float]]] = None,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
        fill: Any = 0,
        center: Optional[List[float]] = None,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(interpolation, fill, generator=generator)
        owner = type(self).__name__
        self.degrees = _setup_range(degrees, "degrees", owner)
        self._degrees: List[float] = self.degrees
        self.translate = translate
        self._translate: List[float] = [0.0, 0.0]
        if translate is not None:
            self._translate = _setup_sequence(translate, "translate", owner)
            if not all(0.0 <= t <= 1.0 for t in self._translate):
                raise ValueError(f"{owner}: translation values should be between 0 and 1, got {translate!r}")
        self.scale = scale
        self._scale: List[float] = [1.0, 1.0]
        if scale is not None:
            self._scale = _setup_sequence(scale, "scale", owner)
            if not all(s > 0 for s in self._scale):
                raise ValueError(f"{owner}: scale values should be positive, got {scale!r}")
        self.shear = None if shear is None else _setup_range(shear, "shear", owner, (2, 4))
        self._shear: List[float] = [0.0, 0.0, 0.0, 0.0]
        if self.shear is not None:
            self._shear = self.shear + [0.0, 0.0] if len(self.shear) == 2 else list(self.shear)
        self.center = _setup_center(center, owner)
        self._center: Optional[List[float]] = self.center

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        batch_size = row_count(batch_shape)
        u = uniform([batch_size, 6], self._rng(), device)
        # The size-free columns (angle, scale, shear) in one multiply-add with float32 vectors of the ranges: the
        # bits of u * (high - low) + low per column, in 2 ops instead of 8 (columns 1-2 pass through as u).
        d, s, sh = self._degrees, self._scale, self._shear
        spans = torch.tensor([d[1] - d[0], 1.0, 1.0, s[1] - s[0], sh[1] - sh[0], sh[3] - sh[2]], device=device)
        lows = torch.tensor([d[0], 0.0, 0.0, s[0], sh[0], sh[2]], device=device)
        v = u * spans + lows
        max_dx, max_dy = self._translate[0] * width, self._translate[1] * height
        translate = torch.stack([_uniform(-max_dx, max_dx, v[:, 1]), _uniform(-max_dy, max_dy, v[:, 2])], -1).round()
        return as_drawn(batch_shape, {"angle": v[:, 0], "translate": translate, "scale": v[:, 3], "shear": v[:, 4:6]})

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's value types: ``angle`` and ``scale`` floats, ``translate`` a tuple of two ints, ``shear`` a
        tuple of two floats (under torch.compile/export the drawn float32 tensors)."""
        if is_tracing():
            return drawn
        tx, ty = drawn["translate"].tolist()
        sx, sy = drawn["shear"].tolist()
        angle, scale = float(drawn["angle"]), float(drawn["scale"])
        return {"angle": angle, "translate": (int(tx), int(ty)), "scale": scale, "shear": (sx, sy)}

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not torch.jit.is_scripting() and not isinstance(params["angle"], torch.Tensor):  # make_params' numbers
            params = self._as_tensors(params, inpt)
        return self._warp(inpt, params)

    @torch.jit.unused
    def _as_tensors(self, params: Dict[str, Any], inpt: Any) -> Dict[str, torch.Tensor]:
        device = inpt.device if isinstance(inpt, torch.Tensor) else torch.device("cpu")
        return {key: torch.tensor(value, dtype=torch.float32, device=device) for key, value in params.items()}

    def _matrix(self, params: Dict[str, torch.Tensor], center: List[float], inverted: bool) -> torch.Tensor:
        angle = params["angle"]
        center_t = torch.tensor(center, dtype=torch.float64, device=angle.device)
        return affine_matrix(angle, params["translate"], params["scale"], params["shear"], center_t, inverted)

    def _image(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], mode: str, fill: Optional[List[float]]
    ) -> torch.Tensor:
        height, width = image.shape[-2], image.shape[-1]
        center = [0.0, 0.0]
        if self._center is not None:
            c = self._center
            center = [c[0] - 0.5 * width, c[1] - 0.5 * height]
        if not torch.jit.is_scripting():
            v = eager_values([params["angle"], params["translate"], params["scale"], params["shear"]])
            if v is not None:  # eager, one sample: the matrix in Python floats
                values = affine_matrix_values(v[0], [v[1], v[2]], v[3], [v[4], v[5]], center, True)
                return warp_affine_values(image, values, height, width, mode, fill, "RandomAffine")
        inverse = self._matrix(params, center, True)
        return warp_affine_image(image, inverse, height, width, mode, fill, "RandomAffine")

    @torch.jit.unused
    def _absolute_center(self, canvas_size: List[int]) -> List[float]:
        return self._center if self._center is not None else [canvas_size[1] * 0.5, canvas_size[0] * 0.5]

    @torch.jit.unused
    def _boxes(self, plain: torch.Tensor, boxes: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        canvas = get_canvas_size(boxes)
        forward = self._matrix(params, self._absolute_center(canvas), False)
        return affine_bounding_boxes_matrix(plain, box_format_from(boxes.format), canvas, forward, boxes.clamping_mode)

    @torch.jit.unused
    def _points(self, plain: torch.Tensor, points: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        forward = self._matrix(params, self._absolute_center(get_canvas_size(points)), False)
        return affine_keypoints_matrix(plain, forward)

    @torch.jit.unused
    def _other(self, inpt: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        return F.affine(
            inpt,
            float(params["angle"]),
            [float(v) for v in params["translate"].tolist()],
            float(params["scale"]),
            [float(v) for v in params["shear"].tolist()],
            self.interpolation,
            fill,
            self._center,
        )

    def extra_repr(self) -> str:
        return (
            f"degrees={self.degrees}, translate={self.translate}, scale={self.scale}, shear={self.shear}, "
            f"interpolation={self.interpolation}, fill={self.fill}, center={self.center}"
        )


# ---- RandomRotation -------------------------------------------------------------------------------------------


class RandomRotation(_WarpTransform):
    """Rotate by an angle drawn uniformly from ``degrees`` (counter-clockwise), about ``center``; see the module
    docstring for ``expand=True`` under torch.compile."""

    _draw_uses_size = False  # the draw ignores the size (make_params takes a sample without a sized leaf)
    _functional = staticmethod(F.rotate)
    __jit_ignored_attributes__ = _WarpTransform.__jit_ignored_attributes__ + ["degrees", "center"]

    def __init__(
        self,
        degrees: Union[float, Sequence[float]],
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
        expand: bool = False,
        center: Optional[List[float]] = None,
        fill: Any = 0,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(interpolation, fill, generator=generator)
        owner = type(self).__name__
        self.degrees = _setup_range(degrees, "degrees", owner)
        self._degrees: List[float] = self.degrees
        self.expand = bool(expand)
        self.center = _setup_center(center, owner)
        self._center: Optional[List[float]] = self.center

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        batch_size = row_count(batch_shape)
        u = uniform([batch_size], self._rng(), device)
        return as_drawn(batch_shape, {"angle": _uniform(self._degrees[0], self._degrees[1], u)})

    def _matrix(self, angle: torch.Tensor, center: List[float], inverted: bool) -> torch.Tensor:
        zeros = torch.zeros(list(angle.shape) + [2], dtype=torch.float64, device=angle.device)
        center_t = torch.tensor(center, dtype=torch.float64, device=angle.device)
        return affine_matrix(-angle, zeros, torch.ones_like(angle), zeros, center_t, inverted)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if self.expand:
            return self._expanded(inpt, params)
        return self._warp(inpt, params)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if self.expand:
            raise ValueError("RandomRotation: expand=True gives every sample its own output size; it has no batch form")
        return self._warp(inpt, params)

    def _expanded(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting():
            return F.rotate(inpt, float(params["angle"]), self._mode_value, True, self._center, self._script_fill)
        return self._eager_expanded(inpt, params)

    @torch.jit.unused
    def _eager_expanded(self, inpt: Any, params: Dict[str, torch.Tensor]) -> Any:
        if is_tracing():
            kind = _leaf_kind(inpt)
            if kind == "other":
                raise ValueError(f"RandomRotation: {type(inpt).__name__} inputs cannot be traced (Python-only kernel)")
            mode = "nearest" if kind == "mask" else grid_mode(self._mode_value, "RandomRotation")
            fill = fill_as_list(fill_for(self._fills, inpt), "RandomRotation")
            return traced_expanded(self, inpt, kind, params, mode, fill)
        return F.rotate(
            inpt, float(params["angle"]), self.interpolation, True, self._center, fill_for(self._fills, inpt)
        )

    def _image(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], mode: str, fill: Optional[List[float]]
    ) -> torch.Tensor:
        height, width = image.shape[-2], image.shape[-1]
        center = [0.0, 0.0]
        if self._center is not None:
            c = self._center
            center = [c[0] - 0.5 * width, c[1] - 0.5 * height]
        if not torch.jit.is_scripting():
            v = eager_values([params["angle"]])
            if v is not None:  # eager, one sample: the matrix in Python floats
                values = affine_matrix_values(-v[0], [0.0, 0.0], 1.0, [0.0, 0.0], center, True)
                return warp_affine_values(image, values, height, width, mode, fill, "RandomRotation")
        inverse = self._matrix(params["angle"], center, True)
        return warp_affine_image(image, inverse, height, width, mode, fill, "RandomRotation")

    @torch.jit.unused
    def _absolute_center(self, canvas_size: List[int]) -> List[float]:
        return self._center if self._center is not None else [canvas_size[1] * 0.5, canvas_size[0] * 0.5]

    @torch.jit.unused
    def _boxes(self, plain: torch.Tensor, boxes: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        canvas = get_canvas_size(boxes)
        forward = self._matrix(params["angle"], self._absolute_center(canvas), False)
        return affine_bounding_boxes_matrix(plain, box_format_from(boxes.format), canvas, forward, boxes.clamping_mode)

    @torch.jit.unused
    def _points(self, plain: torch.Tensor, points: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        forward = self._matrix(params["angle"], self._absolute_center(get_canvas_size(points)), False)
        return affine_keypoints_matrix(plain, forward)

    @torch.jit.unused
    def _other(self, inpt: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        return F.rotate(inpt, float(params["angle"]), self.interpolation, False, self._center, fill)

    def extra_repr(self) -> str:
        return (
            f"degrees={self.degrees}, interpolation={self.interpolation}, expand={self.expand}, "
            f"center={self.center}, fill={self.fill}"
        )


# ---- RandomPerspective ----------------------------------------------------------------------------------------


class RandomPerspective(RandomApplyTransform, _WarpTransform):
    """With probability ``p``, a perspective warp moving each corner inwards by up to ``distortion_scale`` of
    half the size (integer pixel endpoints drawn as torchvision does)."""

    _functional = staticmethod(F.perspective)

    def __init__(
        self,
        distortion_scale: float = 0.5,
        p: float = 0.5,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        fill: Any = 0,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        _WarpTransform.__init__(self, interpolation, fill, generator=generator)
        owner = type(self).__name__
        if not (0.0 <= p <= 1.0):
            raise ValueError(f"{owner}: p must be a probability in [0, 1], got {p}")
        self.p = p
        if isinstance(distortion_scale, bool) or not isinstance(distortion_scale, numbers.Number):
            raise TypeError(f"{owner}: distortion_scale must be a number, got {distortion_scale!r}")
        if not (0.0 <= distortion_scale <= 1.0):
            raise ValueError(f"{owner}: distortion_scale value should be between 0 and 1, got {distortion_scale}")
        self.distortion_scale = float(distortion_scale)

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        batch_size = row_count(batch_shape)
        generator = self._rng()
        coin = draw_coins(self.p, [batch_size], generator, device)
        bound_h = int(self.distortion_scale * (height // 2)) + 1
        bound_w = int(self.distortion_scale * (width // 2)) + 1
        u = uniform([batch_size, 4, 2], generator, device, torch.float64)
        bounds = torch.tensor([float(bound_w), float(bound_h)], dtype=torch.float64, device=device)
        # Corners top-left, top-right, bottom-right, bottom-left, each moved inwards by an integer in [0, bound).
        offsets = (u * bounds).floor()
        far = torch.tensor(
            [[0.0, 0.0], [width - 1.0, 0.0], [width - 1.0, height - 1.0], [0.0, height - 1.0]],
            dtype=torch.float64,
            device=device,
        )
        inward = torch.tensor([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]], dtype=torch.float64, device=device)
        endpoints = far + inward * offsets
        startpoints = far.expand(batch_size, 4, 2)
        return as_drawn(batch_shape, {"apply": coin, "coefficients": perspective_coefficients(startpoints, endpoints)})

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._warp(inpt, params)

    def _image(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], mode: str, fill: Optional[List[float]]
    ) -> torch.Tensor:
        return warp_perspective_image(image, params["coefficients"], mode, fill)

    @torch.jit.unused
    def _boxes(self, plain: torch.Tensor, boxes: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return perspective_bounding_boxes_coefficients(
            plain, box_format_from(boxes.format), get_canvas_size(boxes), params["coefficients"], boxes.clamping_mode
        )

    @torch.jit.unused
    def _points(self, plain: torch.Tensor, points: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return perspective_keypoints_coefficients(plain, params["coefficients"])

    @torch.jit.unused
    def _other(self, inpt: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        coefficients = [float(v) for v in params["coefficients"].reshape(8).tolist()]
        return F.perspective(inpt, None, None, self.interpolation, fill, coefficients)

    def extra_repr(self) -> str:
        return (
            f"distortion_scale={self.distortion_scale}, p={self.p}, interpolation={self.interpolation}, "
            f"fill={self.fill}"
        )


# ---- ElasticTransform -----------------------------------------------------------------------------------------


def _gaussian_taps(size: int, sigma: float, device: torch.device) -> torch.Tensor:
    x = torch.arange(size, dtype=torch.float32, device=device) - (size - 1) * 0.5
    pdf = torch.exp(-0.5 * (x / sigma) ** 2)
    return pdf / pdf.sum()


def _blur(field: torch.Tensor, size: int, sigma_x: float, sigma_y: float) -> torch.Tensor:
    """Gaussian blur of ``[B, 1, H, W]`` (reflect padding, ``size`` taps per axis), separable: torchvision's
    ``gaussian_blur(field, [size, size], [sigma_x, sigma_y])``. With both sigmas positive it is this package's
    separable blur (shifted multiply-adds: ~3x faster than the two ``conv2d`` below, which remain for a zero
    sigma). Outside TorchScript it is the native op ``jitvision_native::gaussian_blur`` in eager, compile and export
    alike (the OpenCV route of eager ``gaussian_blur`` differs in the last bits, which moved some uint8 outputs of
    an exported program by one); TorchScript makes the op's ATen calls itself (the same values)."""
    if sigma_x > 0.0 and sigma_y > 0.0:
        sx = torch.tensor(sigma_x, dtype=torch.float64, device=field.device)
        sy = torch.tensor(sigma_y, dtype=torch.float64, device=field.device)
        if torch.jit.is_scripting():
            weights_x: List[float] = gaussian_weights(size, sx, field.dtype).tolist()
            weights_y: List[float] = gaussian_weights(size, sy, field.dtype).tolist()
            return _blur_with_taps(field, weights_x, weights_y)
        if _native_blur_applies(field):
            return call_custom_op(torch.ops.jitvision_native.gaussian_blur.default, field, [size, size], sx, sy)
        return blur_with_sigma(field, [size, size], sx, sy)
    half = size // 2
    taps_x = _gaussian_taps(size, sigma_x, field.device).reshape(1, 1, 1, size)
    taps_y = _gaussian_taps(size, sigma_y, field.device).reshape(1, 1, size, 1)
    padded = torch.nn.functional.pad(field, [half, half, half, half], mode="reflect")
    out = torch.nn.functional.conv2d(padded, taps_x)
    return torch.nn.functional.conv2d(out, taps_y)


def _blur_with_taps(field: torch.Tensor, weights_x: List[float], weights_y: List[float]) -> torch.Tensor:
    """jitvision_native::gaussian_blur's ATen calls on a float field: reflect padding, then per axis a multiply by
    the first tap and one ``add_(slice, alpha=tap)`` per further tap."""
    kx, ky = len(weights_x), len(weights_y)
    height, width = field.shape[-2], field.shape[-1]
    padded = torch.nn.functional.pad(field, [kx // 2, kx // 2, ky // 2, ky // 2], mode="reflect")
    rows = torch.mul(padded[..., 0:width], weights_x[0])
    for i in range(1, kx):
        rows.add_(padded[..., i : i + width], alpha=weights_x[i])
    out = torch.mul(rows[..., 0:height, :], weights_y[0])
    for j in range(1, ky):
        out.add_(rows[..., j : j + height, :], alpha=weights_y[j])
    return out


@torch.jit.unused
def _native_blur_applies(field: torch.Tensor) -> bool:
    return _native.FILTERS and field.device.type == "cpu" and not field.requires_grad


def _odd_taps(sigma: float) -> int:
    size = int(8 * sigma + 1)
    return size + 1 if size % 2 == 0 else size


@torch.jit.unused
def _setup_pair(value: Any, what: str, owner: str) -> List[float]:
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        value = [value, value]
    if not isinstance(value, Sequence) or len(value) not in (1, 2):
        raise TypeError(f"{owner}: {what} must be a number or a sequence of one or two numbers, got {value!r}")
    values = [float(v) for v in value] * (2 if len(value) == 1 else 1)
    if not all(math.isfinite(v) and v >= 0 for v in values):
        raise ValueError(f"{owner}: {what} must be non-negative and finite, got {value!r}")
    return values


def _field(params: Dict[str, torch.Tensor]) -> torch.Tensor:
    """The displacement as [G, H, W, 2] (one row of a batch's parameters comes as [H, W, 2])."""
    displacement = params["displacement"]
    return displacement.unsqueeze(0) if displacement.ndim == 3 else displacement


class ElasticTransform(_WarpTransform):
    """Displace every pixel by a random field: uniform noise in [-1, 1] blurred with a Gaussian of ``sigma``
    and scaled by ``alpha`` (pixels), torchvision's construction; one field per sample."""

    _functional = staticmethod(F.elastic)
    __jit_ignored_attributes__ = _WarpTransform.__jit_ignored_attributes__ + ["alpha", "sigma"]

    def __init__(
        self,
        alpha: Union[float, Sequence[float]] = 50.0,
        sigma: Union[float, Sequence[float]] = 5.0,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        fill: Any = 0,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(interpolation, fill, generator=generator, allow_bicubic=True)
        owner = type(self).__name__
        self.alpha = _setup_pair(alpha, "alpha", owner)
        self.sigma = _setup_pair(sigma, "sigma", owner)
        self._alpha: List[float] = self.alpha
        self._sigma: List[float] = self.sigma

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        batch_size = row_count(batch_shape)
        for sigma in self._sigma:
            half = _odd_taps(sigma) // 2
            if sigma > 0.0 and (half >= height or half >= width):
                # torchvision's reflect padding of the field fails there with a RuntimeError
                raise ValueError(
                    "ElasticTransform: sigma "
                    + str(sigma)
                    + " blurs the field with a kernel of "
                    + str(2 * half + 1)
                    + " taps, which needs an image larger than "
                    + str(half)
                    + " pixels on each side, got "
                    + str(height)
                    + "x"
                    + str(width)
                )
        generator = self._rng()
        dx = uniform([batch_size, 1, height, width], generator, device) * 2 - 1
        if self._sigma[0] > 0.0:
            dx = _blur(dx, _odd_taps(self._sigma[0]), self._sigma[0], self._sigma[1])
        dx = dx * self._alpha[0] / width
        dy = uniform([batch_size, 1, height, width], generator, device) * 2 - 1
        if self._sigma[1] > 0.0:
            dy = _blur(dy, _odd_taps(self._sigma[1]), self._sigma[0], self._sigma[1])
        dy = dy * self._alpha[1] / height
        # One sample's field keeps torchvision's [1, H, W, 2] layout: the row is not taken out.
        return {"displacement": torch.cat([dx, dy], dim=1).permute(0, 2, 3, 1)}

    def _image(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], mode: str, fill: Optional[List[float]]
    ) -> torch.Tensor:
        return warp_elastic_image(image, _field(params), mode, fill)

    @torch.jit.unused
    def _boxes(self, plain: torch.Tensor, boxes: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return elastic_bounding_boxes_field(
            plain, box_format_from(boxes.format), get_canvas_size(boxes), _field(params), boxes.clamping_mode
        )

    @torch.jit.unused
    def _points(self, plain: torch.Tensor, points: Any, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return elastic_keypoints_field(plain, get_canvas_size(points), _field(params))

    @torch.jit.unused
    def _other(self, inpt: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        return F.elastic(inpt, _field(params), self.interpolation, fill)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}, sigma={self.sigma}, interpolation={self.interpolation}, fill={self.fill}"
