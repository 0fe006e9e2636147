"""``compile(pipeline)`` / ``Transform.compile()``: torch.compile with far fewer guards on the transforms.

Dynamo guards everything the trace read: on a jitvision pipeline that is mostly the transforms' own attributes
(sizes, probabilities, fills, ``_native_spec`` entries, hook dicts, which methods the classes define, ...): ~400
of the guard nodes of a timm-style training pipeline, all checked before every call (docs/design/compile.md has
the counts).

Here a ``guard_filter_fn`` drops the guards on attributes of jitvision transforms, and correctness rests on one
guard per transform instead: ``Transform._guard_token``, an int that ``Transform.__setattr__`` replaces by a new
process-wide unique value on every attribute assignment (and ``__setstate__`` on copy/unpickle), and that the
traced code reads in a Python branch (``Transform._read_guard_tokens``), so dynamo guards it with an
EQUALS_MATCH. Tokens are unique per instance and per state: another pipeline (sharing ``Compose.forward``'s code
object), a replaced step or a reassigned parameter all fail that guard and recompile.

Kept (see ``_keep``): every guard not rooted in the compiled frame's ``self`` (the inputs: tensor metadata, the
sample's structure and tv_tensor types; globals; global state), and under ``self``: the tokens; tensors held by
transforms (graph inputs: TENSOR_MATCH, aliasing); module hook dicts; the ``_modules`` dicts' keys (steps
added/removed from a ModuleList); anything reached through a list/dict/set (mutated in place, no ``__setattr__``)
or owned by a module that is not a jitvision Transform (no token). Dropped: constants, types and class-level
lookups (method overrides, ``__dict__`` absence checks) on jitvision transforms' attributes.

The default backend (``backend``): a graph in which every tensor is made by a jitvision kernel or is a view of
one (the fused uint8 pipelines: ``random_resized_crop``, ``augment_random_u8``, ``to_float_u8``) runs as traced.
Inductor would emit the same kernel calls and add its and AOTAutograd's runtime wrappers to each call: more than
what compiling saves over eager on those pipelines. Any other graph goes to inductor.

Not covered (documented in docs/design/compile.md): a monkeypatched jitvision class or function after the first
call, writes that bypass ``__setattr__`` (``t.__dict__[k] = v``, ``object.__setattr__``), and in-place changes of
non-container objects held by a transform that the trace read through attributes of a non-module object.
"""

import inspect
import operator
import re
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Set

import torch
from torch import fx, nn

# The attribute ``Transform.__setattr__`` keeps a transform's token under (``_transform`` imports this module for
# ``Transform.compile``, so a transform is recognised here by its token, not by its class).
GUARD_TOKEN = "_guard_token"


def _is_transform(value: Any) -> bool:
    return isinstance(value, nn.Module) and GUARD_TOKEN in value.__dict__

_KEEP_TYPES = frozenset(
    {
        "TENSOR_MATCH",
        "NO_TENSOR_ALIASING",
        "DUPLICATE_INPUT",
        "TENSOR_SUBCLASS_METADATA_MATCH",
        "DICT_KEYS_MATCH",
        "SHAPE_ENV",
    }
)
# Identity checks on code: dropped on globals when the object is the libraries' own (``_library_code``).
_CODE_TYPES = frozenset(
    {"MODULE_MATCH", "CLOSURE_MATCH", "BUILTIN_MATCH", "CLASS_MATCH", "ID_MATCH", "DUPLICATE_INPUT"}
)
_LIBRARIES = frozenset({"torch", "jitvision", "builtins", "PIL"})
_HOOKS = re.compile(r"\._\w*hooks\w*$")
_MUTABLE = (list, dict, set, bytearray)
_MODULE_DICTS = ("._modules", "._parameters", "._buffers")


def _name(source: Any) -> str:
    name = source.name
    return name() if callable(name) else name


def _chain(source: Any) -> List[Any]:
    chain = []
    while source is not None:
        chain.append(source)
        source = getattr(source, "base", None)
    return chain


def _library_code(value: Any) -> bool:
    """A module, function, builtin, class or op packet of torch, jitvision, PIL or the builtins: code, whose
    identity changes only by monkeypatching."""
    if isinstance(value, types.ModuleType):
        owner = value.__name__
    elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)) or type(value).__module__ in (
        "torch._ops",
    ):
        owner = getattr(value, "__module__", None) or ""
    else:
        return False
    return owner.split(".")[0] in _LIBRARIES


def _keep(entry: Any, values: Dict[str, Any], tokened: Set[str]) -> bool:
    """Whether to keep one guard (see the module docstring). Anything not understood is kept."""
    source = getattr(entry.orig_guard, "originating_source", None)
    if entry.is_global:
        return not (entry.guard_type in _CODE_TYPES and entry.has_value and _library_code(entry.value))
    if source is None:
        return True
    chain = _chain(source)
    root = chain[-1]
    if type(root).__name__ != "LocalSource" or getattr(root, "local_name", None) != "self":
        return True  # the inputs, and everything else not on the compiled module
    name = entry.name
    if name.endswith("." + GUARD_TOKEN) or entry.guard_type in _KEEP_TYPES:
        return True
    if entry.has_value and isinstance(entry.value, torch.Tensor):
        return True
    if _HOOKS.search(name) or name.endswith("._modules") or "._modules))" in name:
        return True
    owner = None
    for position, link in enumerate(chain):
        if type(link).__name__ == "UnspecializedNNModuleSource":
            owner = position
            break
    if owner is None:
        return True
    owner_name = _name(chain[owner])
    if not _is_transform(values.get(owner_name, None)) or owner_name not in tokened:
        return True  # a ModuleList, a user's nn.Module, a transform whose token the trace did not read
    between = chain[:owner]
    if any(type(link).__name__ in ("TypeSource", "TypeMROSource", "TypeDictSource") for link in between):
        return False  # class-level lookups on a transform's class: code, not state
    for link in between:
        link_name = _name(link)
        if link_name.endswith(_MODULE_DICTS):
            continue
        if link_name not in values:
            if "Item" in type(link).__name__:
                return True  # an item of something whose type the guards do not tell: keep
            continue
        if isinstance(values[link_name], _MUTABLE):
            return True  # in-place mutation of a list/dict does not bump the token
    return False


def guard_filter(entries: Sequence[Any]) -> List[bool]:
    """The ``guard_filter_fn`` of ``compile``: which of dynamo's guards to keep (see the module docstring)."""
    values: Dict[str, Any] = {}
    tokened: Set[str] = set()
    for entry in entries:
        if entry.has_value:
            values[entry.orig_guard.name] = entry.value
        source = getattr(entry.orig_guard, "originating_source", None)
        if entry.name.endswith("." + GUARD_TOKEN) and getattr(source, "base", None) is not None:
            tokened.add(_name(source.base))
    return [_keep(entry, values, tokened) for entry in entries]


# What a graph may hold and still run as traced (``_kernels_only``): our kernels, and views.
_KERNEL_NAMESPACES = frozenset({"jitvision_native", "jitvision"})
_VIEW_METHODS = frozenset(
    {"unsqueeze", "squeeze", "view", "permute", "transpose", "expand", "narrow", "select", "unflatten", "as_subclass"}
)
_VIEW_OPS = frozenset(
    {"aten::unsqueeze", "aten::squeeze", "aten::view", "aten::permute", "aten::transpose", "aten::expand"}
)


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(item) for item in value)
    return isinstance(value, torch.Tensor)


def _op_name(target: Any) -> str:
    name = getattr(target, "_qualified_op_name", None)  # an OpOverloadPacket
    if name is None and isinstance(target, torch._ops.OpOverload):
        name = target._schema.name
    return name or ""


def _basic_index(index: Any) -> bool:
    """An index that makes a view: ints, slices, None and Ellipsis (no tensor, no list)."""
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, fx.Node):  # a SymInt is an index; a tensor is gather
            if _holds_tensor(item.meta.get("example_value")):
                return False
        elif not (item is None or item is Ellipsis or isinstance(item, (int, slice))):
            return False
    return True


def _free(node: fx.Node) -> bool:
    """Whether ``node`` makes no tensor, or one that inductor could not make better: a jitvision kernel's output
    (inductor calls the same kernel), an item of its tuple, or a view."""
    if node.op in ("placeholder", "output", "get_attr") or not _holds_tensor(node.meta.get("example_value")):
        return True  # inputs, and size arithmetic on SymInts
    if node.op == "call_method":
        return node.target in _VIEW_METHODS
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        source = node.args[0]
        if isinstance(source, fx.Node) and isinstance(source.meta.get("example_value"), (tuple, list)):
            return True
        return _basic_index(node.args[1])
    name = _op_name(node.target)
    return name.split("::")[0] in _KERNEL_NAMESPACES or name in _VIEW_OPS


def _kernels_only(graph_module: fx.GraphModule) -> bool:
    return all(_free(node) for node in graph_module.graph.nodes)


def backend(graph_module: fx.GraphModule, example_inputs: List[Any], options: Optional[Dict[str, Any]] = None) -> Any:
    """``compile``'s default backend: inductor (``compile_fx``, with ``options`` as its config patches), except for a
    graph in which every tensor comes from a jitvision kernel or is a view. Inductor would compile such a graph to
    the same kernel calls, wrapped in its and AOTAutograd's runtime layers (a cost on every call, larger than
    what compiling saves on such a graph: docs/design/compile.md), so that graph runs as traced, as the ``eager``
    backend runs it."""
    if _kernels_only(graph_module):
        return graph_module.forward
    from torch._inductor.compile_fx import compile_fx

    return compile_fx(graph_module, example_inputs, config_patches=dict(options or {}))


# torch.compile's isolate_recompiles (a cache of the call's own) is missing in older torch (2.11); there every call
# shares dynamo's cache, which changes no result.
_TAKES_ISOLATE_RECOMPILES = "isolate_recompiles" in inspect.signature(torch.compile).parameters


def _with_filter(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    kwargs = dict(kwargs)
    options = dict(kwargs.pop("options", None) or {})
    mode = kwargs.pop("mode", None)
    if mode is not None:
        # torch.compile takes mode or options, not both, and the guard filter travels in options: the mode becomes
        # the inductor options it stands for (e.g. "reduce-overhead": CUDA graphs), the caller's options on top.
        from torch._inductor import list_mode_options

        try:
            options = {**list_mode_options(mode, kwargs.get("dynamic")), **options}
        except RuntimeError as error:
            raise ValueError(f"compile: unknown mode {mode!r} ({error})") from error
    user: Optional[Callable[[Sequence[Any]], Sequence[bool]]] = options.get("guard_filter_fn")

    def combined(entries: Sequence[Any]) -> List[bool]:
        ours = guard_filter(entries)
        if user is None:
            return ours
        return [a and bool(b) for a, b in zip(ours, user(entries))]

    options["guard_filter_fn"] = combined
    kwargs["options"] = options
    if _TAKES_ISOLATE_RECOMPILES:
        kwargs.setdefault("isolate_recompiles", True)
    if kwargs.get("backend") is None:
        kwargs["backend"] = backend
    return kwargs


def compile(transform: nn.Module, **kwargs: Any) -> Callable[..., Any]:  # noqa: A001 (the documented name)
    """``transform``'s call compiled by ``torch.compile(**kwargs)`` with jitvision's guard filter: the compiled call
    checks the inputs, global state and one token per transform instead of every attribute the trace read (same
    graph, same results; a changed transform still recompiles).

    Returns ``torch.compile(transform.__call__, ...)``, a function (call it as the transform: ``f(image)``,
    ``f(image, boxes)``): ``torch.compile(module)``'s wrapper module adds a Python layer to every call. To keep the
    module, compile it in place: ``transform.compile(...)`` (same filter). ``isolate_recompiles=True`` unless given:
    this call's cache entries are its own. ``backend=`` defaults to ``backend`` here (inductor, except for graphs made
    only of jitvision kernels and views, which run as traced); ``backend="inductor"`` forces inductor. ``options=``
    is passed on to inductor (a ``guard_filter_fn`` in it is combined with ours: a guard is kept only if both keep
    it); ``mode=`` ("reduce-overhead" for CUDA graphs, "max-autotune", ...) becomes the inductor options it stands
    for, under ``options=``."""
    if not isinstance(transform, nn.Module):
        raise TypeError(f"compile: expected a jitvision Transform (an nn.Module), got {type(transform).__name__}")
    return torch.compile(transform.__call__, **_with_filter(kwargs))
