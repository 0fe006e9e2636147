"""RandomApply, RandomChoice and RandomOrder: a random choice among transforms, live in one graph.

The draw is a tensor (a coin, an index, a permutation; ``[B, ...]`` per sample on batches) and every choice goes
through ``_random.switch``: a Python branch in eager code (only the chosen transforms run), a ``torch.cond`` tree
under torch.compile/export for a plain tensor (a per-leaf select when the sample holds tv_tensors or nested
containers: every candidate runs, so they must give the same shapes), rows grouped by choice on an eager batch and a
per-row select on a traced one. TorchScript (plain tensors) branches on the drawn values over the ``ModuleList``.
RandomOrder under torch.compile/export computes the orders as a tree of prefixes whose states of the same layout
merge (``_traced_orders``), so steps that change the shape (a Pad) trace when every order ends in the same shapes.

The classes script when their transforms do (unlike torchvision's RandomChoice/RandomOrder). Batches: a dense batch
(``BatchedImages``/``BatchedVideos`` or ``forward_batch``) draws per sample; other batch samples (detection
batches) are split into samples and put back together in eager code, and raise under torch.compile/export.
"""

import functools
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Union

import torch
from torch import nn
from torch.fx.experimental.symbolic_shapes import statically_known_true
from torch.utils import _pytree as pytree

from ..tv_tensors import BatchedImages, BatchedVideos, batch_samples, unbatch_samples, wrap
from ..tv_tensors._batch_pytree import sample_leaf
from ._batch import is_batch_leaf
from ._container import _PythonStep
from ._random import draw_coins, switch, uniform, where_rows
from ._transform import Transform
from .functional._dispatch import device_copy, is_pure_tensor, is_tracing, unwrap


@torch.jit.unused
def _steps(transforms: Any, owner: str) -> nn.ModuleList:
    if isinstance(transforms, nn.ModuleList):
        transforms = list(transforms)
    if not isinstance(transforms, Sequence) or isinstance(transforms, str):
        raise TypeError(f"{owner}: Argument transforms should be a sequence of callables (or an nn.ModuleList)")
    if not transforms:
        raise ValueError(f"{owner}: pass at least one transform")
    steps: List[nn.Module] = []
    for position, transform in enumerate(transforms):
        if not callable(transform):
            raise TypeError(f"{owner}: transform {position} is not callable: {transform!r}")
        steps.append(transform if isinstance(transform, nn.Module) else _PythonStep(transform, position))
    return nn.ModuleList(steps)


@torch.jit.unused
def _run_batch(transform: Any, images: torch.Tensor) -> torch.Tensor:
    """A transform on a plain ``[B, ...]`` batch, per-sample draws where it has ``forward_batch``."""
    forward_batch = getattr(transform, "forward_batch", None)
    return forward_batch(images) if forward_batch is not None else transform(images)


class _OrderState:
    """RandomOrder's traced form (``_traced_orders``): the sample after the drawn order's first steps, given that
    the drawn prefix is one of the prefixes this state stands for, which ``condition`` states as a tensor (None:
    always). ``used`` holds the sets of steps those prefixes applied (what tells which steps may come next)."""

    def __init__(self, used: Set[FrozenSet[int]], condition: Optional[torch.Tensor], value: Any) -> None:
        self.used = used
        self.condition = condition
        self.value = value


@torch.jit.unused
def _layout(sample: Any) -> List[Any]:
    """What must agree between two results for a select to merge them: the nesting, and per tensor leaf its type,
    dtype, shape and canvas size (the leaves' values may differ)."""
    leaves, spec = pytree.tree_flatten(sample, is_leaf=sample_leaf)
    layout: List[Any] = [spec]
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            canvas = getattr(leaf, "canvas_size", None)
            layout.append((type(leaf), leaf.dtype, list(leaf.shape), None if canvas is None else list(canvas)))
        else:
            layout.append(None)
    return layout


@torch.jit.unused
def _known_same(a: Any, b: Any) -> bool:
    """``a == b`` for layouts, sizes compared without a guard: symbolic sizes only when provably equal (a padded
    width ``s0 + 4`` is never ``s0``; two drawn sizes are not known to be equal)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_known_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, torch.SymInt)) and isinstance(b, (int, torch.SymInt)):
        return statically_known_true(a == b)
    return a == b


@torch.jit.unused
def _merge_layouts(candidates: List[_OrderState]) -> List[_OrderState]:
    """The candidates grouped by layout, each group one state: its values selected row by row by the candidates'
    conditions (exactly one holds per row), its condition their union."""
    groups: List[List[_OrderState]] = []
    layouts: List[List[Any]] = []
    for candidate in candidates:
        layout = _layout(candidate.value)
        for index, known in enumerate(layouts):
            if _known_same(layout, known):
                groups[index].append(candidate)
                break
        else:
            groups.append([candidate])
            layouts.append(layout)
    merged: List[_OrderState] = []
    for group in groups:
        used = {steps for member in group for steps in member.used}
        if len(groups) == 1:
            condition: Optional[torch.Tensor] = None  # every drawn order ends up here
        else:
            condition = functools.reduce(torch.logical_or, [member.condition for member in group])

        def pick(*leaves: Any, members: List[_OrderState] = group) -> Any:
            out = leaves[0]
            if not isinstance(out, torch.Tensor):
                return out
            for member, leaf in zip(members[1:], leaves[1:]):
                out = where_rows(member.condition, leaf, out)
            return out

        values = [member.value for member in group]
        merged.append(_OrderState(used, condition, pytree.tree_map(pick, *values, is_leaf=sample_leaf)))
    return merged


@torch.jit.unused
def _describe_layout(sample: Any) -> str:
    leaves = pytree.tree_leaves(sample, is_leaf=sample_leaf)
    return "shapes " + ", ".join(str(list(leaf.shape)) for leaf in leaves if isinstance(leaf, torch.Tensor))


class _Unpacked(tuple):
    """The inputs of a container called with several arguments (``container(image, label)``): as torchvision's
    containers do, each step is called with them unpacked (``step(image, label)``) and its output tuple is what the
    next step gets unpacked; one packed argument (``container((image, label))``) is passed on packed."""


class _RandomContainer(Transform):
    """The sample handling the three share; subclasses implement ``_draw`` and ``_choose`` (Python) and
    ``_script_choose`` (TorchScript, plain tensors)."""

    _holds_steps = True  # runs the transforms in .transforms (read by _pil_path, which cannot import this module)

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) > 1:
            out = super().__call__(_Unpacked(inputs))
            return tuple(out) if isinstance(out, _Unpacked) else out
        return super().__call__(*inputs)

    def forward(self, inpt: torch.Tensor) -> torch.Tensor:
        if torch.jit.is_scripting():
            return self._script_choose(inpt, self._draw([], 0, 0, inpt.device), False)
        return self._run_sample(inpt)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting():
            return self._script_choose(inpt, params, False)
        return self._choose(inpt, params, False)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting():
            return self._script_choose(inpt, params, True)
        return self._choose(inpt, params, True)

    def _script_choose(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor], batch: bool) -> torch.Tensor:
        raise NotImplementedError(type(self).__name__)

    @torch.jit.unused
    def _choose(self, sample: Any, params: Dict[str, torch.Tensor], batch: bool) -> Any:
        raise NotImplementedError(type(self).__name__)

    def _script_pick(self, inpt: torch.Tensor, index: torch.Tensor, batch: bool) -> torch.Tensor:
        """TorchScript's form of ``switch``: transform number ``index`` on one sample, or on a batch each row
        through transform ``index[row]`` (the rows grouped by transform, each group one call)."""
        if not batch:
            chosen = int(index)
            out = inpt
            for position, transform in enumerate(self.transforms):
                if position == chosen:
                    out = transform(inpt)
            return out
        out: Optional[torch.Tensor] = None
        for position, transform in enumerate(self.transforms):
            rows = (index == position).nonzero().squeeze(1)
            if rows.numel() > 0:
                part = inpt.index_select(0, rows)
                if hasattr(transform, "forward_batch"):
                    part = transform.forward_batch(part)
                else:
                    part = transform(part)
                if out is None:
                    out = part.new_empty([index.shape[0]] + part.shape[1:])
                out = out.index_copy(0, rows, part)
        assert out is not None
        return out

    @torch.jit.unused
    def _call(self, index: int, sample: Any, batch: bool) -> Any:
        """Transform ``index`` on one sample, or on a plain batch tensor with per-sample draws."""
        transform = self.transforms[index]
        if isinstance(sample, _Unpacked):
            out = transform(*sample)
            return _Unpacked(out) if isinstance(out, tuple) else out
        return _run_batch(transform, sample) if batch else transform(sample)

    @torch.jit.unused
    def _switch(self, index: torch.Tensor, keys: List[int], branch: Callable[[int, Any], Any], sample: Any,
                batch: bool) -> Any:
        """``switch`` over the transforms, with shapes checked where the traced graph selects among them.

        One plain tensor under torch.compile/export goes through a ``torch.cond`` tree, whose branches may end in
        different shapes (the output's size is then a symbol of the graph, so ``RandomApply([Pad(4)])`` traces).
        A sample of tv_tensors, a nested sample or a batch instead computes every choice and selects the drawn
        one: that needs the choices to give outputs of one layout (shapes, dtypes, canvas sizes), else no graph
        gives the drawn output, and this says so naming the class rather than failing inside the select."""
        if not is_tracing() or (not batch and isinstance(sample, torch.Tensor) and is_pure_tensor(sample)):
            return switch(index, keys, branch, (sample,), owner=type(self).__name__)
        candidates = [_OrderState({frozenset([key])}, index == key, branch(key, sample)) for key in keys]
        states = _merge_layouts(candidates)
        if len(states) > 1:
            layouts = "; ".join(_describe_layout(state.value) for state in states)
            rows = "the rows of a batch" if batch else "a sample of tv_tensors (or a nested sample)"
            raise ValueError(
                f"{type(self).__name__}: under torch.compile/torch.export every choice must give outputs of the same "
                f"shapes (and canvas sizes) for {rows}, because the traced graph computes the choices and selects "
                f"the drawn one; these choices end in {layouts}. Eager and TorchScript run only the drawn choice; "
                "a single plain tensor traces with a size that depends on the draw"
            )
        return states[0].value

    @torch.jit.unused
    def _run_sample(self, sample: Any) -> Any:
        self._read_guard_tokens()
        owner = type(self).__name__
        leaves = [leaf for leaf in pytree.tree_leaves(sample, is_leaf=sample_leaf) if isinstance(leaf, torch.Tensor)]
        device = leaves[0].device if leaves else torch.device("cpu")
        if not any(is_batch_leaf(leaf) for leaf in leaves):
            return self._choose(sample, self._draw([], 0, 0, device), False)
        if isinstance(sample, (BatchedImages, BatchedVideos)):
            params = self._draw([sample.shape[0]], 0, 0, device)
            return wrap(self._choose(unwrap(sample), params, True), like=sample)
        if is_tracing():
            raise ValueError(
                f"{owner}: a batch sample other than BatchedImages/BatchedVideos has no per-sample form under "
                "torch.compile/export; pass the images as BatchedImages, or use forward_batch"
            )
        samples = unbatch_samples(sample)
        return batch_samples([self._choose(one, self._draw([], 0, 0, device), False) for one in samples])

    def extra_repr(self) -> str:
        return ""


class RandomApply(_RandomContainer):
    """Apply ``transforms`` in order with probability ``p`` (one coin for all of them), torchvision's arguments."""

    def __init__(self, transforms: Union[Sequence[Callable[..., Any]], nn.ModuleList], p: float = 0.5) -> None:
        super().__init__()
        self.transforms = _steps(transforms, "RandomApply")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(
                f"RandomApply: p should be a probability, a floating point value in the interval [0.0, 1.0], got {p!r}"
            )
        self.p = float(p)

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"apply": draw_coins(self.p, batch_shape, self._rng(), device)}

    @torch.jit.unused
    def _choose(self, sample: Any, params: Dict[str, torch.Tensor], batch: bool) -> Any:
        def branch(key: int, x: Any) -> Any:
            if key == 0:
                return x
            for index in range(len(self.transforms)):
                x = self._call(index, x, batch)
            return x

        return self._switch(params["apply"].to(torch.int64), [0, 1], branch, sample, batch)

    def _script_choose(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor], batch: bool) -> torch.Tensor:
        apply = params["apply"]
        if not batch:
            if bool(apply):
                for transform in self.transforms:
                    inpt = transform(inpt)
            return inpt
        rows = apply.nonzero().squeeze(1)
        if rows.numel() == 0:
            return inpt
        part = inpt.index_select(0, rows)
        for transform in self.transforms:
            if hasattr(transform, "forward_batch"):
                part = transform.forward_batch(part)
            else:
                part = transform(part)
        return inpt.index_copy(0, rows, part)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class RandomChoice(_RandomContainer):
    """Apply one of ``transforms``, picked with probabilities ``p`` (normalised; uniform when None), torchvision's
    arguments. Unlike torchvision's, it scripts."""

    def __init__(self, transforms: Sequence[Callable[..., Any]], p: Optional[List[float]] = None) -> None:
        super().__init__()
        self.transforms = _steps(transforms, "RandomChoice")
        if p is None:
            p = [1.0] * len(self.transforms)
        elif not isinstance(p, Sequence) or len(p) != len(self.transforms):
            count = len(self.transforms)
            raise ValueError(
                f"RandomChoice: Length of p doesn't match the number of transforms: one probability per transform "
                f"({count}), got {p!r}"
            )
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 for v in p) or sum(p) <= 0:
            raise ValueError(f"RandomChoice: p must hold non-negative numbers with a positive sum, got {p!r}")
        total = float(sum(p))
        self.p = [float(v) / total for v in p]
        self._cumulative = torch.tensor(self.p, dtype=torch.float64).cumsum(0)[:-1].to(torch.float32)

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        u = uniform(batch_shape + [1], self._rng(), device)
        return {"index": (u >= device_copy(self._cumulative, device)).sum(dim=-1)}

    @torch.jit.unused
    def _choose(self, sample: Any, params: Dict[str, torch.Tensor], batch: bool) -> Any:
        keys = [i for i, p in enumerate(self.p) if p > 0]
        return self._switch(params["index"], keys, lambda key, x: self._call(key, x, batch), sample, batch)

    def _script_choose(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor], batch: bool) -> torch.Tensor:
        return self._script_pick(inpt, params["index"], batch)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class RandomOrder(_RandomContainer):
    """Apply all ``transforms`` in a random order (a permutation drawn per call, per sample on batches),
    torchvision's arguments. Unlike torchvision's, it scripts."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        super().__init__()
        self.transforms = _steps(transforms, "RandomOrder")

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"order": uniform(batch_shape + [len(self.transforms)], self._rng(), device).argsort(dim=-1)}

    @torch.jit.unused
    def _choose(self, sample: Any, params: Dict[str, torch.Tensor], batch: bool) -> Any:
        order = params["order"]
        if is_tracing():
            return self._traced_orders(sample, order, batch)
        if batch:
            return self._batch_orders(sample, order)
        keys = list(range(len(self.transforms)))
        for position in range(len(keys)):
            step = lambda key, x: self._call(key, x, batch)  # noqa: E731
            sample = switch(order[..., position], keys, step, (sample,), False, type(self).__name__)
        return sample

    @torch.jit.unused
    def _traced_orders(self, sample: Any, order: torch.Tensor, batch: bool) -> Any:
        """Every order computed as a tree of prefixes, states of the same layout merged by a select.

        A state stands for the sample after the drawn order's first ``position`` steps, given that the drawn prefix
        is one of those it stands for; ``condition`` (None: always) says so as a tensor (``[]``, or ``[B]`` per
        row). Each state goes through every step that one of its prefixes has not applied yet; the results of one
        layout (shapes, dtypes, canvas sizes) merge into one state, each row keeping its own. With shape-preserving
        steps every position merges into one state (n * n applications); a shape-changing step keeps its results
        apart until the shapes meet again (RandomOrder([Pad, Flip]): 4 applications). Orders that end in different
        layouts have no single traced output.

        A select, not torch.cond: the same transform inside the branches of consecutive conds failed to trace under
        dynamic shapes (dynamo: "lift_tracked_freevar_to_input should not be called on root SubgraphTracer")."""
        count = len(self.transforms)
        states: List[_OrderState] = [_OrderState({frozenset()}, None, sample)]
        for position in range(count):
            drawn = order[..., position]
            candidates: List[_OrderState] = []
            for state in states:
                for key in range(count):
                    used = {steps | {key} for steps in state.used if key not in steps}
                    if not used:
                        continue
                    condition = drawn == key
                    if state.condition is not None:
                        condition = condition & state.condition
                    candidates.append(_OrderState(used, condition, self._call(key, state.value, batch)))
            states = _merge_layouts(candidates)
        if len(states) > 1:
            layouts = "; ".join(_describe_layout(state.value) for state in states)
            raise ValueError(
                "RandomOrder: under torch.compile/torch.export every order of the transforms must give outputs of "
                "the same shapes (and canvas sizes), because the traced graph computes the orders and selects the "
                f"drawn one; these orders end in {layouts}. Eager and TorchScript run only the drawn order"
            )
        return states[0].value

    def _script_choose(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor], batch: bool) -> torch.Tensor:
        order = params["order"]
        if batch:
            return self._batch_orders(inpt, order)
        for position in range(order.shape[-1]):
            inpt = self._script_pick(inpt, order[..., position], False)
        return inpt

    def _batch_orders(self, images: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
        """A plain batch, each row in its own order ``order[row]`` (eager and TorchScript): position by position, the
        rows of each state that draw the same step run through it as one group (in row order, as a per-position
        grouping would). Groups whose results have the same shape merge into one state, so steps that change the
        shape (a Pad) work as long as every order ends in the same shape."""
        rows_total = images.shape[0]
        members: List[torch.Tensor] = [torch.ones([rows_total], dtype=torch.bool, device=images.device)]
        values: List[torch.Tensor] = [images]
        for position in range(order.shape[-1]):
            drawn = order[:, position]
            next_members: List[torch.Tensor] = []
            next_values: List[torch.Tensor] = []
            for state in range(len(values)):
                for key, transform in enumerate(self.transforms):
                    chosen = members[state] & (drawn == key)
                    rows = chosen.nonzero().squeeze(1)
                    if rows.numel() > 0:
                        part = values[state].index_select(0, rows)
                        if hasattr(transform, "forward_batch"):
                            part = transform.forward_batch(part)
                        else:
                            part = transform(part)
                        target = -1
                        for index in range(len(next_values)):
                            known = next_values[index]
                            if known.shape[1:] == part.shape[1:] and known.dtype == part.dtype:
                                target = index
                        if target < 0:
                            next_values.append(part.new_empty([rows_total] + list(part.shape[1:])))
                            next_members.append(torch.zeros_like(chosen))
                            target = len(next_values) - 1
                        next_values[target].index_copy_(0, rows, part)
                        next_members[target] = next_members[target] | chosen
            members, values = next_members, next_values
        if len(values) > 1:
            shapes = [str(value.shape[1:]) for value in values]
            raise ValueError(
                "RandomOrder: the orders drawn for the rows of a batch give different shapes (" + ", ".join(shapes)
                + "), which one batch cannot hold"
            )
        return values[0]
