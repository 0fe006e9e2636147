"""``python -m jitvision bench --batch --device cuda``: per-sample augmentation of batches already on the GPU.

A batch of 256 uint8 images 3x256x256 (random values, seeded) on the device, through three pipelines with a new draw
for every sample:

- ``rrc``: RandomResizedCrop(224), RandomHorizontalFlip, ToDtype(float32, scale=True), Normalize(ImageNet);
- ``colorjitter``: the same with ColorJitter(0.4, 0.4, 0.4, 0.1) after the flip;
- ``randaugment``: the same with RandAugment() (2 operations, magnitude 9) after the flip.

Variants, in one run: jitvision eager (``pipe(BatchedImages(x))``), jitvision compiled (``transforms.compile``,
inductor, Triton kernels) and compiled with CUDA graphs (``mode="reduce-overhead"``); kornia
``AugmentationSequential(..., same_on_batch=False)`` with the uint8 -> float conversion inside the timed call (kornia
works on float); torchvision v2 looping over the images (one draw per image) and torchvision on the whole batch
(one draw for all: not per-sample, the fastest torchvision can do). Times are wall clock between
``torch.cuda.synchronize()`` calls, best of the rounds; images/second and the ratios against kornia and the
torchvision loop.
"""

import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from ._cli import installed, library_versions, log, pick, write_json
from ._rows import MEAN, STD
from ._timing import Unavailable, failure

BATCH = (256, 3, 256, 256)
CROP = 224
PIPELINES = ("rrc", "colorjitter", "randaugment")
VARIANTS: List[Tuple[str, str]] = [
    ("jitvision", "eager"),
    ("jitvision", "compiled"),
    ("jitvision", "compiled+cudagraphs"),
    ("kornia", "eager"),
    ("torchvision loop", "eager"),
    ("torchvision batch", "eager"),
]
Fn = Callable[[torch.Tensor], torch.Tensor]


def pipeline(ns: Any, job: str, crop: int = CROP) -> Any:
    """The single-sample pipeline ``job`` as ``ns.Compose`` (jitvision.transforms or torchvision.transforms.v2)."""
    middle: List[Any] = []
    if job == "colorjitter":
        middle = [ns.ColorJitter(0.4, 0.4, 0.4, 0.1)]
    elif job == "randaugment":
        middle = [ns.RandAugment()]
    elif job != "rrc":
        raise ValueError(f"bench --device cuda: unknown pipeline {job!r}")
    return ns.Compose(
        [ns.RandomResizedCrop(crop), ns.RandomHorizontalFlip(), *middle, ns.ToDtype(torch.float32, scale=True),
         ns.Normalize(MEAN, STD)]
    )


def _kornia(job: str, crop: int, device: torch.device) -> Fn:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import kornia.augmentation as K
    except ImportError as exc:
        raise Unavailable('kornia is not installed (pip install "kornia==0.9.*")') from exc
    steps: List[Any] = [K.RandomResizedCrop((crop, crop)), K.RandomHorizontalFlip()]
    if job == "colorjitter":
        steps.append(K.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0))
    elif job == "randaugment":
        from kornia.augmentation.auto import RandAugment

        steps.append(RandAugment(n=2, m=9))
    steps.append(K.Normalize(mean=torch.tensor(MEAN), std=torch.tensor(STD)))
    aug = K.AugmentationSequential(*steps, same_on_batch=False).to(device)
    return lambda x: aug(x.to(torch.float32).div(255))


def build(name: str, mode: str, job: str, crop: int, device: torch.device) -> Fn:
    """``fn(batch) -> float32 [B, 3, crop, crop]`` on the device. Raises Unavailable."""
    if name == "jitvision":
        import jitvision.transforms as T
        from jitvision.tv_tensors import BatchedImages

        pipe = pipeline(T, job, crop)
        if mode == "eager":
            return lambda x: pipe(BatchedImages(x)).as_subclass(torch.Tensor)
        kwargs: Dict[str, Any] = {"fullgraph": True}
        if mode == "compiled+cudagraphs":
            kwargs["mode"] = "reduce-overhead"
        compiled = T.compile(pipe, **kwargs)
        # CUDA graph replays reuse their output buffers: the clone is the caller's copy (timed: a user needs it).
        tail = (lambda out: out.clone()) if mode == "compiled+cudagraphs" else (lambda out: out)
        return lambda x: tail(compiled(BatchedImages(x)).as_subclass(torch.Tensor))
    if mode != "eager":
        raise Unavailable(f"{name}: eager only")
    if name.startswith("torchvision"):
        try:
            import torchvision.transforms.v2 as TV
        except ImportError as exc:
            raise Unavailable(f"torchvision is not installed ({exc})") from exc
        pipe = pipeline(TV, job, crop)
        if name == "torchvision batch":
            return pipe
        return lambda x: torch.stack([pipe(image) for image in x.unbind(0)])
    if name == "kornia":
        return _kornia(job, crop, device)
    raise ValueError(name)


def _sync(x: torch.Tensor) -> None:
    if x.device.type == "cuda":
        torch.cuda.synchronize(x.device)


def _time(fn: Fn, x: torch.Tensor, min_run_time: float) -> float:
    """Seconds per call: calls between two syncs until ``min_run_time`` has passed (at least 2 calls)."""
    _sync(x)
    start = time.perf_counter()
    calls = 0
    while True:
        fn(x)
        calls += 1
        if calls >= 2:
            _sync(x)
            elapsed = time.perf_counter() - start
            if elapsed >= min_run_time:
                return elapsed / calls


def run(
    jobs: Sequence[str] = PIPELINES,
    variants: Sequence[Tuple[str, str]] = VARIANTS,
    shape: Sequence[int] = BATCH,
    crop: int = CROP,
    device: str = "cuda",
    min_run_time: float = 1.0,
    rounds: int = 3,
    log: Optional[Callable[[str], None]] = None,
    on_rows: Optional[Callable[[List[Dict[str, Any]]], None]] = None,
) -> List[Dict[str, Any]]:
    """One row per (pipeline, variant): ``ms_per_batch``, ``images_per_s``, ``compile_s`` (compiled variants), the
    ratios ``vs_kornia`` and ``vs_torchvision_loop`` (above 1: faster), or ``unavailable``. ``on_rows`` gets the
    rows measured so far after each one."""
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"bench --device {device}: no CUDA device (torch.cuda.is_available() is False)")
    generator = torch.Generator(device=dev).manual_seed(0)
    x = torch.randint(0, 256, tuple(shape), dtype=torch.uint8, device=dev, generator=generator)
    rows: List[Dict[str, Any]] = []
    for job in jobs:
        job_rows: List[Dict[str, Any]] = []
        for name, mode in variants:
            row: Dict[str, Any] = {"pipeline": job, "variant": name, "mode": mode, "ms_per_batch": None}
            job_rows.append(row)
            try:
                torch._dynamo.reset()
                fn = build(name, mode, job, crop, dev)
                torch.manual_seed(0)
                started = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for _ in range(3):
                        out = fn(x)
                    _sync(x)
                if mode != "eager":
                    row["compile_s"] = round(time.perf_counter() - started, 1)
                if tuple(out.shape) != (shape[0], shape[1], crop, crop) or out.dtype != torch.float32:
                    raise Unavailable(f"returned {out.dtype} {tuple(out.shape)}, not float32 [B, 3, {crop}, {crop}]")
                if out.device.type != dev.type:
                    raise Unavailable(f"returned a batch on {out.device}")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    best = min(_time(fn, x, min_run_time) for _ in range(rounds))
            except Exception as exc:  # noqa: BLE001 - reported, not fatal
                row["unavailable"] = str(failure(exc))
                if log is not None:
                    log(f"{job:<12} {name:<18} {mode:<20} unavailable: {row['unavailable']}")
                continue
            row["ms_per_batch"] = best * 1e3
            row["images_per_s"] = shape[0] / best
            if on_rows is not None:  # the rows so far, for a caller that saves them as they come
                on_rows(rows + job_rows)
            if log is not None:
                speed = f"{row['ms_per_batch']:9.3f} ms/batch {row['images_per_s']:12,.0f} img/s"
                log(f"{job:<12} {name:<18} {mode:<20} {speed}")
        bases = {"vs_kornia": _time_of(job_rows, "kornia")}
        bases["vs_torchvision_loop"] = _time_of(job_rows, "torchvision loop")
        for row in job_rows:
            for key, base in bases.items():
                row[key] = base / row["ms_per_batch"] if base and row["ms_per_batch"] else None
        rows += job_rows
    return rows


def _time_of(rows: Sequence[Dict[str, Any]], name: str) -> Optional[float]:
    for row in rows:
        if row["variant"] == name and row["mode"] == "eager":
            return row["ms_per_batch"]
    return None


def format_markdown(rows: Sequence[Dict[str, Any]]) -> str:
    header = ["pipeline", "variant", "mode", "ms / batch", "images / s", "x kornia", "x torchvision loop", "compile s"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes = []
    for row in rows:
        if row["ms_per_batch"] is None:
            cells = [row["pipeline"], row["variant"], row["mode"], "–", "–", "–", "–", ""]
            notes.append(f"{row['pipeline']} {row['variant']} {row['mode']}: {row['unavailable']}")
        else:
            ratios = [row.get("vs_kornia"), row.get("vs_torchvision_loop")]
            cells = [
                row["pipeline"],
                row["variant"],
                row["mode"],
                f"{row['ms_per_batch']:.2f}",
                f"{row['images_per_s']:,.0f}",
                *[f"{r:.2f}x" if r is not None else "–" for r in ratios],
                str(row.get("compile_s", "")),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines += ["", "Unavailable (–):"] + [f"- {note}" for note in notes]
    return "\n".join(lines)


# Rows of ``bench --per-transform`` that run on a per-sample batch (their output size is fixed).
ROWS_SKIPPED = ("IoUCrop", "ShortestSize", "ScaleJitter", "RandomResize", "ZoomOut", "JPEG")


def _row_fn(library: str, row: Any, batch: int, device: torch.device) -> Fn:
    import importlib

    if library == "kornia":
        if row.kornia is None:
            raise Unavailable("kornia.augmentation has no equivalent class")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            K = importlib.import_module("kornia.augmentation")
        return row.kornia(K).to(device)
    ns = importlib.import_module("jitvision.transforms" if library == "jitvision" else "torchvision.transforms.v2")
    transform = row.torch(ns)
    if library == "jitvision" and batch > 1:
        return transform.forward_batch if hasattr(transform, "forward_batch") else transform
    return transform


def run_rows(
    names: Optional[Sequence[str]] = None,
    batches: Sequence[int] = (1, 256),
    side: int = 256,
    device: str = "cuda",
    min_run_time: float = 0.2,
    log: Optional[Callable[[str], None]] = None,
) -> List[Dict[str, Any]]:
    """Per-transform rows on the device: ``images_per_s`` for jitvision (one image, or ``forward_batch``: a draw per
    sample), torchvision (one image, or the batch with one draw for all) and kornia (its float batch, a draw per
    sample) at each batch size in ``batches``."""
    from ._rows import ROWS

    dev = torch.device(device)
    generator = torch.Generator(device=dev).manual_seed(0)
    rows: List[Dict[str, Any]] = []
    for row in ROWS:
        if row.name in ROWS_SKIPPED or (names and row.name not in names):
            continue
        for batch in batches:
            images = torch.randint(0, 256, (batch, 3, side, side), dtype=torch.uint8, device=dev, generator=generator)
            for library in ("jitvision", "torchvision", "kornia"):
                if library == "kornia" and batch == 1:
                    continue
                entry: Dict[str, Any] = {"row": row.name, "batch": batch, "library": library, "images_per_s": None}
                rows.append(entry)
                x = images[0] if batch == 1 and library != "kornia" else images
                x = x.to(torch.float32).div(255) if library == "kornia" else x
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fn = _row_fn(library, row, batch, dev)
                        fn(x)
                        seconds = _time(fn, x, min_run_time)
                except Exception as exc:  # noqa: BLE001 - reported, not fatal
                    entry["unavailable"] = str(failure(exc))
                    continue
                entry["images_per_s"] = batch / seconds
                if log is not None:
                    log(f"{row.name:<20} batch {batch:<4} {library:<12} {entry['images_per_s']:12,.0f} img/s")
    return rows


def format_rows_markdown(rows: Sequence[Dict[str, Any]]) -> str:
    batches = sorted({row["batch"] for row in rows})
    columns = [(batch, library) for batch in batches for library in ("jitvision", "torchvision", "kornia")]
    columns = [c for c in columns if any((r["batch"], r["library"]) == c for r in rows)]
    header = ["transform"] + [f"{library} @{batch}" for batch, library in columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in dict.fromkeys(row["row"] for row in rows):
        cells = [name]
        for batch, library in columns:
            found = [r for r in rows if (r["row"], r["batch"], r["library"]) == (name, batch, library)]
            speed = found[0]["images_per_s"] if found else None
            cells.append(f"{speed:,.0f}" if speed else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return "images / second; @1: one 3x256x256 uint8 image per call, @256: a batch\n\n" + "\n".join(lines)


def plot(rows: Sequence[Dict[str, Any]], path: str, pipeline_name: str = "rrc") -> bool:
    """A bar chart of images/second per variant of one pipeline (needs matplotlib); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    chosen = [r for r in rows if r["pipeline"] == pipeline_name and r.get("images_per_s")]
    one_draw = {"torchvision batch": "torchvision batch\n(one draw for all)"}
    labels = [one_draw.get(r["variant"], f"{r['variant']}\n{r['mode']}") for r in chosen]
    speeds = [r["images_per_s"] for r in chosen]
    colors = ["#d62728" if r["variant"] == "jitvision" else "#7f7f7f" for r in chosen]
    figure, axis = plt.subplots(figsize=(9, 3.6))
    axis.barh(labels[::-1], speeds[::-1], color=colors[::-1])
    for y, speed in enumerate(speeds[::-1]):
        axis.text(speed, y, f" {speed:,.0f}", va="center", fontsize=8)
    axis.set_xlabel("images / second (higher is better)")
    steps = {"rrc": "", "colorjitter": " + ColorJitter", "randaugment": " + RandAugment"}[pipeline_name]
    axis.set_title(f"RandomResizedCrop + flip{steps} + ToDtype + Normalize, a draw per sample, 256 images")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def main_per_transform(args: Any) -> int:
    """``bench --per-transform --device cuda``: the per-transform rows at batch 1 and 256 on the device."""
    names = args.only.split(",") if args.only else None
    min_run_time = 0.2 if args.min_run_time is None else args.min_run_time
    rows = run_rows(names, (1, 256), 256, args.device, min_run_time, log=log)
    print(f"per-transform on {torch.cuda.get_device_name(args.device)}, torch {torch.__version__}")
    print(format_rows_markdown(rows))
    write_json(args.json, {"device": torch.cuda.get_device_name(args.device), "rows": rows})
    return 0


def main_batch(args: Any) -> int:
    """``bench --batch --device cuda``: per-sample batches already on the device (the JSON rewritten after each
    pipeline, so a run cut short keeps what it measured)."""
    rounds = 3 if args.rounds is None else args.rounds
    min_run_time = 1.0 if args.min_run_time is None else args.min_run_time
    shape, crop = BATCH, CROP
    if args.quick:
        shape, crop, rounds, min_run_time = (8, 3, 64, 64), 48, 1, 0.05
    jobs = pick(args.jobs, list(PIPELINES), "pipeline") if args.jobs else list(PIPELINES)
    found = library_versions()

    def save(rows: List[Dict[str, Any]]) -> None:
        payload = {"device": torch.cuda.get_device_name(args.device), "shape": list(shape), "rows": rows}
        write_json(args.json, {**payload, "versions": found})

    rows = run(jobs, VARIANTS, shape, crop, args.device, min_run_time, rounds, log=log, on_rows=save)
    save(rows)
    print(
        f"batch {list(shape)} uint8 on {torch.cuda.get_device_name(args.device)} -> [{shape[0]}, {shape[1]}, {crop}, "
        f"{crop}] float32, best of {rounds} rounds; " + installed(found)
    )
    print(format_markdown(rows))
    if args.plot:
        plot(rows, args.plot)
    return 0
