"""What the random warps (RandomAffine, RandomRotation, RandomPerspective, ElasticTransform) share: their argument
checks and ``_WarpTransform``, the base that warps every leaf of a sample with drawn tensors.

Parameters are tensors drawn with torch's RNG (one set per sample; ``_draw_batch`` draws B sets with a leading
batch dimension), and every tensor leaf is warped by the tensor-matrix kernels, so compiled random warps stay
random without recompiling. PIL images (and leaf types registered by users) go through the functional with the
drawn values read back as Python numbers (eager only).
"""

import math
import numbers
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from ...tv_tensors import BoundingBoxes, Image, KeyPoints, Mask, Video, kind_of, wrap
from .._transform import Transform
from ..functional._dispatch import is_pure_tensor, is_tracing, unwrap
from ..functional._geometry._interpolation import InterpolationMode, check_interpolation
from ..functional._geometry._warp import fill_as_list, grid_mode
from ._pad import fill_for, scripted_fill, setup_fill

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
