"""RandomPerspective: drawn corner displacements per sample, applied with probability ``p``, run by the
tensor-matrix kernels (``_warp_base``)."""

import numbers
from typing import Any, Dict, List, Optional, Union

import torch

from ...tv_tensors import box_format_from
from .. import functional as F
from .._random import as_drawn, draw_coins, row_count, uniform
from .._transform import RandomApplyTransform
from ..functional._dispatch import is_tracing
from ..functional._geometry._interpolation import InterpolationMode
from ..functional._geometry._perspective import (
    perspective_bounding_boxes_coefficients,
    perspective_coefficients,
    perspective_keypoints_coefficients,
    warp_perspective_image,
)
from ..functional._meta import get_canvas_size
from ._warp_base import _WarpTransform

# ---- RandomPerspective ----------------------------------------------------------------------------------------


# The perspective coefficients that leave every point where it is.
_IDENTITY_COEFFICIENTS = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)


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

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's key ``coefficients``: 8 floats. The coin (drawn here, where torchvision draws it before
        ``make_params``) folds in as ``None`` where it says not to warp (``transform`` then returns the input as it
        is; drawn identity coefficients, ``distortion_scale=0``, still warp, as torchvision's). Under
        torch.compile/export a float64 ``[8]`` tensor, the identity where the coin says not to warp."""
        coefficients, apply = drawn["coefficients"], drawn["apply"]
        if is_tracing():
            identity = torch.tensor(_IDENTITY_COEFFICIENTS, dtype=coefficients.dtype, device=coefficients.device)
            return {"coefficients": torch.where(apply, coefficients, identity)}
        return {"coefficients": coefficients.tolist() if bool(apply) else None}

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed coefficients (maybe edited by a subclass)."""
        coefficients = params["coefficients"]
        if coefficients is None:  # the coin said not to warp
            return inpt
        if isinstance(coefficients, torch.Tensor) and is_tracing():
            coefficients = coefficients.to(torch.float64).reshape(8)
            identity = torch.tensor(_IDENTITY_COEFFICIENTS, dtype=torch.float64, device=coefficients.device)
            internal = {"apply": (coefficients != identity).any(), "coefficients": coefficients}
            return self._gate(inpt, internal)
        values = [float(value) for value in (coefficients.tolist() if isinstance(coefficients, torch.Tensor)
                                             else coefficients)]
        if len(values) != 8:
            raise ValueError(f"RandomPerspective: coefficients should have 8 values, got {len(values)}")
        device = inpt.device if isinstance(inpt, torch.Tensor) else torch.device("cpu")
        internal = {"coefficients": torch.tensor(values, dtype=torch.float64, device=device)}
        return self._warp(inpt, internal)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "apply" not in params:  # make_params' torchvision keys
            return self._transform_public(inpt, params)
        return self._gate(inpt, params)

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
