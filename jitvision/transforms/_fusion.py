"""The fused fast path of Compose: a resize-led prefix of the pipeline as one native call.

Recognised prefixes, planned by ``_stages.plan_prefix`` from the native stages the transforms declare (on a uint8
CPU image: a plain tensor or an ``Image``, ``[..., C, H, W]``):

- ``RandomResizedCrop`` [, ``RandomHorizontalFlip``] [, ``ToDtype(torch.float32, scale=True)`` [, ``Normalize``]]
- ``Resize`` [, ``CenterCrop``] [, ``ToDtype(torch.float32, scale=True)`` [, ``Normalize``]]

with bilinear interpolation and ``antialias=True``. Wherever else a ``ToDtype(torch.float32, scale=True)`` [+
``Normalize``] meets a uint8 CPU image (at the start of a Compose, after a crop, a flip or an augmentation policy,
on one sample or a batch), it runs as one native pass too (``jitvision_native::to_float_u8``, the same arithmetic as
the prefix's float tail; eager and torch.compile, not export). The random crop and flip are drawn inside the native
op (``jitvision_native::random_resized_crop``) with the transforms' generators and their arithmetic, in the unfused
order, so a seed gives the same crop and flip fused or not; under ``torch.compile`` the prefix is one graph node
that draws afresh on every call. The result equals the unfused pipeline's: the uint8 resize is bit-identical to
torch's, and the float tail differs by float rounding only (see ``jitvision._native``).

Why native rather than inductor: inductor's code for the bilinear gathers is slower than even the NCHW eager
kernel, and a separable resize written as two static-tap passes still spends most of its time in index
arithmetic; the C++ kernel reads CHW uint8 and writes the float output once, with no layout conversion.
"""

from typing import Any, Optional, Sequence, Tuple

import torch

from .. import _native
from ..tv_tensors import BatchedImages, Image, kind_of, wrap
from ._stages import TO_FLOAT, float_tail, per_channel, plan_prefix, stage_of
from .functional._dispatch import call_custom_op, is_exporting, is_pure_tensor, unwrap


def _plain(sample: Any) -> bool:
    """A plain tensor, or what stands for one under torch.export's default (non-strict) mode: the traced input is
    a FakeTensor there (not a tv_tensor, but not of type torch.Tensor either), and export must take the same fused
    path as eager."""
    return type(sample) is torch.Tensor or (is_exporting() and is_pure_tensor(sample))


def _fusable_input(sample: Any) -> bool:
    if not isinstance(sample, torch.Tensor) or sample.dtype != torch.uint8 or sample.device.type != "cpu":
        return False
    if sample.ndim < 3 or sample.shape[-1] == 0 or sample.shape[-2] == 0:
        return False
    return _plain(sample) or kind_of(type(sample)) is Image


_TAIL_OP: list = []


def _to_float_op() -> Any:
    """``jitvision_native::to_float_u8``, or None when the loaded library predates it."""
    if torch.compiler.is_compiling():
        # The cache is not read or filled while tracing: dynamo replayed the append after the first graph, and its
        # guard on the empty list failed on the second call (one recompile per process).
        return _load_float_op()
    if not _TAIL_OP:
        _TAIL_OP.append(_load_float_op())
    return _TAIL_OP[0]


def _load_float_op() -> Any:
    return getattr(torch.ops.jitvision_native, "to_float_u8", None) if _native.AVAILABLE else None


def run_float_tail(transforms: Sequence[Any], i: int, sample: Any) -> Optional[Tuple[Any, int]]:
    """``(output, next index)`` when ``transforms[i:]`` starts with ToDtype(float32, scale=True) [+ Normalize] and
    ``sample`` is a uint8 CPU image (one sample or a batch), wherever the Compose is: one native pass. Else None
    (nothing done). Eagerly one pass replaces ToDtype's and Normalize's three; under torch.compile inductor's code
    for the uint8 -> float conversion (partial loads, then a division) is slower than the eager passes, and as one
    native node it runs at eager speed."""
    if stage_of(transforms[i]) != TO_FLOAT or not _fusable_input(sample) or is_exporting():
        return None
    op = _to_float_op()
    if op is None:
        return None
    tail = float_tail(transforms, i)
    mean_std = per_channel(tail, sample.shape[-3])
    if mean_std is None:
        return None
    plain = _plain(sample)
    out = call_custom_op(op, sample if plain else unwrap(sample), mean_std[0], mean_std[1])
    return (out if plain else wrap(out, like=sample)), tail.end


def run_fused(transforms: Sequence[Any], sample: Any, batch: bool = False) -> Optional[Tuple[Any, int]]:
    """``(output, number of transforms consumed)`` when a prefix of ``transforms`` (``_stages.plan_prefix``) runs as
    one native call on ``sample``, else None (then nothing was drawn and the caller runs the transforms as usual).
    ``batch`` (or a ``BatchedImages`` sample): the leading dimension holds independent samples, each with its own
    draw."""
    if not _native.AVAILABLE or len(transforms) == 0 or not _fusable_input(sample):
        return None
    batch = batch or isinstance(sample, BatchedImages)
    if batch and sample.ndim != 4:
        return None
    plan = plan_prefix(transforms)
    if plan is None:
        return None
    mean_std = per_channel(plan.tail, sample.shape[-3])
    if mean_std is None:
        return None
    mean, std = mean_std
    to_float = plan.tail.to_float
    first, middle = plan.lead, plan.middle
    plain = _plain(sample)
    image = sample if plain else unwrap(sample)
    if plan.random_crop and batch:
        # One crop and flip per sample, drawn as the unfused transforms draw a batch (same calls, same order).
        size = ([image.shape[0]], image.shape[-2], image.shape[-1], image.device)
        boxes = first._draw(*size)["box"].unsqueeze(0)
        flips = middle._draw(*size)["apply"].unsqueeze(0) if middle is not None else None
        op = torch.ops.jitvision_native.resized_crop
        args = (boxes, flips, first.size, mean, std, to_float)
    elif plan.random_crop:
        # The op draws the crop, then the flip, as the transforms would (their generators, their order).
        flip_p, flip_generator = (middle.p, middle._rng()) if middle is not None else (None, None)
        op = torch.ops.jitvision_native.random_resized_crop
        args = (first.size, first.scale, first.ratio, flip_p, mean, std, to_float, first._rng(), flip_generator)
    else:
        crop_size = middle.size if middle is not None else None
        size = [] if first.size is None else first.size
        op = torch.ops.jitvision_native.resize_center_crop
        args = (size, first.max_size, crop_size, mean, std, to_float)
    out = call_custom_op(op, image, *args)
    return (out if plain else wrap(out, like=sample)), plan.consumed
