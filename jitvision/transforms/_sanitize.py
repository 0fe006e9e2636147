"""SanitizeBoundingBoxes and SanitizeKeyPoints: drop invalid boxes (or keypoint rows) and what belongs to them.

The number of rows kept depends on the data: dynamo gives it an unbacked symbolic size, so a compiled pipeline
holding them is still one graph that does not recompile as the counts change (tests/transforms/test_sanitize.py).
Labels are matched to leaves with ``is``, never ``id()``: dynamo guards on ids, and every new labels tensor
recompiled. TorchScript cannot represent the samples they work on (boxes are tv_tensors), so they do not script;
scripting one fails naming it.
"""

from typing import Any, Callable, List, Tuple, Union

import torch
from torch.fx.experimental.symbolic_shapes import guard_or_true
from torch.utils import _pytree as pytree

from ..tv_tensors import BoundingBoxes, KeyPoints, Mask, box_format_from, kind_of, wrap
from ..tv_tensors._batch_pytree import sample_leaf
from ._batch import sample_index_of
from ._transform import Transform
from ._utils import find_labels
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap
from .functional._meta import get_canvas_size
from .functional._sanitize import sanitize_bounding_boxes_mask, sanitize_keypoints_mask

LabelsGetter = Union[Callable[[Any], Any], str, None]


@torch.jit.unused
def _check_labels_getter(labels_getter: LabelsGetter, owner: str) -> LabelsGetter:
    if labels_getter is None or callable(labels_getter) or labels_getter == "default":
        return labels_getter
    raise ValueError(f"{owner}: labels_getter should either be 'default', a callable, or None, got {labels_getter!r}")


class _Sanitize(Transform):
    """The shared filter: the kept-row mask of the first leaf of ``_kind``, applied to that kind's leaves, to
    ``_also`` (masks for boxes) and to the labels."""

    _kind: type = BoundingBoxes
    _also: Tuple[type, ...] = ()
    # Whether a leaf of ``_kind``/``_also`` whose leading dimension is not one row per reference row passes through
    # unchanged (SanitizeBoundingBoxes, as torchvision: a semantic Mask [H, W] beside the boxes) instead of being an
    # error (SanitizeKeyPoints, whose torchvision form fails on such a leaf too). Labels must always match.
    _other_lengths_pass = False

    def __init__(self, labels_getter: LabelsGetter) -> None:
        super().__init__()
        self.labels_getter = _check_labels_getter(labels_getter, type(self).__name__)

    def __prepare_scriptable__(self) -> None:
        raise TypeError(
            f"{type(self).__name__} filters tv_tensor samples (bounding boxes, keypoints), which TorchScript cannot "
            "represent; it cannot be scripted"
        )

    @torch.jit.unused
    def _valid(self, leaf: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    @torch.jit.unused
    def forward(self, sample: Any) -> Any:
        owner = type(self).__name__
        labels = self._labels(sample, owner)
        flat, spec = pytree.tree_flatten(sample, is_leaf=sample_leaf)
        reference = next(
            (leaf for leaf in flat if isinstance(leaf, torch.Tensor) and kind_of(type(leaf)) is self._kind), None
        )
        if reference is None:
            raise ValueError(f"{owner}: no {self._kind.__name__} found in the sample")
        valid = self._valid(reference)
        label_valid = self._label_masks(labels, valid, reference)
        outputs = []
        for leaf in flat:
            kind = kind_of(type(leaf)) if isinstance(leaf, torch.Tensor) else None
            # Matched with `is`, not id(): dynamo guards on ids, which recompiles for every new labels tensor.
            label_mask = next((mask for label, mask in zip(labels, label_valid) if leaf is label), None)
            if label_mask is not None:
                leaf = self._filter(leaf, label_mask, owner)
            elif (kind is self._kind or kind in self._also) and (
                not self._other_lengths_pass or _one_row_each(leaf, valid)
            ):
                leaf = self._filter(leaf, valid, owner)
            outputs.append(leaf)
        return pytree.tree_unflatten(outputs, spec)

    @torch.jit.unused
    def _label_masks(
        self, labels: List[torch.Tensor], valid: torch.Tensor, reference: torch.Tensor
    ) -> List[torch.Tensor]:
        """The kept-row mask of each labels tensor. In a batch (``tv_tensors.batch_samples``) the labels are one
        tensor per sample: sample ``i``'s labels take the rows of ``valid`` whose ``sample_index`` is ``i``."""
        index = sample_index_of(reference)
        per_sample = (
            index is not None
            and len(labels) == reference.batch_size
            and sum(label.shape[0] if label.ndim else 1 for label in labels) == valid.shape[0]
        )
        if not per_sample:
            return [valid for _ in labels]
        return [valid[index == i] for i in range(len(labels))]

    @torch.jit.unused
    def _labels(self, sample: Any, owner: str) -> List[torch.Tensor]:
        if self.labels_getter is None:
            return []
        getter = self.labels_getter
        labels = find_labels(sample, owner) if getter == "default" else getter(sample)
        if labels is None:
            return []
        labels = list(labels) if isinstance(labels, (tuple, list)) else [labels]
        for label in labels:
            if not isinstance(label, torch.Tensor):
                raise ValueError(f"{owner}: labels must be a tensor or a tuple of tensors, got {type(label).__name__}")
        return labels

    @torch.jit.unused
    def _filter(self, leaf: torch.Tensor, valid: torch.Tensor, owner: str) -> torch.Tensor:
        if is_tracing():  # the mask of a batch sample's labels has a data-dependent length: tell the compiler
            torch._check(leaf.ndim > 0 and leaf.shape[0] == valid.shape[0])
        elif leaf.ndim == 0 or leaf.shape[0] != valid.shape[0]:
            raise ValueError(
                f"{owner}: Number of boxes (or keypoints) and of rows must match: a leaf of shape {list(leaf.shape)} "
                f"does not have one row per {self._kind.__name__} row ({valid.shape[0]})"
            )
        if is_pure_tensor(leaf):
            return _rows(leaf, valid)
        index = sample_index_of(leaf)
        metadata = {} if index is None else {"sample_index": index[valid]}
        return wrap(_rows(unwrap(leaf), valid), like=leaf, **metadata)


def _one_row_each(leaf: torch.Tensor, valid: torch.Tensor) -> bool:
    """Whether ``leaf`` has one row per entry of ``valid`` (torchvision's test: whether ``leaf[valid]`` indexes).

    Traced, a row count may be unbacked (boxes filtered earlier in the same graph): a comparison that cannot be
    decided counts as a match, as before, and ``_filter``'s ``torch._check`` tells the compiler so."""
    if leaf.ndim == 0:
        return False
    if is_tracing():
        return guard_or_true(leaf.shape[0] == valid.shape[0])
    return leaf.shape[0] == valid.shape[0]


def _rows(rows: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """``rows[valid]``. In eager it is an ``index_select`` of the kept rows: boolean indexing of large masks scans
    every element, the index_select copies whole rows (the same rows, a copy either way). Traced code keeps the
    boolean index, whose unbacked output size is what keeps the pipeline one graph."""
    if is_tracing() or valid.ndim != 1:
        return rows[valid]
    return rows.index_select(0, valid.nonzero().squeeze(1))


class SanitizeBoundingBoxes(_Sanitize):
    """Drop boxes smaller than ``min_size`` (either side) or ``min_area``, or with a corner off the canvas, and the
    masks and labels of the same rows (labels found by ``labels_getter``, torchvision's rules).

    As in torchvision, a mask (or another BoundingBoxes) whose leading dimension is not the number of boxes, such as
    a semantic ``Mask[H, W]``, passes through unchanged; one whose leading dimension happens to equal it is filtered
    by rows (torchvision's rule too: the shape alone tells them apart). Labels of another length are an error.

    ``min_size`` and ``min_area`` must be at least 1, as in torchvision. It does not script (see the module
    docstring)."""

    _kind = BoundingBoxes
    _also = (Mask,)
    _other_lengths_pass = True

    def __init__(self, min_size: float = 1.0, min_area: float = 1.0, labels_getter: LabelsGetter = "default") -> None:
        for name, value in (("min_size", min_size), ("min_area", min_area)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 1:
                raise ValueError(f"SanitizeBoundingBoxes: {name} must be >= 1 (a number), got {value!r}")
        super().__init__(labels_getter)
        self.min_size = float(min_size)
        self.min_area = float(min_area)

    @torch.jit.unused
    def _valid(self, leaf: torch.Tensor) -> torch.Tensor:
        return sanitize_bounding_boxes_mask(
            unwrap(leaf), box_format_from(leaf.format), get_canvas_size(leaf), self.min_size, self.min_area
        )

    def extra_repr(self) -> str:
        return f"min_size={self.min_size}, min_area={self.min_area}, labels_getter={self.labels_getter}"


class SanitizeKeyPoints(_Sanitize):
    """Drop keypoint rows with a point off the canvas, and the labels of the same rows (``labels_getter``: None by
    default, as in torchvision). It does not script (see the module docstring)."""

    _kind = KeyPoints

    def __init__(self, labels_getter: LabelsGetter = None) -> None:
        super().__init__(labels_getter)

    @torch.jit.unused
    def _valid(self, leaf: torch.Tensor) -> torch.Tensor:
        return sanitize_keypoints_mask(unwrap(leaf), get_canvas_size(leaf))

    def extra_repr(self) -> str:
        return f"labels_getter={self.labels_getter}"

