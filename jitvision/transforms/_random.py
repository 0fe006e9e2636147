"""How a drawn parameter meets the data: one place for the difference between eager and traced code.

A random effect is written once. Its parameters are tensors: a scalar (one sample) or a leading ``[R]`` dimension
(one row per sample of a batch, see ``transforms._batch``). ``rows_view`` makes a per-row parameter broadcast
against a ``[R, ...]`` tensor; ``where_rows`` selects per row between two results and keeps the tv_tensor type.
``python_choice`` is the single point where eager code may read a drawn tensor on the host: it returns a Python
bool for a scalar parameter in eager and TorchScript (the fast path: run only the branch that is needed) and None
when the choice must stay a tensor (under torch.compile/export, and for per-row parameters of a batch).
"""

from typing import List, Optional

import torch

from .. import _native, tv_tensors
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap


def rows_view(param: torch.Tensor, like: torch.Tensor, trailing: int = 0) -> torch.Tensor:
    """``param`` (``[]`` or ``[R, *k]`` with ``trailing = len(k)``) viewed as ``[R, 1, ..., 1, *k]`` to broadcast
    against ``like`` (``[R, ...]``); a scalar parameter is returned as it is."""
    if param.ndim == trailing:
        return param
    shape = list(param.shape[:1]) + [1] * (like.ndim - 1 - trailing) + list(param.shape[1:])
    return param.reshape(shape)


def where_rows(condition: torch.Tensor, if_true: torch.Tensor, if_false: torch.Tensor) -> torch.Tensor:
    """``if_true`` where ``condition`` holds, else ``if_false``, row by row for a ``[R]`` condition (a scalar one
    picks whole tensors); the result keeps the tv_tensor type and metadata of ``if_true``."""
    if torch.jit.is_scripting() or is_pure_tensor(if_true):
        return torch.where(rows_view(condition, if_true), if_true, if_false)
    plain_true, plain_false = unwrap(if_true), unwrap(if_false)
    return tv_tensors.wrap(torch.where(rows_view(condition, plain_true), plain_true, plain_false), like=if_true)


@torch.jit.unused
def select_rows(condition: torch.Tensor, if_true: torch.Tensor, if_false: torch.Tensor) -> torch.Tensor:
    """``where_rows`` for dense images, videos and masks through the native ``select_rows`` op (a copy of the chosen
    rows, one graph node): inductor's uint8 ``where`` over a whole image cost as much as its slow uint8 copy (~1.8
    ms for 3x512x512), on every compiled probability gate. Other leaves, or without the extension: ``where_rows``."""
    dense = is_pure_tensor(if_true) or tv_tensors.kind_of(type(if_true)) in (
        tv_tensors.Image,
        tv_tensors.Video,
        tv_tensors.Mask,
    )
    if not _native.AVAILABLE or not dense or if_true.shape != if_false.shape or if_true.dtype != if_false.dtype:
        return where_rows(condition, if_true, if_false)
    plain_true, plain_false = unwrap(if_true), unwrap(if_false)
    # A leading unit dimension on each operand (see functional._dispatch.call_custom_op); the op reads the rows in
    # memory order, so per-row coins need none.
    out = torch.ops.jitvision_native.select_rows(condition, plain_true.unsqueeze(0), plain_false.unsqueeze(0))
    out = out.squeeze(0)
    return out if is_pure_tensor(if_true) else tv_tensors.wrap(out, like=if_true)


def python_choice(condition: torch.Tensor) -> Optional[bool]:
    """The drawn boolean as a Python bool where eager code may branch on it, else None (keep it a tensor)."""
    if condition.ndim != 0 or is_tracing():
        return None
    return bool(condition)


def uniform(
    shape: List[int], generator: Optional[torch.Generator], device: torch.device, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """``torch.rand(shape)`` on ``generator`` when one is given. Without one the generator argument is left out:
    ``aten.rand.generator`` takes only concrete sizes (a symbolic batch size fails under dynamic shapes and
    export), and ONNX has no translation for it; ``aten.rand.default`` has neither problem."""
    if generator is None:
        return torch.rand(shape, dtype=dtype, device=device)
    return torch.rand(shape, generator=generator, dtype=dtype, device=device)


def draw_coins(
    p: float, batch_shape: List[int], generator: Optional[torch.Generator], device: torch.device
) -> torch.Tensor:
    """Bool coins of shape ``batch_shape`` (``[]`` for one sample), each true with probability ``p``."""
    return uniform(batch_shape, generator, device) < p
