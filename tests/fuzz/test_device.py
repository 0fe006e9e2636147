"""Every public functional, kernel and transform class on a device other than the CPU.

The inputs and arguments are the fuzz suite's (tests/fuzz/inputs.py, strategies.py): for each public op, hypothesis
draws a CPU input, the same input is moved to the device, and the op runs on both. On the device it must:

- raise a TypeError/ValueError exactly where the CPU call does (same class of error), and nothing else;
- return the same structure, leaf types, shapes, dtypes and metadata as on the CPU, every tensor on the input's
  device (no silent copy to the CPU, no result left on it);
- for deterministic ops, give the CPU's values within the cross-device tolerance of ``assert_close_across``
  (CUDA's interpolation and warps compute in float where the CPU's native uint8 kernels do not, and nearest-neighbour
  taps can fall on the other side of a rounding tie).

Devices: ``meta`` always (it proves placement without a GPU: a meta tensor cannot be read, so any ``.item()``,
``.tolist()`` or copy to the CPU on the path raises), plus ``cuda`` when a GPU is present. Ops that cannot run on
``meta`` because they must read values (data-dependent output sizes, value-dependent checks) are listed in
``NEEDS_VALUES`` (with the reason): on ``meta`` they may raise the meta device's "no data" error (and where they
return, the placement is checked), on ``cuda`` they run like every other op.

Budget: JITVISION_DEVICE_EXAMPLES examples per op (default 2; the GPU check runs 3). With
JITVISION_DEVICE_REPORT=PATH, every comparison's largest difference is appended to PATH as JSON lines.
"""

import json
import os
import warnings
from typing import Any, Dict, List, Optional

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch.utils import _pytree as pytree

import jitvision.transforms as T
import jitvision.transforms.functional as F
from tests.fuzz.inputs import Sample, detection_samples, samples
from tests.fuzz.strategies import CLASSES, FUNCTIONALS
from tests.fuzz.test_fuzz import (
    CONTAINERS,
    KERNEL_SUFFIXES,
    _build,
    _draw_kwargs,
    draw_arguments,
    public_classes,
    public_functionals,
)
from tests.fuzz.test_fuzz import resolve as resolve_functional

EXAMPLES = int(os.environ.get("JITVISION_DEVICE_EXAMPLES", "2"))
REPORT = os.environ.get("JITVISION_DEVICE_REPORT")
DEVICE_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
DEVICES = ["meta"] + (["cuda"] if torch.cuda.is_available() else [])
NO_PIL = ("tensor", "Image", "Video", "Mask", "BoundingBoxes", "KeyPoints")

# Ops whose result depends on values they must read on the host (so they cannot run on ``meta``): output sizes
# drawn or computed from data, boxes filtered by their values, checks on the values of an argument tensor.
# Random classes whose output size is drawn: each device draws its own, so only types and dtypes compare.
DRAWN_SIZE = ("RandomResize", "ScaleJitter", "RandomShortestSize", "RandomZoomOut", "RandomIoUCrop")
_SAMPLE_READ = "one sample: its draw is read on the host (a sync per call on a GPU; batches keep it a tensor)"
_CHOICE_READ = "one sample: only the chosen operation may run (another may refuse the input), so the choice is read"
_PUBLIC_PARAMS = "one sample: make_params returns torchvision's Python values (read on the host)"
_DRAWN_SIZE = "its output size is drawn, so the draw is read on the host to size the output"
NEEDS_VALUES: Dict[str, str] = {
    "erase": "checks the value tensor against the region on the host",
    "perspective": "solves for the coefficients on the host (float64 least squares of the corner points)",
    "sanitize_bounding_boxes": "keeps the boxes whose values pass: a data-dependent number of rows",
    "sanitize_keypoints": "keeps the points whose values pass: a data-dependent number of rows",
    "jpeg": "encodes and decodes with libjpeg on the host",
    "to_pil_image": "a PIL image lives on the host",
    "RandomApply": _CHOICE_READ,
    "RandomChoice": _CHOICE_READ,
    "RandomOrder": _CHOICE_READ,
    "AutoAugment": _CHOICE_READ,
    "RandAugment": _CHOICE_READ,
    "TrivialAugmentWide": _CHOICE_READ,
    "AugMix": _CHOICE_READ,
    "RandomAffine": _PUBLIC_PARAMS,
    "RandomErasing": _PUBLIC_PARAMS,
    "RandomPerspective": _PUBLIC_PARAMS,
    "RandomResizedCrop": _PUBLIC_PARAMS,
    "ColorJitter": _SAMPLE_READ,
    "GaussianBlur": _SAMPLE_READ,
    "RandomChannelPermutation": _SAMPLE_READ,
    "RandomPhotometricDistort": _SAMPLE_READ,
    "RandomCrop": _SAMPLE_READ,
    "RandomIoUCrop": _DRAWN_SIZE,
    "RandomResize": _DRAWN_SIZE,
    "RandomZoomOut": _DRAWN_SIZE,
    "RandomShortestSize": _DRAWN_SIZE,
    "ScaleJitter": _DRAWN_SIZE,
    "SanitizeBoundingBoxes": "keeps the boxes whose values pass: a data-dependent number of rows",
    "SanitizeKeyPoints": "keeps the points whose values pass: a data-dependent number of rows",
    "ToPILImage": "a PIL image lives on the host",
    "JPEG": "encodes and decodes with libjpeg on the host",
}


def to_device(value: Any, device: str) -> Any:
    """The same sample on ``device``: tensors (tv_tensors keep their type and metadata) moved, the rest as is."""

    def move(leaf: Any) -> Any:
        return leaf.to(device) if isinstance(leaf, torch.Tensor) else leaf

    return pytree.tree_map(move, value)


def _leaves(value: Any) -> List[Any]:
    return pytree.tree_leaves(value)


def assert_on_device(value: Any, device: str, what: str) -> None:
    for leaf in _leaves(value):
        if isinstance(leaf, torch.Tensor):
            assert leaf.device.type == device, f"{what}: a {type(leaf).__name__} came back on {leaf.device}"


def assert_same_meta(ours: Any, reference: Any, what: str, shapes: bool = True) -> None:
    """Same structure, leaf types, dtypes and metadata; same shapes unless ``shapes`` is False (a random output
    size is drawn on each device from its own generator)."""
    ours_leaves, ours_spec = pytree.tree_flatten(ours)
    ref_leaves, ref_spec = pytree.tree_flatten(reference)
    assert ours_spec == ref_spec, f"{what}: structure {ours_spec} != {ref_spec}"
    for a, b in zip(ours_leaves, ref_leaves):
        assert type(a) is type(b), f"{what}: type {type(a).__name__} != {type(b).__name__}"
        if isinstance(b, torch.Tensor):
            assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} != {b.dtype}"
            assert not shapes or a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
            for name in ("format", "clamping_mode") + (("canvas_size",) if shapes else ()):
                if hasattr(b, name):
                    assert getattr(a, name) == getattr(b, name), f"{what}: {name} differs"


def assert_close_across(ours: Any, reference: Any, what: str) -> Dict[str, float]:
    """Device values against the CPU's: floats within 1e-3 of the value range (plus 1e-3 relative), integers within
    one level; at most 1% of the elements (and at least one) may exceed that (rounding ties of nearest taps, float
    warps landing on the other side of a pixel edge). Returns the largest difference and the share beyond it."""
    worst: Dict[str, float] = {"max_abs": 0.0, "share_beyond": 0.0}
    for a, b in zip(_leaves(ours), _leaves(reference)):
        if not isinstance(b, torch.Tensor) or b.numel() == 0:
            continue
        a_plain = a.as_subclass(torch.Tensor).cpu()
        b_plain = b.as_subclass(torch.Tensor)
        if b_plain.dtype == torch.bool:
            a_plain, b_plain = a_plain.long(), b_plain.long()
        if b_plain.is_floating_point():
            a64, b64 = a_plain.double(), b_plain.double()
            same_nan = torch.isnan(a64) & torch.isnan(b64)
            span = float(b64[torch.isfinite(b64)].abs().max()) if torch.isfinite(b64).any() else 1.0
            tolerance = 1e-3 * max(span, 1.0) + 1e-3 * b64.abs()
            if b_plain.dtype in (torch.float16, torch.bfloat16):
                tolerance = tolerance + 1e-2 * max(span, 1.0)
            diff = (a64 - b64).abs().masked_fill(same_nan, 0).nan_to_num(nan=float("inf"))
            beyond = diff > tolerance
        else:
            diff = (a_plain.long() - b_plain.long()).abs().double()
            beyond = diff > 1
        share = float(beyond.double().mean())
        worst["max_abs"] = max(worst["max_abs"], float(diff.max()))
        worst["share_beyond"] = max(worst["share_beyond"], share)
        assert int(beyond.sum()) <= max(1, int(0.01 * b_plain.numel())), (
            f"{what}: {int(beyond.sum())} of {b_plain.numel()} values differ from the CPU's beyond the tolerance "
            f"(largest difference {float(diff.max()):.4g})"
        )
    return worst


def _report(entry: Dict[str, Any]) -> None:
    if REPORT:
        with open(REPORT, "a") as f:
            f.write(json.dumps(entry, default=str) + "\n")


def _run(fn: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def check_on_device(
    name: str, device: str, run: Any, cpu_input: Any, deterministic: bool, needs_values: bool, context: Dict
) -> None:
    """``run(input)`` on the device against ``run(cpu_input)``: see the module docstring."""
    what = f"{name} on {device} ({context})"
    device_input = to_device(cpu_input, device)
    try:
        reference: Optional[Any] = _run(lambda: run(cpu_input))
        cpu_error: Optional[Exception] = None
    except (TypeError, ValueError) as error:
        reference, cpu_error = None, error
    try:
        ours = _run(lambda: run(device_input))
    except (TypeError, ValueError) as error:
        assert cpu_error is not None or not deterministic, f"{what}: raised {error!r} where the CPU call did not"
        return
    except (NotImplementedError, RuntimeError) as error:
        # a meta tensor has no values: only the ops listed in NEEDS_VALUES may need them
        assert device == "meta" and needs_values and "meta" in str(error).lower(), f"{what}: raised {error!r}"
        return
    assert cpu_error is None or not deterministic, f"{what}: returned where the CPU call raised {cpu_error!r}"
    assert_on_device(ours, device, what)
    if reference is None:
        return
    assert_same_meta(ours, reference, what, shapes=deterministic)
    if deterministic and device != "meta":
        _report({"op": name, "device": device, **context, **assert_close_across(ours, reference, what)})


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", [name for name in public_functionals() if resolve_functional(name) is not None])
@DEVICE_SETTINGS
@given(data=st.data())
def test_functional_on_device(name: str, device: str, data: Any) -> None:
    base, suffix = resolve_functional(name)
    entry = FUNCTIONALS[base]
    kinds = tuple(kind for kind in (entry.kinds if suffix is None else KERNEL_SUFFIXES[suffix]) if kind != "PIL")
    if not kinds:
        return  # a PIL kernel: PIL images live on the host
    sample: Sample = data.draw(samples(kinds), label="input")
    fn = getattr(F, name)
    inpt = sample.make()
    kwargs = draw_arguments(data, fn, entry, suffix, inpt, sample)
    if suffix is not None:
        inpt = inpt.as_subclass(torch.Tensor)
    deterministic = entry.compare != "meta"
    context = {"kind": sample.kind, "suffix": suffix, **{k: v for k, v in kwargs.items() if k != "displacement"}}

    def run(x: Any) -> Any:
        return fn(x, **to_device(kwargs, _device_of(x)))

    check_on_device(name, device, run, inpt, deterministic, base in NEEDS_VALUES, context)


def _device_of(value: Any) -> str:
    for leaf in _leaves(value):
        if isinstance(leaf, torch.Tensor):
            return leaf.device.type
    return "cpu"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", [name for name in public_classes() if name in CLASSES])
@DEVICE_SETTINGS
@given(data=st.data())
def test_class_on_device(name: str, device: str, data: Any) -> None:
    entry = CLASSES[name]
    if name in CONTAINERS:
        steps = data.draw(st.lists(st.sampled_from(["CenterCrop", "Pad", "Normalize"]), min_size=1, max_size=3))
        kwargs: Dict[str, Any] = {"steps": [(step, _draw_kwargs(data, step)) for step in steps]}
        kwargs.update({key: value for key, value in _draw_kwargs(data, name).items() if key != "transforms"})
    else:
        kwargs = _draw_kwargs(data, name)
    try:
        transform = _build(T, name, kwargs, data)
    except (TypeError, ValueError):
        return  # refused at construction: the fuzz suite checks the message
    kinds = tuple(kind for kind in entry.kinds if kind != "PIL")
    strategies = [detection_samples()] + ([samples(kinds)] if kinds else [])
    sample: Sample = data.draw(st.one_of(*strategies), label="input")
    deterministic = entry.compare != "meta" and name not in DRAWN_SIZE
    context = {"kind": sample.kind, **kwargs}
    check_on_device(name, device, transform, sample.make(), deterministic, name in NEEDS_VALUES, context)
