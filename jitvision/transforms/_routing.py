"""How one call of a transform is routed, decided per class: which eager hook may stand for the generic path.

``Transform.__init_subclass__`` computes a class's route once, when the class is created, from which methods it
overrides (``_plain_route``); ``Transform.__call__`` reads it on every call, with ``unhooked`` (no module hooks).
"""

import functools
import struct
from typing import Optional

import torch
from torch import nn
from torch.nn.modules import module as _nn_module

# How ``__call__`` handles one plain tensor in eager mode (``Transform._plain_route``, set per class when the
# class is created, from which hooks it overrides): the generic path, the class's eager hook, or ``transform(x, {})``.
ROUTE_GENERIC = 0
ROUTE_EAGER_HOOK = 1  # the class overrides ``_eager_plain``
ROUTE_NO_PARAMS = 2  # a deterministic class (no ``_draw``): ``transform(tensor, {})``
ROUTE_CHECKS = 4  # added to either: the class overrides ``check_inputs``, which runs first


def unhooked(module: nn.Module) -> bool:
    """True where ``nn.Module.__call__`` would only call ``forward``: no module or global hooks, no
    ``Module.compile()``, no ``torch.jit.trace`` in progress (the checks of ``Module._call_impl``)."""
    return not (
        module._forward_hooks
        or module._forward_pre_hooks
        or module._backward_hooks
        or module._backward_pre_hooks
        or _nn_module._global_forward_hooks
        or _nn_module._global_forward_pre_hooks
        or _nn_module._global_backward_hooks
        or _nn_module._global_backward_pre_hooks
        or module._compiled_call_impl is not None
        or torch._C._get_tracing_state()
    )


@functools.lru_cache(maxsize=256)
def as_float32(value: float) -> float:
    """``value`` rounded to float32, as a tensor comparison with it rounds it."""
    return struct.unpack("f", struct.pack("f", value))[0]


def owner(cls: type, name: str) -> Optional[type]:
    """The class of ``cls``'s MRO whose body defines ``name``."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    return None


def eager_hook_holds(cls: type, base: type, coin_base: Optional[type]) -> bool:
    """Whether ``cls``'s eager hook (``_eager_plain``) may stand for its generic path: the hook is defined below
    ``Transform`` and no method it shortcuts is overridden by a class below the hook's, so a user's subclass that
    changes ``transform`` or the draw (or the effect of a probability transform, which a native hook applies
    itself) runs as written."""
    hook = owner(cls, "_eager_plain")
    if hook is None or hook is base:
        return False
    shortcut = ["transform", "transform_batch", "_draw"]
    if hook is not coin_base:  # the probability base's own hook calls _apply; the others apply natively
        shortcut.append("_apply")
    for name in shortcut:
        defined_by = owner(cls, name)
        if defined_by is not None and defined_by is not hook and issubclass(defined_by, hook):
            return False
    return True
