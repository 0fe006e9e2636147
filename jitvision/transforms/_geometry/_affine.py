"""RandomAffine: a drawn affine matrix per sample, run by the tensor-matrix kernels (``_warp_base``)."""

from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from ...tv_tensors import box_format_from
from .. import functional as F
from .._random import as_drawn, row_count, uniform
from ..functional._dispatch import is_tracing
from ..functional._geometry._affine_matrix import (
    affine_bounding_boxes_matrix,
    affine_keypoints_matrix,
    warp_affine_image,
    warp_affine_values,
)
from ..functional._geometry._interpolation import InterpolationMode
from ..functional._geometry._warp_matrix import affine_matrix, affine_matrix_values, centred_center, eager_values
from ..functional._meta import get_canvas_size
from ._warp_base import _setup_center, _setup_range, _setup_sequence, _uniform, _WarpTransform

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
        center = centred_center(self._center, height, width)
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
