"""RandomErasing."""

import math
import warnings
from numbers import Number
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from .. import _native
from .._eager_ops import entry
from ..tv_tensors import wrap
from . import functional as F
from ._random import draw_coins, draws_on_host, normal_like, uniform
from ._routing import as_float32
from ._transform import RandomApplyTransform
from ._utils import is_image_like, query_device, require_image
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap
from .functional._erase import erase_image, erase_where

# RandomErasing's eager call on one contiguous uint8 CPU image with one integer fill (the draws and the erase in
# one native call); None without the op (an older library).
_RANDOM_ERASE = entry("random_erase") if _native.AVAILABLE else None


class RandomErasing(RandomApplyTransform):
    """With probability ``p``, set a random rectangle of images and videos to ``value`` (a number, one number per
    channel, or ``"random"``: standard normal noise per pixel); masks, boxes and keypoints pass through.

    The rectangle is torchvision's: up to 10 attempts of an area fraction uniform in ``scale`` and a log-uniform
    aspect ratio in ``ratio``, the first that fits wins, at an offset uniform among those that fit; when none fits,
    nothing is erased. All attempts are drawn at once as tensors (the draws differ from torchvision's stream for
    a seed; the distribution is the same), the box is an int64 tensor ``[i, j, h, w]`` (one per sample on batches)
    and the traced form erases through a mask built from it, so a compiled RandomErasing keeps its output shape,
    one graph, and its randomness.
    """

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        require_image(flat_inputs, type(self).__name__)

    _functional = staticmethod(F.erase)
    value: Optional[List[float]]

    def __init__(
        self,
        p: float = 0.5,
        scale: Sequence[float] = (0.02, 0.33),
        ratio: Sequence[float] = (0.3, 3.3),
        value: Union[float, Sequence[float], str] = 0.0,
        inplace: bool = False,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(p, generator=generator)
        owner = type(self).__name__
        if isinstance(value, str):
            if value != "random":
                raise ValueError(f"{owner}: If value is str, it should be 'random', got {value!r}")
            self.value = None
        elif isinstance(value, Number) and not isinstance(value, bool):
            self.value = [float(value)]  # type: ignore[arg-type]
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Number) for v in value):
            self.value = [float(v) for v in value]
        else:
            raise TypeError(
                f"{owner}: Argument value should be either a number or str or a sequence (of numbers, or 'random'), "
                f"got {value!r}"
            )
        for name, pair in (("scale", scale), ("ratio", ratio)):
            if not isinstance(pair, Sequence) or len(pair) != 2:
                raise TypeError(f"{owner}: {name.capitalize()} should be a sequence (min, max), got {pair!r}")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn(f"{owner}: Scale and ratio should be of kind (min, max)", stacklevel=2)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError(f"{owner}: Scale should be between 0 and 1, got {list(scale)}")
        if ratio[0] <= 0:
            raise ValueError(f"{owner}: ratio must be positive, got {list(ratio)}")
        self.scale: List[float] = [float(scale[0]), float(scale[1])]
        self.ratio: List[float] = [float(ratio[0]), float(ratio[1])]
        self.inplace = bool(inplace)

    # ---- parameters ---------------------------------------------------------------------------------------------

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        if len(batch_shape) == 0 and not torch.jit.is_scripting():
            if draws_on_host(device):
                return self._draw_eager(height, width, device)
        coins = draw_coins(self.p, batch_shape, self._rng(), device)
        return {"apply": coins, "box": self._boxes(batch_shape, height, width, device)}

    @torch.jit.unused
    def _draw_eager(self, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        """``_draw`` with the box arithmetic on Python floats: the same draws from the same stream (the coin, 20
        uniforms, 2 uniforms) and the same float64 formulas, without a dozen tiny tensor ops (each an op dispatch)."""
        apply = draw_coins(self.p, [], self._rng(), device)
        u = uniform([20], self._rng(), device, torch.float64).tolist()
        offsets = uniform([2], self._rng(), device, torch.float64).tolist()
        box = self._box_of(height, width, u, offsets)
        return {"apply": apply, "box": torch.tensor(box, dtype=torch.int64, device=device)}

    @torch.jit.unused
    def _box_of(self, height: int, width: int, u: List[float], offsets: List[float]) -> List[int]:
        """``[i, j, h, w]`` from the 20 attempt uniforms and the 2 offset uniforms (``h = w = 0``: none fits)."""
        log_low, log_high = math.log(self.ratio[0]), math.log(self.ratio[1])
        h = w = 0.0
        for attempt in range(10):
            area = (height * width) * (u[2 * attempt] * (self.scale[1] - self.scale[0]) + self.scale[0])
            aspect = math.exp(u[2 * attempt + 1] * (log_high - log_low) + log_low)
            attempt_h, attempt_w = round(math.sqrt(area * aspect)), round(math.sqrt(area / aspect))
            if attempt_h < height and attempt_w < width:
                h, w = float(attempt_h), float(attempt_w)
                break
        i = min(math.floor(offsets[0] * (height - h + 1)), height - h)
        j = min(math.floor(offsets[1] * (width - w + 1)), width - w)
        return [int(i), int(j), int(h), int(w)]

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # _draw_eager's draws (coin, 20 uniforms, 2 uniforms) as Python numbers, then the erase kernel: no coin,
        # box or parameter tensors built and read back. A single number erases with one fill_ of a copy.
        if image.ndim < 3:
            return None  # require_image's error and the kernels' checks: the generic path
        value = self.value
        if (
            _RANDOM_ERASE is not None
            and value is not None
            and len(value) == 1
            and image.dtype == torch.uint8
            and not self.inplace
            and image.is_cpu
            and not image.requires_grad
            and image.is_contiguous()
        ):
            fill = value[0]
            if fill.is_integer() and 0 <= fill <= 255:  # what the float32 -> uint8 cast of the kernel gives
                # The same draws, box and values as below, in one native call (csrc/erase_fast.cpp).
                drawn = _RANDOM_ERASE(image, self.p, self.scale, self.ratio, int(fill), self._rng())
                return drawn[0] if drawn else image
        device = image.device
        coin = uniform([], self._rng(), device).item()
        u = uniform([20], self._rng(), device, torch.float64).tolist()
        offsets = uniform([2], self._rng(), device, torch.float64).tolist()
        if not coin < as_float32(self.p):
            return image
        i, j, h, w = self._box_of(image.shape[-2], image.shape[-1], u, offsets)
        if h == 0:
            return image
        if value is not None and len(value) == 1 and image.dtype == torch.uint8 and not self.inplace:
            fill = value[0]
            if fill.is_integer() and 0 <= fill <= 255:  # what the float32 -> uint8 cast of the kernel gives
                out = image.clone()
                out[..., i : i + h, j : j + w].fill_(int(fill))
                return out
        fill_tensor = self._region_noise(image, h, w) if value is None else self._fill(image, False)
        return erase_image(image, i, j, h, w, fill_tensor, inplace=self.inplace)

    def _boxes(self, shape: List[int], height: int, width: int, device: torch.device) -> torch.Tensor:
        """int64 ``[*shape, 4]`` boxes (i, j, h, w) from 10 attempts; ``h = w = 0`` where none fits."""
        u = uniform(shape + [10, 2], self._rng(), device, torch.float64)
        area = (height * width) * (u[..., 0] * (self.scale[1] - self.scale[0]) + self.scale[0])
        log_low, log_high = math.log(self.ratio[0]), math.log(self.ratio[1])
        aspect = torch.exp(u[..., 1] * (log_high - log_low) + log_low)
        h = torch.round(torch.sqrt(area * aspect))
        w = torch.round(torch.sqrt(area / aspect))
        fits = (h < height) & (w < width)
        first = torch.argmax(fits.to(torch.int64), dim=-1, keepdim=True)  # the first attempt that fits (or 0)
        found = fits.any(dim=-1)
        h = torch.where(found, h.gather(-1, first).squeeze(-1), 0.0)
        w = torch.where(found, w.gather(-1, first).squeeze(-1), 0.0)
        offsets = uniform(shape + [2], self._rng(), device, torch.float64)
        i = torch.minimum((offsets[..., 0] * (height - h + 1)).floor(), height - h)
        j = torch.minimum((offsets[..., 1] * (width - w + 1)).floor(), width - w)
        return torch.stack([i, j, h, w], dim=-1).to(torch.int64)

    # ---- torchvision's make_params form -------------------------------------------------------------------------

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's keys ``i``, ``j``, ``h``, ``w`` (ints; 0-d int64 tensors under torch.compile/export) and ``v``
        (the float32 value, ``[C, 1, 1]`` or ``[1, 1, 1]``, random normal ``[C, h, w]``; ``[C, H, W]`` under
        torch.compile/export), or ``v`` None (with the whole canvas) where nothing is erased. Unlike torchvision,
        whose coin is drawn before ``make_params``, the coin is drawn here: an unset coin gives ``v`` None."""
        image = next((leaf for leaf in flat_inputs if is_image_like(leaf) or is_pure_tensor(leaf)), None)
        channels = F.get_dimensions(image)[0] if image is not None else 1
        device = query_device(flat_inputs)
        fill = None if self.value is None else self._value_of(channels, device)  # checked whatever the coin says
        box, apply = drawn["box"], drawn["apply"]
        if is_tracing():
            box = box * apply.to(box.dtype)
            if fill is None:
                fill = normal_like(torch.empty(channels, height, width, device=device), self._rng(), torch.float32)
            return {"i": box[0], "j": box[1], "h": box[2], "w": box[3], "v": fill}
        i, j, h, w = box.tolist()
        if not bool(apply) or h == 0:
            return {"i": 0, "j": 0, "h": height, "w": width, "v": None}
        if fill is None:
            fill = normal_like(torch.empty(channels, h, w, device=device), self._rng(), torch.float32)
        return {"i": i, "j": j, "h": h, "w": w, "v": fill}

    @torch.jit.unused
    def _value_of(self, channels: int, device: torch.device) -> torch.Tensor:
        value = self.value if self.value is not None else [0.0]
        if len(value) != 1 and len(value) != channels:
            raise ValueError(
                f"RandomErasing: If value is a sequence, it should have either a single value or {channels} (one per "
                f"channel), got {len(value)}"
            )
        return torch.tensor(value, dtype=torch.float32, device=device).view(-1, 1, 1)

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed parameters (maybe edited by a subclass)."""
        value = params["v"]
        if value is None:
            return inpt
        i, j, h, w = params["i"], params["j"], params["h"], params["w"]
        if is_tracing() and isinstance(i, torch.Tensor):
            box = torch.stack([i, j, h, w]).to(torch.int64)
            if is_pure_tensor(inpt):
                return erase_where(inpt, box, value)
            return wrap(erase_where(unwrap(inpt), box, value), like=inpt)
        return F.erase(inpt, int(i), int(j), int(h), int(w), value, inplace=self.inplace)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "v" in params:
            return self._transform_public(inpt, params)
        return self._gate(inpt, params)

    # ---- the effect ---------------------------------------------------------------------------------------------

    def _fill(self, image: torch.Tensor, batched: bool) -> torch.Tensor:
        """The value to erase with, broadcastable to ``image`` (``[..., C, H, W]``)."""
        channels = image.shape[-3] if image.ndim >= 3 else 1
        value = self.value
        if value is None:
            return normal_like(image, self._rng(), torch.float32)
        if len(value) != 1 and len(value) != channels:
            raise ValueError(
                f"RandomErasing: If value is a sequence, it should have either a single value or {channels} (one per "
                f"channel), got {len(value)}"
            )
        return torch.tensor(value, dtype=torch.float32, device=image.device).view(-1, 1, 1)

    def _region_noise(self, image: torch.Tensor, h: int, w: int) -> torch.Tensor:
        """``"random"``'s noise for one sample with a known box: torchvision's ``[C, h, w]`` draw, the one
        ``make_params`` makes, so a plain tensor, a tv_tensor and a sample in a container erase with the same values
        for a seed (noise the size of the image, then cut, would consume another stretch of the stream)."""
        channels = image.shape[-3] if image.ndim >= 3 else 1
        return normal_like(torch.empty([channels, h, w], device=image.device), self._rng(), torch.float32)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        box = params["box"]
        if not is_tracing() and box.ndim == 1:  # eager and scripted, one sample: a slice assignment
            if torch.jit.is_scripting():
                i, j, h, w = int(box[0]), int(box[1]), int(box[2]), int(box[3])
            else:
                i, j, h, w = box.tolist()
            if h == 0:
                return inpt
            fill = self._region_noise(inpt, h, w) if self.value is None else self._fill(inpt, False)
            return F.erase(inpt, i, j, h, w, fill, inplace=self.inplace)
        return self._erase_traced(inpt, box, None)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._erase_traced(inpt, params["box"], params["apply"])

    def _erase_traced(self, inpt: torch.Tensor, box: torch.Tensor, apply: Optional[torch.Tensor]) -> torch.Tensor:
        if apply is not None:  # the coin folds into the box: an unset coin erases nothing
            box = box * apply.to(box.dtype).unsqueeze(-1)
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return erase_where(inpt, box, self._fill(inpt, box.ndim == 2))
        return self._erase_tv_tensor(inpt, box)

    @torch.jit.unused
    def _erase_tv_tensor(self, inpt: Any, box: torch.Tensor) -> torch.Tensor:
        plain = unwrap(inpt)
        return wrap(erase_where(plain, box, self._fill(plain, box.ndim == 2)), like=inpt)

    def extra_repr(self) -> str:
        value = "random" if self.value is None else self.value
        return f"p={self.p}, scale={self.scale}, ratio={self.ratio}, value={value}, inplace={self.inplace}"
