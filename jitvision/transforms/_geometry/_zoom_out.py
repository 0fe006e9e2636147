"""RandomZoomOut: pad the sample onto a canvas ``r`` times its size (``r`` drawn in ``side_range``), at a random
position, with probability ``p``.

The draw is torchvision's (``rand(1)`` for the coin, ``rand(1)`` for ``r``, ``rand(2)`` for the position, float32
arithmetic, truncation to ints), so a seed gives torchvision's padding. The padding reaches ``pad`` through
``_drawn.ints_of``: plain ints in eager/TorchScript, unbacked symbolic sizes under torch.compile/export, where the
coin is folded into the padding (zero when not applied) instead of a branch: one graph, no recompiles across draws.
The output size differs per sample, so batches are refused (``_drawn.refuse_batch``).
"""

import math
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import torch

from .. import functional as F
from .._drawn import ints_of, refuse_batch
from .._random import python_choice, uniform
from ..functional._dispatch import is_tracing
from ._pad import PaddingTransform


class RandomZoomOut(PaddingTransform):
    """"Zoom out" (SSD): with probability ``p``, place the sample on a canvas whose sides are ``r`` times the
    input's (``r`` uniform in ``side_range``, ``side_range[0] >= 1``), filled with ``fill``, at a uniform random
    offset. Boxes and keypoints move with it."""

    # Compose runs it sample by sample up to a later fixed-size Resize on batches (see Compose).
    _drawn_output_size = True
    _functional = staticmethod(F.pad)

    def __init__(
        self,
        fill: Any = 0,
        side_range: Sequence[float] = (1.0, 4.0),
        p: float = 0.5,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(fill, "constant", generator=generator)
        owner = type(self).__name__
        if not isinstance(side_range, Sequence):
            raise TypeError(f"{owner}: side_range should be a sequence of length 2, got {side_range!r}")
        if len(side_range) != 2:  # a sequence of another length: torchvision's ValueError
            raise ValueError(f"{owner}: side_range should be a sequence of length 2, got {side_range!r}")
        low, high = float(side_range[0]), float(side_range[1])
        if not (math.isfinite(low) and math.isfinite(high)) or not 1.0 <= low <= high:
            raise ValueError(f"{owner}: Invalid side range: (min, max) with 1 <= min <= max, got {list(side_range)}")
        if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"{owner}: p must be a probability in [0, 1], got {p!r}")
        self.side_range = [low, high]
        self.p = float(p)

    def _padding(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        # One stream as torchvision's: the coin, r, then the position (rand(1), rand(1), rand(2) = rand(4)).
        u = uniform(batch_shape + [4], self._rng(), device)
        apply = u[..., 0] < self.p
        r = self.side_range[0] + u[..., 1:2] * (self.side_range[1] - self.side_range[0])
        canvas = torch.cat([width * r, height * r], -1).to(torch.int64)  # [w, h], truncated like int()
        room = canvas - torch.tensor([width, height], device=device)
        left_top = (room * u[..., 2:4]).to(torch.int64)  # float32 products, truncated
        padding = torch.cat([left_top, room - left_top], -1)  # [left, top, right, bottom]
        return {"apply": apply, "padding": padding * apply.unsqueeze(-1)}

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        if len(batch_shape) == 0 and not torch.jit.is_scripting():
            if not is_tracing():
                return self._draw_eager(height, width, device)
        return self._padding(batch_shape, height, width, device)

    @torch.jit.unused
    def _draw_eager(self, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        # _padding's float32 arithmetic on numpy float32 scalars (the same IEEE single operations): a dozen tiny
        # tensor ops cost more per eager call than the rest of the draw (tests/transforms/test_zoom_out.py checks
        # that both give the same padding).
        f32 = np.float32
        coin, u_r, u_left, u_top = (f32(v) for v in uniform([4], self._rng(), device).tolist())
        apply = bool(coin < f32(self.p))
        padding = [0, 0, 0, 0]
        if apply:
            r = f32(self.side_range[0]) + u_r * f32(self.side_range[1] - self.side_range[0])
            canvas_w, canvas_h = int(f32(width) * r), int(f32(height) * r)
            room_w, room_h = canvas_w - width, canvas_h - height
            left, top = int(f32(room_w) * u_left), int(f32(room_h) * u_top)
            padding = [left, top, room_w - left, room_h - top]
        return {
            "apply": torch.tensor(apply, device=device),
            "padding": torch.tensor(padding, dtype=torch.int64, device=device),
        }

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's key ``padding``: ``[left, top, right, bottom]`` ints (all 0 where the coin, drawn here rather
        than before ``make_params`` as in torchvision, says not to zoom out); under torch.compile/export the int64
        ``[4]`` tensor, the coin folded in."""
        padding = drawn["padding"]
        return {"padding": padding if is_tracing() else padding.tolist()}

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed padding (maybe edited by a subclass)."""
        padding = params["padding"]
        if isinstance(padding, torch.Tensor):
            if is_tracing():
                return self._pad(inpt, ints_of(params, "padding"))
            padding = padding.tolist()
        padding = [int(side) for side in padding]
        if not any(padding):
            return inpt
        return self._pad(inpt, padding)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "apply" not in params:  # make_params' torchvision keys
            return self._transform_public(inpt, params)
        choice = python_choice(params["apply"])
        if choice is not None and not choice:
            return inpt
        return self._pad(inpt, ints_of(params, "padding"))

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not torch.jit.is_scripting():
            refuse_batch(type(self).__name__)
        raise ValueError("RandomZoomOut: per-sample output sizes cannot be stacked in a batch")

    def extra_repr(self) -> str:
        return f"fill={self.fill}, side_range={self.side_range}, p={self.p}"
