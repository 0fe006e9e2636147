"""Pieces shared by the photometric classes: tensor-factor kernels on any kind of leaf, channel permutations."""

from typing import Any, Callable, List, Optional

import PIL.Image
import torch

from ... import _native
from ..._eager_ops import entry
from ...tv_tensors import wrap
from .._coin import coin_result
from .._transform import RandomApplyTransform
from ..functional._dispatch import unwrap

_RANDOM_POINT = entry("random_point_u8") if _native.AVAILABLE else None

# Channel permutations are drawn as 16 uniform keys per sample (before the channel count is known, as ``_draw`` only
# sees the size); the permutation of C channels is the argsort of the first C keys (at most 16 channels).


def channels_of(inpt: Any) -> int:
    if isinstance(inpt, PIL.Image.Image):
        return len(inpt.getbands())
    return inpt.shape[-3]


def permutation_from_keys(keys: torch.Tensor, num_channels: int, op: str) -> torch.Tensor:
    """The permutation (int64 ``[..., C]``) ranking the first ``num_channels`` keys of ``keys`` (``[..., 16]``)."""
    if num_channels > 16:
        raise ValueError(f"{op}: at most 16 channels can be permuted, got {num_channels}")
    return keys[..., :num_channels].argsort(dim=-1)


@torch.jit.unused
def on_leaf(
    inpt: Any, core: Callable[..., torch.Tensor], core_args: tuple, pil: Callable[..., Any], pil_args: tuple
) -> Any:
    """``core(plain, *core_args)`` on a tensor leaf, rewrapped into its tv_tensor type; ``pil(inpt, *pil_args)`` on a
    PIL image (Python numbers there)."""
    if isinstance(inpt, PIL.Image.Image):
        return pil(inpt, *pil_args)
    if type(inpt) is torch.Tensor:
        return core(inpt, *core_args)
    return wrap(core(unwrap(inpt), *core_args), like=inpt)


@torch.jit.unused
def native_point_coin(transform: RandomApplyTransform, image: torch.Tensor, op: int, arg: int) -> torch.Tensor:
    """The eager hook of a uint8 point op (``_native_u8.INVERT``, ``SOLARIZE``, ``POSTERIZE`` with its ``arg``): on a
    uint8 CPU image, the coin and the op in one native call (the same draw on the same generator as the generic
    path); otherwise the coin drawn on the host."""
    drawn: Optional[List[torch.Tensor]] = None
    if _RANDOM_POINT is not None and image.dtype == torch.uint8 and image.is_cpu and image.ndim >= 2:
        # _native_u8.random_point's op, called through its eager entry point (jitvision._eager_ops)
        drawn = _RANDOM_POINT(image, transform.p, op, arg, transform._rng())
    return coin_result(drawn, transform, image)
