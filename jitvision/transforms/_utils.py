"""Argument helpers shared by the transform classes (sizes, fills, angles, labels), and the sample inspection of
``_sample`` re-exported.

It is also where ``torchvision.transforms.v2._utils`` lives for code written against torchvision: its helpers that
custom transforms and torchvision's reference recipes call (``_setup_fill_arg``, ``_get_fill``, ``_convert_fill_arg``,
``query_chw``, ``query_size``, ``has_any``, ...) are here under the same names, with torchvision's behaviour
(docs/migration-helpers.md lists them and who uses them).
"""

import numbers
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from ..tv_tensors import kind_of
from ._query import check_type, get_bounding_boxes, get_keypoints, has_all, has_any, query_chw  # noqa: F401
from ._sample import is_image_like, leaf_size, query_device, query_size  # noqa: F401
from .functional._dispatch import is_pure_tensor


def setup_size(size: Any, owner: str) -> list[int]:
    """``size`` (an int, or a sequence of 1 or 2 ints) as a positive [height, width]."""
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size, size]
    elif isinstance(size, Sequence) and len(size) == 1:
        size = [size[0], size[0]]
    if not isinstance(size, Sequence) or len(size) != 2 or not all(isinstance(s, int) for s in size):
        raise ValueError(
            f"{owner}: size should be an int or a sequence of 1 or 2 ints (Please provide only two dimensions (h, w) "
            f"for size), got {size!r}"
        )
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{owner}: size must be positive, got {list(size)}")
    return [int(size[0]), int(size[1])]


@torch.jit.unused
def find_labels(sample: Any, owner: str) -> Any:
    """The labels of a sample by torchvision's default ``labels_getter`` rule (Sanitize*, MixUp, CutMix): the sample
    is a dict, or a tuple whose second item is a dict or the labels tensor; in a dict, the key "labels" (any case),
    else the first key containing "label"."""
    candidate = sample[1] if isinstance(sample, (tuple, list)) and len(sample) >= 2 else sample
    if isinstance(candidate, torch.Tensor) and is_pure_tensor(candidate):
        return candidate
    if not isinstance(candidate, dict):
        raise ValueError(
            f"{owner}: When using the default labels_getter, the input passed to forward must be a dict or a two-tuple "
            f"whose second item is a dict or the labels tensor, got {type(sample).__name__}; pass labels_getter=None "
            "if there are no labels"
        )
    keys = [key for key in candidate if isinstance(key, str)]
    exact = [key for key in keys if key.lower() == "labels"]
    found = exact or [key for key in keys if "label" in key.lower()]
    if not found:
        raise ValueError(
            f"{owner}: Could not infer where the labels are in the sample (no key containing 'label'); pass a "
            "callable as labels_getter, or labels_getter=None if the sample has no labels"
        )
    return candidate[found[0]]


def require_image(flat_inputs: Sequence[Any], owner: str) -> None:
    """torchvision's check for the transforms that only make sense on pictures: the sample must hold an image, a
    video, a PIL image or a pure tensor (which stands for the image)."""
    for inpt in flat_inputs:
        if is_image_like(inpt) or (isinstance(inpt, torch.Tensor) and is_pure_tensor(inpt)):
            return
    raise TypeError(f"{owner}: No image or video was found in the sample")


# ---- torchvision's fill-argument helpers ----------------------------------------------------------------------

_FillType = Union[int, float, Sequence[int], Sequence[float], None]
_FillTypeJIT = Optional[List[float]]
_FillDict = Dict[Union[type, str], _FillTypeJIT]


def _check_fill_arg(fill: Any) -> None:
    """TypeError unless ``fill`` is None, a number, a tuple or list, or a dict of those (per input type)."""
    if isinstance(fill, dict):
        for value in fill.values():
            _check_fill_arg(value)
    elif fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError(f"fill: expected None, a number, a tuple or list of numbers, or a dict of those, got {fill!r}")


def _convert_fill_arg(fill: _FillType) -> _FillTypeJIT:
    """A number stays as it is, None stays None (it is not 0: see the kernels), a sequence becomes a list of floats."""
    if fill is None or isinstance(fill, (int, float)):
        return fill  # type: ignore[return-value]
    return [float(value) for value in fill]


def _setup_fill_arg(fill: Union[_FillType, Dict[Union[type, str], _FillType]]) -> _FillDict:
    """``fill`` as a dict from input type to fill: a dict has its values converted (in place, as torchvision does,
    and returned); anything else becomes ``{"others": fill}``."""
    _check_fill_arg(fill)
    if isinstance(fill, dict):
        for key, value in fill.items():
            fill[key] = _convert_fill_arg(value)
        return fill  # type: ignore[return-value]
    return {"others": _convert_fill_arg(fill)}  # type: ignore[arg-type]


def _get_fill(fill_dict: _FillDict, inpt_type: type) -> _FillTypeJIT:
    """The fill for inputs of ``inpt_type``: its own entry, else the entry of the same tv_tensor kind (a jitvision
    class stands for torchvision's class of that name and back), else ``"others"``, else None (torchvision's
    missing-entry result)."""
    if inpt_type in fill_dict:
        return fill_dict[inpt_type]
    kind = kind_of(inpt_type) if isinstance(inpt_type, type) else None
    if kind is not None:
        for key, value in fill_dict.items():
            if isinstance(key, type) and key.__name__ == kind.__name__ and kind_of(key) is kind:
                return value
    return fill_dict.get("others")


# ---- torchvision's argument helpers that custom transforms import ----------------------------------------------


def _setup_size(size: Any, error_msg: str) -> Sequence[int]:
    """torchvision's size normalisation: a number ``n`` gives ``(n, n)`` (as ints), a one-item sequence its item
    twice, a two-item sequence itself; anything else is a ValueError with ``error_msg``."""
    if isinstance(size, numbers.Number):
        return int(size), int(size)  # type: ignore[call-overload]
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if not isinstance(size, Sequence) or len(size) != 2:
        raise ValueError(error_msg)
    return size


def _check_sequence_input(x: Any, name: str, req_sizes: Sequence[int]) -> None:
    """TypeError unless ``x`` is a sequence, ValueError unless its length is one of ``req_sizes``."""
    lengths = str(req_sizes[0]) if len(req_sizes) < 2 else " or ".join(str(size) for size in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {lengths}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {lengths}.")


def _setup_angle(x: Any, name: str, req_sizes: Sequence[int] = (2,)) -> List[float]:
    """A non-negative number ``d`` as the range ``[-d, d]``, or a sequence of ``req_sizes`` numbers, as floats."""
    if isinstance(x, numbers.Number):
        if x < 0:  # type: ignore[operator]
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]  # type: ignore[operator]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(value) for value in x]


def _setup_number_or_seq(arg: Any, name: str) -> List[float]:
    """A number, or a sequence of one or two numbers, as a two-item list of floats (a range)."""
    if not isinstance(arg, (int, float, Sequence)):
        raise TypeError(f"{name} should be a number or a sequence of numbers. Got {type(arg)}")
    if isinstance(arg, Sequence):
        if len(arg) not in (1, 2):
            raise ValueError(f"If {name} is a sequence its length should be 1 or 2. Got {len(arg)}")
        for element in arg:
            if not isinstance(element, (int, float)):
                raise ValueError(f"{name} should be a sequence of numbers. Got {type(element)}")
        return [float(arg[0]), float(arg[-1])]
    return [float(arg), float(arg)]


@torch.jit.unused
def _find_labels_default_heuristic(inputs: Any) -> Any:
    """torchvision's private name for the default ``labels_getter`` (``find_labels``), which user code calls."""
    return find_labels(inputs, "labels_getter='default'")
