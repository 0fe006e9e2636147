"""A transform's ``generator=`` inside DataLoader workers: one independent, reproducible stream per worker and epoch.

Every worker process starts with a copy of the transform, its generator included, in the state it had in the main
process, and a new set of workers starts from that same state every epoch: used as it is, the generator would give
worker 0 and worker 1 the same draws, and every epoch the draws of the last. The global RNG does not have that
problem because the DataLoader seeds it in each worker with ``base_seed + worker_id`` (``base_seed`` is drawn anew
for every epoch from the main process's RNG, or from the DataLoader's ``generator``). ``worker_generator`` does
the same for a user's generator: inside a worker it returns a generator seeded from the user's generator state and
that worker seed, created once per worker and generator (persistent workers keep drawing from it across epochs, as
they do from the global RNG). Outside workers it returns the user's generator itself.
"""

import contextlib
import hashlib
import threading
import weakref
from typing import Iterator, Optional, Tuple

import torch
from torch.utils.data import get_worker_info

# user generator -> (the worker seed it was derived for, the derived generator); weak, so transforms can be freed
_DERIVED: "weakref.WeakKeyDictionary[torch.Generator, Tuple[int, torch.Generator]]" = weakref.WeakKeyDictionary()


def derived_seed(generator: torch.Generator, worker_seed: int) -> int:
    """A 63-bit seed from the generator's state and the worker seed (a hash: nearby seeds give unrelated streams)."""
    digest = hashlib.blake2b(generator.get_state().numpy().tobytes(), digest_size=8)
    digest.update(worker_seed.to_bytes(16, "little", signed=True))
    return int.from_bytes(digest.digest(), "little") & ((1 << 63) - 1)


def worker_generator(generator: torch.Generator) -> torch.Generator:
    """``generator`` itself in the main process; in a DataLoader worker, its stream for this worker and epoch."""
    info = get_worker_info()
    if info is None:
        return generator
    cached = _DERIVED.get(generator)
    if cached is not None and cached[0] == info.seed:
        return cached[1]
    derived = torch.Generator(device=generator.device)
    derived.manual_seed(derived_seed(generator, info.seed))
    _DERIVED[generator] = (info.seed, derived)
    return derived


# The generator that transforms made without one draw from on this thread (None: the global RNG). jitvision.data's
# Loader sets it on its thread, so the batches of an epoch are one seeded stream whatever else draws meanwhile.
_THREAD_STREAM = threading.local()


def thread_stream() -> Optional[torch.Generator]:
    return getattr(_THREAD_STREAM, "generator", None)


@contextlib.contextmanager
def drawing_from(generator: Optional[torch.Generator]) -> Iterator[None]:
    """Within the block, on this thread, transforms without a generator of their own draw from ``generator``."""
    saved = thread_stream()
    _THREAD_STREAM.generator = generator
    try:
        yield
    finally:
        _THREAD_STREAM.generator = saved
