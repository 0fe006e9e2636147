"""RandomHorizontalFlip and RandomVerticalFlip."""

from typing import Dict

import torch

from ... import _native
from ...tv_tensors import Image, Mask, Video, kind_of, wrap
from .. import functional as F
from .._random import where_rows
from .._transform import RandomApplyTransform
from ..functional._dispatch import call_custom_op, is_pure_tensor, unwrap


def _flip(inpt: torch.Tensor, horizontal: bool) -> torch.Tensor:
    return F.horizontal_flip(inpt) if horizontal else F.vertical_flip(inpt)


@torch.jit.unused
def _flip_where_python(apply: torch.Tensor, inpt: torch.Tensor, horizontal: bool) -> torch.Tensor:
    """Images, videos and masks (one sample or a batch) go through the native ``flip_if`` op: torch's flip of
    the selected rows, one graph node. Inductor's code for ``where(apply, x.flip(d), x)`` was 20-70x slower than
    torch's flip here (see jitvision._native). Boxes and keypoints, a few numbers each, keep the select."""
    if _native.AVAILABLE and (is_pure_tensor(inpt) or kind_of(type(inpt)) in (Image, Video, Mask)):
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


class RandomHorizontalFlip(RandomApplyTransform):
    """Mirror the sample left-right with probability ``p``."""

    _functional = staticmethod(F.horizontal_flip)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.horizontal_flip(inpt)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_where(params["apply"], inpt, True)


class RandomVerticalFlip(RandomApplyTransform):
    """Mirror the sample top-bottom with probability ``p``."""

    _functional = staticmethod(F.vertical_flip)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.vertical_flip(inpt)

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _flip_where(params["apply"], inpt, False)
