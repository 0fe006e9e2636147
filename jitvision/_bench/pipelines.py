"""``python -m jitvision bench`` (no job flag): the classification pipelines, jitvision vs torchvision v2 vs
albumentations.

The pipelines: two jobs, one thread (``torch.set_num_threads(1)``), times from ``torch.utils.benchmark.Timer``
(the best of interleaved rounds, see ``run``):

- ``train``: RandomResizedCrop(224), RandomHorizontalFlip, ToDtype(float32, scale=True), Normalize(ImageNet)
  on a 3x256x256 uint8 image;
- ``infer``: Resize(256), CenterCrop(224), ToDtype(float32, scale=True), Normalize on a 3x480x640 uint8 image;
- ``detection`` (not in the default jobs: ``--jobs detection``): RandomPhotometricDistort, RandomZoomOut,
  RandomIoUCrop, RandomHorizontalFlip, Resize((512, 512)), SanitizeBoundingBoxes on a 3x480x640 uint8 image with 8
  boxes, their 8 masks and labels; Compose only (each call draws, so a time is the median over draws).

Variants (each a small builder; one that cannot be built or run is reported "unavailable", with the reason):

- jitvision ``kernels`` (the ``*_image`` kernels), ``functional``, ``compose`` (the transform classes), ``fused``
  (``transforms._fusion.run_fused``, the native one-call path), each ``eager`` and ``compiled``
  (``torch.compile``, default inductor; ``compose`` through ``jitvision.transforms.compile``, the documented way);
- torchvision v2 ``functional`` and ``compose``, eager and compiled;
- albumentations ``compose`` (HWC uint8 numpy), if importable.

Kernels and functionals use one fixed crop box and flip (as a user calling them with drawn parameters would);
the composed pipelines draw their own. Ratios are against torchvision's eager Compose and albumentations.

``--layout hwc`` gives the torch libraries the image as a ``[C, H, W]`` view of ``[H, W, C]`` memory, which is
what ``pil_to_tensor``/``ToImage`` return for a decoded PIL image or numpy array (the default ``chw`` is a
contiguous tensor); albumentations gets its HWC array either way.
"""

import argparse
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ._cli import log, pick, write_json
from ._timing import Unavailable, compile_pipeline, static_shapes

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
JOBS = {"train": (3, 256, 256), "infer": (3, 480, 640), "detection": (3, 480, 640)}
DETECTION_SIZE = 512
DETECTION_BOXES = 8
# A crop box of the kind RandomResizedCrop draws on 256x256 (top, left, height, width), and the flip.
TRAIN_BOX = (20, 30, 200, 180)
CROP = 224
RESIZE = 256

Fn = Callable[[Any], Any]
COMPILED_WARMUP = 10


# ---- pipelines per library and style ---------------------------------------------------------------------------


def _train_steps(F: Any) -> List[Fn]:
    top, left, height, width = TRAIN_BOX
    return [
        lambda x: F.resized_crop(x, top, left, height, width, [CROP, CROP], antialias=True),
        F.horizontal_flip,
        lambda x: F.to_dtype(x, torch.float32, scale=True),
        lambda x: F.normalize(x, MEAN, STD),
    ]


def _train_kernels(F: Any) -> List[Fn]:
    top, left, height, width = TRAIN_BOX
    return [
        lambda x: F.resized_crop_image(x, top, left, height, width, [CROP, CROP], antialias=True),
        F.horizontal_flip_image,
        lambda x: F.to_dtype_image(x, torch.float32, scale=True),
        lambda x: F.normalize_image(x, MEAN, STD),
    ]


def _infer_steps(F: Any) -> List[Fn]:
    return [
        lambda x: F.resize(x, [RESIZE], antialias=True),
        lambda x: F.center_crop(x, [CROP, CROP]),
        lambda x: F.to_dtype(x, torch.float32, scale=True),
        lambda x: F.normalize(x, MEAN, STD),
    ]


def _infer_kernels(F: Any) -> List[Fn]:
    return [
        lambda x: F.resize_image(x, [RESIZE], antialias=True),
        lambda x: F.center_crop_image(x, [CROP, CROP]),
        lambda x: F.to_dtype_image(x, torch.float32, scale=True),
        lambda x: F.normalize_image(x, MEAN, STD),
    ]


def _chain(steps: Sequence[Fn]) -> Fn:
    def run(x: Any) -> Any:
        for step in steps:
            x = step(x)
        return x

    return run


def compose(ns: Any, job: str) -> Any:
    """The job's pipeline as ``ns.Compose`` (``ns``: jitvision.transforms or torchvision.transforms.v2)."""
    if job == "detection":
        return ns.Compose(
            [
                ns.RandomPhotometricDistort(),
                ns.RandomZoomOut(),
                ns.RandomIoUCrop(),
                ns.RandomHorizontalFlip(),
                ns.Resize((DETECTION_SIZE, DETECTION_SIZE)),
                ns.SanitizeBoundingBoxes(),
            ]
        )
    tail = [ns.ToDtype(torch.float32, scale=True), ns.Normalize(MEAN, STD)]
    if job == "train":
        return ns.Compose([ns.RandomResizedCrop(CROP), ns.RandomHorizontalFlip(), *tail])
    return ns.Compose([ns.Resize(RESIZE), ns.CenterCrop(CROP), *tail])


def _jitvision(style: str, job: str) -> Fn:
    try:
        import jitvision.transforms as T
        import jitvision.transforms.functional as F
    except ImportError as exc:  # pragma: no cover - the package itself
        raise Unavailable(str(exc)) from exc
    if job == "detection" and style != "compose":
        raise Unavailable("the detection job runs as Compose only (its sizes are drawn inside the steps)")
    if style == "kernels":
        return _chain((_train_kernels if job == "train" else _infer_kernels)(_need(F, job, kernels=True)))
    if style == "functional":
        return _chain((_train_steps if job == "train" else _infer_steps)(_need(F, job, kernels=False)))
    if style == "compose":
        return _need_compose(T, job)
    if style == "fused":
        from .. import _native
        from ..transforms._fusion import run_fused

        if not _native.AVAILABLE:
            raise Unavailable("the native library jitvision/lib/libjitvision_native.so is not loaded")
        transforms = list(_need_compose(T, job).transforms)

        def fused(x: torch.Tensor) -> Any:
            result = run_fused(transforms, x)
            if result is None or result[1] != len(transforms):
                raise Unavailable("the pipeline is not fully fusable")
            return result[0]

        return fused
    raise ValueError(style)


def _need(F: Any, job: str, kernels: bool) -> Any:
    names = {
        "train": ["resized_crop", "horizontal_flip", "to_dtype", "normalize"],
        "infer": ["resize", "center_crop", "to_dtype", "normalize"],
    }[job]
    missing = [n + ("_image" if kernels else "") for n in names if not hasattr(F, n + ("_image" if kernels else ""))]
    if missing:
        raise Unavailable(f"jitvision has no {', '.join(missing)} yet")
    return F


def _need_compose(T: Any, job: str) -> Any:
    try:
        return compose(T, job)
    except AttributeError as exc:
        raise Unavailable(f"jitvision.transforms has no {exc.name or exc}") from exc


def _torchvision(style: str, job: str) -> Fn:
    try:
        import torchvision.transforms.v2 as TV
        import torchvision.transforms.v2.functional as TF
    except ImportError as exc:
        raise Unavailable(f"torchvision is not installed ({exc})") from exc
    if job == "detection" and style != "compose":
        raise Unavailable("the detection job runs as Compose only (its sizes are drawn inside the steps)")
    if style == "functional":
        return _chain((_train_steps if job == "train" else _infer_steps)(TF))
    if style == "compose":
        return compose(TV, job)
    raise ValueError(style)


def _albumentations(job: str) -> Fn:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import albumentations as A
    except ImportError as exc:
        raise Unavailable("albumentations is not installed (pip install albumentations)") from exc
    if job == "detection":
        raise Unavailable("albumentations has no RandomZoomOut/RandomIoUCrop")
    normalize = A.Normalize(mean=MEAN, std=STD, max_pixel_value=255.0)
    if job == "train":
        pipeline = A.Compose([A.RandomResizedCrop(size=(CROP, CROP)), A.HorizontalFlip(), normalize])
    else:
        pipeline = A.Compose([A.SmallestMaxSize(max_size=RESIZE), A.CenterCrop(height=CROP, width=CROP), normalize])
    return lambda image: pipeline(image=image)["image"]


# ---- the variant table ------------------------------------------------------------------------------------------

# (library, style, mode): what the table lists, in order.
VARIANTS = [
    ("jitvision", "kernels", "eager"),
    ("jitvision", "kernels", "compiled"),
    ("jitvision", "functional", "eager"),
    ("jitvision", "functional", "compiled"),
    ("jitvision", "compose", "eager"),
    ("jitvision", "compose", "compiled"),
    ("jitvision", "fused", "eager"),
    ("jitvision", "fused", "compiled"),
    ("torchvision", "functional", "eager"),
    ("torchvision", "functional", "compiled"),
    ("torchvision", "compose", "eager"),
    ("torchvision", "compose", "compiled"),
    ("albumentations", "compose", "eager"),
]


LAYOUTS = ("chw", "hwc")


def make_input(job: str, library: str, layout: str = "chw") -> Any:
    gen = torch.Generator().manual_seed(0)
    image = torch.randint(0, 256, JOBS[job], dtype=torch.uint8, generator=gen)
    if job == "detection":
        return _detection_sample(image, library, gen)
    if library == "albumentations":
        return image.permute(1, 2, 0).contiguous().numpy()  # HWC, as albumentations expects
    if layout == "hwc":
        return image.permute(1, 2, 0).contiguous().permute(2, 0, 1)  # same values, channels-last memory
    return image


def _detection_sample(image: torch.Tensor, library: str, gen: torch.Generator) -> Any:
    """image, 8 boxes (20-100 px) with their masks (the box's pixels) and labels, as the library's tv_tensors."""
    import importlib

    tv_tensors = importlib.import_module(("jitvision" if library == "jitvision" else "torchvision") + ".tv_tensors")
    _, height, width = image.shape
    top_left = (torch.rand(DETECTION_BOXES, 2, generator=gen) * torch.tensor([width - 100.0, height - 100.0])).floor()
    xyxy = torch.cat([top_left, top_left + (torch.rand(DETECTION_BOXES, 2, generator=gen) * 80 + 20).floor()], 1)
    masks = torch.zeros(DETECTION_BOXES, height, width, dtype=torch.uint8)
    for i, (x1, y1, x2, y2) in enumerate(xyxy.long().tolist()):
        masks[i, y1:y2, x1:x2] = 1
    return {
        "image": tv_tensors.Image(image),
        "boxes": tv_tensors.BoundingBoxes(xyxy, format="XYXY", canvas_size=(height, width)),
        "masks": tv_tensors.Mask(masks),
        "labels": torch.arange(DETECTION_BOXES) + 1,
    }


def build(library: str, style: str, mode: str, job: str) -> Fn:
    """The callable of one variant; raises Unavailable."""
    if library == "albumentations":
        if mode != "eager":
            raise Unavailable("albumentations has no compiled mode")
        return _albumentations(job)
    fn = _jitvision(style, job) if library == "jitvision" else _torchvision(style, job)
    if mode == "compiled":
        # Static shapes: each job is compiled for its own input size. Variants share code objects (the step
        # chains), so with automatic dynamic shapes the second job would recompile the shared frames as
        # dynamic, which measures inductor's dynamic-shape code rather than the pipeline at that size. The
        # static-shape settings are applied once around ``run`` (``static_shapes``) rather than with
        # ``dynamic=False``, which re-applies them around every call (~40 us per call here). A jitvision Compose is
        # compiled the documented way, ``jitvision.transforms.compile`` (``compile_pipeline``).
        fn = compile_pipeline(fn, library == "jitvision")
    return fn


def measure(fn: Fn, inpt: Any, min_run_time: float) -> float:
    """Median seconds per call (one thread)."""
    from torch.utils.benchmark import Timer  # imported when timing: see _bench._timing.measure

    timer = Timer(stmt="fn(x)", globals={"fn": fn, "x": inpt}, num_threads=1)
    return timer.blocked_autorange(min_run_time=min_run_time).median


def run(
    jobs: Sequence[str],
    variants: Sequence[tuple],
    min_run_time: float = 1.0,
    log: Optional[Callable[[str], None]] = None,
    rounds: int = 7,
    layout: str = "chw",
) -> List[Dict[str, Any]]:
    """One row per (job, variant): time_us (None when unavailable) and ratios vs torchvision eager Compose and
    albumentations (when those were measured).

    The variants of a job are timed in ``rounds`` interleaved rounds (every variant once per round, for
    ``min_run_time / rounds`` seconds each); a row keeps the best of its per-round medians. On this kind of
    virtualised machine the speed of the same code swings by up to 1.5x between rounds a few seconds apart;
    interference only ever adds time, so the fastest round is the most repeatable estimate of each variant."""
    torch.set_num_threads(1)
    with static_shapes():
        return _run(jobs, variants, min_run_time, log, rounds, layout)


def _run(
    jobs: Sequence[str],
    variants: Sequence[tuple],
    min_run_time: float,
    log: Optional[Callable[[str], None]],
    rounds: int,
    layout: str,
) -> List[Dict[str, Any]]:
    rows: List[Dict[str, Any]] = []
    for job in jobs:
        job_rows: List[Dict[str, Any]] = []
        runnable: List[tuple] = []
        for library, style, mode in variants:
            row: Dict[str, Any] = {"job": job, "library": library, "style": style, "mode": mode, "time_us": None}
            try:
                fn = build(library, style, mode, job)
                inpt = make_input(job, library, layout)
                torch.manual_seed(0)
                try:
                    # Warm-up: compiles (several calls: random crops can recompile until dynamo settles), and shows
                    # a missing op as unavailable rather than a crash.
                    for _ in range(COMPILED_WARMUP if mode == "compiled" else 1):
                        fn(inpt)
                except Unavailable:
                    raise
                except Exception as exc:  # noqa: BLE001 - any failure of a variant is reported, not fatal
                    raise Unavailable(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
                runnable.append((row, fn, inpt))
            except Unavailable as exc:
                row["unavailable"] = str(exc)
            job_rows.append(row)
        samples: Dict[int, List[float]] = {id(row): [] for row, _, _ in runnable}
        for _ in range(max(1, rounds)):
            for row, fn, inpt in runnable:
                samples[id(row)].append(measure(fn, inpt, min_run_time / max(1, rounds)))
        for row, _, _ in runnable:
            row["time_us"] = min(samples[id(row)]) * 1e6
        if log is not None:
            for row in job_rows:
                log(_format_row(row))
        baselines = {
            "vs_torchvision_eager": _time_of(job_rows, "torchvision", "compose", "eager"),
            "vs_albumentations": _time_of(job_rows, "albumentations", "compose", "eager"),
        }
        for row in job_rows:
            for key, base in baselines.items():
                row[key] = row["time_us"] / base if row["time_us"] is not None and base else None
        rows.extend(job_rows)
    return rows


def _time_of(rows: List[Dict[str, Any]], library: str, style: str, mode: str) -> Optional[float]:
    for row in rows:
        if (row["library"], row["style"], row["mode"]) == (library, style, mode):
            return row["time_us"]
    return None


def _format_row(row: Dict[str, Any]) -> str:
    name = f"{row['job']:<6} {row['library']:<15} {row['style']:<11} {row['mode']:<9}"
    if row["time_us"] is None:
        return f"{name} unavailable: {row['unavailable']}"
    return f"{name} {row['time_us']:9.1f} us"


def format_table(rows: List[Dict[str, Any]]) -> str:
    header = f"{'job':<6} {'library':<15} {'style':<11} {'mode':<9} {'us (best)':>10} {'x tv eager':>11} {'x alb':>7}"
    lines = [header, "-" * len(header)]
    for row in rows:
        name = f"{row['job']:<6} {row['library']:<15} {row['style']:<11} {row['mode']:<9}"
        if row["time_us"] is None:
            lines.append(f"{name} {'unavailable':>10}  ({row['unavailable']})")
            continue
        ratios = [row.get("vs_torchvision_eager"), row.get("vs_albumentations")]
        cells = [f"{r:.2f}" if r is not None else "-" for r in ratios]
        lines.append(f"{name} {row['time_us']:10.1f} {cells[0]:>11} {cells[1]:>7}")
    return "\n".join(lines)


def plot(rows: List[Dict[str, Any]], path: str) -> bool:
    """A PNG bar chart of the times per job; False (with a message) when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("--plot: matplotlib is not installed (pip install matplotlib); no chart written", file=sys.stderr)
        return False
    jobs = list(dict.fromkeys(row["job"] for row in rows))
    fig, axes = plt.subplots(1, len(jobs), figsize=(7 * len(jobs), 5), squeeze=False)
    colors = {"jitvision": "tab:green", "torchvision": "tab:blue", "albumentations": "tab:orange"}
    for ax, job in zip(axes[0], jobs):
        measured = [row for row in rows if row["job"] == job and row["time_us"] is not None]
        labels = [f"{r['library']}\n{r['style']} {r['mode']}" for r in measured]
        ax.barh(labels, [r["time_us"] for r in measured], color=[colors[r["library"]] for r in measured])
        ax.invert_yaxis()
        ax.set_xlabel("us per image (1 thread, best round, lower is better)")
        ax.set_title(f"{job}: 3x{JOBS[job][1]}x{JOBS[job][2]} uint8 -> 3x224x224 float32")
        ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(args: argparse.Namespace) -> int:
    """The job as the command line asks for it (see ``jitvision.bench``): the table on stdout."""
    jobs = pick(args.jobs, list(JOBS), "job") if args.jobs else ["train", "infer"]
    libraries = pick(args.libraries, ["jitvision", "torchvision", "albumentations"], "library")
    styles = pick(args.styles, ["kernels", "functional", "compose", "fused"], "style")
    modes = pick(args.modes, ["eager", "compiled"], "mode")
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 7 if args.rounds is None else args.rounds
    if args.quick:
        modes, min_run_time = [m for m in modes if m == "eager"], min(min_run_time, 0.2)
    variants = [v for v in VARIANTS if v[0] in libraries and v[1] in styles and v[2] in modes]
    # The baselines are always measured when their library is picked, so the ratios exist.
    for base in [("torchvision", "compose", "eager"), ("albumentations", "compose", "eager")]:
        if base[0] in libraries and base not in variants:
            variants.append(base)

    rows = run(jobs, variants, min_run_time, log=log, rounds=rounds, layout=args.layout)
    print(
        f"torch {torch.__version__}, 1 thread, {args.layout} input, best of {rounds} interleaved rounds, "
        "each the median of torch.utils.benchmark.Timer.blocked_autorange"
    )
    print(format_table(rows))
    write_json(args.json, {"torch": torch.__version__, "threads": 1, "layout": args.layout, "rows": rows})
    if args.plot:
        plot(rows, args.plot)
    return 0
