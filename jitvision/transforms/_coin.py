"""The coin of a probability transform outside its gate: drawn on the host by the eager hooks, and drawn before a
user's ``make_params`` as torchvision's ``forward`` draws it (the gate is ``RandomApplyTransform._gate``)."""

from typing import Any, Dict, List, Optional

import torch

from ._random import python_choice, uniform, where_rows
from ._routing import as_float32
from ._sample import query_device

_TRUE = torch.tensor(True)  # the coin handed to ``_apply`` by the eager hook (read only)


@torch.jit.unused
def eager_coin_then_apply(transform: Any, image: torch.Tensor) -> torch.Tensor:
    """One eager draw of ``transform``'s coin on the host and its effect: the coin's float32 uniform compared with
    ``p`` rounded to float32 (what ``draw_coins``'s float32 comparison does), without a bool tensor. A native op
    that draws the coin itself (``jitvision_native::random_flip``, ``random_point_u8``) draws it the same way:
    one float32 ``rand`` on ``transform._rng()``."""
    u = uniform([], transform._rng(), image.device).item()
    if not u < as_float32(transform.p):
        return image
    return transform._apply(image, {"apply": _TRUE})


@torch.jit.unused
def coin_result(
    drawn: Optional[List[torch.Tensor]], transform: Any, image: torch.Tensor
) -> torch.Tensor:
    """The eager hook's output from a native op that draws the coin and applies the effect: ``[output]`` where the
    coin said apply, ``[]`` where it said no; None (the op does not take this image: nothing was drawn) draws the
    coin on the host instead."""
    if drawn is None:
        return eager_coin_then_apply(transform, image)
    return drawn[0] if drawn else image


@torch.jit.unused
def coin_then_params(transform: Any, flat_inputs: List[Any]) -> Dict[str, Any]:
    """torchvision's order for a probability transform whose only draw is its coin: the coin first, then
    ``make_params`` (torchvision's ``{}``, or a user's) only where the coin says apply (traced code cannot branch on
    it: there it is always called), its parameters with the coin as ``"apply"`` unless ``make_params`` gave one."""
    coin = transform._coins([], query_device(flat_inputs))
    if python_choice(coin) is False:
        return {"apply": coin}
    params = dict(transform.make_params(flat_inputs))
    params.setdefault("apply", coin)  # a make_params that draws its own "apply" decides with it
    return params


@torch.jit.unused
def gated_by_coin(transform: Any, inpt: Any, params: Dict[str, Any]) -> Any:
    """``transform.transform`` on one leaf where ``coin_then_params``' coin says apply, as torchvision's ``forward``
    skips the whole sample on a no; traced, a per-row select (the library's gate, when the class keeps it, already
    reads the coin)."""
    if type(transform)._gate_is_transform:
        return transform.transform(inpt, params)
    apply = params["apply"]
    choice = python_choice(apply)
    if choice is not None:
        return transform.transform(inpt, params) if choice else inpt
    return where_rows(apply, transform.transform(inpt, params), inpt)
