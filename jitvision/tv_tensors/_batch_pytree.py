"""Ragged batch tv_tensors as pytree nodes, so that ``torch.export`` sees their ``sample_index`` as an input.

Why: a ragged batch leaf (``BatchedBoundingBoxes``, ``BatchedKeyPoints``, ``BatchedMasks``) keeps ``sample_index``
(a tensor) as metadata. Strict ``torch.export`` (torch 2.14, ``torch/_dynamo/functional_export.py``) makes graph
inputs of the flattened user inputs only: a tensor read from an attribute of an input (an ``AttrSource``, not a
``GetItemSource``) is turned into a ``_captured_N`` constant holding the FakeTensor seen while tracing, so the
exported program's ``module()`` computed every row-gathered parameter from a fake index and returned FakeTensors
for the boxes and masks (RandomHorizontalFlip, RandomAffine, ...; ``torch.compile`` is not affected: it lifts
``L['x'].sample_index`` as a graph input).

As pytree nodes their children are ``[data, sample_index]`` (the plain data, and the index or None for a dense
``BatchedMasks``) and the rest of the metadata is the node's context, so export's input flattening makes the
index a real graph input (it stays live: another batch with the same number of rows exports nothing new) and the
exported program's output is rebuilt as the batch type. Inside jitvision a sample's tv_tensors stay leaves
(``sample_leaf``: every ``tree_flatten`` of a sample passes it as ``is_leaf``).

Export rebuilds its inputs from FakeTensors between its two stages (``_extract_fake_inputs``); a FakeTensor cannot
take another tensor class, so there the node unflattens to a ``_BatchParts`` placeholder (a pytree node with the
same children), which ``torch.fx``'s flatten-by-spec accepts in place of the batch type.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import torch
from torch.fx import _pytree as fx_pytree
from torch.utils import _pytree as pytree

from ._batched import BatchedBoundingBoxes, BatchedKeyPoints, BatchedMasks
from ._bounding_boxes import BoundingBoxFormat
from ._tv_tensor import TVTensor

RAGGED_TYPES: Tuple[type, ...] = (BatchedBoundingBoxes, BatchedKeyPoints, BatchedMasks)
# The metadata of each type besides sample_index, in the order kept in the node's context.
_CONTEXT_FIELDS = {
    BatchedBoundingBoxes: ("format", "canvas_size", "clamping_mode", "batch_size"),
    BatchedKeyPoints: ("canvas_size", "batch_size"),
    BatchedMasks: ("batch_size",),
}


def sample_leaf(node: Any) -> bool:
    """``is_leaf`` for flattening a sample: every tv_tensor is one leaf (the ragged batch types are pytree nodes
    only for torch.export's input and output flattening)."""
    return isinstance(node, TVTensor)


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    if torch.compiler.is_compiling():
        with torch._C.DisableTorchFunctionSubclass():  # as_subclass on a subclass is rejected by dynamo
            return tensor.view(tensor.shape)
    return tensor.as_subclass(torch.Tensor)


def _flatten(node: Any) -> Tuple[List[Any], Any]:
    cls = type(node)
    # Attribute reads, not ``_metadata()``: dynamo traces this when export flattens the outputs.
    context = tuple(getattr(node, name) for name in _CONTEXT_FIELDS[cls])
    return [_plain(node), node.sample_index], context


_KEYS = (pytree.GetAttrKey("data"), pytree.GetAttrKey("sample_index"))


def _flatten_with_keys(node: Any) -> Tuple[List[Tuple[Any, Any]], Any]:
    children, context = _flatten(node)
    return list(zip(_KEYS, children)), context


class _BatchParts:
    """A ragged batch leaf whose data cannot take the batch type (a FakeTensor while export traces): its children
    and context, flattened as the batch type's node."""

    def __init__(self, cls: type, children: List[Any], context: Any) -> None:
        self.cls, self.children, self.context = cls, children, context

    def __repr__(self) -> str:
        return f"_BatchParts({self.cls.__name__}, {self.context})"


def _make_unflatten(cls: type) -> Any:
    fields = _CONTEXT_FIELDS[cls]

    def unflatten(children: List[Any], context: Any) -> Any:
        data, sample_index = children
        if type(data) is not torch.Tensor:  # a FakeTensor (or another tensor class) cannot take the batch type
            return _BatchParts(cls, list(children), context)
        return cls._wrap(data, sample_index=sample_index, **dict(zip(fields, context)))

    return unflatten


def _flatten_spec(node: Any, spec: pytree.TreeSpec) -> List[Any]:
    if isinstance(node, _BatchParts):
        return list(node.children)
    return _flatten(node)[0]


def _parts_flatten(parts: _BatchParts) -> Tuple[List[Any], Any]:
    return list(parts.children), (parts.cls, parts.context)


def _parts_flatten_with_keys(parts: _BatchParts) -> Tuple[List[Tuple[Any, Any]], Any]:
    children, context = _parts_flatten(parts)
    return list(zip(_KEYS, children)), context


def _parts_unflatten(children: List[Any], context: Any) -> Any:
    cls, inner = context
    return _make_unflatten(cls)(children, inner)


def _dumpable(cls: type) -> Any:
    def to_dumpable(context: Any) -> str:
        import json

        return json.dumps([value.name if isinstance(value, BoundingBoxFormat) else value for value in context])

    def from_dumpable(dumped: str) -> Any:
        import json

        values = json.loads(dumped)
        out: List[Optional[Any]] = []
        for name, value in zip(_CONTEXT_FIELDS[cls], values):
            if name == "format":
                value = BoundingBoxFormat[value]
            elif name == "canvas_size":
                value = tuple(value)
            out.append(value)
        return tuple(out)

    return to_dumpable, from_dumpable


def register() -> None:
    """Register the ragged batch types (idempotent)."""
    for cls in RAGGED_TYPES:
        if cls in pytree.SUPPORTED_NODES:
            continue
        to_dumpable, from_dumpable = _dumpable(cls)
        pytree.register_pytree_node(
            cls,
            _flatten,
            _make_unflatten(cls),
            serialized_type_name=f"jitvision.tv_tensors.{cls.__name__}",
            to_dumpable_context=to_dumpable,
            from_dumpable_context=from_dumpable,
            flatten_with_keys_fn=_flatten_with_keys,
        )
        fx_pytree.register_pytree_flatten_spec(cls, _flatten_spec)
    if _BatchParts not in pytree.SUPPORTED_NODES:
        pytree.register_pytree_node(
            _BatchParts, _parts_flatten, _parts_unflatten, flatten_with_keys_fn=_parts_flatten_with_keys
        )
