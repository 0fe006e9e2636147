"""Timing shared by the benchmark jobs: interleaved rounds, and compiles that count their graphs."""

from typing import Any, Callable, Dict, Hashable, List, Sequence, Tuple

import torch
from torch.utils.benchmark import Timer


class Unavailable(Exception):
    """A variant that cannot run here (missing class, missing library, compile failure)."""


def failure(exc: BaseException) -> Unavailable:
    """An exception raised while building or warming up a variant, as the reason it is unavailable."""
    if isinstance(exc, Unavailable):
        return exc
    first = str(exc).splitlines()[0] if str(exc) else ""
    return Unavailable(f"{type(exc).__name__}: {first}"[:200])


def measure(fn: Callable[[], Any], min_run_time: float) -> float:
    """Median seconds per call of ``fn()`` (one thread), from ``torch.utils.benchmark.Timer``."""
    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=1)
    return timer.blocked_autorange(min_run_time=min_run_time).median


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
            samples[key].append(measure(fn, min_run_time / rounds))
    return samples


class CountingCompiler:
    """A ``torch.compile`` backend that counts the graphs it compiles, then hands them to inductor.

    One compile per distinct input size is expected with ``dynamic=False``; more means graph breaks or
    recompiles (guards failing), which the benchmark reports next to the time."""

    def __init__(self, inner: str = "inductor") -> None:
        self.graphs = 0
        self.inner = inner

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: List[Any]) -> Callable[..., Any]:
        self.graphs += 1
        if self.inner == "eager":  # tests: the graph structure without inductor's compile time
            return gm.forward
        from torch._inductor.compile_fx import compile_fx

        return compile_fx(gm, example_inputs)


def compile_static(fn: Any, inner: str = "inductor") -> Tuple[Any, CountingCompiler]:
    """``torch.compile(fn, dynamic=False)`` (inductor unless ``inner="eager"``), and its graph counter."""
    counter = CountingCompiler(inner)
    return torch.compile(fn, dynamic=False, backend=counter), counter


def allow_recompiles(count: int) -> None:
    """Raise dynamo's per-code-object cache limit to ``count`` (one entry per image size is expected; with the
    default limit of 8 a longer photo list would silently fall back to eager)."""
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(config, name) and getattr(config, name) < count:
            setattr(config, name, count)
