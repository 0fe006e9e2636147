"""Compose: run transforms one after the other."""

import copy
from typing import Any, Callable, Dict, List, Sequence

import torch
from torch import nn

from ._fusion import run_fused
from ._script_fusion import script_prefix
from ._transform import Transform


class _PythonStep(nn.Module):
    """A plain callable inside a Compose (a function, a non-Module object): Python only."""

    def __init__(self, fn: Callable[..., Any], position: int) -> None:
        super().__init__()
        self.fn = fn
        self.position = position

    def forward(self, *inputs: Any) -> Any:
        return self.fn(*inputs)

    def __prepare_scriptable__(self) -> None:
        name = getattr(self.fn, "__qualname__", None) or repr(self.fn)
        raise TypeError(
            f"Compose: step {self.position} ({name}) is a plain Python callable and cannot be scripted; "
            "use scriptable transforms (nn.Modules) to use torch.jit.script"
        )

    def extra_repr(self) -> str:
        return repr(self.fn)


class Compose(Transform):
    """Apply ``transforms`` in order: each gets what the previous one returned.

    As torchvision: ``Compose(...)(a, b)`` passes ``a, b`` to the first transform and unpacks each output tuple
    into the next one. Unlike torchvision's, a Compose scripts (``torch.jit.script(Compose([...]))``) when all
    its transforms do; they are held in an ``nn.ModuleList`` (plain callables are wrapped, Python only).
    """

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        super().__init__()
        if isinstance(transforms, nn.ModuleList):
            transforms = list(transforms)
        if not isinstance(transforms, Sequence) or isinstance(transforms, str):
            raise TypeError(f"Compose: transforms must be a sequence of callables, got {type(transforms).__name__}")
        if not transforms:
            raise ValueError("Compose: pass at least one transform")
        steps: List[nn.Module] = []
        for position, transform in enumerate(transforms):
            if not callable(transform):
                raise TypeError(f"Compose: transform {position} is not callable: {transform!r}")
            steps.append(transform if isinstance(transform, nn.Module) else _PythonStep(transform, position))
        self.transforms = nn.ModuleList(steps)

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) > 1:
            return self._run(inputs, True)
        return super().__call__(*inputs)

    def __prepare_scriptable__(self) -> "Compose":
        """What ``torch.jit.script`` compiles: a shallow copy (same class and transforms, this module unchanged)
        holding ``_script_prefix``, the fused native prefix or a no-op (``_script_fusion``: a choice made now)."""
        clone = copy.copy(self)
        clone._modules = dict(self._modules)
        clone._modules["_script_prefix"] = script_prefix(tuple(self.transforms))
        return clone

    def forward(self, inpt: torch.Tensor) -> torch.Tensor:
        if torch.jit.is_scripting():
            skip = 0
            if self._script_prefix.fuses(inpt):
                inpt = self._script_prefix(inpt)
                skip = self._script_prefix.consumed
            for transform in self.transforms:
                if skip > 0:
                    skip -= 1
                else:
                    inpt = transform(inpt)
            return inpt
        return self._run(inpt, False)

    @torch.jit.export
    def forward_batch(self, images: torch.Tensor) -> torch.Tensor:
        """Each transform's ``forward_batch`` in turn: per-sample draws on a plain ``[B, ...]`` batch."""
        if torch.jit.is_scripting():
            for transform in self.transforms:
                if hasattr(transform, "forward_batch"):
                    images = transform.forward_batch(images)
                else:
                    images = transform(images)
            return images
        return self._run_batch(images)

    @torch.jit.unused
    def _run_batch(self, images: torch.Tensor) -> torch.Tensor:
        transforms = tuple(self.transforms)
        start = 0
        fused = run_fused(transforms, images, batch=True)
        if fused is not None:
            images, start = fused
        for transform in transforms[start:]:
            forward_batch = getattr(transform, "forward_batch", None)
            images = forward_batch(images) if forward_batch is not None else transform(images)
        return images

    @torch.jit.unused
    def _run(self, sample: Any, unpack: bool) -> Any:
        # A tuple, read afresh each call (the ModuleList may change): indexing a ModuleList formats a string key
        # per access, which was about a third of eager Compose's Python time.
        transforms = tuple(self.transforms)
        start = 0
        if not unpack:
            # A resize-led prefix on a uint8 image runs as one native call (see _fusion.py): same draws, same
            # output within float rounding, a fraction of the time.
            fused = run_fused(transforms, sample)
            if fused is not None:
                sample, start = fused
        for transform in transforms[start:]:
            sample = transform(*sample) if unpack else transform(sample)
        return sample

    @torch.jit.unused
    def make_params(self, flat_inputs: List[Any]) -> Dict[str, Any]:
        return {}
