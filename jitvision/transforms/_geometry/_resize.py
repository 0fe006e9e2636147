"""Resize and RandomResizedCrop."""

import math
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from ... import _native
from .. import _stages
from .. import functional as F
from .._random import draws_on_host, pair, uniform
from .._script_fusion import script_standalone
from .._transform import Transform
from .._utils import setup_size
from ..functional._dispatch import is_tracing
from ..functional._geometry._interpolation import InterpolationMode, check_interpolation
from ..functional._geometry._resized_crop import resized_crop_at


class Resize(Transform):
    """Resize to ``size``: ``[h, w]``; an int or ``[s]`` puts the shorter side at ``s`` (keeping the aspect
    ratio, the longer side capped at ``max_size``); ``None`` puts the longer side at ``max_size``.

    The output size is computed without Python branches on the input size, so a pipeline starting with
    ``Resize(256)`` exports with dynamic height and width.
    """

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.RESIZE

    _functional = staticmethod(F.resize)
    _draw_uses_size = False  # deterministic: make_params (torchvision's {}) reads no size

    def __init__(
        self,
        size: Union[int, Sequence[int], None],
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        max_size: Optional[int] = None,
        antialias: Optional[bool] = True,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if isinstance(size, int) and not isinstance(size, bool):
            size = [size]
        elif isinstance(size, Sequence) and len(size) in (1, 2) and all(isinstance(v, int) for v in size):
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"{name}: max_size must be an integer when size is None, got {max_size!r}")
        else:
            raise ValueError(
                f"{name}: size can be an integer, a sequence of one or two integers, or None, got {size!r}"
            )
        if size is not None and any(v <= 0 for v in size):
            raise ValueError(f"{name}: size must be positive, got {size}")
        if max_size is not None:
            if not isinstance(max_size, int):
                raise TypeError(f"{name}: max_size must be an int or None, got {max_size!r}")
            if size is not None and (len(size) != 1 or max_size <= size[0]):
                raise ValueError(
                    f"{name}: max_size needs size to be None or a single value smaller than max_size, "
                    f"got size={size}, max_size={max_size}"
                )
        if antialias is not None and not isinstance(antialias, bool):
            raise TypeError(f"{name}: antialias must be a bool, got {antialias!r}")
        self.size: Optional[List[int]] = size
        self.interpolation = check_interpolation(interpolation, name)
        self.max_size = max_size
        self.antialias = antialias

    def __prepare_scriptable__(self) -> "Resize":
        return script_standalone(self)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting():
            if hasattr(self, "_script_native"):  # resolved when scripting (_script_fusion.script_standalone)
                if self._script_native.fuses(inpt):
                    return self._script_native(inpt, None)
        return F.resize(inpt, self.size, self.interpolation, self.max_size, self.antialias)

    def extra_repr(self) -> str:
        return (
            f"size={self.size}, interpolation={self.interpolation}, max_size={self.max_size}, "
            f"antialias={self.antialias}"
        )


def _exp(x: float) -> float:
    """math.exp, infinite where it overflows (as torch.exp and C's exp), instead of raising OverflowError."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _float_pair(value: Any, what: str, name: str) -> List[float]:
    if not isinstance(value, Sequence) or len(value) != 2:
        raise TypeError(f"{name}: {what.capitalize()} should be a sequence of two floats., got {value!r}")
    try:
        low, high = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        raise TypeError(f"{name}: {what.capitalize()} should be a sequence of two floats., got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{name}: {what} must be finite, got {list(value)}")
    if low > high:
        raise ValueError(f"{name}: {what} must be (min, max), got {list(value)}")
    return [low, high]


class RandomResizedCrop(Transform):
    """Crop a random region (area fraction in ``scale``, aspect ratio in ``ratio``), then resize it to ``size``.

    The region is drawn as torchvision does (10 tries of a random area and log-ratio, the first one that fits,
    else a center crop of clamped ratio), with all 10 candidates drawn at once as tensors, so the draw stays
    random under ``torch.compile``. Compiled or exported, dense inputs go through the C++ operator
    ``jitvision_native::resized_crop_box`` (the same kernels as eager, with a fixed output shape).
    """

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.RANDOM_RESIZED_CROP

    _functional = staticmethod(F.resized_crop)

    def __init__(
        self,
        size: Union[int, Sequence[int]],
        scale: Sequence[float] = (0.08, 1.0),
        ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        antialias: Optional[bool] = True,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(generator=generator)
        name = type(self).__name__
        self.size = setup_size(size, name)
        self.scale = _float_pair(scale, "scale", name)
        self.ratio = _float_pair(ratio, "ratio", name)
        if self.scale[0] < 0 or self.ratio[0] <= 0:
            raise ValueError(f"{name}: scale must be >= 0 and ratio > 0, got scale={scale}, ratio={ratio}")
        self.log_ratio = [math.log(self.ratio[0]), math.log(self.ratio[1])]
        self.interpolation = check_interpolation(interpolation, name)
        if antialias is not None and not isinstance(antialias, bool):
            raise TypeError(f"{name}: antialias must be a bool, got {antialias!r}")
        self.antialias = antialias

    def __prepare_scriptable__(self) -> "RandomResizedCrop":
        return script_standalone(self)

    def _uniforms(self, batch_shape: List[int], device: torch.device) -> torch.Tensor:
        # Rows: 10 area fractions, 10 log-ratios, the position (row, column) of the chosen region. float64 so
        # the eager (Python float) and tensor computations below agree exactly; MPS has no float64.
        dtype = torch.float32 if device.type == "mps" else torch.float64
        return uniform(batch_shape + [3, 10], self._rng(), device, dtype)

    def _fallback(self, height: int, width: int) -> List[int]:
        """[height, width] of torchvision's fallback: the whole image, its ratio clamped into ``ratio``; at least
        one pixel (for an extreme ratio torchvision's rounding gives 0, and its crop then fails)."""
        in_ratio = float(width) / float(height)
        if in_ratio < self.ratio[0]:
            return [max(int(round(width / self.ratio[0])), 1), width]
        if in_ratio > self.ratio[1]:
            return [height, max(int(round(height * self.ratio[1])), 1)]
        return [height, width]

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        if len(batch_shape) == 0 and not torch.jit.is_scripting():
            if draws_on_host(device):
                return self._draw_eager(height, width, device)
        return {"box": self._boxes(batch_shape, height, width, device)}

    def _boxes(self, batch_shape: List[int], height: int, width: int, device: torch.device) -> torch.Tensor:
        """int64 ``[*batch_shape, 4]`` regions [top, left, height, width], drawn with tensor ops: all 10 candidates
        at once, the first that fits selected without a data-dependent branch."""
        u = self._uniforms(batch_shape, device)
        area = float(height * width)
        target_area = (u[..., 0, :] * (self.scale[1] - self.scale[0]) + self.scale[0]) * area
        log_ratio = u[..., 1, :] * (self.log_ratio[1] - self.log_ratio[0]) + self.log_ratio[0]
        # (h, w) of the 10 candidates, [..., 2, 10]: sqrt(area / ratio), sqrt(area * ratio), rounded half to even.
        hw = torch.round(torch.sqrt(target_area.unsqueeze(-2) * torch.exp(torch.stack([-log_ratio, log_ratio], -2))))
        limits = pair(height, width, hw.dtype, device).unsqueeze(-1)
        fits = ((hw > 0) & (hw <= limits)).all(-2)
        first = fits & (torch.cumsum(fits, -1) == 1)  # one-hot: the first candidate that fits
        found = fits.any(-1, keepdim=True)
        fallback_h, fallback_w = self._fallback(height, width)
        fallback = pair(fallback_h, fallback_w, hw.dtype, device)
        # where, not hw * first: a candidate of infinite size (extreme scale/ratio) times 0 would be NaN
        crop_hw = torch.where(found, torch.where(first.unsqueeze(-2), hw, torch.zeros_like(hw)).sum(-1), fallback)
        room = limits[:, 0] - crop_hw
        top_left = torch.floor(torch.where(found, u[..., 2, :2] * (room + 1), room / 2))
        top_left = torch.minimum(top_left, room)
        return torch.cat([top_left, crop_hw], -1).to(torch.int64)

    @torch.jit.unused
    def _draw_eager(self, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        # The same draw and arithmetic as the tensor path, on Python floats: tiny tensor ops cost more than
        # the whole computation in eager.
        if height <= 0 or width <= 0:
            raise ValueError(f"{type(self).__name__}: cannot crop an empty input of size {[height, width]}")
        areas, log_ratios, position = self._uniforms([], device).tolist()
        area = float(height * width)
        crop_hw = None
        for fraction, log_ratio in zip(areas, log_ratios):
            target_area = (fraction * (self.scale[1] - self.scale[0]) + self.scale[0]) * area
            log_ratio = log_ratio * (self.log_ratio[1] - self.log_ratio[0]) + self.log_ratio[0]
            # Rounded as floats (half to even) and compared before any int(): with an extreme scale or ratio a
            # candidate can be infinite or NaN, and then simply does not fit (as in the tensor path).
            h = round(math.sqrt(target_area * _exp(-log_ratio)), 0)
            w = round(math.sqrt(target_area * _exp(log_ratio)), 0)
            if 0 < h <= height and 0 < w <= width:
                crop_hw = [int(h), int(w)]
                break
        if crop_hw is None:
            crop_h, crop_w = self._fallback(height, width)
            top, left = (height - crop_h) // 2, (width - crop_w) // 2
        else:
            crop_h, crop_w = crop_hw
            top = min(math.floor(position[0] * (height - crop_h + 1)), height - crop_h)
            left = min(math.floor(position[1] * (width - crop_w + 1)), width - crop_w)
        return {"box": torch.tensor([top, left, crop_h, crop_w], dtype=torch.int64, device=device)}

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # uint8 CPU bilinear antialiased: the draw and the resized crop in one native call (the op Compose's fusion
        # uses, whose draw is _draw_eager's: the same uniforms on the same generator, the same arithmetic; its
        # uint8 resize is bit-identical to torch's, see csrc/resize.cpp).
        if not (
            _native.AVAILABLE
            and image.dtype == torch.uint8
            and image.device.type == "cpu"
            and image.ndim >= 3
            and image.shape[-1] > 0
            and image.shape[-2] > 0
            and self.interpolation == InterpolationMode.BILINEAR
            and self.antialias is True
        ):
            return None
        return torch.ops.jitvision_native.random_resized_crop.default(
            image, self.size, self.scale, self.ratio, None, None, None, False, self._rng(), None
        )

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's keys ``top``, ``left``, ``height``, ``width``: ints, 0-d int64 tensors under
        torch.compile/export."""
        box = drawn["box"]
        top, left, crop_height, crop_width = (box[0], box[1], box[2], box[3]) if is_tracing() else box.tolist()
        return {"top": top, "left": left, "height": crop_height, "width": crop_width}

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed region (maybe edited by a subclass)."""
        values = [params["top"], params["left"], params["height"], params["width"]]
        if any(isinstance(value, torch.Tensor) for value in values):  # traced: the region stays tensors
            device = next(value.device for value in values if isinstance(value, torch.Tensor))
            box = torch.stack([torch.as_tensor(value, device=device) for value in values]).to(torch.int64)
            return self._transform_traced(inpt, box)
        top, left, height, width = (int(value) for value in values)
        return F.resized_crop(inpt, top, left, height, width, self.size, self.interpolation, self.antialias)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "box" not in params:  # make_params' torchvision keys
            return self._transform_public(inpt, params)
        box = params["box"]
        if not torch.jit.is_scripting():
            if is_tracing() or box.device.type != "cpu":  # the box stays a tensor (no read on the host)
                return self._transform_traced(inpt, box)
        else:
            if hasattr(self, "_script_native"):  # resolved when scripting (_script_fusion.script_standalone)
                if self._script_native.fuses(inpt):
                    return self._script_native(inpt, box)
        top, left, height, width = torch.jit.annotate(List[int], box.tolist())
        return F.resized_crop(inpt, top, left, height, width, self.size, self.interpolation, self.antialias)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        box = params["box"]
        if not torch.jit.is_scripting():
            return self._transform_traced(inpt, box)  # one box per row
        rows = [
            F.resized_crop(inpt[i], int(box[i, 0]), int(box[i, 1]), int(box[i, 2]), int(box[i, 3]), self.size,
                           self.interpolation, self.antialias)
            for i in range(inpt.shape[0])
        ]
        if len(rows) == 0:
            return inpt.new_empty([0] + inpt.shape[1:-2] + self.size)
        return torch.stack(rows)

    @torch.jit.unused
    def _transform_traced(self, inpt: Any, box: torch.Tensor) -> Any:
        return resized_crop_at(inpt, box, self.size, self.interpolation, self.antialias)

    def extra_repr(self) -> str:
        return (
            f"size={self.size}, scale={self.scale}, ratio={self.ratio}, interpolation={self.interpolation}, "
            f"antialias={self.antialias}"
        )
