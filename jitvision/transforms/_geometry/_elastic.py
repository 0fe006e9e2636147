"""ElasticTransform: a drawn displacement field per sample, blurred by a separable Gaussian (the helpers here), run
by the elastic kernels through ``_warp_base``."""

import math
import numbers
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from ... import _native
from ...tv_tensors import box_format_from
from .. import functional as F
from .._random import row_count, uniform
from ..functional._blur import blur_with_sigma, gaussian_weights
from ..functional._dispatch import call_custom_op
from ..functional._geometry._elastic import (
    elastic_bounding_boxes_field,
    elastic_keypoints_field,
    warp_elastic_image,
)
from ..functional._geometry._interpolation import InterpolationMode
from ..functional._meta import get_canvas_size
from ._warp_base import _WarpTransform

# ---- ElasticTransform -----------------------------------------------------------------------------------------


def _gaussian_taps(size: int, sigma: float, device: torch.device) -> torch.Tensor:
    x = torch.arange(size, dtype=torch.float32, device=device) - (size - 1) * 0.5
    pdf = torch.exp(-0.5 * (x / sigma) ** 2)
    return pdf / pdf.sum()


def _blur(field: torch.Tensor, size: int, sigma_x: float, sigma_y: float) -> torch.Tensor:
    """Gaussian blur of ``[B, 1, H, W]`` (reflect padding, ``size`` taps per axis), separable: torchvision's
    ``gaussian_blur(field, [size, size], [sigma_x, sigma_y])``. With both sigmas positive it is this package's
    separable blur (shifted multiply-adds, cheaper than the two ``conv2d`` below, which remain for a zero
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
