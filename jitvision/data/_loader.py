"""Loader: batches of encoded images decoded and transformed in parallel, prepared ahead by a background thread."""

import atexit
import queue
import threading
import warnings
import weakref
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union

import torch
from torch.utils.data import BatchSampler, RandomSampler, Sampler, SequentialSampler, default_collate

from ..transforms._container import Compose, _run_steps
from ..transforms._decode_batch import decode_encoded_batch
from ..transforms._seeding import drawing_from
from ..transforms._transform import Transform
from ..tv_tensors import BatchedImages
from ..tv_tensors._encoded import BatchedEncodedImages, EncodedImage

_END = object()
_POLL_S = 0.1  # how often a blocked producer looks whether the loop has stopped


class _Buffers:
    """Batch tensors reused once nothing else holds them.

    A new ``[64, 3, 224, 224]`` float32 batch is 38 MB: glibc maps it fresh for every batch and returns it when it
    is freed, so each batch pays its page faults again (measured here: about 400 us of system time per image, a
    third of the decode's CPU). A buffer is handed out again only when its storage has no other user (the batch
    the loop got, and any view of it, are gone); batches that go to a GPU or into pinned memory are never reused,
    since an asynchronous copy may still read them."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.held: List[torch.Tensor] = []

    @staticmethod
    def _free(tensor: torch.Tensor) -> bool:
        # 2: the held tensor and the storage object made to ask
        return torch._C._storage_Use_Count(tensor.untyped_storage()._cdata) == 2

    def take(self, shape: List[int], dtype: torch.dtype) -> torch.Tensor:
        for tensor in self.held:
            if list(tensor.shape) == shape and tensor.dtype == dtype and self._free(tensor):
                return tensor
        tensor = torch.empty(shape, dtype=dtype)
        self.held = ([tensor] + self.held)[: self.keep]
        return tensor


class _Failure:
    """An exception raised on the producer thread, handed to the loop to raise there."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class Loader:
    """Batches from a map-style ``dataset`` of encoded images: ``for images, labels in loader:``, as a DataLoader.

    ``dataset[i]`` gives an ``EncodedImage`` (e.g. ``ImageFolder(root, loader=EncodedImage.from_file)``), or a
    tuple/list whose first item is one and whose other items are its targets. Each batch of indices (from
    ``batch_sampler``, or ``sampler``/``shuffle`` with ``batch_size`` and ``drop_last``, as torch's DataLoader takes
    them; a ``DistributedSampler`` shards a multi-GPU job) is read, then given to ``transform`` as one
    ``tv_tensors.BatchedEncodedImages``: a ``Compose`` led by a crop or resize draws every image's parameters, then
    decodes, crops, resizes (and flips, converts and normalises, where it continues so) all of them in one native
    call on torch's intra-op threads, the GIL released, into one ``[B, C, H, W]`` tensor; the rest of the pipeline
    runs on that ``BatchedImages`` with one draw per sample. The targets are collated with ``collate_fn``
    (``default_collate``). A batch is ``images`` (a plain tensor) alone, or ``(images, *targets)``.

    - ``num_threads``: the intra-op threads decoding each batch (``torch.set_num_threads``, set for the process);
      None keeps torch's setting.
    - ``prefetch``: batches prepared ahead by the background thread while the loop (the model) works.
    - ``generator``: the shuffle order and every draw of the transforms (those made without a generator of their
      own) come from it, one seeded stream per epoch: the same batches for the same seed, whatever the thread count
      and whatever else draws random numbers meanwhile. None: seeded from torch's global RNG at each epoch's start.
    - ``pin_memory``: the batch in page-locked memory (ignored, with a warning, where CUDA is not available);
      ``device``: each batch moved there (non-blocking from pinned memory).
    - ``on_error``: ``"raise"`` (a ValueError naming the file and its place in the batch) or ``"skip"`` (the image
      is left out, its batch comes out smaller; a warning names each file once, ``skipped`` counts them).

    The background thread stops when the loop ends, breaks or raises (Ctrl-C included); it is a daemon, so an
    abandoned loop never holds the process at exit. ``len(loader)`` is the number of batches (for tqdm:
    ``tqdm(loader, unit_scale=batch_size, unit="img")`` shows images/s).
    """

    def __init__(
        self,
        dataset: Any,
        transform: Optional[Callable[..., Any]] = None,
        batch_size: Optional[int] = 1,
        shuffle: bool = False,
        sampler: Optional[Union[Sampler, Sequence[int]]] = None,
        batch_sampler: Optional[Union[Sampler, Sequence[Sequence[int]]]] = None,
        num_threads: Optional[int] = None,
        prefetch: int = 2,
        pin_memory: bool = False,
        device: Optional[Union[str, torch.device]] = None,
        drop_last: bool = False,
        collate_fn: Optional[Callable[[List[Any]], Any]] = None,
        generator: Optional[torch.Generator] = None,
        on_error: str = "raise",
    ) -> None:
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("Loader: batch_sampler is mutually exclusive with batch_size, shuffle, sampler and "
                                 "drop_last")
        else:
            if batch_size is None or batch_size < 1:
                raise ValueError(f"Loader: batch_size must be a positive int, got {batch_size!r}")
            if sampler is not None and shuffle:
                raise ValueError("Loader: sampler is mutually exclusive with shuffle")
            if sampler is None:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if num_threads is not None and (not isinstance(num_threads, int) or num_threads < 1):
            raise ValueError(f"Loader: num_threads must be a positive int or None, got {num_threads!r}")
        if not isinstance(prefetch, int) or prefetch < 1:
            raise ValueError(f"Loader: prefetch must be a positive int, got {prefetch!r}")
        if on_error not in ("raise", "skip"):
            raise ValueError(f"Loader: on_error must be 'raise' or 'skip', got {on_error!r}")
        if pin_memory and not torch.cuda.is_available():
            warnings.warn("Loader: pin_memory=True, but CUDA is not available: batches are not pinned", stacklevel=2)
            pin_memory = False
        self.dataset = dataset
        self.transform = transform
        self.batch_size = batch_size
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_threads = num_threads
        self.prefetch = prefetch
        self.pin_memory = pin_memory
        self.device = torch.device(device) if device is not None else None
        self.collate_fn = collate_fn if collate_fn is not None else default_collate
        self.generator = generator
        self.on_error = on_error
        self.skipped = 0
        self.epoch = 0
        self._warned: set = set()
        reusable = not pin_memory and self.device is None and hasattr(torch._C, "_storage_Use_Count")
        self._buffers = _Buffers(prefetch + 3) if reusable else None

    def __len__(self) -> int:
        return len(self.batch_sampler)

    def set_epoch(self, epoch: int) -> None:
        """The epoch, passed on to a sampler that takes it (``DistributedSampler`` reshuffles by it)."""
        self.epoch = epoch
        for sampler in (self.sampler, getattr(self.batch_sampler, "sampler", None)):
            if hasattr(sampler, "set_epoch"):
                sampler.set_epoch(epoch)

    def __iter__(self) -> Iterator[Any]:
        seed = int(torch.randint(0, 2**62, [], generator=self.generator))  # drawn here, in the loop's thread
        return _Epoch(self, seed)

    def _steps(self) -> Tuple[Sequence[Any], bool]:
        """The transforms the batch call may lead with, and whether they are all of ``transform``."""
        if isinstance(self.transform, Compose):
            return tuple(self.transform.transforms), True
        if isinstance(self.transform, Transform):
            return (self.transform,), True
        return (), self.transform is None

    def _read(self, indices: Sequence[int]) -> Tuple[List[EncodedImage], List[Any], bool]:
        images, targets = [], []
        plain = True
        for position, index in enumerate(indices):
            try:
                item = self.dataset[index]
            except (OSError, ValueError, RuntimeError) as error:
                self._bad(f"sample {index} (image {position} of the batch): {error}", str(index))
                continue
            if isinstance(item, (tuple, list)) and item and type(item[0]) is EncodedImage:
                images.append(item[0])
                targets.append(tuple(item[1:]))
                plain = plain and len(item) == 1
            elif type(item) is EncodedImage:
                images.append(item)
                targets.append(())
            else:
                raise TypeError(
                    f"Loader: dataset[{index}] gave {type(item).__name__}; expected an EncodedImage or a tuple whose "
                    "first item is one (e.g. ImageFolder(root, loader=EncodedImage.from_file))"
                )
        return images, targets, plain

    def _bad(self, message: str, key: str) -> None:
        if self.on_error == "raise":
            raise ValueError(f"Loader: {message}")
        self.skipped += 1
        if key not in self._warned:  # each bad sample named once
            self._warned.add(key)
            warnings.warn(f"Loader: skipped {message}", RuntimeWarning, stacklevel=3)

    def _batch(self, read: Tuple[List[EncodedImage], List[Any], bool]) -> Any:
        """A batch from what ``_read`` gave: decoded, transformed, its targets collated."""
        images, targets, plain = read
        if not images:
            return None
        steps, whole = self._steps()
        pin_now = self.pin_memory and whole
        batch = BatchedEncodedImages(images)
        before = len(images)
        reuse = self._buffers.take if self._buffers is not None and not pin_now else None
        out, consumed, kept = decode_encoded_batch(
            steps, batch, on_error=self.on_error, pin_memory=pin_now, allocate=reuse
        )
        self.skipped += before - len(kept)
        if not kept:
            return None
        pinned_final = pin_now and consumed == len(steps)
        if consumed < len(steps):
            out = _run_steps(steps[consumed:], BatchedImages(out), False)
        elif self.transform is not None and not whole:
            out = self.transform(BatchedImages(out))
        out = out.as_subclass(torch.Tensor) if isinstance(out, torch.Tensor) else out
        if self.pin_memory and not pinned_final and isinstance(out, torch.Tensor):
            out = out.pin_memory()
        if self.device is not None and isinstance(out, torch.Tensor):
            out = out.to(self.device, non_blocking=self.pin_memory)
        if plain and all(len(t) == 0 for t in targets):
            return out
        collated = self.collate_fn([targets[k] for k in kept])
        return (out, *collated)


class _Feed:
    """What the producer thread and the loop share: the bounded queue and the stop flag. The thread holds only this
    (not the epoch), so dropping the epoch (``break``) finalises it, which stops the thread."""

    def __init__(self, prefetch: int) -> None:
        self.queue: queue.Queue[Any] = queue.Queue(maxsize=prefetch)
        self.stop = threading.Event()

    def put(self, item: Any) -> bool:
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False


def _read_ahead(loader: Loader, feed: _Feed, reads: _Feed) -> None:
    """The files of each batch, read one batch ahead of the decode: ``dataset[i]`` is Python (and file reads), which
    runs while the decode of the batch before, which releases the GIL, keeps the intra-op threads busy."""
    try:
        for indices in loader.batch_sampler:
            if feed.stop.is_set() or not reads.put(loader._read(list(indices))):
                return
        reads.put(_END)
    except BaseException as error:
        reads.put(_Failure(error))


def _produce(loader: Loader, feed: _Feed, stream: torch.Generator) -> None:
    reads = _Feed(1)
    reader = threading.Thread(target=_read_ahead, args=(loader, feed, reads), name="jitvision-loader-read",
                              daemon=True)
    reader.start()
    try:
        if loader.num_threads is not None:
            torch.set_num_threads(loader.num_threads)
        with drawing_from(stream):  # the draws, in batch order, on this thread only
            while not feed.stop.is_set():
                try:
                    read = reads.queue.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                if read is _END:
                    feed.put(_END)
                    return
                if isinstance(read, _Failure):
                    raise read.error
                batch = loader._batch(read)
                if batch is not None and not feed.put(batch):
                    return
    except BaseException as error:  # handed to the loop, raised there
        feed.put(_Failure(error))
    finally:
        reads.stop.set()
        reader.join()


# Epochs whose threads may still run: stopped before the interpreter exits, so no producer is inside torch while the
# process tears down (a daemon thread in native code at exit can end the process in std::terminate).
_LIVE: "weakref.WeakSet[_Epoch]" = weakref.WeakSet()


@atexit.register
def _stop_live_epochs() -> None:
    for epoch in list(_LIVE):
        epoch.close()


class _Epoch:
    """One pass over the loader: a daemon thread producing batches into a bounded queue, stopped on close."""

    def __init__(self, loader: Loader, seed: int) -> None:
        self._loader = loader
        self._feed = _Feed(loader.prefetch)
        self._done = False
        stream = torch.Generator()
        stream.manual_seed(seed)
        self._thread = threading.Thread(
            target=_produce, args=(loader, self._feed, stream), name="jitvision-loader", daemon=True
        )
        self._thread.start()
        _LIVE.add(self)

    def __iter__(self) -> "_Epoch":
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        try:
            item = self._feed.queue.get()
        except BaseException:  # Ctrl-C while waiting
            self.close()
            raise
        if item is _END:
            self.close()
            raise StopIteration
        if isinstance(item, _Failure):
            self.close()
            raise item.error
        return item

    def __len__(self) -> int:
        return len(self._loader)

    def close(self) -> None:
        """Stop the producer and wait for it (it finishes the batch it is on)."""
        self._done = True
        self._feed.stop.set()
        while True:  # unblock a producer waiting on a full queue
            try:
                self._feed.queue.get_nowait()
            except queue.Empty:
                break
        if self._thread is not threading.current_thread():
            self._thread.join()

    def __del__(self) -> None:
        if not self._done:
            self.close()
