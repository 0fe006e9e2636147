"""RandomHorizontalFlip and RandomVerticalFlip."""

from typing import Dict

import torch

from .. import functional as F
from .._transform import RandomApplyTransform
from ..functional._dispatch import is_tracing, where_like


class RandomHorizontalFlip(RandomApplyTransform):
    """Mirror the sample left-right with probability ``p``."""

    _functional = staticmethod(F.horizontal_flip)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        apply = params["apply"]
        if not is_tracing():
            return F.horizontal_flip(inpt) if bool(apply) else inpt
        return where_like(apply, F.horizontal_flip(inpt), inpt)


class RandomVerticalFlip(RandomApplyTransform):
    """Mirror the sample top-bottom with probability ``p``."""

    _functional = staticmethod(F.vertical_flip)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        apply = params["apply"]
        if not is_tracing():
            return F.vertical_flip(inpt) if bool(apply) else inpt
        return where_like(apply, F.vertical_flip(inpt), inpt)
