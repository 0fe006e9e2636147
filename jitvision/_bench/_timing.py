"""Timing shared by the benchmark jobs: interleaved rounds, and compiles that count their graphs."""

import time
import warnings
from typing import Any, Callable, Dict, Hashable, List, Sequence, Tuple

import torch


class Unavailable(Exception):
    """A variant that cannot run here (missing class, missing library, compile failure)."""


def failure(exc: BaseException) -> Unavailable:
    """An exception raised while building or warming up a variant, as the reason it is unavailable."""
    if isinstance(exc, Unavailable):
        return exc
    first = str(exc).splitlines()[0] if str(exc) else ""
    return Unavailable(f"{type(exc).__name__}: {first}"[:200])


def measure(fn: Callable[[], Any], min_run_time: float) -> float:
    """Median seconds per call of ``fn()`` (one thread), from ``torch.utils.benchmark.Timer``; a call that alone
    takes ``min_run_time`` or more is timed once with ``time.perf_counter`` (``blocked_autorange`` would make at
    least two more calls: minutes for the slowest rows)."""
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    if once >= min_run_time:
        return once
    # Imported here: torch.utils.benchmark loads torch.utils.cpp_extension, which warns about CUDA on a machine
    # without it (noise in ``bench --help``).
    from torch.utils.benchmark import Timer

    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=1)
    return timer.blocked_autorange(min_run_time=min_run_time - once).median


def interleaved(
    entries: Sequence[Tuple[Hashable, Callable[[], Any]]], min_run_time: float, rounds: int
) -> Dict[Hashable, List[float]]:
    """Per-round medians (seconds per call) of each entry, the entries timed in turn in every round (each for
    ``min_run_time / rounds`` seconds), so that a slow phase of the (virtualised, shared) machine hits all of
    them rather than one. Callers keep the minimum: interference only ever adds time."""
    rounds = max(1, rounds)
    samples: Dict[Hashable, List[float]] = {key: [] for key, _ in entries}
    for _ in range(rounds):
        for key, fn in entries:
            remote = getattr(fn, "measure", None)  # a variant timed in another process (_peer_process.RemotePass)
            share = min_run_time / rounds
            samples[key].append(remote(share) if remote is not None else measure(fn, share))
    return samples


class CountingCompiler:
    """A ``torch.compile`` backend that counts the graphs it compiles, then hands them to ``inner``: inductor,
    ``"eager"`` (tests: the graph structure without inductor's compile time) or ``"jitvision"``
    (``jitvision.transforms.compile``'s default backend: inductor unless the graph holds only jitvision kernels).

    One compile per distinct input size is expected with ``dynamic=False``; more means graph breaks or
    recompiles (guards failing), which the benchmark reports next to the time."""

    def __init__(self, inner: str = "inductor") -> None:
        self.graphs = 0
        self.inner = inner

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: List[Any]) -> Callable[..., Any]:
        self.graphs += 1
        if self.inner == "eager":
            return gm.forward
        if self.inner == "jitvision":
            from jitvision.transforms._compile import backend

            return backend(gm, example_inputs)
        from torch._inductor.compile_fx import compile_fx

        return compile_fx(gm, example_inputs)


def compile_pipeline(fn: Any, jitvision: bool, **kwargs: Any) -> Any:
    """``jitvision.transforms.compile(fn, **kwargs)`` when ``jitvision`` and ``fn`` is a transform (one token guard per
    transform instead of the guards on their attributes, and its default backend), else ``torch.compile(fn,
    **kwargs)`` (torchvision, or a plain function that wraps a transform)."""
    if jitvision and isinstance(fn, torch.nn.Module):
        import jitvision.transforms as T

        return T.compile(fn, **kwargs)
    return torch.compile(fn, **kwargs)


def compile_static(fn: Any, inner: str = "inductor", guard_filter: bool = False) -> Tuple[Any, CountingCompiler]:
    """``torch.compile(fn)`` (inductor unless ``inner="eager"``), and its graph counter. Call it, and the result,
    inside ``static_shapes()``: together they are ``torch.compile(fn, dynamic=False)`` without its per-call cost.
    ``guard_filter=True``: through ``compile_pipeline`` (``jitvision.transforms.compile`` for a transform, whose
    default backend then takes inductor's place)."""
    as_transform = guard_filter and isinstance(fn, torch.nn.Module)
    counter = CountingCompiler("jitvision" if as_transform and inner == "inductor" else inner)
    return compile_pipeline(fn, as_transform, backend=counter), counter


def static_shapes() -> Any:
    """Dynamo's settings for ``dynamic=False`` (one static graph per input size), as a context manager.

    ``torch.compile(fn, dynamic=False)`` applies these same two settings around EVERY call of the compiled
    function (``config._make_closure_patcher`` in ``torch/_dynamo/eval_frame.py``), which costs about 40 us per
    call here (measured: a compiled ``x + 0.5`` on a 3x16x16 tensor takes 74 us with ``dynamic=False``, 35 us
    with the settings applied once around the run): more than the whole eager cost of a flip or a crop. The
    benchmark sets them once for the run instead; the graphs are the same."""
    return torch._dynamo.config.patch(automatic_dynamic_shapes=False, assume_static_by_default=True)


def allow_recompiles(count: int) -> None:
    """Raise dynamo's per-code-object cache limit to ``count`` (one entry per image size is expected; with the
    default limit of 8 a longer photo list would silently fall back to eager)."""
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(config, name) and getattr(config, name) < count:
            setattr(config, name, count)


def import_peers() -> None:
    """Import every peer library that is installed, before anything is compiled.

    jitvision's ``tv_tensors.kind_of`` reads ``sys.modules.get("torchvision.tv_tensors")``, and dynamo guards on
    it: a graph compiled before torchvision is imported recompiles once torchvision appears. Importing the peers
    first keeps that library-side recompile out of the timings."""
    import importlib

    for name in ("torchvision.transforms.v2", "torchvision.tv_tensors", "albumentations", "cv2", "kornia"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                importlib.import_module(name)
        except ImportError:
            pass
