"""RandomRotation: a drawn angle per sample, run by the tensor-matrix kernels (``_warp_base``).

With ``expand=True`` the output size depends on the drawn angle. In eager and TorchScript the angle is read back and
``rotate`` runs with it (torchvision's result); under torch.compile/export the same sizes are computed from the
angle tensor and reach the kernels as unbacked symbolic sizes (``_rotate_expand``, through ``_drawn``): one graph,
the angle live, no recompiles. Batches are refused (every sample would get its own size).
"""

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
from ..functional._geometry._warp import fill_as_list, grid_mode
from ..functional._geometry._warp_matrix import affine_matrix, affine_matrix_values, centred_center, eager_values
from ..functional._meta import get_canvas_size
from ._pad import fill_for
from ._rotate_expand import traced_expanded
from ._warp_base import _leaf_kind, _setup_center, _setup_range, _uniform, _WarpTransform

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
        center = centred_center(self._center, height, width)
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
