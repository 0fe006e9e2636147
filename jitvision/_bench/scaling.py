"""``bench --e2e --parts scaling``: whole loaders, from JPEG files to batches of normalized training tensors, at each
thread (or worker) count from 1 to the machine's cores.

The job is ``--e2e``'s (RandomResizedCrop(224), RandomHorizontalFlip, ToDtype(float32, scale=True), Normalize), in
batches of ``BATCH``. The loaders:

- ``jitvision-loader``: ``jitvision.data.Loader`` over a dataset of ``EncodedImage.from_file``, ``num_threads=n``
  (one native call per batch decodes and transforms it on n intra-op threads; a background thread prepares it);
- ``torchvision-pil``, ``jitvision-fused``, ``jitvision-batch``: torch's ``DataLoader`` with ``num_workers=n``
  running ``--e2e``'s per-sample job of that variant (the references' PIL pipeline; jitvision's recipe; its batch
  form, the tail per batch in the main process);
- ``dali``: NVIDIA DALI's own CPU reader pipeline with ``num_threads=n``;
- ``spdl``: SPDL's thread pipeline (``spdl.pipeline.PipelineBuilder``) with ``concurrency=n`` running jitvision's
  per-image fused job (SPDL's own decoder needs FFmpeg), batches stacked with ``torch.stack``.

Each measurement runs in a fresh process (``python -m jitvision._bench.scaling ROW``), so its numbers are its own:
images per second after the first batch, the time from the loop's start to the first batch, CPU seconds per image
(the process's and its reaped workers', from ``getrusage``), and the peak resident memory of the process (VmHWM;
its size at the loop's start beside it) and of its largest worker. The ``jitvision-loader`` row at the most
threads also runs ``EPOCHS`` epochs and reports the RSS growth between the first epoch's end and the last's.
"""

import json
import os
import resource
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Sequence

import torch

from ._cli import judge

BATCH = 64
EPOCHS = 20
LOADERS = ("jitvision-loader", "torchvision-pil", "jitvision-fused", "jitvision-batch", "dali", "spdl")


def _peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: getrusage's ru_maxrss would carry the parent's peak across
    fork and exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _usage() -> Dict[str, float]:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "cpu": me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime,
        "rss_mb": _peak_rss_mb(),
        # the largest reaped worker's ru_maxrss: a forked worker's count starts at this process's size
        "children_rss_mb": children.ru_maxrss / 1024,
    }


def _current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _timed(batches: Any) -> Dict[str, Any]:
    """Runs the iterable of batches; the clock of the steady rate starts at the first batch."""
    start, before, rss_before = time.perf_counter(), _usage(), _current_rss_mb()
    iterator = iter(batches)
    first = next(iterator)
    first_images = first[0].shape[0] if isinstance(first, (tuple, list)) else first.shape[0]
    shape = list((first[0] if isinstance(first, (tuple, list)) else first).shape)
    first_s = time.perf_counter() - start
    counted = 0
    for batch in iterator:
        counted += (batch[0] if isinstance(batch, (tuple, list)) else batch).shape[0]
    elapsed = time.perf_counter() - start - first_s
    del iterator
    after = _usage()
    return {
        "images_per_s": counted / elapsed if elapsed > 0 else None,
        "first_batch_s": first_s,
        "cpu_s_per_image": (after["cpu"] - before["cpu"]) / (counted + first_images),
        "peak_rss_mb": after["rss_mb"],
        "rss_at_start_mb": rss_before,  # the process with its imports, before the loop
        "workers_peak_rss_mb": after["children_rss_mb"],
        "batch_shape": shape,
        "images": counted + first_images,
    }


def _dataloader(name: str, paths: Sequence[str], images: int, workers: int, batch: int) -> Any:
    from torch.utils.data import DataLoader

    from . import _e2e_common
    from ._e2e_variants import build

    with open(paths[0], "rb") as f:
        variant = build(name, [f.read()])
    loader = DataLoader(_e2e_common.Files(paths, images, variant.load), batch_size=batch, num_workers=workers,
                        collate_fn=variant.collate_fn)
    if variant.on_batch is None:
        return loader
    return (variant.on_batch(batch) for batch in loader)


def _loader(paths: Sequence[str], images: int, threads: int, batch: int) -> Any:
    from ..data import Loader
    from ..tv_tensors import EncodedImage
    from . import _e2e_common
    from ._e2e_variants import fused_pipeline

    dataset = _e2e_common.Files(paths, images, EncodedImage.from_file)
    return Loader(dataset, transform=fused_pipeline(), batch_size=batch, num_threads=threads, shuffle=True)


def _spdl(paths: Sequence[str], images: int, threads: int, batch: int) -> Any:
    from spdl.pipeline import PipelineBuilder

    from ..tv_tensors import EncodedImage
    from ._e2e_variants import fused_pipeline

    pipeline_fn = fused_pipeline()
    sources = [paths[i % len(paths)] for i in range(images)]
    pipeline = (
        PipelineBuilder()
        .add_source(sources)
        .pipe(lambda path: pipeline_fn(EncodedImage.from_file(path)), concurrency=threads)
        .aggregate(batch)
        .pipe(torch.stack)
        .add_sink(3)
        .build(num_threads=threads)
    )

    def batches() -> Any:
        with pipeline.auto_stop():
            yield from pipeline

    return batches()


def _dali(paths: Sequence[str], images: int, threads: int, batch: int) -> Dict[str, Any]:
    from ._e2e_variants import _import_dali, dali_rate

    before = _usage()
    out = dali_rate(_import_dali(), paths, images, threads, batch)
    after = _usage()
    out.update({"cpu_s_per_image": (after["cpu"] - before["cpu"]) / images, "peak_rss_mb": after["rss_mb"]})
    return out


def measure_row(name: str, paths: Sequence[str], images: int, threads: int, batch: int = BATCH,
                epochs: int = 1) -> Dict[str, Any]:
    """One loader at one thread count, in this process."""
    torch.set_num_threads(1)
    if name == "dali":
        return _dali(paths, images, threads, batch)
    makers: Dict[str, Callable[[], Any]] = {
        "jitvision-loader": lambda: _loader(paths, images, threads, batch),
        "spdl": lambda: _spdl(paths, images, threads, batch),
    }
    make = makers.get(name, lambda: _dataloader(name, paths, images, threads, batch))
    row = _timed(make())
    if name in makers:  # no worker processes
        row.pop("workers_peak_rss_mb")
    if epochs > 1:
        loader = make()
        rss = []
        for _ in range(epochs):
            for _ in loader:
                pass
            rss.append(_current_rss_mb())
        row["rss_growth_mb"] = rss[-1] - rss[0]  # from the end of the first epoch (its buffers made) to the last
        row["epochs"] = epochs
    return row


def run(paths: Sequence[str], names: Sequence[str], thread_counts: Sequence[int], images: int,
        log: Callable[[str], None], batch: int = BATCH, epochs: int = EPOCHS) -> Dict[str, Any]:
    """Each loader at each count, each in its own process: ``{name: {count: row}}``."""
    out: Dict[str, Dict[str, Any]] = {name: {} for name in names}
    for count in thread_counts:
        for name in names:
            passes = epochs if name == "jitvision-loader" and count == max(thread_counts) else 1
            spec = {"name": name, "paths": list(paths), "images": images, "threads": count, "epochs": passes,
                    "batch": batch}
            done = subprocess.run([sys.executable, "-m", "jitvision._bench.scaling", json.dumps(spec)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                lines = (done.stderr or done.stdout).strip().splitlines()
                out[name][count] = {"unavailable": lines[-1] if lines else f"exit {done.returncode}"}
            else:
                out[name][count] = json.loads(done.stdout.strip().splitlines()[-1])
            row = out[name][count]
            rate = row.get("images_per_s")
            log(f"scaling: {name} x{count}: " + (f"{rate:,.0f} images/s" if rate else row.get("unavailable", "?")))
    return out


def _at(rows: Dict[Any, Any], count: int) -> Dict[str, Any]:
    """The row of ``count`` threads (keys are ints, or strings once read back from JSON)."""
    return rows.get(count, rows.get(str(count), {}))


def format_markdown(result: Dict[str, Any]) -> str:
    counts = sorted({int(c) for rows in result.values() for c in rows})
    lines = ["| loader | " + " | ".join(f"{c} thread{'s' if c > 1 else ''}" for c in counts) +
             " | CPU ms per image (1 / most) | first batch, s | peak RSS, MB: process (at start) + workers |",
             "| --- | " + " | ".join("---:" for _ in counts) + " | ---: | ---: | ---: |"]
    for name, rows in result.items():
        cells = []
        for c in counts:
            r = _at(rows, c)
            cells.append(f"{r['images_per_s']:,.0f}" if r.get("images_per_s") else r.get("unavailable", "-")[:60])
        one, most = _at(rows, counts[0]), _at(rows, counts[-1])
        cpu = " / ".join(f"{r['cpu_s_per_image'] * 1000:.2f}" if "cpu_s_per_image" in r else "-" for r in (one, most))
        first = f"{most['first_batch_s']:.2f}" if "first_batch_s" in most else "-"
        workers = f" + {most['workers_peak_rss_mb']:,.0f}" if "workers_peak_rss_mb" in most else ""
        start = f" (at start {most['rss_at_start_mb']:,.0f})" if "rss_at_start_mb" in most else ""
        rss = f"{most['peak_rss_mb']:,.0f}{start}{workers}" if "peak_rss_mb" in most else "-"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {cpu} | {first} | {rss} |")
        if "rss_growth_mb" in most:
            lines.append(f"| {name}: RSS growth over {most['epochs']} epochs | {most['rss_growth_mb']:+.1f} MB |")
    return "\n".join(lines)


def _main(argv: List[str]) -> int:
    spec = json.loads(argv[0])
    row = measure_row(spec["name"], spec["paths"], spec["images"], spec["threads"], spec.get("batch", BATCH),
                      spec.get("epochs", 1))
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))



def goals(result: Dict[str, Any], fused_cpu_us: Any = None) -> List[Dict[str, Any]]:
    """The loader's goals as measured in this run (None: not measured)."""

    def rate(name: str, count: int) -> Any:
        return _at(result.get(name, {}), count).get("images_per_s")

    def ratio(a: Any, b: Any) -> Any:
        return a / b if a and b else None

    counts = sorted({int(c) for rows in result.values() for c in rows})
    two = 2 if 2 in counts else counts[-1]
    loader = result.get("jitvision-loader", {})
    most, one = _at(loader, counts[-1]), _at(loader, 1)
    best_dataloader = max((r for r in (rate("jitvision-fused", two), rate("jitvision-batch", two)) if r), default=None)
    cpu_ratio = ratio(one.get("cpu_s_per_image"), fused_cpu_us / 1e6 if fused_cpu_us else None)
    checks = [
        ("loader, 2 threads / 1 thread", ratio(rate("jitvision-loader", two), rate("jitvision-loader", 1)), ">=", 1.9),
        ("loader CPU per image / fused single image (per-image part)", cpu_ratio, "<=", 1.1),
        (f"loader / torchvision-pil DataLoader, {two} each", ratio(rate("jitvision-loader", two),
                                                               rate("torchvision-pil", two)), ">=", 3.5),
        (f"loader / best jitvision DataLoader form, {two} each", ratio(rate("jitvision-loader", two),
                                                                     best_dataloader), ">=", 1.4),
        (f"loader / DALI CPU, {two} threads", ratio(rate("jitvision-loader", two), rate("dali", two)), ">=", 1.5),
        (f"loader / SPDL, {two} threads", ratio(rate("jitvision-loader", two), rate("spdl", two)), ">=", 1.0),
        ("loader, first batch (s)", most.get("first_batch_s"), "<=", 0.5),
        ("loader, RSS growth over the epochs (MB)", most.get("rss_growth_mb"), "<=", 50.0),
    ]
    if counts[-1] >= 16:
        checks.append(("loader, 16 threads / 1 thread", ratio(rate("jitvision-loader", 16),
                                                              rate("jitvision-loader", 1)), ">=", 14.0))
    return judge(checks)
