"""Loading an AOTInductor package of a jitvision pipeline for use from several Python threads.

``torch._inductor.aoti_load_package(path)`` gives the package ONE runner. Two threads calling it at once queue on
that runner, and a package whose graph calls back into Python (a Python custom op, e.g. ``jitvision::
resized_crop_box`` in a non-strict export of a random pipeline) can deadlock: one thread holds the runner and waits
for the GIL, the other holds the GIL and waits for the runner. ``load_for_threads(path, threads)`` gives every
concurrent caller its own runner (``torch._inductor.package.load_package(path, num_runners=threads)``).

The Python runner keeps the GIL while it runs (for most of a call, where eager ``torch.mm`` releases it), so Python
threads calling one package do not run it in parallel; ``python -m jitvision bench --threads 2`` shows it for the
pipelines (the ``aoti`` rows). A C++ program calling the package from several threads has no GIL.
"""

from typing import Any

__all__ = ["load_for_threads"]


def load_for_threads(path: str, threads: int = 2) -> Any:
    """The AOTInductor package at ``path`` with ``threads`` runners: safe to call from ``threads`` Python threads
    at once (no deadlock, no queueing on one runner)."""
    if threads < 1:
        raise ValueError(f"load_for_threads: threads must be >= 1, got {threads}")
    from torch._inductor.package import load_package

    return load_package(path, num_runners=threads)
