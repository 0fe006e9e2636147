"""``python -m jitvision bench --augment``: timm-style training pipelines with a random augmentation policy.

Two jobs on a 3x256x256 uint8 image, one thread: RandomResizedCrop(224), RandomHorizontalFlip, then
TrivialAugmentWide (``ta``) or RandAugment(num_ops=2, magnitude=9) (``ra``), ToDtype(float32, scale=True),
Normalize(ImageNet). Variants: torchvision v2 eager; jitvision eager, compiled (``jitvision.transforms.compile``:
torch.compile with jitvision's guard filter and default backend, which runs these graphs of native calls as traced,
see ``transforms/_compile.py``) and compiled-plain (``torch.compile`` of the Compose module, all of dynamo's guards,
inductor), static shapes; timm's own PIL training transform
(``timm.data.create_transform(224, is_training=True, auto_augment='rand-m9-mstd0.5')``, the same image as a PIL
image) when timm is installed (the ``bench`` extra). Every call draws new operations, so a time is a mean over the
policy's operations: the variants are timed in interleaved rounds and each keeps its best round
(``jitvision.bench.run``'s method).
"""

from typing import Any, Callable, Dict, List, Optional

import torch

from ._cli import log, pick, write_json
from ._timing import Unavailable, static_shapes

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
JOBS = ("ta", "ra")
VARIANTS = (
    ("torchvision", "eager"),
    ("jitvision", "eager"),
    ("jitvision", "compiled"),
    ("jitvision", "compiled-plain"),
    ("timm", "eager"),
)


def pipeline(ns: Any, job: str) -> Any:
    policy = ns.TrivialAugmentWide() if job == "ta" else ns.RandAugment(num_ops=2, magnitude=9)
    return ns.Compose(
        [
            ns.RandomResizedCrop(224, antialias=True),
            ns.RandomHorizontalFlip(),
            policy,
            ns.ToDtype(torch.float32, scale=True),
            ns.Normalize(MEAN, STD),
        ]
    )


def build(library: str, mode: str, job: str) -> Callable[[Any], Any]:
    if library == "timm":
        try:
            import timm.data
        except ImportError as exc:
            raise Unavailable("timm is not installed (pip install timm, or the bench extra)") from exc
        return timm.data.create_transform(224, is_training=True, auto_augment="rand-m9-mstd0.5")
    if library == "torchvision":
        import torchvision.transforms.v2 as TV

        return pipeline(TV, job)
    import jitvision.transforms as T

    fn = pipeline(T, job)
    if mode == "compiled":
        return T.compile(fn, fullgraph=True)
    return torch.compile(fn, fullgraph=True) if mode == "compiled-plain" else fn


def make_input(library: str) -> Any:
    image = torch.randint(0, 256, (3, 256, 256), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    if library == "timm":
        import PIL.Image

        return PIL.Image.fromarray(image.permute(1, 2, 0).contiguous().numpy())
    return image


def run(
    jobs: List[str], min_run_time: float = 2.0, rounds: int = 5, log: Optional[Callable[[str], None]] = None
) -> List[Dict[str, Any]]:
    torch.set_num_threads(1)
    rows: List[Dict[str, Any]] = []
    from torch.utils.benchmark import Timer  # imported when timing: see _timing.measure

    with static_shapes():
        for job in jobs:
            runnable = []
            job_rows = []
            for library, mode in VARIANTS:
                row: Dict[str, Any] = {"job": job, "library": library, "mode": mode, "time_us": None}
                try:
                    fn, inpt = build(library, mode, job), make_input(library)
                    for _ in range(10 if mode.startswith("compiled") else 1):
                        fn(inpt)
                    runnable.append((row, fn, inpt))
                except Unavailable as exc:
                    row["unavailable"] = str(exc)
                job_rows.append(row)
            samples: Dict[int, List[float]] = {id(row): [] for row, _, _ in runnable}
            for _ in range(max(1, rounds)):
                for row, fn, inpt in runnable:
                    timer = Timer(stmt="fn(x)", globals={"fn": fn, "x": inpt}, num_threads=1)
                    samples[id(row)].append(timer.blocked_autorange(min_run_time=min_run_time / rounds).median)
            for row, _, _ in runnable:
                row["time_us"] = min(samples[id(row)]) * 1e6
            base = {r["library"]: r["time_us"] for r in job_rows if r["mode"] == "eager"}
            for row in job_rows:
                for key, library in (("vs_torchvision_eager", "torchvision"), ("vs_timm", "timm")):
                    reference = base.get(library)
                    row[key] = row["time_us"] / reference if row["time_us"] and reference else None
                if log is not None:
                    log(format_row(row))
            rows.extend(job_rows)
    return rows


def format_row(row: Dict[str, Any]) -> str:
    name = f"{row['job']:<3} {row['library']:<12} {row['mode']:<14}"
    if row["time_us"] is None:
        return f"{name} unavailable: {row.get('unavailable')}"
    ratios = "  ".join(
        f"{key[3:]} {row[key]:.2f}x" for key in ("vs_torchvision_eager", "vs_timm") if row.get(key) is not None
    )
    return f"{name} {row['time_us']:9.1f} us  {ratios}"


def main(args: Any) -> int:
    """``bench --augment`` as the command line asks for it (see ``jitvision.bench``): the rows on stdout."""
    jobs = pick(args.jobs, list(JOBS), "job")
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 5 if args.rounds is None else args.rounds
    rows = run(jobs, min_run_time, rounds, log=log)  # each row on stderr as it is measured
    print(f"torch {torch.__version__}, 1 thread, best of {rounds} interleaved rounds, us per call")
    for row in rows:
        print(format_row(row))
    write_json(args.json, {"torch": torch.__version__, "threads": 1, "rows": rows})
    return 0
