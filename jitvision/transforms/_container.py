"""Compose: run transforms one after the other."""

import copy
from typing import Any, Callable, List, Optional, Sequence

import PIL.Image
import torch
from torch import nn

from ..tv_tensors import batch_samples, unbatch_samples
from ..tv_tensors._batch_pytree import sample_leaf
from ..tv_tensors._batched import BATCH_TYPES
from ..tv_tensors._encoded import BatchedEncodedImages, EncodedImage
from . import _pil_path
from ._decode_batch import run_encoded_batch
from ._decode_fused import run_fused_encoded
from ._fusion import run_float_tail, run_fused
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


@torch.jit.unused
def _per_sample_run(transforms: Sequence[Any], position: int) -> Optional[int]:
    """If ``transforms[position]`` draws its output size (``_drawn_output_size``) and a ``Resize`` to a fixed
    ``[h, w]`` comes later, the end (exclusive) of the run up to that Resize; else None."""
    from ._geometry._resize import Resize

    if not getattr(transforms[position], "_drawn_output_size", False):
        return None
    for end in range(position + 1, len(transforms)):
        step = transforms[end]
        if isinstance(step, Resize) and step.size is not None and len(step.size) == 2:
            return end + 1
    return None


@torch.jit.unused
def _is_batch_sample(sample: Any) -> bool:
    from torch.utils import _pytree as pytree

    return any(isinstance(leaf, BATCH_TYPES) for leaf in pytree.tree_leaves(sample, is_leaf=sample_leaf))


@torch.jit.unused
def _apply_all(run: Sequence[Any], sample: Any) -> Any:
    for transform in run:
        sample = transform(sample)
    return sample


@torch.jit.unused
def _run_steps(transforms: Sequence[Any], sample: Any, unpack: bool) -> Any:
    """Compose's eager run of ``transforms`` on ``sample`` (``unpack``: a tuple of inputs, unpacked into each step)."""
    start = 0
    if not unpack and type(sample) is BatchedEncodedImages:  # decoded in parallel with the steps it leads
        sample, start = run_encoded_batch(transforms, sample)
    elif not unpack:
        # A resize-led prefix on a uint8 image runs as one native call (see _fusion.py): same draws, same
        # output within float rounding, a fraction of the time.
        fused = run_fused(transforms, sample)
        if fused is None and type(sample) is EncodedImage:  # decoded only where the crop or resize keeps pixels
            fused = run_fused_encoded(transforms, sample)
        if fused is not None:
            sample, start = fused
    position = start
    while position < len(transforms):
        end = None if unpack else _per_sample_run(transforms, position)
        if end is not None and _is_batch_sample(sample):
            # A drawn output size then a fixed-size Resize on a batch sample: each sample through that run with
            # its own draws, then batched again (the batch holds one size again after the Resize).
            run = transforms[position:end]
            sample = batch_samples([_apply_all(run, one) for one in unbatch_samples(sample)])
            position = end
            continue
        if not unpack:
            tail = run_float_tail(transforms, position, sample)  # ToDtype [+ Normalize] on a uint8 image
            if tail is not None:
                sample, position = tail
                continue
        transform = transforms[position]
        sample = transform(*sample) if unpack else transform(sample)
        position += 1
    return sample


class Compose(Transform):
    """Apply ``transforms`` in order: each gets what the previous one returned.

    As torchvision: ``Compose(...)(a, b)`` passes ``a, b`` to the first transform and unpacks each output tuple
    into the next one. Unlike torchvision's, a Compose scripts (``torch.jit.script(Compose([...]))``) when all
    its transforms do; they are held in an ``nn.ModuleList`` (plain callables are wrapped, Python only).

    On a batch (batch tv_tensors, or ``forward_batch``), a transform that draws its output size (RandomZoomOut,
    RandomIoUCrop, ScaleJitter, RandomShortestSize, RandomResize) followed, later, by a ``Resize`` to a fixed
    ``[h, w]`` runs with the steps up to that Resize sample by sample (each its own draws), and the batch is
    rebuilt after it; alone, such a transform refuses a batch.

    A PIL image (RGB or L) given to a Compose that converts it later (``PILToTensor`` or ``ToImage``, with only
    steps before it that treat tensors as they treat PIL images) is taken as a tensor view of its pixels at the
    first step, and every step runs on the native tensor kernels; the output has the type torchvision's pipeline
    returns. Deliberate difference: the resampling is torch's, not PIL's (see ``_pil_path`` and docs/pil-path.md).
    """

    _holds_steps = True  # runs the transforms in .transforms (read by _pil_path, which cannot import this module)
    _draw_uses_size = False  # its make_params (torchvision's {}) reads nothing from the sample

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        super().__init__()
        if isinstance(transforms, nn.ModuleList):
            transforms = list(transforms)
        if not isinstance(transforms, Sequence) or isinstance(transforms, str):
            raise TypeError(
                f"Compose: Argument transforms should be a sequence of callables, got {type(transforms).__name__}"
            )
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
        for position, transform in enumerate(self.transforms):
            if getattr(transform, "_scripted_pair", False):  # MixUp/CutMix: (images, labels) -> (images, labels)
                name = type(transform).__name__
                raise TypeError(
                    f"Compose: step {position} ({name}) takes and returns (images, labels) when scripted, which a "
                    f"scripted Compose cannot chain; script the {name} alone and call it with (images, labels)"
                )
        clone = copy.copy(self)
        clone._modules = dict(self._modules)
        clone._modules["_script_prefix"] = script_prefix(tuple(self.transforms))
        # A list of its own: torch.jit.script replaces the children by what their __prepare_scriptable__ returns
        # (Resize's may be a copy), in place, and this Compose's list must stay as it is.
        clone._modules["transforms"] = nn.ModuleList(list(self.transforms))
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
        self._read_guard_tokens()
        transforms = tuple(self.transforms)
        start = 0
        fused = run_fused(transforms, images, batch=True)
        if fused is not None:
            images, start = fused
        position = start
        while position < len(transforms):
            end = _per_sample_run(transforms, position)
            if end is not None:  # a drawn output size then a fixed-size Resize: row by row, each its own draw
                run = transforms[position:end]
                rows = [_apply_all(run, images[k]) for k in range(images.shape[0])]
                images = torch.stack(rows) if rows else _apply_all(run, images)
                position = end
                continue
            tail = run_float_tail(transforms, position, images)  # ToDtype [+ Normalize] on a uint8 batch
            if tail is not None:
                images, position = tail
                continue
            transform = transforms[position]
            forward_batch = getattr(transform, "forward_batch", None)
            images = forward_batch(images) if forward_batch is not None else transform(images)
            position += 1
        return images

    @torch.jit.unused
    def _run(self, sample: Any, unpack: bool) -> Any:
        self._read_guard_tokens()
        # A tuple, read afresh each call (the ModuleList may change): indexing a ModuleList formats a string key
        # per access, a large share of eager Compose's Python time.
        transforms = tuple(self.transforms)
        if not unpack and isinstance(sample, PIL.Image.Image):
            # A PIL image the pipeline converts later anyway: a tensor view of it from the first step (_pil_path).
            converted = _pil_path.plan(transforms, sample)
            if converted is not None:
                steps, kind = converted
                inpt, view = _pil_path.as_input(sample, kind)
                return _pil_path.own(_run_steps(tuple(steps), inpt, False), view)
        return _run_steps(transforms, sample, unpack)
