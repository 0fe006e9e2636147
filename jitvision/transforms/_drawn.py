"""Drawn sizes: the few transforms whose output size (or crop) depends on a random draw or on the data.

``drawn_ints(values)`` turns a 1-D int64 tensor of non-negative values (an output size, a padding, a crop box)
into Python ints for the kernels. In eager and TorchScript it is ``values.tolist()``. Under torch.compile and
torch.export it goes through one custom op, ``jitvision_native::drawn_sizes`` (csrc/drawn.cpp; the Python
``jitvision::drawn_sizes`` below where the native library is missing), whose output is a carrier tensor of
shape ``values`` (stride 0, one element of storage) and whose fake implementation gives every dimension a new
*unbacked* symbolic size: reading the carrier's shape hands the kernels unbacked SymInts. So the graph does not
break at the draw, nothing recompiles as the draw changes, and no config is needed (``tensor.item()`` does the
same only with ``torch._dynamo.config.capture_scalar_outputs = True``, and breaks the graph without it).

The kernels then need to know what the values mean: ``check_crop`` states ``0 <= top``, ``top + height <=
H``, ... with ``torch._check`` so that the crop's bounds checks are decided without a data-dependent guard.
"""

from typing import Any, Dict, List

import torch

from .. import _native
from .functional._dispatch import is_tracing

_LIBRARY = torch.library.Library("jitvision", "FRAGMENT")
_LIBRARY.define("drawn_sizes(Tensor values) -> Tensor")


def _drawn_sizes_impl(values: torch.Tensor) -> torch.Tensor:
    sizes = values.tolist()
    return torch.empty_strided(sizes, [0] * len(sizes), dtype=torch.uint8, device=values.device)


_LIBRARY.impl("drawn_sizes", _drawn_sizes_impl, "CompositeExplicitAutograd")


torch.library.register_fake("jitvision::drawn_sizes")(_native.drawn_sizes_fake)


def drawn_ints(values: torch.Tensor) -> List[int]:
    """The non-negative int64 ``values`` ``[k]`` as ints: plain ints in eager/TorchScript, unbacked SymInts under
    dynamo (one graph node, see the module docstring)."""
    if not torch.jit.is_scripting():
        if is_tracing():
            return _traced_ints(values)
    return torch.jit.annotate(List[int], values.tolist())


@torch.jit.unused
def _traced_ints(values: torch.Tensor) -> List[int]:
    # The C++ operator where the native library has it (an exported program then runs without Python), else ours.
    op = torch.ops.jitvision_native.drawn_sizes.default if _native.DRAWN else torch.ops.jitvision.drawn_sizes.default
    return list(op(values).shape)


@torch.jit.unused
def check_crop(top: int, left: int, height: int, width: int, image_height: int, image_width: int) -> None:
    """State that a drawn crop lies inside the image (and is not empty), for the compiler's shape reasoning."""
    torch._check(top >= 0)
    torch._check(left >= 0)
    torch._check(height >= 1)
    torch._check(width >= 1)
    torch._check(top + height <= image_height)
    torch._check(left + width <= image_width)


def ints_of(params: Dict[str, torch.Tensor], key: str) -> List[int]:
    """``drawn_ints(params[key])``, read once per call: every leaf of a sample then sees the same (symbolic) ints,
    so the image's new size and the boxes' new canvas are the same symbols under the compiler."""
    if torch.jit.is_scripting():
        return drawn_ints(params[key])
    return _memo_ints(params, key)


@torch.jit.unused
def _memo_ints(params: Dict[str, Any], key: str) -> List[int]:
    memo = key + ":ints"
    if memo not in params:
        params[memo] = drawn_ints(params[key])
    return params[memo]


@torch.jit.unused
def refuse_batch(owner: str) -> None:
    raise ValueError(
        f"{owner}: its output size is drawn per sample, so the samples of a batch would come out in different "
        "sizes; follow it with a fixed-size Resize in a Compose (which runs the steps up to it sample by sample), "
        "apply it to each sample before batching (tv_tensors.batch_samples), or pass a plain tensor for one draw "
        "shared by all"
    )


@torch.jit.unused
def check_positive(sizes: List[int]) -> None:
    """Under the compiler, state that drawn output sizes are at least 1 (eager code checks them itself)."""
    if is_tracing():
        for size in sizes:
            torch._check(size >= 1)
