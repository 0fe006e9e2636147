"""The checks of one case (an op on one input kind) in each mode.

Every check seeds torch's RNG before each call it compares, so a random op is compared with eager under the
same seed: the traced, scripted and exported paths must draw the same parameters as eager.
"""

import contextlib
import enum
import inspect
import io
import itertools
import linecache
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
import torch._dynamo
import torch._dynamo.testing

from .cases import DENSE_KINDS, FIXED_SIZE, LABELLED_KINDS, OTHER_SIZES, PLAIN_KINDS, NotApplicable, make_input
from .oracle import refusal_cell
from .outcome import (
    MODE_CELLS,
    NA,
    PASS,
    SKIP,
    Cell,
    clear_recompiles,
    compare,
    failed,
    fingerprint,
    last_recompile,
    one_line,
    passed,
)
from .targets import Entry, Target

SEED = 0
CALLS = 12  # calls on one input at the fixed shape (randomness), then FRESH_CALLS on new inputs of that shape
FRESH_CALLS = 4
# Export with dynamic H/W: inputs from MIN_SIDE pixels (larger than every output size in the cases table).
MIN_SIDE, MAX_SIDE = 32, 1024



class _Bound(torch.nn.Module):
    """``fn(x, **kwargs)`` as a module (to export a functional, or a callable that is not a module)."""

    def __init__(self, fn: Callable[..., Any], kwargs: Dict[str, Any]) -> None:
        super().__init__()
        self.fn = fn
        self.kwargs = kwargs

    def forward(self, x: Any) -> Any:
        return self.fn(x, **self.kwargs)


def _call_forward_batch(x: Any, transform: Any) -> Any:
    return transform.forward_batch(x)


def _call_mix(loaded: Any) -> Callable[[Any], Any]:
    """A scripted MixUp/CutMix is called as in Python, with the batch and the labels as two arguments."""

    def call(x: Any) -> Any:
        return loaded(*x)

    return call


_SOURCES = itertools.count()


def _literal(value: Any, names: Dict[str, Any]) -> str:
    """``value`` as TorchScript source; enum members are written ``Class.MEMBER`` with the class put in ``names``."""
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, enum.Enum):
        names[type(value).__name__] = type(value)
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v, names) for v in value) + "]"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, torch.Tensor) and value.numel() > 0 and bool((value == value.flatten()[0]).all()):
        # a constant tensor (e.g. elastic's displacement): torch.full
        return f"torch.full({list(value.shape)}, {value.flatten()[0].item()!r}, dtype={value.dtype})"
    raise TypeError(f"audit: cannot write {value!r} into TorchScript source")


def scripted_call(fn: Callable[..., Any], kwargs: Dict[str, Any]) -> torch.jit.ScriptModule:
    """A scripted module whose forward is ``fn(x, **kwargs)`` with the arguments written in as literals."""
    namespace: Dict[str, Any] = {"torch": torch, "fn": fn}
    arguments = "".join(f", {name}={_literal(value, namespace)}" for name, value in kwargs.items())
    # No return annotation: TorchScript infers it (a tensor, or a list of ints for get_size).
    source = f"def forward(self, x: torch.Tensor):\n    return fn(x{arguments})\n"
    filename = f"<jitvision-audit-{next(_SOURCES)}>"
    # TorchScript reads the source through inspect, which finds generated code in linecache.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    module_class = type(f"Call_{getattr(fn, '__name__', 'fn')}", (torch.nn.Module,), {"forward": namespace["forward"]})
    return torch.jit.script(module_class())


def _export(module: torch.nn.Module, x: Any, **options: Any) -> Any:
    # torch.export prints the partial graph of a failed export straight to stderr; the cell keeps the reason.
    with contextlib.redirect_stderr(io.StringIO()):
        return torch.export.export(module, (x,), **options)


def _seeded(fn: Callable[[Any], Any], x: Any) -> Any:
    torch.manual_seed(SEED)
    return fn(x)


class CaseChecks:
    """One op on one input kind: builds the op once, then runs the checks of the requested modes."""

    def __init__(self, target: Target, entry: Entry, kind: str, script_cache: Dict[str, Any]) -> None:
        self.target, self.entry, self.kind = target, entry, kind
        self.script_cache = script_cache
        self.kwargs: Dict[str, Any] = {}
        self.call: Optional[Callable[[Any], Any]] = None
        self.module: Optional[torch.nn.Module] = None
        self.random: Optional[bool] = None
        self.x: Any = None
        self.expected: Any = None

    def make(self, size: Tuple[int, int] = FIXED_SIZE) -> Any:
        return make_input(self.kind, self.target.tv_tensors, size, self.entry.case.image_dtype)

    def build(self) -> None:
        self.kwargs = self.entry.case.arguments(self.target.transforms, self.target.tv_tensors, self.kind)
        if self.entry.api == "functional":
            fn, kwargs = self.entry.obj, self.kwargs
            self.module = _Bound(fn, kwargs)

            def call(x: Any) -> Any:
                return fn(x, **kwargs)

            self.call = call
        else:
            instance = self.entry.obj(**self.kwargs)
            self.call = instance
            self.module = instance if isinstance(instance, torch.nn.Module) else _Bound(instance, {})
            if self.kind == "batch-tensor":  # per-sample draws on a plain batch: the forward_batch method
                self.call = instance.forward_batch
                self.module = _Bound(_call_forward_batch, {"transform": instance})

    def _by_design(self, mode: str, message: str) -> Optional[Cell]:
        """n/a for an error of ours that the case documents as a refusal by design (``cases.ByDesign``): the
        mode, the kind and the message must all match; anything else stays a failure."""
        for refusal in self.entry.case.by_design:
            if refusal.mode == mode and self.kind in refusal.kinds and refusal.says in message:
                return Cell(NA, f"refused by design: {refusal.why}")
        return None

    # ---- eager ------------------------------------------------------------------------------------------------

    def eager(self) -> Cell:
        try:
            self.make()
        except NotApplicable as exc:
            return Cell(NA, str(exc))
        try:
            self.build()
        except Exception as exc:
            return failed(f"cannot build the {self.entry.api}: {one_line(exc)}")
        try:
            torch.manual_seed(SEED)
            self.x = self.make()
            self.expected = _seeded(self.call, self.x)
            outputs = {fingerprint(self.call(self.x)) for _ in range(CALLS)}
        except Exception as exc:
            self.call = None
            designed = self._by_design("eager", str(exc))
            if designed is not None:
                return designed
            if self.kind in self.entry.case.torchvision_refuses:
                return refusal_cell(self.entry, self.kind, exc, self.x, SEED)
            return failed(one_line(exc))
        self.random = len(outputs | {fingerprint(self.expected)}) > 1
        return passed(random=self.random)

    # ---- torch.compile ----------------------------------------------------------------------------------------

    def _compiled(self, dynamic: bool) -> Tuple[Callable[[Any], Any], Any]:
        torch._dynamo.reset()
        clear_recompiles()
        counter = torch._dynamo.testing.CompileCounter()
        return torch.compile(self.call, backend=counter, fullgraph=True, dynamic=dynamic), counter

    def _graph_count(self) -> Optional[int]:
        """Graphs without fullgraph (1 + breaks), or None if even that fails."""
        torch._dynamo.reset()
        counter = torch._dynamo.testing.CompileCounter()
        try:
            _seeded(torch.compile(self.call, backend=counter, dynamic=False), self.x)
        except Exception:
            return None
        return counter.frame_count

    def _not_applicable(self, mode: str, reason: str) -> Dict[str, Cell]:
        return {name: Cell(NA, reason) for name in MODE_CELLS[mode]}

    def compile(self) -> Dict[str, Cell]:
        if self.entry.case.python_only:
            return self._not_applicable("compile", self.entry.case.python_only)
        if self.kind == "PIL":
            return self._not_applicable("compile", "the compiler traces tensors, not PIL images")
        compiled, counter = self._compiled(dynamic=False)
        try:
            out = _seeded(compiled, self.x)
        except Exception as exc:
            designed = self._by_design("compile", str(exc))
            if designed is not None:
                return {name: designed for name in MODE_CELLS["compile"]}
            reason = one_line(exc)
            cells = {"compile": failed(reason, graphs=self._graph_count())}
            cells.update(recompiles=Cell(SKIP, "no fullgraph compile"), dynamic=Cell(SKIP, "no fullgraph compile"))
            return cells
        mismatch = compare(out, self.expected)
        graphs = counter.frame_count
        cells = {"compile": failed(mismatch, graphs=graphs) if mismatch else passed(graphs=graphs)}
        cells["recompiles"] = self._recompiles(compiled, counter)
        cells["dynamic"] = self._dynamic()
        return cells

    def _recompiles(self, compiled: Callable[[Any], Any], counter: Any) -> Cell:
        try:
            outputs = {fingerprint(compiled(self.x)) for _ in range(CALLS)}
            for _ in range(FRESH_CALLS):
                compiled(self.make())
        except Exception as exc:
            return failed(one_line(exc))
        recompiles = max(counter.frame_count, 1) - 1  # an op with nothing to trace compiles no graph at all
        live = len(outputs) > 1 if self.random else None
        info = {"recompiles": recompiles, "calls": CALLS + FRESH_CALLS, "random_live": live}
        if recompiles:
            why = last_recompile() or "reason not logged"
            return failed(f"{recompiles} recompiles over {CALLS + FRESH_CALLS} calls at one shape: {why}", **info)
        if self.random and not live:
            return failed(f"randomness frozen: {CALLS} compiled calls gave one output (eager varies)", **info)
        return passed(**info)

    def _dynamic(self) -> Cell:
        if self.entry.case.shape_bound:
            return Cell(NA, self.entry.case.shape_bound)
        compiled, counter = self._compiled(dynamic=True)
        sizes = (FIXED_SIZE, *OTHER_SIZES)
        try:
            for size in sizes:
                x = self.make(size)
                mismatch = compare(_seeded(compiled, x), _seeded(self.call, x))
                if mismatch:
                    return failed(f"at {size}: {mismatch}")
        except Exception as exc:
            return failed(one_line(exc))
        recompiles = max(counter.frame_count, 1) - 1
        info = {"recompiles": recompiles, "shapes": [list(s) for s in sizes]}
        if recompiles:
            why = last_recompile() or "reason not logged"
            return failed(f"{recompiles} recompiles over {len(sizes)} shapes: {why}", **info)
        return passed(**info)

    # ---- torch.jit.script -------------------------------------------------------------------------------------

    def _scripted(self) -> Tuple[Optional[Callable[..., Any]], Optional[str], Optional[str]]:
        """(loaded scripted callable, failure reason, fallback note), cached per op."""
        key = f"{self.entry.api}:{self.entry.name}"
        if key not in self.script_cache:
            self.script_cache[key] = self._script_and_reload()
        return self.script_cache[key]

    def _script_and_reload(self) -> Tuple[Optional[Callable[..., Any]], Optional[str], Optional[str]]:
        if self.entry.api == "functional":
            return self._script_functional()
        obj = self.module if self.kind == "batch-tensor" else self.call
        if isinstance(obj, _Bound):  # forward_batch of the transform: script the transform itself
            obj = obj.kwargs["transform"]
        fallback = None
        if self.entry.api == "class":
            if not isinstance(obj, torch.nn.Module):
                return None, "not an nn.Module", None
        try:
            prepare = getattr(obj, "__prepare_scriptable__", None)
            prepared = prepare() if prepare is not None else obj
            if type(prepared) is not type(obj):
                cls = type(prepared)
                fallback = f"scripts only as another class, {cls.__module__}.{cls.__qualname__}"
            scripted = torch.jit.script(obj)
        except Exception as exc:
            return None, one_line(exc), fallback
        try:
            buffer = io.BytesIO()
            torch.jit.save(scripted, buffer)
            buffer.seek(0)
            loaded = torch.jit.load(buffer)
        except Exception as exc:
            return None, f"save/load: {one_line(exc)}", fallback
        return loaded, None, fallback

    def _script_functional(self) -> Tuple[Optional[Callable[..., Any]], Optional[str], Optional[str]]:
        try:
            torch.jit.script(self.entry.obj)
        except Exception as exc:
            return None, one_line(exc), None
        # A saved bare ScriptFunction loses its defaults, so the functional is saved inside a scripted module.
        try:
            scripted = scripted_call(self.entry.obj, self.kwargs)
            buffer = io.BytesIO()
            torch.jit.save(scripted, buffer)
            buffer.seek(0)
            return torch.jit.load(buffer), None, None
        except Exception as exc:
            return None, f"scripted module calling it, save/load: {one_line(exc)}", None

    def script(self) -> Cell:
        if self.entry.case.python_only:
            return Cell(NA, self.entry.case.python_only)
        if self.kind not in PLAIN_KINDS:
            return Cell(NA, "TorchScript runs on plain tensors")
        loaded, reason, fallback = self._scripted()
        if loaded is None:
            designed = self._by_design("script", reason or "")
            if designed is not None:
                return designed
            return failed(f"{fallback}; {reason}" if fallback else reason)
        scripted_fn = loaded.forward_batch if self.kind == "batch-tensor" else loaded
        if self.kind in LABELLED_KINDS:
            scripted_fn = _call_mix(loaded)
        try:
            out = _seeded(scripted_fn, self.x)
        except Exception as exc:
            return failed(f"scripted call: {one_line(exc)}")
        # TorchScript has no tv_tensor types: values are compared, not types.
        mismatch = compare(out, self.expected, types=False)
        if fallback:
            return failed(f"{fallback} (via __prepare_scriptable__)", fallback=True)
        if mismatch:
            return failed(mismatch)
        return Cell(PASS, self.entry.case.script_note) if self.entry.case.script_note else passed()

    # ---- torch.export -----------------------------------------------------------------------------------------

    def export(self) -> Dict[str, Cell]:
        if self.entry.case.python_only:
            return self._not_applicable("export", self.entry.case.python_only)
        if self.kind == "PIL":
            return self._not_applicable("export", "export traces tensors, not PIL images")
        cells = {"export": self._export_static()}
        if cells["export"].status == NA:  # a documented refusal (``_export_static``)
            return {name: cells["export"] for name in MODE_CELLS["export"]}
        cells["export_dynamic"] = self._export_dynamic(cells["export"])
        return cells

    @property
    def _strict(self) -> bool:
        # Non-strict export sees a tv_tensor input as a plain tensor (its fake tensor loses the subclass), so a
        # box would be transformed as an image: tv_tensor inputs are exported with strict=True (dynamo).
        return self.kind not in PLAIN_KINDS

    def _export_static(self) -> Cell:
        try:
            program = _export(self.module, self.x, strict=self._strict)
            exported = program.module()
            out = _seeded(exported, self.x)
        except Exception as exc:
            designed = self._by_design("export", str(exc))
            return designed if designed is not None else failed(one_line(exc))
        # Exported programs return plain tensors: tv_tensor types are not compared.
        mismatch = compare(out, self.expected, types=False)
        if mismatch:
            return failed(mismatch)
        if self.random:
            outputs = {fingerprint(exported(self.x)) for _ in range(CALLS)}
            if len(outputs) < 2:
                return failed(f"randomness frozen: {CALLS} calls of the exported program gave one output")
        return passed(random_live=True if self.random else None, strict=self._strict)

    def _export_dynamic(self, static: Cell) -> Cell:
        if self.random:
            return Cell(NA, "random op: dynamic H/W export is checked for deterministic ops")
        if self.kind not in DENSE_KINDS:
            return Cell(NA, "no height/width dimension (canvas_size is metadata)")
        if self.entry.case.shape_bound:
            return Cell(NA, self.entry.case.shape_bound)
        if static.status != "pass":
            return Cell(SKIP, "static export failed")
        height = torch.export.Dim("height", min=MIN_SIDE, max=MAX_SIDE)
        width = torch.export.Dim("width", min=MIN_SIDE, max=MAX_SIDE)
        ndim = self.x.ndim
        try:
            spec = {ndim - 2: height, ndim - 1: width}
            # A forward(*inputs) takes the spec of its one input inside the spec of the varargs tuple.
            first = next(iter(inspect.signature(self.module.forward).parameters.values()), None)
            shapes = ((spec,),) if first is not None and first.kind is first.VAR_POSITIONAL else (spec,)
            program = _export(self.module, self.x, dynamic_shapes=shapes, strict=self._strict)
            exported = program.module()
            mismatches: List[str] = []
            for size in OTHER_SIZES:
                x = self.make(size)
                mismatch = compare(_seeded(exported, x), _seeded(self.call, x), types=False)
                if mismatch:
                    mismatches.append(f"at {size}: {mismatch}")
        except Exception as exc:
            return failed(one_line(exc))
        return failed(mismatches[0]) if mismatches else passed(sizes=[list(s) for s in OTHER_SIZES])
