"""Fusion by protocol: the native stage a transform contributes, and the one planner that reads a pipeline's stages.

A transform class takes part in a fused native path by defining ``native_stage()`` in its own class body: it returns
one of the stage kinds below (or None where its current arguments fit no native stage). A subclass inherits the
method but does not fuse unless it says so, by defining ``native_stage`` itself (``native_stage =
RandomResizedCrop.native_stage`` is enough): a subclass may change what the transform does, which a native stage
would skip. ``Transform.__init_subclass__`` records which classes declare one (``_declares_stage``); ``stage_of``
reads it. No planner names a class, so this module imports none, and the fused paths import no transform.

``plan_prefix`` is the one planner of a Compose's leading steps, for every fused path: eager, torch.compile and
torch.export (``_fusion.run_fused``), TorchScript (``_script_fusion.script_prefix``) and a JPEG decoded together with
its first step (``_decode_fused.run_fused_encoded``). Each path then checks what depends on the input (dtype,
device, channels against Normalize's mean and std).
"""

from typing import Any, NamedTuple, Optional, Sequence, Tuple

from .functional._geometry._interpolation import InterpolationMode

# The stage kinds: what the transform does, in the terms the native ops take.
RANDOM_RESIZED_CROP = "random_resized_crop"  # size, scale, ratio, interpolation, antialias
RESIZE = "resize"  # size, max_size, interpolation, antialias
RANDOM_SHORTEST_SIZE = "random_shortest_size"  # a resize to a drawn shorter side (decoded with the region only)
HORIZONTAL_FLIP = "horizontal_flip"  # p
CENTER_CROP = "center_crop"  # size
RANDOM_CROP = "random_crop"  # size, padding (decoded with the region only)
TO_FLOAT = "to_float"  # ToDtype(torch.float32, scale=True)
NORMALIZE = "normalize"  # mean, std
AUGMENT_POLICY = "augment_policy"  # uint8 in, uint8 out: a float tail after it runs as one native pass

# The leading steps a JPEG can be decoded together with (only the region they keep, at a reduced scale).
DECODE_LEADS = (RANDOM_RESIZED_CROP, RESIZE, RANDOM_SHORTEST_SIZE, CENTER_CROP, RANDOM_CROP)


def stage_of(transform: Any) -> Optional[str]:
    """The native stage ``transform`` contributes, or None (not fusable: no stage, arguments that fit none, or a
    subclass that did not declare one)."""
    if not getattr(type(transform), "_declares_stage", False):
        return None
    return transform.native_stage()


def bilinear_antialiased(transform: Any) -> bool:
    """The resampling the native prefix implements: bilinear with antialiasing."""
    return transform.interpolation == InterpolationMode.BILINEAR and transform.antialias is True


class FloatTail(NamedTuple):
    """``ToDtype(float32, scale=True)`` [+ ``Normalize``] at some position: ``to_float`` False where there is none."""

    to_float: bool
    normalize: Any  # the Normalize transform, or None
    end: int  # the index after the tail


class PrefixPlan(NamedTuple):
    """A fusable prefix: a resizing lead, an optional middle step (a flip after a random resized crop, a center crop
    after a resize), an optional float tail; ``consumed`` transforms in all."""

    lead: Any
    random_crop: bool  # the lead is a random resized crop (else a resize)
    middle: Any  # the flip or the center crop, or None
    tail: FloatTail
    consumed: int


def float_tail(transforms: Sequence[Any], i: int) -> FloatTail:
    """The float tail starting at ``transforms[i]``, if any."""
    n = len(transforms)
    if i >= n or stage_of(transforms[i]) != TO_FLOAT:
        return FloatTail(False, None, i)
    if i + 1 < n and stage_of(transforms[i + 1]) == NORMALIZE:
        return FloatTail(True, transforms[i + 1], i + 2)
    return FloatTail(True, None, i + 1)


def plan_prefix(transforms: Sequence[Any]) -> Optional[PrefixPlan]:
    """The fusable prefix of ``transforms``, independent of the input: ``RANDOM_RESIZED_CROP`` [+
    ``HORIZONTAL_FLIP``] or ``RESIZE`` [+ ``CENTER_CROP``], bilinear antialiased, then an optional float tail."""
    if not transforms:
        return None
    lead = transforms[0]
    lead_stage = stage_of(lead)
    if lead_stage not in (RANDOM_RESIZED_CROP, RESIZE) or not bilinear_antialiased(lead):
        return None
    random_crop = lead_stage == RANDOM_RESIZED_CROP
    middle_stage = HORIZONTAL_FLIP if random_crop else CENTER_CROP
    middle = transforms[1] if len(transforms) > 1 and stage_of(transforms[1]) == middle_stage else None
    tail = float_tail(transforms, 2 if middle is not None else 1)
    return PrefixPlan(lead, random_crop, middle, tail, tail.end)


def per_channel(tail: FloatTail, channels: int) -> Optional[Tuple[Any, Any]]:
    """Normalize's mean and std for ``channels`` channels (``(None, None)`` without a Normalize), or None where they
    do not fit (Normalize then raises its own error, unfused)."""
    if tail.normalize is None:
        return None, None
    mean, std = list(tail.normalize.mean), list(tail.normalize.std)
    if len(mean) not in (1, channels) or len(std) not in (1, channels):
        return None
    return mean * (channels // len(mean)), std * (channels // len(std))
