"""``python -m jitvision bench --batch``: per-sample augmentation of a whole batch.

A batch of 64 uint8 images 3x256x256 (random values, seeded), through RandomResizedCrop(224),
RandomHorizontalFlip, ToDtype(float32, scale=True), Normalize(ImageNet), with a new draw for every sample.
One thread; times from the interleaved rounds of ``_timing.interleaved`` (best round), reported per batch and
per image. Every variant returns a [64, 3, 224, 224] float32 batch:

- ``jitvision batch (BatchedImages)``: ``pipe(tv_tensors.BatchedImages(x))``, eager and compiled (the batch is
  wrapped once before timing: the wrapper is a zero-copy view, and a user wraps outside the compiled pipeline);
- ``jitvision batch (forward_batch)``: ``pipe.forward_batch(x)``, eager and compiled
  (the per-sample batch API; "unavailable" where the names are missing);
- ``jitvision loop``: the single-sample Compose called on each image, then ``torch.stack`` (what a DataLoader's
  collate does; timed);
- ``torchvision loop``: the same with torchvision v2;
- ``kornia``: ``AugmentationSequential(RandomResizedCrop((224, 224)), RandomHorizontalFlip(), Normalize(...),
  same_on_batch=False)`` on the batch already converted to float32 in [0, 1] (the conversion is NOT timed; kornia
  works on float only), and ``kornia +convert``: the same with ``x.float().div(255)`` inside the timed call.

Ratios: time of the loop of jitvision's single-sample Compose / time of the variant, and kornia's time / time of
the variant (above 1: the variant is faster).

A second table times the batch-level mixing ops, MixUp, CutMix and the classification recipe's choice of the two,
jitvision against torchvision (``jitvision._bench.mix``).
"""

import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from . import mix
from ._cli import installed, library_versions, log, write_json
from ._rows import MEAN, STD
from ._timing import (
    Unavailable,
    allow_recompiles,
    compile_static,
    failure,
    import_peers,
    interleaved,
    static_shapes,
)

BATCH = (64, 3, 256, 256)
CROP = 224

# (name, mode) in table order.
VARIANTS: List[Tuple[str, str]] = [
    ("jitvision batch (BatchedImages)", "eager"),
    ("jitvision batch (BatchedImages)", "compiled"),
    ("jitvision batch (forward_batch)", "eager"),
    ("jitvision batch (forward_batch)", "compiled"),
    ("jitvision loop", "eager"),
    ("torchvision loop", "eager"),
    ("kornia", "eager"),
    ("kornia +convert", "eager"),
]
BASE_LOOP = ("jitvision loop", "eager")
BASE_KORNIA = ("kornia", "eager")


def make_batch(shape: Sequence[int] = BATCH, seed: int = 0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, tuple(shape), dtype=torch.uint8, generator=gen)


def pipeline(ns: Any, crop: int = CROP) -> Any:
    """The single-sample pipeline as ``ns.Compose`` (jitvision.transforms or torchvision.transforms.v2)."""
    return ns.Compose(
        [
            ns.RandomResizedCrop(crop),
            ns.RandomHorizontalFlip(),
            ns.ToDtype(torch.float32, scale=True),
            ns.Normalize(MEAN, STD),
        ]
    )


def _jitvision() -> Tuple[Any, Any]:
    import jitvision.transforms as T
    import jitvision.tv_tensors as tv_tensors

    return T, tv_tensors


def _loop(pipe: Any) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: torch.stack([pipe(image) for image in x.unbind(0)])


def build(name: str, mode: str, crop: int = CROP, backend: str = "inductor") -> Tuple[Callable[[Any], Any], Any, str]:
    """``(fn, counter, input_kind)``: fn maps the batch to the output batch; input_kind is "uint8", "batched"
    (the uint8 batch wrapped as ``BatchedImages`` before timing) or "float" (the batch kornia gets, converted
    before timing). Raises Unavailable."""
    counter = None
    if name.startswith("jitvision"):
        T, tv_tensors = _jitvision()
        pipe = pipeline(T, crop)
        if name == "jitvision loop":
            fn = _loop(pipe)
        elif name == "jitvision batch (BatchedImages)":
            batched = getattr(tv_tensors, "BatchedImages", None)
            if batched is None:
                raise Unavailable("jitvision.tv_tensors has no BatchedImages")
            fn = pipe
        elif name == "jitvision batch (forward_batch)":
            if not hasattr(pipe, "forward_batch"):
                raise Unavailable("jitvision Compose has no forward_batch")
            fn = pipe.forward_batch
        else:
            raise ValueError(name)
        if mode == "compiled":
            fn, counter = compile_static(fn, backend)
        return fn, counter, ("batched" if name == "jitvision batch (BatchedImages)" else "uint8")
    if mode != "eager":
        raise Unavailable(f"{name}: eager only")
    if name == "torchvision loop":
        try:
            import torchvision.transforms.v2 as TV
        except ImportError as exc:
            raise Unavailable(f"torchvision is not installed ({exc})") from exc
        return _loop(pipeline(TV, crop)), None, "uint8"
    if name.startswith("kornia"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import kornia.augmentation as K
        except ImportError as exc:
            raise Unavailable('kornia is not installed (pip install "kornia==0.9.*")') from exc
        aug = K.AugmentationSequential(
            K.RandomResizedCrop((crop, crop)),
            K.RandomHorizontalFlip(),
            K.Normalize(mean=torch.tensor(MEAN), std=torch.tensor(STD)),
            same_on_batch=False,
        )
        if name == "kornia":
            return aug, None, "float"
        return (lambda x: aug(x.to(torch.float32).div(255))), None, "uint8"
    raise ValueError(name)


def run(
    variants: Sequence[Tuple[str, str]] = VARIANTS,
    shape: Sequence[int] = BATCH,
    crop: int = CROP,
    min_run_time: float = 2.0,
    rounds: int = 5,
    backend: str = "inductor",
    log: Optional[Callable[[str], None]] = None,
) -> List[Dict[str, Any]]:
    """One row per variant: ``time_ms`` per batch (None when unavailable), ``us_per_image``, ``graphs`` (compiled),
    ``vs_jitvision_loop``, ``vs_kornia``."""
    torch.set_num_threads(1)
    import_peers()
    torch._dynamo.reset()
    allow_recompiles(16)
    with static_shapes():
        return _run(variants, shape, crop, min_run_time, rounds, backend, log)


def _run(
    variants: Sequence[Tuple[str, str]],
    shape: Sequence[int],
    crop: int,
    min_run_time: float,
    rounds: int,
    backend: str,
    log: Optional[Callable[[str], None]],
) -> List[Dict[str, Any]]:
    batch = make_batch(shape)
    inputs = {"uint8": batch, "float": batch.to(torch.float32).div(255)}
    batched = getattr(_jitvision()[1], "BatchedImages", None)
    if batched is not None:
        inputs["batched"] = batched(batch)  # wrapped once, outside the timed (and compiled) call, as a user would
    rows: List[Dict[str, Any]] = []
    runnable = []
    for name, mode in variants:
        row: Dict[str, Any] = {"variant": name, "mode": mode, "time_ms": None}
        rows.append(row)
        try:
            fn, counter, kind = build(name, mode, crop, backend)
            x = inputs[kind]
            torch.manual_seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in range(3 if counter is not None else 1):
                    out = fn(x)
            if tuple(out.shape) != (shape[0], shape[1], crop, crop) or out.dtype != torch.float32:
                raise Unavailable(
                    f"returned {out.dtype} {tuple(out.shape)}, not a float32 [B, C, {crop}, {crop}] batch"
                )
        except Exception as exc:  # noqa: BLE001 - reported, not fatal
            row["unavailable"] = str(failure(exc))
            continue
        if counter is not None:
            row["graphs"] = counter.graphs
        runnable.append((row, (lambda fn=fn, x=x: fn(x)), counter, counter.graphs if counter is not None else 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = interleaved([(id(row), run) for row, run, _, _ in runnable], min_run_time, rounds)
    for row, _, counter, graphs in runnable:
        best = min(samples[id(row)])
        row["time_ms"] = best * 1e3
        row["us_per_image"] = best / shape[0] * 1e6
        if counter is not None and counter.graphs != graphs:
            row["recompiled_during_timing"] = counter.graphs - graphs
    bases = {"vs_jitvision_loop": _time_of(rows, BASE_LOOP), "vs_kornia": _time_of(rows, BASE_KORNIA)}
    for row in rows:
        for key, base in bases.items():
            row[key] = base / row["time_ms"] if base is not None and row["time_ms"] else None
        if log is not None:
            log(_log_line(row))
    return rows


def _time_of(rows: Sequence[Dict[str, Any]], variant: Tuple[str, str]) -> Optional[float]:
    for row in rows:
        if (row["variant"], row["mode"]) == variant:
            return row["time_ms"]
    return None


def _log_line(row: Dict[str, Any]) -> str:
    name = f"{row['variant']:<32} {row['mode']:<9}"
    if row["time_ms"] is None:
        return f"{name} unavailable: {row['unavailable']}"
    return f"{name} {row['time_ms']:9.2f} ms/batch"


def format_markdown(rows: Sequence[Dict[str, Any]]) -> str:
    header = ["variant", "mode", "ms / batch", "us / image", "x jv loop", "x kornia", "graphs"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes = []
    for row in rows:
        if row["time_ms"] is None:
            cells = [row["variant"], row["mode"], "–", "–", "–", "–", ""]
            notes.append(f"{row['variant']} {row['mode']}: {row['unavailable']}")
        else:
            ratios = [row.get("vs_jitvision_loop"), row.get("vs_kornia")]
            graphs = str(row.get("graphs", ""))
            if row.get("recompiled_during_timing"):
                graphs += f" (+{row['recompiled_during_timing']} during timing)"
            cells = [
                row["variant"],
                row["mode"],
                f"{row['time_ms']:.1f}",
                f"{row['us_per_image']:.0f}",
                *[f"{r:.2f}x" if r is not None else "–" for r in ratios],
                graphs,
            ]
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines += ["", "Unavailable (–):"] + [f"- {note}" for note in notes]
    return "\n".join(lines)


def main(args: Any) -> int:
    """``bench --batch`` as the command line asks for it (see ``jitvision.bench``): the table on stdout;
    ``--device cuda`` runs the GPU job (``gpu.main_batch``)."""
    if args.device != "cpu":
        from . import gpu

        return gpu.main_batch(args)
    variants = VARIANTS
    min_run_time = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 5 if args.rounds is None else args.rounds
    shape, crop = BATCH, CROP
    if args.quick:
        variants = [v for v in variants if v[1] == "eager"]
        min_run_time, rounds, shape, crop = min(min_run_time, 0.05), min(rounds, 2), (4, 3, 64, 64), 48
    rows = run(variants, shape, crop, min_run_time, rounds, backend=args.compile_backend, log=log)
    mix_shape = mix.SHAPE if not args.quick else (4, 3, 32, 32)
    mix_rows = mix.run(shape=mix_shape, min_run_time=min_run_time, rounds=rounds, log=log)
    found = library_versions()
    print(
        f"batch {list(shape)} uint8 -> [{shape[0]}, {shape[1]}, {crop}, {crop}] float32, 1 thread, best of {rounds} "
        "interleaved rounds; " + installed(found)
    )
    print(format_markdown(rows))
    print()
    print(mix.format_markdown(mix_rows, mix_shape))
    write_json(
        args.json,
        {
            "threads": 1,
            "shape": list(shape),
            "versions": found,
            "rows": rows,
            "mix": {"shape": list(mix_shape), "rows": mix_rows},
        },
    )
    return 0
