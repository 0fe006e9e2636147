"""TEMPORARY: the probability gate of the batch contract (issue 7) until main's RandomApplyTransform lands.

Same API as main's: subclasses implement ``_apply``; ``transform``/``transform_batch`` gate it with the coin
(a Python branch on a scalar coin in eager code, a per-row select otherwise). Delete after merging main.
"""

from typing import Dict, Optional

import torch

from ... import tv_tensors
from .._transform import RandomApplyTransform
from ..functional._dispatch import is_pure_tensor, is_tracing, unwrap


def rows_view(param: torch.Tensor, like: torch.Tensor, trailing: int = 0) -> torch.Tensor:
    if param.ndim == trailing:
        return param
    shape = list(param.shape[:1]) + [1] * (like.ndim - 1 - trailing) + list(param.shape[1:])
    return param.reshape(shape)


def where_rows(condition: torch.Tensor, if_true: torch.Tensor, if_false: torch.Tensor) -> torch.Tensor:
    if torch.jit.is_scripting() or is_pure_tensor(if_true):
        return torch.where(rows_view(condition, if_true), if_true, if_false)
    plain_true, plain_false = unwrap(if_true), unwrap(if_false)
    return tv_tensors.wrap(torch.where(rows_view(condition, plain_true), plain_true, plain_false), like=if_true)


def python_choice(condition: torch.Tensor) -> Optional[bool]:
    if condition.ndim != 0 or is_tracing():
        return None
    return bool(condition)


class GatedTransform(RandomApplyTransform):
    def _draw_batch(self, batch_size: int, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        return {"apply": torch.rand([batch_size], generator=self._rng(), device=device) < self.p}

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._select(inpt, params)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return self._select(inpt, params)

    def _select(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        choice = python_choice(params["apply"])
        if choice is not None:
            return self._apply(inpt, params) if choice else inpt
        return self._apply_where(inpt, params)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply()")

    def _apply_where(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return where_rows(params["apply"], self._apply(inpt, params), inpt)
