"""``python -m jitvision bench``: jitvision vs torchvision v2 vs albumentations (and kornia).

Three modes:

- default: the classification pipelines (below);
- ``--per-transform``: images/s per transform on real photographs, jitvision eager and compiled, torchvision v2,
  albumentations 2.0.8, AlbumentationsX (its own environment: ``make albumentationsx``) and kornia (the
  albumentations benchmark's method; see ``jitvision._bench.per_transform`` and, for each row's parameters,
  ``jitvision._bench._rows``);
- ``--pil``: torchvision's classification reference recipes (``backend="pil"``) on PIL photographs, jitvision
  against torchvision per sample, and the measured difference of jitvision's PIL path from PIL's resampling (see
  ``jitvision._bench.pil_path``; ``--presets PATH`` import-swaps a copy of the references' ``presets.py``);
- ``--batch``: per-sample augmentation of a 64-image batch: jitvision's batch API, loops of single-sample
  pipelines, kornia (see ``jitvision._bench.batch``);
- ``--augment``: timm-style training pipelines with TrivialAugmentWide / RandAugment against torchvision v2 and
  timm's PIL transform (see ``jitvision._bench.augment``).
- ``--threads N``: the pipelines below on 1 and N Python threads in eager, scripted, compiled, AOTInductor and
  onnxruntime, the time per call against torchvision's and whether the GIL is held (see
  ``jitvision._bench.threads``).

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
import json
import os
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ._bench._timing import Unavailable, compile_pipeline, static_shapes

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
        from . import _native
        from .transforms._fusion import run_fused

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


class UsageError(ValueError):
    """A bad option or name on the command line: ``main`` reports it in one line and exits 2."""


def _pick(values: Optional[str], allowed: Sequence[str], what: str) -> List[str]:
    if values is None:
        return list(allowed)
    picked = [v.strip() for v in values.split(",") if v.strip()]
    unknown = [v for v in picked if v not in allowed]
    if unknown:
        raise UsageError(f"unknown {what} {unknown}; choose from {list(allowed)}")
    return picked


# The options each benchmark reads (besides the job flag itself); any other one given is refused rather than
# silently ignored.
_COMMON = {"min_run_time", "rounds", "json"}
OPTIONS = {
    "pipelines": _COMMON | {"jobs", "libraries", "styles", "modes", "layout", "quick", "plot"},
    "per-transform": _COMMON
    | {"only", "photos", "synthetic", "compile_backend", "quick", "plot", "device", "modes", "libraries"},
    "batch": _COMMON | {"compile_backend", "quick", "device", "jobs", "plot"},
    "pil": _COMMON | {"photos", "presets", "quick"},
    "augment": _COMMON | {"jobs"},
    "threads": _COMMON | {"runtimes", "aoti_dir", "export", "jobs", "quick"},
}
_JOB_FLAGS = {"per_transform", "batch", "pil", "augment", "threads"}


def _check_options(parser: argparse.ArgumentParser, args: argparse.Namespace, job: str) -> None:
    """Refuse the options given that ``job`` does not read (an option is given when its value is not its
    default)."""
    for action in parser._actions:
        dest = action.dest
        if dest in _JOB_FLAGS or dest == "help" or not action.option_strings or dest in OPTIONS[job]:
            continue
        if getattr(args, dest) != action.default:
            takers = [name for name, options in OPTIONS.items() if dest in options]
            flags = ", ".join("the default pipelines" if t == "pipelines" else f"--{t}" for t in takers)
            raise UsageError(f"{action.option_strings[0]} does not apply to {_JOB_NAMES[job]} (it goes with {flags})")


_JOB_NAMES = {
    "pipelines": "the default pipelines",
    "per-transform": "--per-transform",
    "batch": "--batch",
    "pil": "--pil",
    "augment": "--augment",
    "threads": "--threads",
}


def main(argv: Optional[Sequence[str]] = None, prog: str = "python -m jitvision bench") -> int:
    """Run the benchmark the arguments ask for: results on stdout, progress on stderr; a usage error exits 2."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    job = parser.add_mutually_exclusive_group()
    job.add_argument(
        "--per-transform", action="store_true", help="images/s per transform on photographs, all libraries"
    )
    job.add_argument("--batch", action="store_true", help="per-sample augmentation of a 64-image batch")
    job.add_argument(
        "--pil", action="store_true", help="torchvision's classification recipes on PIL images (backend='pil')"
    )
    job.add_argument(
        "--augment", action="store_true", help="timm-style training pipelines with TrivialAugmentWide / RandAugment"
    )
    job.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="throughput on N threads vs 1: eager, scripted, compiled, AOTI, ONNX, C++",
    )
    parser.add_argument(
        "--runtimes",
        help="--threads: comma-separated: control,torchvision,eager,scripted,compiled,compiled-plain,compiled-forward,"
        "native-op,compiled-op,aoti,"
        "onnxruntime,cpp-control,cpp-script,cpp-aoti (native-op / compiled-op: the presets' one native call from "
        "Python, plain and compiled; the cpp-* rows run the C++ example examples/deploy: a checkout only)",
    )
    parser.add_argument(
        "--presets", metavar="PATH", help="--pil: references/classification/presets.py to import-swap and time"
    )
    parser.add_argument("--aoti-dir", help="--threads: where AOTI packages and ONNX files are kept (and reused)")
    parser.add_argument(
        "--export",
        choices=("strict", "nonstrict"),
        default="strict",
        help="--threads: torch.export mode for the AOTI packages (strict, or nonstrict: "
        "torch.export's default; both give the fused native ops)",
    )
    parser.add_argument(
        "--jobs", help="comma-separated: train,infer,detection (default: train,infer; detection is opt-in)"
    )
    parser.add_argument(
        "--libraries",
        help="comma-separated: jitvision,torchvision,albumentations (default: all; --per-transform: also "
        "albumentationsx,kornia)",
    )
    parser.add_argument("--styles", help="comma-separated: kernels,functional,compose,fused (default: all)")
    parser.add_argument("--modes", help="comma-separated: eager,compiled (default: both; --per-transform too)")
    parser.add_argument("--only", help="--per-transform: comma-separated rows (default: all)")
    parser.add_argument(
        "--photos",
        help="--per-transform: comma-separated photographs, or all (default: astronaut,coffee,chelsea; all: +rocket)",
    )
    parser.add_argument(
        "--synthetic", action="store_true", help="--per-transform: synthetic images instead of the photographs"
    )
    parser.add_argument(
        "--compile-backend",
        choices=("inductor", "eager"),
        default="inductor",
        help="what the compiled variants of --per-transform/--batch hand their graphs to (eager: for tests)",
    )
    parser.add_argument(
        "--min-run-time",
        type=float,
        help="seconds per variant over all rounds (default 2.0; --per-transform: 0.4 per row and variant)",
    )
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 7; --per-transform, --batch: 5)")
    parser.add_argument(
        "--layout", choices=LAYOUTS, default="chw", help="chw: contiguous image; hwc: a view of HWC memory (PIL)"
    )
    parser.add_argument("--quick", action="store_true", help="eager only, short measurements (for tests)")
    parser.add_argument("--json", metavar="PATH", help="write the rows as JSON")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG bar chart (needs matplotlib)")
    parser.add_argument(
        "--device",
        default="cpu",
        help="--batch / --per-transform: cuda runs the GPU jobs (images and batches of 256 already on the device)",
    )
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    job = "pipelines"
    flags = (("per_transform", "per-transform"), ("batch", "batch"), ("pil", "pil"), ("augment", "augment"))
    for flag, name in flags:
        job = name if getattr(args, flag) else job
    job = "threads" if args.threads is not None else job
    run_job = {
        "pipelines": _main_pipelines,
        "per-transform": _main_per_transform,
        "batch": _main_batch,
        "pil": _main_pil,
        "augment": _main_augment,
        "threads": _main_threads,
    }[job]
    try:
        _check_options(parser, args, job)
        return run_job(args)
    except UsageError as exc:
        parser.error(str(exc))  # the usage and one line on stderr, exit status 2
    return 2


def _main_pipelines(args: argparse.Namespace) -> int:
    jobs = _pick(args.jobs, list(JOBS), "job") if args.jobs else ["train", "infer"]
    libraries = _pick(args.libraries, ["jitvision", "torchvision", "albumentations"], "library")
    styles = _pick(args.styles, ["kernels", "functional", "compose", "fused"], "style")
    modes = _pick(args.modes, ["eager", "compiled"], "mode")
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 7 if args.rounds is None else args.rounds
    if args.quick:
        modes, min_run_time = [m for m in modes if m == "eager"], min(min_run_time, 0.2)
    variants = [v for v in VARIANTS if v[0] in libraries and v[1] in styles and v[2] in modes]
    # The baselines are always measured when their library is picked, so the ratios exist.
    for base in [("torchvision", "compose", "eager"), ("albumentations", "compose", "eager")]:
        if base[0] in libraries and base not in variants:
            variants.append(base)

    rows = run(jobs, variants, min_run_time, log=_log, rounds=rounds, layout=args.layout)
    print(
        f"torch {torch.__version__}, 1 thread, {args.layout} input, best of {rounds} interleaved rounds, "
        "each the median of torch.utils.benchmark.Timer.blocked_autorange"
    )
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "threads": 1, "layout": args.layout, "rows": rows}, f, indent=2)
    if args.plot:
        plot(rows, args.plot)
    return 0


def _main_augment(args: Any) -> int:
    from ._bench import augment

    jobs = _pick(args.jobs, list(augment.JOBS), "job")
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 5 if args.rounds is None else args.rounds
    rows = augment.run(jobs, min_run_time, rounds, log=_log)  # each row on stderr as it is measured
    print(f"torch {torch.__version__}, 1 thread, best of {rounds} interleaved rounds, us per call")
    for row in rows:
        print(augment.format_row(row))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "threads": 1, "rows": rows}, f, indent=2)
    return 0


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _versions() -> Dict[str, Optional[str]]:
    import importlib.metadata

    out: Dict[str, Optional[str]] = {}
    for dist in ("torch", "torchvision", "albumentations", "kornia", "opencv-python-headless", "scikit-image"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _main_per_transform_device(args: argparse.Namespace) -> int:
    from ._bench import gpu

    names = args.only.split(",") if args.only else None
    min_run_time = 0.2 if args.min_run_time is None else args.min_run_time
    rows = gpu.run_rows(names, (1, 256), 256, args.device, min_run_time, log=_log)
    print(f"per-transform on {torch.cuda.get_device_name(args.device)}, torch {torch.__version__}")
    print(gpu.format_rows_markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(args.device), "rows": rows}, f, indent=2)
    return 0


def _main_per_transform(args: argparse.Namespace) -> int:
    if args.device != "cpu":
        return _main_per_transform_device(args)
    from ._bench import _photos, _rows, per_transform

    rows = [row for row in _rows.ROWS if row.name in _pick(args.only, _rows.ROW_NAMES, "row")]
    all_photos = [p[0] for p in _photos.PHOTOS]
    if args.photos is None:
        photo_names = list(_photos.DEFAULT_PHOTOS)
    else:
        photo_names = all_photos if args.photos == "all" else _pick(args.photos, all_photos, "photo")
    images, names, label = _photos.load_photos(photo_names, synthetic=args.synthetic)
    variants = per_transform.VARIANTS
    if args.modes:
        variants = [v for v in variants if v[1] in _pick(args.modes, ["eager", "compiled"], "mode")]
    if args.libraries:
        libraries = list(dict.fromkeys(library for library, _ in per_transform.VARIANTS))
        variants = [v for v in variants if v[0] in _pick(args.libraries, libraries, "library")]
    min_run_time = 0.4 if args.min_run_time is None else args.min_run_time
    rounds = 5 if args.rounds is None else args.rounds
    if args.quick:
        variants = [v for v in variants if v[1] == "eager"]
        min_run_time, rounds = min(min_run_time, 0.05), min(rounds, 2)
    sizes = ", ".join(f"{n} {tuple(i.shape[:2])}" for n, i in zip(names, images))
    _log(f"images: {label}: {sizes}")
    versions = _versions()
    results = per_transform.run(
        rows, images, variants, min_run_time, rounds, backend=args.compile_backend, log=_log, versions=versions
    )
    print(
        f"images/s, 1 thread, {len(images)} images ({label}: {sizes}), best of {rounds} interleaved rounds; "
        + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    )
    print(per_transform.format_markdown(results, variants))
    if args.json:
        with open(args.json, "w") as f:
            meta = {"threads": 1, "images": label, "photos": names, "sizes": [list(i.shape) for i in images]}
            json.dump({**meta, "versions": versions, "rows": results}, f, indent=2)
    if args.plot:
        per_transform.plot(results, args.plot, variants)
    return 0


def _main_batch_device(args: argparse.Namespace) -> int:
    from ._bench import gpu

    rounds = 3 if args.rounds is None else args.rounds
    min_run_time = 1.0 if args.min_run_time is None else args.min_run_time
    shape, crop = gpu.BATCH, gpu.CROP
    if args.quick:
        shape, crop, rounds, min_run_time = (8, 3, 64, 64), 48, 1, 0.05
    jobs = _pick(args.jobs, list(gpu.PIPELINES), "pipeline") if args.jobs else list(gpu.PIPELINES)
    versions = _versions()

    def save(rows: List[Dict[str, Any]]) -> None:
        if args.json:
            with open(args.json, "w") as f:
                payload = {"device": torch.cuda.get_device_name(args.device), "shape": list(shape), "rows": rows}
                json.dump({**payload, "versions": versions}, f, indent=2)

    rows = gpu.run(jobs, gpu.VARIANTS, shape, crop, args.device, min_run_time, rounds, log=_log, on_rows=save)
    save(rows)
    print(
        f"batch {list(shape)} uint8 on {torch.cuda.get_device_name(args.device)} -> [{shape[0]}, {shape[1]}, {crop}, "
        f"{crop}] float32, best of {rounds} rounds; " + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    )
    print(gpu.format_markdown(rows))
    if args.plot:
        gpu.plot(rows, args.plot)
    return 0


def _main_pil(args: argparse.Namespace) -> int:
    from ._bench import _photos, pil_path

    all_photos = [p[0] for p in _photos.PHOTOS]
    names = all_photos if args.photos in (None, "all") else _pick(args.photos, all_photos, "photo")
    images, label = pil_path.pil_photos(names)
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 7 if args.rounds is None else args.rounds
    if args.quick:
        min_run_time, rounds = min(min_run_time, 0.05), min(rounds, 2)
    results = pil_path.run(images, args.presets, min_run_time, rounds)
    versions = _versions()
    print(
        f"us per sample, 1 thread, {len(images)} RGB PIL images ({label}), best of {rounds} interleaved rounds; "
        + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    )
    print(pil_path.format_markdown(results))
    differences = pil_path.difference(images, draws=2 if args.quick else 20)
    print("\njitvision's PIL path against PIL's resampling (same draws, uint8 levels):")
    print(pil_path.format_difference(differences))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"images": label, "versions": versions, "rows": results, "difference": differences}, f, indent=2)
    return 0


def _main_batch(args: argparse.Namespace) -> int:
    if args.device != "cpu":
        return _main_batch_device(args)
    from ._bench import batch

    variants = batch.VARIANTS
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 5 if args.rounds is None else args.rounds
    shape, crop = batch.BATCH, batch.CROP
    if args.quick:
        variants = [v for v in variants if v[1] == "eager"]
        min_run_time, rounds, shape, crop = min(min_run_time, 0.05), min(rounds, 2), (4, 3, 64, 64), 48
    rows = batch.run(variants, shape, crop, min_run_time, rounds, backend=args.compile_backend, log=_log)
    versions = _versions()
    print(
        f"batch {list(shape)} uint8 -> [{shape[0]}, {shape[1]}, {crop}, {crop}] float32, 1 thread, best of {rounds} "
        "interleaved rounds; " + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    )
    print(batch.format_markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": 1, "shape": list(shape), "versions": versions, "rows": rows}, f, indent=2)
    return 0


def _main_threads(args: argparse.Namespace) -> int:
    from ._bench import threads

    if args.threads < 2:
        raise UsageError("--threads needs N >= 2")
    # the presets by default (the detection job's sample is a dict with boxes: Compose-only, no AOTI/ONNX form)
    jobs = _pick(args.jobs, list(JOBS), "job") if args.jobs else ["train", "infer"]
    runtimes = _pick(args.runtimes, threads.RUNTIMES, "runtime")
    seconds = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 3 if args.rounds is None else args.rounds
    if args.quick:
        runtimes = [r for r in runtimes if r in ("control", "torchvision", "eager", "scripted")]
        seconds, rounds = min(seconds, 0.1), 1
    rows = threads.run(
        jobs, runtimes, args.threads, seconds, rounds, args.aoti_dir, strict=args.export == "strict", log=_log
    )
    versions = _versions()
    print(
        f"{args.threads} threads vs 1 (torch.set_num_threads(1) in each), {os.cpu_count()} cores, {seconds:g} s "
        f"windows, best of {rounds} rounds, AOTI from a {args.export} export; "
        + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    )
    print(threads.format_markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "versions": versions, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
