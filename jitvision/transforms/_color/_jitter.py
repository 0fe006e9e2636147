"""ColorJitter and RandomPhotometricDistort: several tensor-factor adjustments, in a random order for ColorJitter.

Eager single samples run the drawn adjustments in the drawn order as a Python loop (only the ones configured).
Under torch.compile/export and on batches (each sample its own order) the order stays a tensor: see
``_jitter_select`` and docs/design/policies.md ("ColorJitter's random order").
"""

import math
import numbers
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import PIL.Image
import torch

from ...tv_tensors import wrap
from .. import functional as F
from .._random import as_drawn, row_count, uniform, where_rows
from .._transform import Transform
from .._utils import is_image_like, require_image
from ..functional._color import _native_u8
from ..functional._color._adjust import _adjust_brightness, _adjust_contrast, _adjust_saturation, gray_for_blend
from ..functional._color._grayscale import _permute_channels
from ..functional._color._hue import _adjust_hue
from ..functional._color._utils import blend, check_image, compute_dtype, rows_factor
from ..functional._dispatch import device_constant, is_pure_tensor, is_tracing, unwrap
from ._common import channels_of, permutation_from_keys

# The adjustments by index (TorchScript has no module-level int constants): 0 brightness, 1 contrast, 2 saturation,
# 3 hue.
_IDENTITY = (1.0, 1.0, 1.0, 0.0)
# make_params' torchvision keys of the four factors, in that order.
_FACTOR_KEYS = ("brightness_factor", "contrast_factor", "saturation_factor", "hue_factor")


def _check_range(
    owner: str,
    value: Optional[Union[float, Sequence[float]]],
    name: str,
    center: float,
    bound: Tuple[float, float],
    clip_first_on_zero: bool,
) -> Optional[Tuple[float, float]]:
    """torchvision's rule: a number v means [center - v, center + v] (clipped at 0 for the blend factors), a pair is
    a range; the range must lie in ``bound`` and increase; a range that is just the center means "not applied"."""
    if value is None:
        return None
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{owner}: if {name} is a single number, it must be non negative, got {value}")
        low, high = center - float(value), center + float(value)
        if clip_first_on_zero:
            low = max(low, 0.0)
    elif isinstance(value, Sequence) and len(value) == 2:
        low, high = float(value[0]), float(value[1])
    else:
        raise TypeError(f"{owner}: {name}={value!r} should be a single number or a sequence with length 2")
    if not bound[0] <= low <= high <= bound[1]:
        raise ValueError(f"{owner}: {name} values should be between {bound} and increasing, got {[low, high]}")
    if low == high == center:
        return None
    return low, high


def _check_ranges(owner: str, brightness: Any, contrast: Any, saturation: Any, hue: Any) -> List[Any]:
    """The four checked ranges (None where an adjustment is not applied), shared by both jitter classes."""
    unbounded = (0.0, float("inf"))
    return [
        _check_range(owner, brightness, "brightness", 1.0, unbounded, True),
        _check_range(owner, contrast, "contrast", 1.0, unbounded, True),
        _check_range(owner, saturation, "saturation", 1.0, unbounded, True),
        _check_range(owner, hue, "hue", 0.0, (-0.5, 0.5), False),
    ]


def _draw_factors(
    ranges: List[Tuple[float, float]],
    batch_shape: List[int],
    generator: Optional[torch.Generator],
    device: torch.device,
) -> torch.Tensor:
    """Uniform factors ``[*batch_shape, 4]`` in the four ranges (float32 like torchvision's draws)."""
    low = device_constant([r[0] for r in ranges], torch.float32, device)
    high = device_constant([r[1] for r in ranges], torch.float32, device)
    u = uniform(batch_shape + [4], generator, device)
    return low + (high - low) * u


def _gray_and_mean(image: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """The gray image saturation blends with, and the mean contrast blends with (as the kernels compute them)."""
    gray = gray_for_blend(image)
    return gray, gray.mean(dim=(-3, -2, -1), keepdim=True)


def _blend_step(
    image: torch.Tensor, op: torch.Tensor, factors: torch.Tensor, active: torch.Tensor, need_gray: bool
) -> torch.Tensor:
    """One position of the order as tensor code: brightness, contrast or saturation (``op`` per row), each a blend
    of the image with black, its mean gray or its gray image; rows where ``active`` is false keep the image."""
    ratio = rows_factor(factors.gather(-1, op.unsqueeze(-1)).squeeze(-1), image)
    row_op = rows_factor(op, image)
    if need_gray:
        gray, mean = _gray_and_mean(image)
        other = torch.where(row_op == 0, torch.zeros_like(mean), torch.where(row_op == 1, mean, gray))
        if image.shape[-3] == 1:  # saturation leaves gray images as they are
            active = active & (op != 2)
    else:
        other = torch.zeros([1] * image.ndim, dtype=compute_dtype(image), device=image.device)
    return torch.where(rows_factor(active, image), blend(image, other, ratio), image)


def _jitter_select(
    image: torch.Tensor, order: torch.Tensor, factors: torch.Tensor, present: List[bool]
) -> torch.Tensor:
    """ColorJitter with the order as a tensor (``[4]``, or ``[R, 4]`` per row): the blend adjustments before the
    hue's position, the hue once, the blend adjustments after it (a position whose op is absent keeps the image)."""
    present_t = device_constant([float(flag) for flag in present], torch.bool, image.device)
    need_gray = present[1] or present[2]
    if not present[3]:
        for pos in range(4):
            op = order[..., pos]
            image = _blend_step(image, op, factors, present_t.gather(0, op.reshape(-1)).reshape(op.shape), need_gray)
        return image
    hue_pos = (order == 3).to(torch.int64).argmax(dim=-1)
    for pos in range(3):
        op = order[..., pos]
        image = _blend_step(
            image, op, factors, present_t.gather(0, op.reshape(-1)).reshape(op.shape) & (hue_pos > pos), need_gray
        )
    image = _adjust_hue(image, rows_factor(factors[..., 3], image))
    for pos in range(1, 4):
        op = order[..., pos]
        image = _blend_step(
            image, op, factors, present_t.gather(0, op.reshape(-1)).reshape(op.shape) & (hue_pos < pos), need_gray
        )
    return image


def _identity(image: torch.Tensor, factors: torch.Tensor) -> torch.Tensor:
    return image.clone()  # torch.cond branches may not return their input


def _branch(index: int) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    def adjust(image: torch.Tensor, factors: torch.Tensor) -> torch.Tensor:
        if index == 0:
            return _adjust_brightness(image, factors[0])
        if index == 1:
            return _adjust_contrast(image, factors[1]).clone()  # clone: never an alias of the input in a cond branch
        if index == 2:
            return _adjust_saturation(image, factors[2]).clone()
        return _adjust_hue(image, factors[3]).clone()

    return adjust


@torch.jit.unused
def _jitter_cond(image: torch.Tensor, order: torch.Tensor, factors: torch.Tensor, present: List[bool]) -> torch.Tensor:
    """ColorJitter on one sample under torch.compile/export: at each of the 4 positions a chain of ``torch.cond``
    runs the one configured adjustment the drawn order puts there (only the drawn adjustment runs, where
    ``_jitter_select`` computes all four and selects; see docs/design/policies.md)."""
    ops = [index for index in range(4) if present[index]]

    def chain(op: torch.Tensor, rest: List[int]) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
        if not rest:
            return _identity
        return lambda x, f: torch.cond(op == rest[0], _branch(rest[0]), chain(op, rest[1:]), (x, f))

    for pos in range(4):
        image = chain(order[pos], ops)(image, factors)
    return image


def _jitter_loop(image: torch.Tensor, order: List[int], factors: torch.Tensor, present: List[bool]) -> torch.Tensor:
    """ColorJitter on one sample in eager code: the configured adjustments in the drawn order."""
    for op in order:
        if not present[op]:
            continue
        if op == 0:
            image = _adjust_brightness(image, factors[0])
        elif op == 1:
            image = _adjust_contrast(image, factors[1])
        elif op == 2:
            image = _adjust_saturation(image, factors[2])
        else:
            image = _adjust_hue(image, factors[3])
    return image


@torch.jit.unused
def _factor_tensor(values: List[Any], device: torch.device) -> torch.Tensor:
    """The four factors of make_params' torchvision form (numbers, 0-d tensors or None) as float32 ``[4]``: NaN where
    None (the step does not apply)."""
    if all(not isinstance(value, torch.Tensor) for value in values):
        numbers_ = [math.nan if value is None else float(value) for value in values]
        return torch.tensor(numbers_, dtype=torch.float32, device=device)
    parts = [torch.full([], math.nan) if value is None else torch.as_tensor(value) for value in values]
    return torch.stack([part.to(device=device, dtype=torch.float32) for part in parts])


@torch.jit.unused
def _leaf_device(inpt: Any) -> torch.device:
    return inpt.device if isinstance(inpt, torch.Tensor) else torch.device("cpu")


@torch.jit.unused
def _on_tensor(inpt: Any, core: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    """``core`` on a tensor leaf's plain tensor, rewrapped into its tv_tensor type."""
    if is_pure_tensor(inpt):
        return core(inpt)
    return wrap(core(unwrap(inpt)), like=inpt)


def _jitter_with(
    image: torch.Tensor, order: torch.Tensor, factors: torch.Tensor, present: List[bool], present_mask: int
) -> torch.Tensor:
    """ColorJitter of a plain image: the ``present`` adjustments (``present_mask``: bit i for adjustment i) in
    ``order`` (``[4]``, or ``[R, 4]`` per row) with ``factors``."""
    check_image(image, "ColorJitter", [1, 3])
    if not torch.jit.is_scripting() and _native_u8.applies(image):
        # One native pass per adjustment, in the drawn order(s): eager, compiled (one graph node) and batches.
        return _native_u8.color_jitter(image, order, factors, present_mask)
    if order.ndim == 1:
        if not is_tracing():
            order_list: List[int] = order.tolist()
            return _jitter_loop(image, order_list, factors, present)
        return _jitter_cond(image, order, factors, present)
    return _jitter_select(image, order, factors, present)


class ColorJitter(Transform):
    """Randomly change brightness, contrast, saturation and hue, in a random order drawn per call (per sample on
    batches). Arguments as torchvision's: a number v means the factor range [max(0, 1 - v), 1 + v] ([-v, v] for
    hue, v <= 0.5), a pair is the range itself; None or 0 leaves that property alone."""

    _functional = staticmethod(F.adjust_brightness)

    def __init__(
        self,
        brightness: Optional[Union[float, Sequence[float]]] = None,
        contrast: Optional[Union[float, Sequence[float]]] = None,
        saturation: Optional[Union[float, Sequence[float]]] = None,
        hue: Optional[Union[float, Sequence[float]]] = None,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(generator=generator)
        owner = "ColorJitter"
        self.brightness, self.contrast, self.saturation, self.hue = _check_ranges(
            owner, brightness, contrast, saturation, hue
        )
        configured = [self.brightness, self.contrast, self.saturation, self.hue]
        self._present: List[bool] = [r is not None for r in configured]
        self._present_mask: int = sum(1 << i for i, r in enumerate(configured) if r is not None)
        self._ranges: List[Tuple[float, float]] = [
            r if r is not None else (_IDENTITY[i], _IDENTITY[i]) for i, r in enumerate(configured)
        ]
        self._low: List[float] = [r[0] for r in self._ranges]
        self._high: List[float] = [r[1] for r in self._ranges]

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # A uint8 CPU image: _draw's draws (same generator calls, same values) and the adjustments in one native
        # call, no parameter tensors built and read back (on a cheap call those dominate the adjustments' cost).
        if image.ndim < 3 or image.shape[-3] not in (1, 3) or not _native_u8.applies(image) or not self._present_mask:
            return None  # (nothing configured: the generic path draws, then returns the input itself)
        return _native_u8.color_jitter_random(image, self._low, self._high, self._present_mask, self._rng())

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        batch_size = row_count(batch_shape)  # one sample: row 0 of a draw of one (the same stream)
        generator = self._rng()
        order = uniform([batch_size, 4], generator, device).argsort(dim=-1)
        factors = _draw_factors(self._ranges, [batch_size], generator, device)
        return as_drawn(batch_shape, {"order": order, "factors": factors})

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's keys: ``fn_idx`` (the order, an int64 ``[4]`` tensor) and ``brightness_factor``,
        ``contrast_factor``, ``saturation_factor``, ``hue_factor`` (floats, None where that property is not
        configured; 0-d float32 tensors under torch.compile/export)."""
        factors = drawn["factors"]
        values = list(factors.unbind(0)) if is_tracing() else factors.tolist()
        params: Dict[str, Any] = {"fn_idx": drawn["order"]}
        for index, key in enumerate(_FACTOR_KEYS):
            params[key] = values[index] if self._present[index] else None
        return params

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed parameters (maybe edited by a subclass)."""
        values = [params[key] for key in _FACTOR_KEYS]
        present = [value is not None for value in values]
        device = _leaf_device(inpt)
        order = torch.as_tensor(params["fn_idx"], device=device).to(torch.int64)
        factors = _factor_tensor(values, device)
        if present == self._present:
            return self.transform(inpt, {"order": order, "factors": factors})
        if isinstance(inpt, PIL.Image.Image):  # torchvision's PIL kernels with Python numbers, in that order
            functionals = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
            for op in order.tolist():
                if present[op]:
                    inpt = functionals[op](inpt, float(values[op]))
            return inpt
        # a subclass changed which properties apply: the same kernels with that presence
        mask = sum(1 << index for index, flag in enumerate(present) if flag)
        return _on_tensor(inpt, lambda image: _jitter_with(image, order, factors.nan_to_num(0.0), present, mask))

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "order" not in params:  # make_params' torchvision keys
            return self._transform_public(inpt, params)
        if self._present_mask == 0:  # nothing configured: the input itself, as torchvision returns it
            return inpt
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return self._jitter(inpt, params)
        return self._jitter_leaf(inpt, params)

    def _jitter(self, image: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return _jitter_with(image, params["order"], params["factors"], self._present, self._present_mask)

    @torch.jit.unused
    def _jitter_leaf(self, inpt: Any, params: Dict[str, torch.Tensor]) -> Any:
        if isinstance(inpt, torch.Tensor):
            return wrap(self._jitter(unwrap(inpt), params), like=inpt)
        # A PIL image: torchvision's PIL kernels with Python factors, in the drawn order.
        factors = params["factors"].tolist()
        functionals = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for op in params["order"].tolist():
            if self._present[op]:
                inpt = functionals[op](inpt, factors[op])
        return inpt

    def extra_repr(self) -> str:
        names = ("brightness", "contrast", "saturation", "hue")
        return ", ".join(f"{n}={getattr(self, n)}" for n in names if getattr(self, n) is not None)


class RandomPhotometricDistort(Transform):
    """torchvision's SSD-style distortion: brightness, contrast (before or after saturation and hue), saturation,
    hue and a channel permutation, each applied with probability ``p`` (per sample on batches)."""

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        require_image(flat_inputs, type(self).__name__)

    _functional = staticmethod(F.adjust_brightness)

    def __init__(
        self,
        brightness: Tuple[float, float] = (0.875, 1.125),
        contrast: Tuple[float, float] = (0.5, 1.5),
        saturation: Tuple[float, float] = (0.5, 1.5),
        hue: Tuple[float, float] = (-0.05, 0.05),
        p: float = 0.5,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(generator=generator)
        owner = "RandomPhotometricDistort"
        if not (0.0 <= p <= 1.0):
            raise ValueError(f"{owner}: p must be a probability in [0, 1], got {p}")
        self.p = p
        self.brightness, self.contrast, self.saturation, self.hue = _check_ranges(
            owner, brightness, contrast, saturation, hue
        )
        configured = [self.brightness, self.contrast, self.saturation, self.hue]
        self._present: List[bool] = [r is not None for r in configured]
        self._ranges: List[Tuple[float, float]] = [
            r if r is not None else (_IDENTITY[i], _IDENTITY[i]) for i, r in enumerate(configured)
        ]

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        batch_size = row_count(batch_shape)  # one sample: row 0 of a draw of one (the same stream)
        generator = self._rng()
        # apply: brightness, contrast, saturation, hue, channel permutation; then contrast before saturation.
        coins = uniform([batch_size, 6], generator, device)
        present = device_constant([float(flag) for flag in self._present] + [1.0], torch.bool, device)
        apply = (coins[:, :5] < self.p) & present
        factors = _draw_factors(self._ranges, [batch_size], generator, device)
        keys = uniform([batch_size, 16], generator, device)
        drawn = {"apply": apply, "contrast_before": coins[:, 5] < 0.5, "factors": factors, "keys": keys}
        return as_drawn(batch_shape, drawn)

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's keys: ``brightness_factor``, ``contrast_factor``, ``saturation_factor``, ``hue_factor``
        (floats, None where that step's coin says not to apply it), ``contrast_before`` (bool) and
        ``channel_permutation`` (an int64 ``[C]`` tensor, None where not applied). Under torch.compile/export they
        stay tensors: the factors 0-d float32, NaN where not applied (a Python None cannot depend on a draw), and
        the permutation the identity where not applied."""
        image = next(leaf for leaf in flat_inputs if is_image_like(leaf) or is_pure_tensor(leaf))
        apply, factors = drawn["apply"], drawn["factors"]
        permutation = permutation_from_keys(drawn["keys"], channels_of(image), "RandomPhotometricDistort")
        params: Dict[str, Any] = {}
        if is_tracing():
            absent = torch.full_like(factors, math.nan)
            values = list(torch.where(apply[:4], factors, absent).unbind(0))
            for index, key in enumerate(_FACTOR_KEYS):
                params[key] = values[index]
            identity = torch.arange(permutation.shape[0], device=permutation.device)
            params["contrast_before"] = drawn["contrast_before"]
            params["channel_permutation"] = torch.where(apply[4], permutation, identity)
            return params
        flags, values = apply.tolist(), factors.tolist()
        for index, key in enumerate(_FACTOR_KEYS):
            params[key] = values[index] if flags[index] else None
        params["contrast_before"] = bool(drawn["contrast_before"])
        params["channel_permutation"] = permutation if flags[4] else None
        return params

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed parameters (maybe edited by a subclass)."""
        values = [params[key] for key in _FACTOR_KEYS]
        permutation = params["channel_permutation"]
        before = params["contrast_before"]
        if isinstance(inpt, PIL.Image.Image):  # torchvision's PIL kernels with Python numbers
            steps = [
                (F.adjust_brightness, values[0]),
                (F.adjust_contrast, values[1] if before else None),
                (F.adjust_saturation, values[2]),
                (F.adjust_hue, values[3]),
                (F.adjust_contrast, None if before else values[1]),
            ]
            for functional, factor in steps:
                if factor is not None:
                    inpt = functional(inpt, float(factor))
            return inpt if permutation is None else F.permute_channels(inpt, [int(c) for c in permutation])
        device = _leaf_device(inpt)
        factors = _factor_tensor(values, device)
        if permutation is None:
            permutation = torch.arange(channels_of(inpt), device=device)
        internal = {
            # the four steps where their factor is given, then the permutation (the identity where not given)
            "apply": torch.cat([~factors.isnan(), torch.ones(1, dtype=torch.bool, device=device)]),
            "factors": factors.nan_to_num(0.0),
            "contrast_before": torch.as_tensor(before, device=device),
            "permutation": torch.as_tensor(permutation, device=device).to(torch.int64),
        }
        return self.transform(inpt, internal)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "factors" not in params:  # make_params' torchvision keys
            return self._transform_public(inpt, params)
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return self._distort(inpt, params)
        return self._distort_leaf(inpt, params)

    def _distort(self, image: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        check_image(image, "RandomPhotometricDistort", [1, 3])
        apply, factors = params["apply"], params["factors"]
        before = params["contrast_before"]
        if "permutation" in params:  # make_params' torchvision form, converted by _transform_public
            perm = params["permutation"]
        else:
            perm = permutation_from_keys(params["keys"], image.shape[-3], "RandomPhotometricDistort")
        if apply.ndim == 1 and not is_tracing():
            flags: List[bool] = apply.tolist()
            if flags[0]:
                image = _adjust_brightness(image, factors[0])
            contrast_before = bool(before)
            if flags[1] and contrast_before:
                image = _adjust_contrast(image, factors[1])
            if flags[2]:
                image = _adjust_saturation(image, factors[2])
            if flags[3]:
                image = _adjust_hue(image, factors[3])
            if flags[1] and not contrast_before:
                image = _adjust_contrast(image, factors[1])
            if flags[4]:
                image = _permute_channels(image, perm)
            return image
        # Tensor code: every step computed, rows (or the whole sample) keep or take it by their coins.
        image = where_rows(apply[..., 0], _adjust_brightness(image, rows_factor(factors[..., 0], image)), image)
        contrast = rows_factor(factors[..., 1], image)
        image = where_rows(apply[..., 1] & before, _adjust_contrast(image, contrast), image)
        image = where_rows(apply[..., 2], _adjust_saturation(image, rows_factor(factors[..., 2], image)), image)
        if self._present[3]:
            image = where_rows(apply[..., 3], _adjust_hue(image, rows_factor(factors[..., 3], image)), image)
        image = where_rows(apply[..., 1] & ~before, _adjust_contrast(image, contrast), image)
        identity = torch.arange(perm.shape[-1], device=image.device).expand(perm.shape)
        perm = torch.where(apply[..., 4].unsqueeze(-1), perm, identity)
        return _permute_channels(image, perm)

    @torch.jit.unused
    def _distort_leaf(self, inpt: Any, params: Dict[str, torch.Tensor]) -> Any:
        if isinstance(inpt, torch.Tensor):
            return wrap(self._distort(unwrap(inpt), params), like=inpt)
        flags = params["apply"].tolist()
        factors = params["factors"].tolist()
        contrast_before = bool(params["contrast_before"])
        if flags[0]:
            inpt = F.adjust_brightness(inpt, factors[0])
        if flags[1] and contrast_before:
            inpt = F.adjust_contrast(inpt, factors[1])
        if flags[2]:
            inpt = F.adjust_saturation(inpt, factors[2])
        if flags[3]:
            inpt = F.adjust_hue(inpt, factors[3])
        if flags[1] and not contrast_before:
            inpt = F.adjust_contrast(inpt, factors[1])
        if flags[4]:
            perm = permutation_from_keys(params["keys"], channels_of(inpt), "RandomPhotometricDistort")
            inpt = F.permute_channels(inpt, perm.tolist())
        return inpt

    def extra_repr(self) -> str:
        return (
            f"brightness={self.brightness}, contrast={self.contrast}, saturation={self.saturation}, hue={self.hue}, "
            f"p={self.p}"
        )
