"""What the ``bench --e2e`` job runs in either environment: the albumentations pipeline, the DataLoader measurement
and the check of the outputs' statistics.

Both albumentations use this module: 2.0.8 in the benchmark's process, AlbumentationsX (which installs under the
same module name) in its own environment through ``_peer_worker``, so it uses only torch and the library it is
handed. Both take the arguments used here with the same meaning (the pipeline is built with warnings as errors: an
argument a version does not know would otherwise fall back to its default with a warning). Each library keeps its
own defaults where the pipelines differ: albumentations' ``RandomResizedCrop`` resizes with OpenCV's bilinear filter
without antialiasing.
"""

import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
CROP = 224


def pipeline(A: Any) -> Any:
    """RandomResizedCrop(224) + HorizontalFlip + Normalize (ImageNet, from uint8) + ToTensorV2 (HWC -> CHW)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return A.Compose(
            [
                A.RandomResizedCrop(size=(CROP, CROP), scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)),
                A.HorizontalFlip(p=0.5),
                A.Normalize(mean=MEAN, std=STD, max_pixel_value=255.0),
                A.ToTensorV2(),
            ]
        )


def from_bytes(A: Any, cv2: Any) -> Callable[[Any], Any]:
    """``fn(encoded)``: a 1-D uint8 numpy array of JPEG bytes to the normalized ``[3, 224, 224]`` float tensor."""
    transform = pipeline(A)

    def run(encoded: Any) -> Any:
        bgr = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
        return transform(image=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))["image"]

    return run


def from_file(A: Any, cv2: Any) -> Callable[[str], Any]:
    """``fn(path)``: albumentations' way to read a file (``cv2.imread``, BGR to RGB), then the pipeline."""
    transform = pipeline(A)

    def run(path: str) -> Any:
        return transform(image=cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB))["image"]

    return run


def one_pass(fn: Callable[[Any], Any], inputs: Sequence[Any]) -> Callable[[], List[Any]]:
    def run() -> List[Any]:
        return [fn(x) for x in inputs]

    return run


def timed_passes(run_pass: Callable[[], Any], seconds: float) -> List[List[float]]:
    """``[wall, cpu]`` seconds of each pass of ``run_pass``, passes until ``seconds`` of wall time have gone (at least
    one). The CPU time is the process's (``time.process_time``: every thread of it, a decoder's worker threads
    included), which other work on a shared machine perturbs much less than the wall clock."""
    passes = []
    deadline = time.perf_counter() + seconds
    while True:
        wall, cpu = time.perf_counter(), time.process_time()
        run_pass()
        passes.append([time.perf_counter() - wall, time.process_time() - cpu])
        if time.perf_counter() >= deadline:
            return passes


def quiet_opencv(cv2: Any) -> None:
    """One OpenCV thread (the benchmark's variants all run on one thread per process), no OpenCL."""
    cv2.setNumThreads(0)
    cv2.ocl.setUseOpenCL(False)


# ---- the DataLoader measurement ----------------------------------------------------------------------------------


class Files:
    """A map-style dataset of ``count`` samples cycling over ``paths``: ``load(path)`` is the whole job of a sample
    (read, decode, transform), as an ``ImageFolder`` with a loader and a transform runs it."""

    def __init__(self, paths: Sequence[str], count: int, load: Callable[[str], Any]) -> None:
        self.paths = list(paths)
        self.count = count
        self.load = load

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> Any:
        return self.load(self.paths[index % len(self.paths)])


def loader_rate(
    load: Callable[[str], Any],
    paths: Sequence[str],
    images: int,
    workers: int = 2,
    batch: int = 64,
    worker_init_fn: Optional[Callable[[int], None]] = None,
    collate_fn: Optional[Callable[[List[Any]], Any]] = None,
    on_batch: Optional[Callable[[Any], Any]] = None,
) -> Dict[str, Any]:
    """Images per second through ``torch.utils.data.DataLoader(num_workers=workers, batch_size=batch)``, the batch a
    ``[batch, 3, 224, 224]`` tensor (the default collate unless ``collate_fn``; then ``on_batch``, if given, in this
    process), in the steady state: the clock starts when the first ``workers`` batches have arrived (the workers'
    start-up and their first batch are left out) and stops at the last. ``{"images_per_s", "batches",
    "batch_shape"}``."""
    import torch
    from torch.utils.data import DataLoader

    loader = DataLoader(
        Files(paths, images, load),
        batch_size=batch,
        num_workers=workers,
        worker_init_fn=worker_init_fn,
        collate_fn=collate_fn,
    )
    finish = on_batch if on_batch is not None else (lambda ready: ready)
    iterator = iter(loader)
    shape = None
    for _ in range(workers):
        first = finish(next(iterator))
        shape = list(first.shape)
    start = time.perf_counter()
    counted = 0
    batches = workers
    for collated in iterator:
        batch_images = finish(collated)
        if not isinstance(batch_images, torch.Tensor) or batch_images.dim() != 4:
            raise TypeError(f"the DataLoader gave {type(batch_images).__name__}, not a batch tensor")
        counted += batch_images.shape[0]
        batches += 1
    elapsed = time.perf_counter() - start
    if counted == 0:
        raise ValueError(f"bench --e2e: {images} images make no more than {workers} batches of {batch}")
    return {"images_per_s": counted / elapsed, "batches": batches, "batch_shape": shape}


def worker_init_opencv(_: int) -> None:
    import cv2

    quiet_opencv(cv2)


# ---- the outputs' statistics -------------------------------------------------------------------------------------


def output_stats(outputs: Sequence[Any]) -> Dict[str, Any]:
    """Shape, dtype, per-channel mean and overall standard deviation of the outputs of a pass (tensors or arrays).
    A normalized ImageNet-style crop of a photograph has channel means near 0 and a deviation near 1; the variants
    draw different crops, so their statistics agree only roughly."""
    import torch

    tensors = [torch.as_tensor(out) for out in outputs]
    shapes = sorted({tuple(t.shape) for t in tensors})
    dtypes = sorted({str(t.dtype).replace("torch.", "") for t in tensors})
    stacked = torch.stack([t.float() for t in tensors]) if len(shapes) == 1 else None
    return {
        "shape": list(shapes[0]) if len(shapes) == 1 else [list(s) for s in shapes],
        "dtype": dtypes[0] if len(dtypes) == 1 else dtypes,
        "finite": bool(all(torch.isfinite(t.float()).all() for t in tensors)),
        "mean": stacked.mean(dim=(0, 2, 3)).tolist() if stacked is not None and stacked.dim() == 4 else None,
        "std": float(stacked.std()) if stacked is not None else None,
    }
