"""RandomHorizontalFlip and RandomVerticalFlip."""

from typing import Dict, List, Optional

import torch

from ... import _native
from ..._eager_ops import entry
from ...tv_tensors import Image, Mask, Video, kind_of, wrap
from .. import functional as F
from .._random import where_rows
from .._transform import RandomApplyTransform
from ..functional._dispatch import call_custom_op, is_pure_tensor, unwrap


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
def _flip_always(apply: torch.Tensor, inpt: torch.Tensor, horizontal: bool) -> torch.Tensor:
    """A traced flip whose coin is a constant True (``RandomApplyTransform._constant_coin``): images, videos and masks
    still go through the native ``flip_if`` node (with that constant: no draw), boxes and keypoints flip directly."""
    if _dense_on_cpu(inpt):
        return _flip_where_python(apply, inpt, horizontal)
    return _flip(inpt, horizontal)


# The op's eager entry point (jitvision._eager_ops: the CPython binding, else ``OpOverload._op``).
_RANDOM_FLIP = entry("random_flip") if _native.GEOMETRY else None


@torch.jit.unused
def _native_random_flip(transform: RandomApplyTransform, image: torch.Tensor, dim: int) -> Optional[List[torch.Tensor]]:
    """The coin and the flip of one plain CPU tensor in one native call (``jitvision_native::random_flip``)."""
    if not _native.GEOMETRY or not image.is_cpu or image.requires_grad or image.ndim < 2:
        return None
    return _RANDOM_FLIP(image, transform.p, dim, transform._fast_rng())


class RandomHorizontalFlip(RandomApplyTransform):
    """Mirror the sample left-right with probability ``p``."""

    _functional = staticmethod(F.horizontal_flip)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.horizontal_flip(inpt)

    @torch.jit.unused
    def _eager_coin_and_apply(self, image: torch.Tensor) -> Optional[List[torch.Tensor]]:
        return _native_random_flip(self, image, -1)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_where(params["apply"], inpt, True)

    @torch.jit.unused
    def _apply_always(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_always(params["apply"], inpt, True)


class RandomVerticalFlip(RandomApplyTransform):
    """Mirror the sample top-bottom with probability ``p``."""

    _functional = staticmethod(F.vertical_flip)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.vertical_flip(inpt)

    @torch.jit.unused
    def _eager_coin_and_apply(self, image: torch.Tensor) -> Optional[List[torch.Tensor]]:
        return _native_random_flip(self, image, -2)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_where(params["apply"], inpt, False)

    @torch.jit.unused
    def _apply_always(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_always(params["apply"], inpt, False)
