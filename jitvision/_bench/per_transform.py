"""``python -m jitvision bench --per-transform``: the albumentations benchmark method, in one process.

One thread (``torch.set_num_threads(1)``, ``cv2.setNumThreads(0)``). The photographs (see ``_photos``) are
decoded once and preloaded in each library's native format: HWC uint8 numpy arrays for albumentations, CHW
uint8 contiguous tensors for torchvision and jitvision, CHW float32 tensors in [0, 1] for kornia (converted
before timing). A timed call is one pass over the image list, each output made contiguous; a row's variants are
timed in interleaved rounds and keep their best round (see ``_timing.interleaved``); the result is images per
second.

Variants: jitvision eager; jitvision compiled (``jitvision.transforms.compile(transform)``: torch.compile with
jitvision's guard filter, one token guard per transform instead of the guards on its attributes; inductor, with dynamo's
``dynamic=False`` settings applied once around the run, see ``_timing.static_shapes``: one graph per image
size, all warmed up before timing; the graphs are counted, and a compile during timing is reported);
torchvision v2 eager; albumentations 2.0.8; AlbumentationsX (in a process of its own, timed in the same interleaved
rounds, see ``_peer_process``); kornia. Ratios: jitvision's best variant over albumentations, AlbumentationsX and
torchvision (above 1: jitvision is faster). Each row's parameters are in ``_rows``; the peers' transforms are built
with warnings turned into errors (an argument a version does not take falls back to its default with a warning).

Why the compiled variants lose on cheap rows (measured here, torch 2.14.1, AVX2, 1 thread; the numbers are in
docs/design/eager-calls.md):

- a fixed cost per call of any compiled callable (dynamo's frame and guard evaluation, AOTAutograd's runtime
  wrapper): about 35-50 us for a bare function and 100-150 us for a jitvision transform module (its ~90 guards,
  the ``Transform.__call__``/``nn.Module.__call__`` frames), against 15-200 us for the whole eager call of a crop
  or a flip. ``torch.compile(..., dynamic=False)`` adds about 40 us more per call (it patches dynamo's config
  around every call); the harness avoids that part (``_timing.static_shapes``);
- inductor's CPU code for uint8 kernels: the vector tiling factor is the float32 lane count (8 on AVX2) whatever
  the dtype, so a uint8 kernel moves 8 bytes per iteration through partial ``Vectorized<uint8_t>::loadu(ptr, 8)``
  loads and stores: a compiled uint8 copy of 3x512x512 is ~30x slower than eager, and ``constant_pad_nd`` (masked
  loads) ~60-90x (5-9 ms for a 512x512 image: the compiled Pad row before it became a native node). Ops that
  jitvision routes to its native extension avoid it: flip_if, crop_at, resize_center_crop, the colour ops of
  csrc/color.cpp, constant_pad (Pad) and select_rows (the probability gate of Random* transforms), see
  docs/design/eager-calls.md.
"""

import sys
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from . import _peer_process, _photos
from ._cli import installed, library_versions, log, pick, write_json
from ._rows import MISSING_REASON, ROWS, Row
from ._timing import (
    Unavailable,
    allow_recompiles,
    compile_static,
    failure,
    import_peers,
    interleaved,
    static_shapes,
)

# (library, mode), in table order.
VARIANTS: List[Tuple[str, str]] = [
    ("jitvision", "eager"),
    ("jitvision", "compiled"),
    ("torchvision", "eager"),
    ("albumentations", "eager"),
    ("albumentationsx", "eager"),
    ("kornia", "eager"),
]
INPUT_FORMAT = {
    "jitvision": "chw",
    "torchvision": "chw",
    "albumentations": "hwc",
    "albumentationsx": "hwc",
    "kornia": "float",
}
# The peers whose ratio to jitvision's best variant the table shows: (result key, variant key).
PEERS = (
    ("vs_albumentations", "albumentations eager"),
    ("vs_albumentationsx", "albumentationsx eager"),
    ("vs_torchvision", "torchvision eager"),
)
COMPILED_WARMUP_PASSES = 2


def _key(library: str, mode: str) -> str:
    return f"{library} {mode}"


def _torch_namespace(library: str) -> Any:
    try:
        if library == "jitvision":
            import jitvision.transforms as ns
        else:
            import torchvision.transforms.v2 as ns
    except ImportError as exc:
        raise Unavailable(f"{library} is not installed ({exc})") from exc
    return ns


def _albumentations() -> Tuple[Any, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import albumentations as A
            import cv2
    except ImportError as exc:
        raise Unavailable("albumentations is not installed (pip install albumentations==2.0.8)") from exc
    cv2.setNumThreads(0)
    cv2.ocl.setUseOpenCL(False)
    return A, cv2


def _kornia() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import kornia.augmentation as K
    except ImportError as exc:
        raise Unavailable('kornia is not installed (pip install "kornia==0.9.*")') from exc
    return K


def build(
    row: Row, library: str, mode: str, backend: str = "inductor", peer: Optional[_peer_process.PeerProcess] = None
) -> Tuple[Callable[[Any], Any], Any]:
    """``(fn, counter)``: fn maps one image (the library's format) to a contiguous output; counter counts the
    compiled graphs (None when eager). Raises Unavailable. AlbumentationsX (``peer``, its own process) returns a
    ``RemotePass`` instead of fn: one pass over the images there, built and warmed up."""
    counter = None
    if library == "albumentationsx":
        if peer is None:
            raise Unavailable(f"AlbumentationsX is not set up (make albumentationsx, or {_peer_process.PYTHON_ENV})")
        if mode != "eager":
            raise Unavailable(f"{library} has no compiled mode here")
        peer.build(row.name)
        return _peer_process.RemotePass(peer, row.name), None
    if library in ("jitvision", "torchvision"):
        transform = row.torch(_torch_namespace(library))
        if mode == "compiled":
            transform, counter = compile_static(transform, backend, guard_filter=library == "jitvision")
        return (lambda image: transform(image).contiguous()), counter
    if mode != "eager":
        raise Unavailable(f"{library} has no compiled mode here")
    if library == "albumentations":
        A, cv2 = _albumentations()
        if row.albumentations is None:
            raise Unavailable("albumentations has no equivalent class")
        import numpy as np

        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an argument it does not take would fall back to a default, warning
            transform = row.albumentations(A, cv2)
        return (lambda image: np.ascontiguousarray(transform(image=image)["image"])), None
    if library == "kornia":
        K = _kornia()
        if row.kornia is None:
            raise Unavailable(MISSING_REASON["kornia"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            transform = row.kornia(K)
        return (lambda image: transform(image).contiguous()), None
    raise ValueError(library)


def preload(images: Sequence[torch.Tensor]) -> Dict[str, list]:
    """The HWC uint8 photos in every library's format."""
    return {
        "chw": _photos.as_chw(images),
        "hwc": _photos.as_hwc_numpy(images),
        "float": _photos.as_float_chw(images),
    }


def _pass(fn: Callable[[Any], Any], images: list) -> Callable[[], None]:
    def run() -> None:
        for image in images:
            fn(image)

    return run


def run_row(
    row: Row,
    inputs: Dict[str, list],
    variants: Sequence[Tuple[str, str]] = VARIANTS,
    min_run_time: float = 0.4,
    rounds: int = 5,
    backend: str = "inductor",
    peer: Optional[_peer_process.PeerProcess] = None,
) -> Dict[str, Any]:
    """One row: ``{"row": name, "variants": {"library mode": {"images_per_s", "unavailable", "graphs", ...}},
    "vs_albumentations", "vs_torchvision"}``."""
    started = time.perf_counter()
    torch._dynamo.reset()  # a fresh cache per row: the compiled transforms of other rows do not crowd it
    result: Dict[str, Any] = {"row": row.name, "variants": {}}
    runnable: List[Tuple[str, Callable[[], None], Any, int]] = []
    for library, mode in variants:
        cell: Dict[str, Any] = {"images_per_s": None}
        result["variants"][_key(library, mode)] = cell
        try:
            fn, counter = build(row, library, mode, backend, peer)
            images = inputs[INPUT_FORMAT[library]]
            if isinstance(fn, _peer_process.RemotePass):  # built and warmed up in its process
                runnable.append((_key(library, mode), fn, None, 0))
                continue
            torch.manual_seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in range(COMPILED_WARMUP_PASSES if counter is not None else 1):
                    for image in images:  # compiles one graph per image size
                        fn(image)
        except Exception as exc:  # noqa: BLE001 - a variant that fails is reported, not fatal
            cell["unavailable"] = str(failure(exc))
            continue
        graphs = counter.graphs if counter is not None else 0
        if counter is not None:
            cell["graphs"] = graphs
        runnable.append((_key(library, mode), _pass(fn, images), counter, graphs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = interleaved([(key, run) for key, run, _, _ in runnable], min_run_time, rounds)
    n_images = len(next(iter(inputs.values())))
    for key, _, counter, graphs in runnable:
        cell = result["variants"][key]
        best = min(samples[key])
        cell["images_per_s"] = n_images / best
        cell["us_per_image"] = best / n_images * 1e6
        if counter is not None and counter.graphs != graphs:
            cell["recompiled_during_timing"] = counter.graphs - graphs
    result.update(ratios(result["variants"]))
    result["seconds"] = time.perf_counter() - started  # wall time of the row: builds, compiles, warm-up, timing
    return result


def ratios(cells: Dict[str, Dict[str, Any]]) -> Dict[str, Optional[float]]:
    """jitvision's best variant (images/s) over albumentations, AlbumentationsX and torchvision eager."""
    ours = [cells.get(_key("jitvision", m), {}).get("images_per_s") for m in ("eager", "compiled")]
    ours = [v for v in ours if v is not None]
    best = max(ours) if ours else None
    out: Dict[str, Optional[float]] = {}
    for name, key in PEERS:
        theirs = cells.get(key, {}).get("images_per_s")
        out[name] = best / theirs if best is not None and theirs else None
    return out


def run(
    rows: Sequence[Row] = ROWS,
    images: Optional[Sequence[torch.Tensor]] = None,
    variants: Sequence[Tuple[str, str]] = VARIANTS,
    min_run_time: float = 0.4,
    rounds: int = 5,
    backend: str = "inductor",
    log: Optional[Callable[[str], None]] = None,
    versions: Optional[Dict[str, Optional[str]]] = None,
) -> List[Dict[str, Any]]:
    """Every row (see ``run_row``) over ``images`` (HWC uint8 tensors; default: the default photographs).
    ``versions``, if given, gets the version of AlbumentationsX (its own process) under "albumentationsx"."""
    torch.set_num_threads(1)
    if images is None:
        images = _photos.load_photos(_photos.DEFAULT_PHOTOS)[0]
    import_peers()
    inputs = preload(images)
    allow_recompiles(len({tuple(image.shape) for image in images}) + 8)
    peer = None
    if any(library == "albumentationsx" for library, _ in variants):
        try:
            peer = _peer_process.start(inputs["hwc"])
            if versions is not None:
                versions["albumentationsx"] = peer.version
        except Unavailable as exc:
            if log is not None:
                log(f"AlbumentationsX: {exc}")
    results = []
    try:
        with static_shapes():
            for row in rows:
                result = run_row(row, inputs, variants, min_run_time, rounds, backend, peer)
                if log is not None:
                    log(_log_line(result))
                results.append(result)
    finally:
        if peer is not None:
            peer.close()
    return results


def _log_line(result: Dict[str, Any]) -> str:
    cells = []
    for key, cell in result["variants"].items():
        value = cell["images_per_s"]
        cells.append(f"{key}={value:.0f}/s" if value is not None else f"{key}=n/a")
    return f"{result['row']:<19} " + "  ".join(cells) + f"  ({result.get('seconds', 0):.0f} s)"


def _cell(cell: Optional[Dict[str, Any]]) -> str:
    if cell is None or cell.get("images_per_s") is None:
        return "–"
    text = f"{cell['images_per_s']:,.0f}"
    if cell.get("recompiled_during_timing"):
        text += " (recompiled)"
    return text


def _ratio(value: Optional[float]) -> str:
    return f"{value:.2f}x" if value is not None else "–"


def format_markdown(results: Sequence[Dict[str, Any]], variants: Sequence[Tuple[str, str]] = VARIANTS) -> str:
    """A markdown table (images/s, higher is better), then the reasons of the "–" cells."""
    header = ["transform", *[_key(*v) for v in variants], "jv best / alb", "jv best / albx", "jv best / tv"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes: Dict[Tuple[str, str], List[str]] = {}  # (row, reason) -> variants
    for result in results:
        cells = [result["row"]]
        for variant in variants:
            cell = result["variants"].get(_key(*variant))
            cells.append(_cell(cell))
            if cell is not None and cell.get("unavailable"):
                notes.setdefault((result["row"], cell["unavailable"]), []).append(_key(*variant))
        cells += [_ratio(result.get(name)) for name, _ in PEERS]
        lines.append("| " + " | ".join(cells) + " |")
    graphs = [
        f"{r['row']}={r['variants'][_key('jitvision', 'compiled')]['graphs']}"
        for r in results
        if r["variants"].get(_key("jitvision", "compiled"), {}).get("graphs") is not None
    ]
    if graphs:
        lines += ["", "Graphs compiled per jitvision row (expected: one per image size): " + ", ".join(graphs)]
    if notes:
        lines += ["", "Unavailable (–):"]
        lines += [f"- {row} / {', '.join(keys)}: {reason}" for (row, reason), keys in notes.items()]
    return "\n".join(lines)


def plot(results: Sequence[Dict[str, Any]], path: str, variants: Sequence[Tuple[str, str]] = VARIANTS) -> bool:
    """A PNG of grouped horizontal bars (images/s per row and variant, log scale); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("--plot: matplotlib is not installed (pip install matplotlib); no chart written", file=sys.stderr)
        return False
    colors = ["tab:green", "yellowgreen", "tab:blue", "tab:orange", "tab:red", "tab:purple"]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(variants) * max(1, len(results)) * 0.45 + 2))
    height = 0.8 / len(variants)
    for i, variant in enumerate(variants):
        ys, xs = [], []
        for j, result in enumerate(results):
            value = result["variants"].get(_key(*variant), {}).get("images_per_s")
            if value is not None:
                ys.append(j + i * height)
                xs.append(value)
        ax.barh(ys, xs, height=height, color=colors[i % len(colors)], label=_key(*variant))
    ax.set_yticks([j + 0.4 - height / 2 for j in range(len(results))], [r["row"] for r in results])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("images / second (1 thread, best round, higher is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(args: Any) -> int:
    """``bench --per-transform`` as the command line asks for it (see ``jitvision.bench``): the table on stdout;
    ``--device cuda`` runs the GPU rows (``gpu.main_per_transform``)."""
    if args.device != "cpu":
        from . import gpu

        return gpu.main_per_transform(args)
    from . import _rows

    rows = [row for row in _rows.ROWS if row.name in pick(args.only, _rows.ROW_NAMES, "row")]
    all_photos = [p[0] for p in _photos.PHOTOS]
    if args.photos is None:
        photo_names = list(_photos.DEFAULT_PHOTOS)
    else:
        photo_names = all_photos if args.photos == "all" else pick(args.photos, all_photos, "photo")
    images, names, label = _photos.load_photos(photo_names, synthetic=args.synthetic)
    variants = VARIANTS
    if args.modes:
        variants = [v for v in variants if v[1] in pick(args.modes, ["eager", "compiled"], "mode")]
    if args.libraries:
        libraries = list(dict.fromkeys(library for library, _ in VARIANTS))
        variants = [v for v in variants if v[0] in pick(args.libraries, libraries, "library")]
    min_run_time = 0.4 if args.min_run_time is None else args.min_run_time
    rounds = 5 if args.rounds is None else args.rounds
    if args.quick:
        variants = [v for v in variants if v[1] == "eager"]
        min_run_time, rounds = min(min_run_time, 0.05), min(rounds, 2)
    sizes = ", ".join(f"{n} {tuple(i.shape[:2])}" for n, i in zip(names, images))
    log(f"images: {label}: {sizes}")
    found = library_versions()
    results = run(rows, images, variants, min_run_time, rounds, backend=args.compile_backend, log=log, versions=found)
    print(
        f"images/s, 1 thread, {len(images)} images ({label}: {sizes}), best of {rounds} interleaved rounds; "
        + installed(found)
    )
    print(format_markdown(results, variants))
    meta = {"threads": 1, "images": label, "photos": names, "sizes": [list(i.shape) for i in images]}
    write_json(args.json, {**meta, "versions": found, "rows": results})
    if args.plot:
        plot(results, args.plot, variants)
    return 0
