"""Compose's fused native prefix in TorchScript: a choice made at scripting time.

``torch.jit.script(Compose([...]))`` calls ``Compose.__prepare_scriptable__``. With the native library loaded and
native scripting on (the default; ``script_native_ops(False)`` turns it off), a Compose whose prefix fuses in eager
(``_stages.plan_prefix``, the planner of ``_fusion.run_fused`` too: ``RandomResizedCrop [+ RandomHorizontalFlip]``
or ``Resize [+ CenterCrop]``, then ``ToDtype(float32, scale=True) [+ Normalize]``) is scripted with a
``NativePrefix``: on a uint8 CPU image the prefix is one ``jitvision_native`` call, as in eager (same draws from the
global RNG, same output), other inputs run the transforms. ``__prepare_scriptable__`` returns a shallow copy of the
Compose (same class, same transforms) holding the prefix module, so the eager module is not changed. Such a scripted
module needs the native library wherever it is loaded (in C++: load ``jitvision.native_library_path()`` first). With
native scripting off, the scripted Compose calls only torch ops (``interpolate``): a plain libtorch loads it, and it
is slower (see the README's Deploy section).

A standalone ``Resize`` or ``RandomResizedCrop`` (bilinear, antialiased) makes the same choice:
``torch.jit.script`` calls its ``__prepare_scriptable__``, which (``script_standalone``) returns a shallow copy
holding a ``NativeStandalone`` as ``_script_native`` when native scripting is on and the library is loaded, else the
transform itself. The scripted ``transform`` tests ``hasattr(self, "_script_native")`` (resolved when scripting, so
the portable graph has no native op in it) and, on a uint8 CPU image, makes one native call: ``resize_center_crop``
for Resize, ``resized_crop`` at the box the transform drew for RandomResizedCrop (the draw is unchanged: same
random numbers, same output as eager).
"""

import contextlib
import copy
from typing import Any, Iterator, List, Optional, Sequence

import torch
from torch import nn

from .. import _native
from ._stages import RANDOM_RESIZED_CROP, RESIZE, PrefixPlan, bilinear_antialiased, plan_prefix, stage_of

_SCRIPT_NATIVE = [True]


@contextlib.contextmanager
def script_native_ops(enabled: bool = True) -> Iterator[None]:
    """Within the block, ``torch.jit.script`` of a Compose uses the native library's ops for its fused prefix
    (``enabled=True``, the default outside any block, when the library is loaded) or only torch ops
    (``enabled=False``: the scripted module then loads in a plain libtorch without jitvision's library)."""
    previous = _SCRIPT_NATIVE[0]
    _SCRIPT_NATIVE[0] = bool(enabled)
    try:
        yield
    finally:
        _SCRIPT_NATIVE[0] = previous


class NoPrefix(nn.Module):
    """The scripted Compose's prefix when nothing fuses (or native scripting is off): torch ops only."""

    def __init__(self) -> None:
        super().__init__()
        self.consumed = 0

    @torch.jit.export
    def fuses(self, inpt: torch.Tensor) -> bool:
        return False

    def forward(self, inpt: torch.Tensor) -> torch.Tensor:
        return inpt


class NativePrefix(nn.Module):
    """The scripted Compose's fused prefix: ``consumed`` leading transforms as one native call on a uint8 CPU
    image (``fuses``). ``kind`` 0: ``jitvision_native::random_resized_crop`` (the global RNG, drawn as the
    transforms draw); 1: ``jitvision_native::resize_center_crop``."""

    def __init__(self, plan: PrefixPlan) -> None:
        super().__init__()
        first = plan.lead
        self.consumed = plan.consumed
        self.kind = 0 if plan.random_crop else 1
        self.size: List[int] = list(first.size) if first.size is not None else []
        self.scale: List[float] = list(first.scale) if plan.random_crop else [0.0, 1.0]
        self.ratio: List[float] = list(first.ratio) if plan.random_crop else [1.0, 1.0]
        self.max_size: Optional[int] = None if plan.random_crop else first.max_size
        self.flip_p: Optional[float] = None
        self.crop_size: Optional[List[int]] = None
        if plan.middle is not None and plan.random_crop:
            self.flip_p = float(plan.middle.p)
        elif plan.middle is not None:
            self.crop_size = list(plan.middle.size)
        self.to_float = plan.tail.to_float
        self.mean: Optional[List[float]] = None
        self.std: Optional[List[float]] = None
        if plan.tail.normalize is not None:
            self.mean, self.std = list(plan.tail.normalize.mean), list(plan.tail.normalize.std)

    @torch.jit.export
    def fuses(self, inpt: torch.Tensor) -> bool:
        if inpt.dtype != torch.uint8 or inpt.device.type != "cpu" or inpt.dim() < 3:
            return False
        if inpt.shape[-1] == 0 or inpt.shape[-2] == 0:
            return False
        channels = inpt.shape[-3]
        mean, std = self.mean, self.std
        if mean is not None and std is not None:  # else Normalize raises its own error, unfused
            return (len(mean) == 1 or len(mean) == channels) and (len(std) == 1 or len(std) == channels)
        return True

    def _per_channel(self, values: Optional[List[float]], channels: int) -> Optional[List[float]]:
        if values is None:
            return None
        return values * (channels // len(values))

    def forward(self, inpt: torch.Tensor) -> torch.Tensor:
        channels = inpt.shape[-3]
        mean, std = self._per_channel(self.mean, channels), self._per_channel(self.std, channels)
        image = inpt.unsqueeze(0)
        if self.kind == 0:
            out = torch.ops.jitvision_native.random_resized_crop(
                image, self.size, self.scale, self.ratio, self.flip_p, mean, std, self.to_float, None, None
            )
        else:
            out = torch.ops.jitvision_native.resize_center_crop(
                image, self.size, self.max_size, self.crop_size, mean, std, self.to_float
            )
        return out.squeeze(0)


class NativeStandalone(nn.Module):
    """A standalone scripted Resize (``kind`` 1) or RandomResizedCrop (``kind`` 0) as one native call on a uint8
    CPU image (``fuses``); the box of RandomResizedCrop is the one its ``_draw`` drew."""

    size: List[int]  # empty for Resize(None, max_size): a class annotation, TorchScript cannot infer it from []
    max_size: Optional[int]

    def __init__(self, transform: nn.Module) -> None:
        super().__init__()
        self.kind = 0 if stage_of(transform) == RANDOM_RESIZED_CROP else 1
        size = transform.size
        self.size = list(size) if size is not None else []
        self.max_size = None if self.kind == 0 else transform.max_size

    @torch.jit.export
    def fuses(self, inpt: torch.Tensor) -> bool:
        if inpt.dtype != torch.uint8 or inpt.device.type != "cpu" or inpt.dim() < 3:
            return False
        return inpt.shape[-1] != 0 and inpt.shape[-2] != 0

    def forward(self, inpt: torch.Tensor, box: Optional[torch.Tensor]) -> torch.Tensor:
        image = inpt.unsqueeze(0)
        if self.kind == 0 and box is not None:
            out = torch.ops.jitvision_native.resized_crop(image, box, None, self.size, None, None, False)
        else:
            out = torch.ops.jitvision_native.resize_center_crop(image, self.size, self.max_size, None, None, None,
                                                                False)
        return out.squeeze(0)


def script_standalone(transform: nn.Module) -> nn.Module:
    """What ``torch.jit.script`` compiles for a standalone Resize or RandomResizedCrop (its
    ``__prepare_scriptable__``): a shallow copy holding ``_script_native`` when native scripting is on, the library
    is loaded and the transform is bilinear antialiased (a declared native stage: a subclass fuses only where it says
    so, see ``_stages``); else ``transform`` itself."""
    stage = stage_of(transform)
    native = stage in (RESIZE, RANDOM_RESIZED_CROP) and bilinear_antialiased(transform)
    if stage == RESIZE and transform.size is not None and len(transform.size) == 0:
        native = False
    if not (native and _SCRIPT_NATIVE[0] and _native.AVAILABLE):
        return transform
    clone = copy.copy(transform)
    clone._modules = dict(transform._modules)
    clone._modules["_script_native"] = NativeStandalone(transform)
    return clone


def _script_plan(transforms: Sequence[Any]) -> Optional[PrefixPlan]:
    """``_stages.plan_prefix``, without a Resize to an empty size (its scripted kernel takes no native call)."""
    plan = plan_prefix(transforms)
    if plan is None or (not plan.random_crop and plan.lead.size is not None and len(plan.lead.size) == 0):
        return None
    return plan


def script_prefix(transforms: Sequence[nn.Module]) -> nn.Module:
    """The prefix module a scripted Compose of ``transforms`` runs first: a ``NativePrefix`` when native scripting
    is on, the library is loaded and a prefix fuses; else ``NoPrefix`` (torch ops only)."""
    plan = _script_plan(transforms) if _SCRIPT_NATIVE[0] and _native.AVAILABLE else None
    return NativePrefix(plan) if plan is not None else NoPrefix()
