"""The MixUp / CutMix rows of ``python -m jitvision bench --batch``: batch-level mixing, jitvision against torchvision.

A float32 batch ``[32, 3, 176, 176]`` (the size of the classification recipe's training crops) with ``[32]`` class
indices, through ``MixUp(num_classes=10)``, ``CutMix(num_classes=10)`` and the recipe's
``RandomChoice([MixUp(alpha=0.2), CutMix(alpha=1.0)])``, each called ``t(images, labels)`` in eager mode. One
thread; each op's jitvision and torchvision calls are timed in the same interleaved rounds (``_timing.interleaved``,
best round), so a slow phase of a shared machine hits both. ``x torchvision`` is torchvision's time over
jitvision's (above 1: jitvision is faster).
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from ._timing import Unavailable, failure, interleaved

SHAPE = (32, 3, 176, 176)
NUM_CLASSES = 10
OPS = ("MixUp", "CutMix", "RandomChoice(MixUp, CutMix)")
LIBRARIES = ("jitvision", "torchvision")


def make_inputs(shape: Sequence[int] = SHAPE, seed: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    images = torch.rand(tuple(shape), generator=gen)
    labels = torch.randint(0, NUM_CLASSES, (shape[0],), generator=gen)
    return images, labels


def build(op: str, library: str) -> Callable[[torch.Tensor, torch.Tensor], Any]:
    """The transform for ``op`` from ``library`` (jitvision.transforms or torchvision.transforms.v2). Raises
    Unavailable."""
    if library == "jitvision":
        import jitvision.transforms as ns
    else:
        try:
            import torchvision.transforms.v2 as ns
        except ImportError as exc:
            raise Unavailable(f"torchvision is not installed ({exc})") from exc
    if op == "MixUp":
        return ns.MixUp(num_classes=NUM_CLASSES)
    if op == "CutMix":
        return ns.CutMix(num_classes=NUM_CLASSES)
    if op == "RandomChoice(MixUp, CutMix)":
        return ns.RandomChoice(
            [ns.MixUp(alpha=0.2, num_classes=NUM_CLASSES), ns.CutMix(alpha=1.0, num_classes=NUM_CLASSES)]
        )
    raise ValueError(op)


def run(
    ops: Sequence[str] = OPS,
    shape: Sequence[int] = SHAPE,
    min_run_time: float = 2.0,
    rounds: int = 5,
    log: Optional[Callable[[str], None]] = None,
) -> List[Dict[str, Any]]:
    """One row per op: ``jitvision_ms``, ``torchvision_ms`` (None when unavailable) and ``vs_torchvision``."""
    torch.set_num_threads(1)
    images, labels = make_inputs(shape)
    rows: List[Dict[str, Any]] = []
    entries = []
    for op in ops:
        row: Dict[str, Any] = {"op": op, "jitvision_ms": None, "torchvision_ms": None, "vs_torchvision": None}
        rows.append(row)
        for library in LIBRARIES:
            try:
                transform = build(op, library)
                mixed, mixed_labels = transform(images, labels)
                if mixed.shape != images.shape or tuple(mixed_labels.shape) != (shape[0], NUM_CLASSES):
                    raise Unavailable(f"returned {tuple(mixed.shape)} and {tuple(mixed_labels.shape)}")
            except Exception as exc:  # noqa: BLE001 - reported, not fatal
                row[f"{library}_unavailable"] = str(failure(exc))
                continue
            entries.append(((op, library), (lambda t=transform: t(images, labels))))
    samples = interleaved(entries, min_run_time, rounds)
    for row in rows:
        for library in LIBRARIES:
            if (row["op"], library) in samples:
                row[f"{library}_ms"] = min(samples[(row["op"], library)]) * 1e3
        if row["jitvision_ms"] and row["torchvision_ms"]:
            row["vs_torchvision"] = row["torchvision_ms"] / row["jitvision_ms"]
        if log is not None:
            log(_log_line(row))
    return rows


def _ms(value: Optional[float]) -> str:
    return "–" if value is None else f"{value:.2f}"


def _log_line(row: Dict[str, Any]) -> str:
    return f"{row['op']:<28} jitvision {_ms(row['jitvision_ms'])} ms  torchvision {_ms(row['torchvision_ms'])} ms"


def format_markdown(rows: Sequence[Dict[str, Any]], shape: Sequence[int] = SHAPE) -> str:
    lines = [
        f"MixUp / CutMix on a float32 batch {list(shape)} with {shape[0]} class indices, eager, `t(images, labels)`:",
        "",
        "| op | jitvision ms | torchvision ms | x torchvision |",
        "|---|---|---|---|",
    ]
    notes = []
    for row in rows:
        ratio = row["vs_torchvision"]
        lines.append(
            f"| {row['op']} | {_ms(row['jitvision_ms'])} | {_ms(row['torchvision_ms'])} | "
            + ("–" if ratio is None else f"{ratio:.2f}x")
            + " |"
        )
        notes += [f"{row['op']} {lib}: {row[lib + '_unavailable']}" for lib in LIBRARIES if lib + "_unavailable" in row]
    if notes:
        lines += ["", "Unavailable (–):"] + [f"- {note}" for note in notes]
    return "\n".join(lines)
