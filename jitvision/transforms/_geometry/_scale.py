"""ScaleJitter, RandomShortestSize and RandomResize: a resize to a drawn size.

Each draws its output size ``[height, width]`` as an int64 tensor with torchvision's arithmetic (float32 for
ScaleJitter, float64 for RandomShortestSize, integers for RandomResize) and torchvision's draw (``rand(1)``,
``randint``), so a seed gives torchvision's size. The size reaches ``resize`` through ``_drawn.ints_of``: plain
ints in eager and TorchScript, unbacked symbolic sizes under torch.compile/export (one graph, no recompiles
across draws). A batch cannot hold samples of different sizes: on batch tv_tensors and ``forward_batch`` they
raise a ValueError (``_drawn.refuse_batch``).
"""

import math
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from .. import _stages
from .. import functional as F
from .._drawn import check_positive, ints_of, refuse_batch
from .._random import randint, uniform
from .._transform import Transform
from ..functional._dispatch import is_tracing
from ..functional._geometry._interpolation import InterpolationMode, check_interpolation


@torch.jit.unused
def _positive_int(value: Any, what: str, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}: {what} must be an int, got {value!r}")
    if value <= 0:
        raise ValueError(f"{owner}: {what} must be positive, got {value}")
    return int(value)


@torch.jit.unused
def _check_antialias(antialias: Any, owner: str) -> Optional[bool]:
    if antialias is not None and not isinstance(antialias, bool):
        raise TypeError(f"{owner}: antialias must be a bool or None, got {antialias!r}")
    return antialias


class _RandomSizeResize(Transform):
    """Resize every leaf to ``params["size"]`` (int64 ``[2]``, drawn by the subclass)."""

    # Compose runs it sample by sample up to a later fixed-size Resize on batches (see Compose).
    _drawn_output_size = True
    _functional = staticmethod(F.resize)

    def __init__(self, interpolation: Union[str, InterpolationMode, int], antialias: Optional[bool]) -> None:
        super().__init__()
        owner = type(self).__name__
        self.interpolation = check_interpolation(interpolation, owner)
        self.antialias = _check_antialias(antialias, owner)

    def _size(self, height: int, width: int, device: torch.device) -> torch.Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement _size()")

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        if len(batch_shape) == 0:
            return {"size": self._size(height, width, device)}
        return {"size": torch.stack([self._size(height, width, device) for _ in range(batch_shape[0])])}

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's ``size``: a tuple ``(height, width)`` of ints (under torch.compile/export the drawn int64
        ``[2]`` tensor)."""
        if is_tracing():
            return drawn
        new_height, new_width = drawn["size"].tolist()
        return {"size": (new_height, new_width)}

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not torch.jit.is_scripting() and not isinstance(params["size"], torch.Tensor):  # make_params' Python size
            return F.resize(inpt, list(params["size"]), self.interpolation, None, self.antialias)
        size = ints_of(params, "size")
        if not torch.jit.is_scripting():
            check_positive(size)
        return F.resize(inpt, size, self.interpolation, None, self.antialias)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not torch.jit.is_scripting():
            refuse_batch(type(self).__name__)
        raise ValueError("per-sample output sizes cannot be stacked in a batch")


class ScaleJitter(_RandomSizeResize):
    """Large scale jitter: scale the input so that it would fit ``target_size`` (read as torchvision reads it:
    ``min(target_size[1] / height, target_size[0] / width)``), times a factor drawn uniformly in ``scale_range``."""

    def __init__(
        self,
        target_size: Sequence[int],
        scale_range: Sequence[float] = (0.1, 2.0),
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        antialias: Optional[bool] = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        owner = type(self).__name__
        if not isinstance(target_size, Sequence) or len(target_size) != 2:
            raise TypeError(f"{owner}: target_size must be a sequence of two ints, got {target_size!r}")
        self.target_size = [_positive_int(v, "target_size", owner) for v in target_size]
        if not isinstance(scale_range, Sequence) or len(scale_range) != 2:
            raise TypeError(f"{owner}: scale_range must be a sequence of two floats, got {scale_range!r}")
        low, high = float(scale_range[0]), float(scale_range[1])
        if not (math.isfinite(low) and math.isfinite(high)) or not 0 < low <= high:
            raise ValueError(f"{owner}: scale_range must be (min, max) with 0 < min <= max, got {list(scale_range)}")
        self.scale_range = [low, high]

    def _size(self, height: int, width: int, device: torch.device) -> torch.Tensor:
        # torchvision's float32 arithmetic: low + rand(1) * (high - low), times the (float64) fit ratio.
        scale = self.scale_range[0] + uniform([1], self._rng(), device) * (self.scale_range[1] - self.scale_range[0])
        ratio = min(self.target_size[1] / height, self.target_size[0] / width) * scale
        return torch.cat([height * ratio, width * ratio]).to(torch.int64)

    def extra_repr(self) -> str:
        return (
            f"target_size={self.target_size}, scale_range={self.scale_range}, interpolation={self.interpolation}, "
            f"antialias={self.antialias}"
        )


class RandomShortestSize(_RandomSizeResize):
    """Scale the input so that its shorter side is one of ``min_size`` (drawn uniformly), the longer side capped
    at ``max_size``."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.RANDOM_SHORTEST_SIZE

    def __init__(
        self,
        min_size: Union[List[int], Sequence[int], int],
        max_size: Optional[int] = None,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        antialias: Optional[bool] = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        owner = type(self).__name__
        sizes = [min_size] if isinstance(min_size, int) and not isinstance(min_size, bool) else min_size
        if not isinstance(sizes, Sequence) or len(sizes) == 0:
            raise TypeError(f"{owner}: min_size must be an int or a non-empty sequence of ints, got {min_size!r}")
        self.min_size = [_positive_int(v, "min_size", owner) for v in sizes]
        self.max_size = None if max_size is None else _positive_int(max_size, "max_size", owner)

    def _size(self, height: int, width: int, device: torch.device) -> torch.Tensor:
        dtype = torch.float32 if device.type == "mps" else torch.float64
        index = randint(0, len(self.min_size), [], self._rng(), device)
        # index_select, not [index]: dynamo reads a 0-d tensor index on the host (an unbacked item()).
        table = torch.tensor(self.min_size, dtype=dtype, device=device)
        ratio = table.index_select(0, index.reshape([1]))[0] / min(height, width)
        if self.max_size is not None:
            ratio = torch.clamp(ratio, max=self.max_size / max(height, width))
        return (torch.stack([ratio * height, ratio * width])).to(torch.int64)

    def extra_repr(self) -> str:
        return (
            f"min_size={self.min_size}, max_size={self.max_size}, interpolation={self.interpolation}, "
            f"antialias={self.antialias}"
        )


class RandomResize(_RandomSizeResize):
    """Put the shorter side at a size drawn uniformly among ``min_size, ..., max_size - 1`` (torchvision's
    ``randint``; the longer side keeps the aspect ratio, rounded down)."""

    def __init__(
        self,
        min_size: int,
        max_size: int,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        antialias: Optional[bool] = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        owner = type(self).__name__
        self.min_size = _positive_int(min_size, "min_size", owner)
        self.max_size = _positive_int(max_size, "max_size", owner)
        if self.min_size >= self.max_size:
            raise ValueError(
                f"{owner}: min_size must be smaller than max_size (sizes are drawn in [min_size, max_size)), got "
                f"{min_size} and {max_size}"
            )

    def _size(self, height: int, width: int, device: torch.device) -> torch.Tensor:
        shorter = randint(self.min_size, self.max_size, [], self._rng(), device)
        # resize's rule for [s]: the shorter side becomes s, the other s * side // shorter side.
        return torch.stack([shorter * height, shorter * width]) // min(height, width)

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's ``size``: ``[shorter side]``, one int (under torch.compile/export the drawn int64 ``[2]``
        tensor of the output size)."""
        if is_tracing():
            return drawn
        new_height, new_width = drawn["size"].tolist()
        return {"size": [new_height if height <= width else new_width]}

    def extra_repr(self) -> str:
        return (
            f"min_size={self.min_size}, max_size={self.max_size}, interpolation={self.interpolation}, "
            f"antialias={self.antialias}"
        )
