"""RandomHorizontalFlip and RandomVerticalFlip."""

from typing import Dict, List, Optional

import torch

from ... import _native
from ..._eager_ops import entry
from ...tv_tensors import Image, Mask, Video, kind_of, wrap
from .. import _stages
from .. import functional as F
from .._coin import coin_result
from .._random import where_rows
from .._transform import RandomApplyTransform
from ..functional._dispatch import call_custom_op, is_pure_tensor, is_tracing, unwrap


def _flip(inpt: torch.Tensor, horizontal: bool) -> torch.Tensor:
    return F.horizontal_flip(inpt) if horizontal else F.vertical_flip(inpt)


@torch.jit.unused
def _dense_on_cpu(inpt: torch.Tensor) -> bool:
    """Whether the native ``flip_if`` takes ``inpt``: images, videos and masks on the CPU. On a GPU the op would read
    its coins on the host; there the select (``where``) is what inductor fuses."""
    dense = is_pure_tensor(inpt) or kind_of(type(inpt)) in (Image, Video, Mask)
    return _native.AVAILABLE and dense and inpt.device.type == "cpu"


@torch.jit.unused
def _flip_where_python(apply: torch.Tensor, inpt: torch.Tensor, horizontal: bool) -> torch.Tensor:
    """Images, videos and masks (one sample or a batch) go through the native ``flip_if`` op: torch's flip of
    the selected rows, one graph node. Inductor's code for ``where(apply, x.flip(d), x)`` computes both branches
    with an element-wise gather, where torch's flip copies rows (see jitvision._native). Boxes and keypoints, a few
    numbers each, keep the select."""
    if _dense_on_cpu(inpt):
        # call_custom_op adds a leading unit dimension to the input: per-row coins get it too.
        coins = apply.unsqueeze(0) if apply.ndim else apply
        out = call_custom_op(torch.ops.jitvision_native.flip_if, unwrap(inpt), coins, [-1 if horizontal else -2])
        return out if is_pure_tensor(inpt) else wrap(out, like=inpt)
    return where_rows(apply, _flip(inpt, horizontal), inpt)


def _flip_where(apply: torch.Tensor, inpt: torch.Tensor, horizontal: bool) -> torch.Tensor:
    """``inpt`` mirrored where the coin(s) ``apply`` (``[]`` or one per row) say so, as tensor code."""
    if not torch.jit.is_scripting():
        return _flip_where_python(apply, inpt, horizontal)
    return where_rows(apply, _flip(inpt, horizontal), inpt)


@torch.jit.unused
def _flip_traced_always(apply: torch.Tensor, inpt: torch.Tensor, horizontal: bool) -> Optional[torch.Tensor]:
    """A traced flip whose coin is a constant True (``RandomApplyTransform._constant_coin``): images, videos and masks
    on the CPU still go through the native ``flip_if`` node (with that constant: no draw), where inductor's own flip
    code is the slow one; None elsewhere (the functional flips directly: no select)."""
    if is_tracing() and _dense_on_cpu(inpt):
        return _flip_where_python(apply, inpt, horizontal)
    return None


# The op's eager entry point (jitvision._eager_ops: the CPython binding, else ``OpOverload._op``).
_RANDOM_FLIP = entry("random_flip") if _native.GEOMETRY else None


@torch.jit.unused
def _eager_random_flip(transform: RandomApplyTransform, image: torch.Tensor, dim: int) -> torch.Tensor:
    """The coin and the flip of one plain CPU tensor in one native call (``jitvision_native::random_flip``), else
    the coin drawn on the host."""
    drawn: Optional[List[torch.Tensor]] = None
    if _native.GEOMETRY and image.is_cpu and not image.requires_grad and image.ndim >= 2:
        drawn = _RANDOM_FLIP(image, transform.p, dim, transform._rng())
    return coin_result(drawn, transform, image)


class RandomHorizontalFlip(RandomApplyTransform):
    """Mirror the sample left-right with probability ``p``."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.HORIZONTAL_FLIP

    _functional = staticmethod(F.horizontal_flip)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not torch.jit.is_scripting():
            out = _flip_traced_always(params["apply"], inpt, True)
            if out is not None:
                return out
        return F.horizontal_flip(inpt)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        return _eager_random_flip(self, image, -1)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_where(params["apply"], inpt, True)


class RandomVerticalFlip(RandomApplyTransform):
    """Mirror the sample top-bottom with probability ``p``."""

    _functional = staticmethod(F.vertical_flip)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if not torch.jit.is_scripting():
            out = _flip_traced_always(params["apply"], inpt, False)
            if out is not None:
                return out
        return F.vertical_flip(inpt)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        return _eager_random_flip(self, image, -2)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_where(params["apply"], inpt, False)
