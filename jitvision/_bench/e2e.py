"""``python -m jitvision bench --e2e [DIR]``: from a JPEG file to the normalized training tensor.

The job: RandomResizedCrop(224), RandomHorizontalFlip, ToDtype(float32, scale=True), Normalize(ImageNet), from the
file's bytes to a ``[3, 224, 224]`` float32 tensor, in every library's own way (``_e2e_variants``): torchvision v2
with PIL (the references' default) and with ``torchvision.io.decode_jpeg``, jitvision by import swap on the PIL
pipeline, with ``jitvision.io.decode_jpeg``, and its fastest documented path (``tv_tensors.EncodedImage``: the decode
fused with the crop), albumentations 2.0.8 and AlbumentationsX (OpenCV decode), NVIDIA DALI on the CPU. The files
(``_jpegs``): DIR's ``.jpg`` files, or scikit-image's photographs re-encoded at five ImageNet-typical sizes.

Three measurements (``--parts``):

- ``per-image``: one thread (``torch.set_num_threads(1)``, one OpenCV thread, DALI ``num_threads=1``); a timed call
  is one pass over the files' bytes held in memory; the variants are timed in interleaved rounds, and a row gives
  the median round (and the best), in microseconds per image, by the process's CPU time (what the job costs,
  which other work on a shared machine barely changes) and by the wall clock;
- ``loader``: images per second through ``torch.utils.data.DataLoader(num_workers=2, batch_size=64)``, each sample
  read from its file, decoded and transformed in a worker, the default collate making the batch; steady state
  (``_e2e_common.loader_rate``). DALI has no DataLoader form: its row is its own reader pipeline on 2 threads,
  batches of 64; AlbumentationsX runs its DataLoader in its own process;
- ``threads``: jitvision's fast path in a ``ThreadPoolExecutor`` of 2 threads against 1 (images per second, each
  image one task), beside a control (a GIL-free matrix product, the same way) that shows what the machine gives two
  threads.

Before timing, every variant's outputs are checked: ``[3, 224, 224]`` float32, finite, and per-channel means and a
deviation like torchvision-PIL's (``sanity``). Ratios are against torchvision-PIL in the same run.
"""

import os
import statistics
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from . import _e2e_common, _jpegs, scaling
from ._cli import installed, judge, library_versions, log, pick, write_json
from ._e2e_variants import VARIANT_NAMES, VARIANTS, Variant, build, fused_pipeline
from ._timing import failure

PARTS = ("per-image", "loader", "threads", "scaling")
BASELINE = "torchvision-pil"
FAST_PATHS = ("jitvision-fused", "jitvision-batch")  # jitvision's documented fast paths (docs/io.md)
PER_IMAGE_FILES = 64  # at most this many files in a per-image pass (evenly spaced over a larger folder)
WORKERS = 2
BATCH = 64
LOADER_IMAGES = 1280  # 20 batches of 64
THREAD_IMAGES = 240
CROP = 224
LOADER_CONTROL = "control: the DataLoader alone (each sample a ready [3, 224, 224] float32 tensor)"
# The outputs "look alike" when each channel's mean is within this of torchvision-PIL's, and the deviation within
# this factor: wide enough for different random crops of the same photographs, narrow enough to catch a variant that
# skips Normalize (means near 0.45, deviation near 0.25) or returns another layout.
MEAN_TOLERANCE = 0.35
STD_FACTOR = 1.5


def sanity(stats: Dict[str, Any], reference: Optional[Dict[str, Any]]) -> List[str]:
    """What is wrong with a variant's outputs (empty: nothing)."""
    problems = []
    if stats["shape"] != [3, 224, 224]:
        problems.append(f"shape {stats['shape']}, not [3, 224, 224]")
    if stats["dtype"] != "float32":
        problems.append(f"dtype {stats['dtype']}, not float32")
    if not stats["finite"]:
        problems.append("non-finite values")
    if reference is not None and stats["mean"] is not None and reference["mean"] is not None:
        off = max(abs(a - b) for a, b in zip(stats["mean"], reference["mean"]))
        if off > MEAN_TOLERANCE:
            problems.append(f"channel means {_fmt(stats['mean'])} vs {BASELINE}'s {_fmt(reference['mean'])}")
        factor = stats["std"] / reference["std"]
        if not 1 / STD_FACTOR <= factor <= STD_FACTOR:
            problems.append(f"deviation {stats['std']:.2f} vs {BASELINE}'s {reference['std']:.2f}")
    return problems


def _fmt(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"


def build_variants(names: Sequence[str], datas: Sequence[bytes], log: Callable[[str], None]) -> Dict[str, Any]:
    """``{name: Variant}`` and ``{name: reason}`` for those that cannot run."""
    built: Dict[str, Variant] = {}
    missing: Dict[str, str] = {}
    for name in names:
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*TorchCodec.*")
                built[name] = build(name, datas)
        except Exception as exc:  # noqa: BLE001 - a variant that cannot be built is reported, not fatal
            missing[name] = str(failure(exc))
        state = "built" if name in built else f"unavailable: {missing[name]}"
        log(f"{name}: {state} ({time.perf_counter() - start:.1f} s)")
    return {"built": built, "missing": missing}


def check_outputs(variants: Dict[str, Variant], passes: int) -> Dict[str, Dict[str, Any]]:
    """Each variant's outputs over ``passes`` passes (seeded), their statistics and what is wrong with them."""
    stats: Dict[str, Dict[str, Any]] = {}
    for name, variant in variants.items():
        torch.manual_seed(0)
        if variant.stats is not None:
            stats[name] = dict(variant.stats)
            continue
        outputs = [out for _ in range(passes) for out in variant.run_pass()]
        stats[name] = _e2e_common.output_stats(outputs)
    reference = stats.get(BASELINE)
    for name in stats:
        stats[name]["problems"] = sanity(stats[name], reference if name != BASELINE else None)
    return stats


def per_image(
    variants: Dict[str, Variant], files: int, min_run_time: float, rounds: int
) -> Dict[str, Dict[str, float]]:
    """Microseconds per image of each variant, ``min_run_time`` seconds each spread over ``rounds`` interleaved rounds
    (every variant in turn in each round, so a slow phase of a shared machine hits them all): per round the median
    pass, then the median and the best round, by the process's CPU time (``us``, ``best_us``) and by the wall clock
    (``wall_us``, ``best_wall_us``)."""
    rounds = max(1, rounds)
    per_round: Dict[str, List[List[float]]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, variant in variants.items():
            passes = variant.timed(min_run_time / rounds)
            per_round[name].append([statistics.median(p[0] for p in passes), statistics.median(p[1] for p in passes)])
    scale = 1e6 / files
    out = {}
    for name, values in per_round.items():
        walls, cpus = [v[0] for v in values], [v[1] for v in values]
        out[name] = {
            "us": statistics.median(cpus) * scale,
            "best_us": min(cpus) * scale,
            "wall_us": statistics.median(walls) * scale,
            "best_wall_us": min(walls) * scale,
        }
    return out


def loader(
    variants: Dict[str, Variant], paths: Sequence[str], images: int, batch: int, rounds: int
) -> Dict[str, Dict[str, Any]]:
    """Images per second of each variant through a DataLoader with ``WORKERS`` workers (its own loader for DALI), the
    variants in turn in each of ``rounds`` rounds; the median round. A variant that fails is reported. The entry
    ``LOADER_CONTROL`` is the DataLoader alone: samples that are ready tensors, collated and sent the same way (what
    the loader costs whatever the job; the fastest a variant can go here)."""
    ready = torch.zeros(3, CROP, CROP)
    measures: Dict[str, Callable[[], Dict[str, Any]]] = {}
    for name, variant in variants.items():
        if variant.loader is not None:
            measures[name] = lambda v=variant: v.loader(paths, images, WORKERS, batch)
        else:
            init = _e2e_common.worker_init_opencv if name == "albumentations" else None
            measures[name] = lambda v=variant, i=init: _e2e_common.loader_rate(
                v.load, paths, images, WORKERS, batch, worker_init_fn=i, collate_fn=v.collate_fn, on_batch=v.on_batch
            )
    measures[LOADER_CONTROL] = lambda: _e2e_common.loader_rate(lambda _: ready, paths, images, WORKERS, batch)
    out: Dict[str, Dict[str, Any]] = {name: {"rates": []} for name in measures}
    for _ in range(max(1, rounds)):
        for name, measure in measures.items():
            if "unavailable" in out[name]:
                continue
            try:
                result = measure()
            except Exception as exc:  # noqa: BLE001
                out[name]["unavailable"] = str(failure(exc))
                continue
            out[name]["rates"].append(result["images_per_s"])
            out[name]["batch_shape"] = result["batch_shape"]
    for row in out.values():
        if row["rates"]:
            row["images_per_s"] = statistics.median(row["rates"])
    return out


def _matmul_control() -> Callable[[Any], Any]:
    a = torch.rand(160, 160)
    return lambda _: torch.mm(a, a)


def threads(datas: Sequence[bytes], images: int, rounds: int) -> Dict[str, Dict[str, Any]]:
    """Images per second of the fast path (``jitvision-fused``) and of the control on 1 and 2 threads of a
    ``ThreadPoolExecutor`` (each image one task, each thread ``torch.set_num_threads(1)``): the median of ``rounds``
    interleaved rounds, and the ratio of the medians. ``cores_1``/``cores_2``: the process's CPU time over the wall
    time (median): how many cores the job got. Two threads that the GIL serialises stay near one core; on a machine
    whose other work leaves one core free, so does the control, and the ratio measures the machine, not the job."""
    from jitvision import tv_tensors

    pipeline = fused_pipeline()
    tensors = [torch.frombuffer(bytearray(d), dtype=torch.uint8) for d in datas]
    items = [tensors[i % len(tensors)] for i in range(images)]
    jobs = {
        "jitvision-fused": lambda data: pipeline(tv_tensors.EncodedImage(data)),
        "control: torch.mm 160x160 (no Python, GIL released)": _matmul_control(),
    }
    pools = {n: ThreadPoolExecutor(max_workers=n, initializer=torch.set_num_threads, initargs=(1,)) for n in (1, 2)}
    rates: Dict[str, Dict[int, List[float]]] = {name: {1: [], 2: []} for name in jobs}
    cores: Dict[str, Dict[int, List[float]]] = {name: {1: [], 2: []} for name in jobs}
    try:
        for pool in pools.values():  # start the threads before timing
            list(pool.map(lambda _: None, range(4)))
        for _ in range(max(1, rounds)):
            for name, job in jobs.items():
                for count, pool in pools.items():
                    start, cpu = time.perf_counter(), time.process_time()
                    for _ in pool.map(job, items):
                        pass
                    wall = time.perf_counter() - start
                    rates[name][count].append(len(items) / wall)
                    cores[name][count].append((time.process_time() - cpu) / wall)
    finally:
        for pool in pools.values():
            pool.shutdown()
    out = {}
    for name, by_count in rates.items():
        one, two = statistics.median(by_count[1]), statistics.median(by_count[2])
        out[name] = {"images_per_s_1": one, "images_per_s_2": two, "speedup": two / one}
        out[name].update({f"cores_{n}": statistics.median(cores[name][n]) for n in (1, 2)})
    return out


def run(
    paths: Sequence[str],
    names: Sequence[str] = VARIANT_NAMES,
    parts: Sequence[str] = PARTS,
    min_run_time: float = 3.0,
    rounds: int = 7,
    loader_images: int = LOADER_IMAGES,
    batch: int = BATCH,
    loader_rounds: int = 3,
    thread_images: int = THREAD_IMAGES,
    check_passes: int = 3,
    log: Callable[[str], None] = lambda line: None,
) -> Dict[str, Any]:
    """The whole job over ``paths``: ``{"files", "rows": [one per variant], "threads"}``."""
    torch.set_num_threads(1)
    chosen = _jpegs.spread(paths, PER_IMAGE_FILES)
    datas = []
    for path in chosen:
        with open(path, "rb") as f:
            datas.append(f.read())
    built = build_variants(names, datas, log)
    variants: Dict[str, Variant] = built["built"]
    try:
        stats = check_outputs(variants, check_passes)
        for name, found in stats.items():
            problems = f"; PROBLEMS: {'; '.join(found['problems'])}" if found["problems"] else ""
            log(f"{name}: outputs {found['shape']} {found['dtype']}, mean {_fmt(found['mean'] or [])}, "
                f"std {found['std']:.3f}{problems}")
        times = per_image(variants, len(datas), min_run_time, rounds) if "per-image" in parts else {}
        loaded = loader(variants, paths, loader_images, batch, loader_rounds) if "loader" in parts else {}
    finally:
        for variant in variants.values():
            variant.close()
    rows = []
    for name in names:
        row: Dict[str, Any] = {"variant": name, "what": dict(VARIANTS)[name]}
        if name in built["missing"]:
            row["unavailable"] = built["missing"][name]
        else:
            row["version"] = variants[name].version
            row["outputs"] = stats[name]
            row.update(times.get(name, {}))
            if name in loaded:
                row["loader"] = loaded[name]
        rows.append(row)
    _ratios(rows)
    result: Dict[str, Any] = {"files": {"count": len(paths), "per_image": len(datas)}, "rows": rows}
    if LOADER_CONTROL in loaded:
        result["loader_control"] = loaded[LOADER_CONTROL]
    from .. import _native

    if "threads" in parts and _native.AVAILABLE:  # the fast path decodes natively only
        result["threads"] = threads(datas, thread_images, rounds)
    if "scaling" in parts:
        counts = list(range(1, (os.cpu_count() or 1) + 1))
        result["scaling"] = scaling.run(paths, scaling.LOADERS, counts, loader_images, log, batch)
    return result


def _ratios(rows: List[Dict[str, Any]]) -> None:
    base = next((r for r in rows if r["variant"] == BASELINE), {})
    for row in rows:
        if "us" in row and "us" in base:
            row["x_torchvision_pil"] = row["us"] / base["us"]
            row["x_torchvision_pil_wall"] = row["wall_us"] / base["wall_us"]
        rate, base_rate = row.get("loader", {}).get("images_per_s"), base.get("loader", {}).get("images_per_s")
        if rate and base_rate:
            row["loader"]["x_torchvision_pil"] = rate / base_rate


# ---- the goals, the table, the plot -------------------------------------------------------------------------------


def goals(result: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The speed goals, as measured in this run (None: not measured). jitvision's fastest path is whichever of
    ``FAST_PATHS`` did best in each measurement; per image the ratios are of CPU times (the job's cost: the wall clock
    of a shared machine adds other work's time)."""
    rows = {r["variant"]: r for r in result["rows"]}
    per_image = [(rows[n]["us"], n) for n in FAST_PATHS if "us" in rows.get(n, {})]
    fastest = min(per_image)[1] if per_image else FAST_PATHS[0]
    loaded = [n for n in FAST_PATHS if "images_per_s" in rows.get(n, {}).get("loader", {})]
    rates = [(rows[n]["loader"]["images_per_s"], n) for n in loaded]
    fastest_loader = max(rates)[1] if rates else FAST_PATHS[0]

    def ratio(a: str, b: str) -> Optional[float]:
        ra, rb = rows.get(a, {}).get("us"), rows.get(b, {}).get("us")
        return ra / rb if ra and rb else None

    loader_x = rows.get(fastest_loader, {}).get("loader", {}).get("x_torchvision_pil")
    thread_x = result.get("threads", {}).get("jitvision-fused", {}).get("speedup")
    checks = [
        (f"{fastest} / torchvision-pil, per image", ratio(fastest, BASELINE), "<=", 0.3),
        (f"{fastest} / dali, per image", ratio(fastest, "dali"), "<=", 0.5),
        (f"{fastest} / albumentations, per image", ratio(fastest, "albumentations"), "<=", 0.6),
        ("jitvision-swap / torchvision-pil, per image", ratio("jitvision-swap", BASELINE), "<=", 0.55),
        (f"{fastest_loader} / torchvision-pil, DataLoader images/s", loader_x, ">=", 3.0),
        ("jitvision-fused, 2 threads / 1 thread, images/s", thread_x, ">=", 1.8),
    ]
    return judge(checks)


def format_markdown(result: Dict[str, Any]) -> str:
    lines = [
        "| variant | CPU us per image, 1 thread (median / best) | x torchvision-PIL | wall us per image "
        "| x torchvision-PIL | DataLoader, 2 workers, images/s | x torchvision-PIL | outputs: channel means, std |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in result["rows"]:
        if "unavailable" in row:
            lines.append(f"| {row['variant']} | not run: {row['unavailable']} | | | | | | |")
            continue
        us = f"{row['us']:,.0f} / {row['best_us']:,.0f}" if "us" in row else "-"
        ratio = f"{row['x_torchvision_pil']:.2f}" if "x_torchvision_pil" in row else "-"
        wall = f"{row['wall_us']:,.0f}" if "wall_us" in row else "-"
        wall_ratio = f"{row['x_torchvision_pil_wall']:.2f}" if "x_torchvision_pil_wall" in row else "-"
        load = row.get("loader", {})
        rate = f"{load['images_per_s']:,.0f}" if "images_per_s" in load else load.get("unavailable", "-")
        rate_x = f"{load['x_torchvision_pil']:.2f}" if "x_torchvision_pil" in load else "-"
        out = row["outputs"]
        seen = f"{_fmt(out['mean'] or [])}, {out['std']:.2f}" if out.get("std") is not None else str(out["shape"])
        if out["problems"]:
            seen += " PROBLEM: " + "; ".join(out["problems"])
        lines.append(f"| {row['variant']} | {us} | {ratio} | {wall} | {wall_ratio} | {rate} | {rate_x} | {seen} |")
    control = result.get("loader_control", {})
    if "images_per_s" in control:
        lines += ["", f"{LOADER_CONTROL}: {control['images_per_s']:,.0f} images/s"]
    if "threads" in result:
        lines += ["", "| ThreadPoolExecutor | 1 thread, images/s | 2 threads, images/s | 2 / 1 | cores used, 1 / 2 |"]
        lines.append("| --- | ---: | ---: | ---: | ---: |")
        for name, t in result["threads"].items():
            rates = f"{t['images_per_s_1']:,.0f} | {t['images_per_s_2']:,.0f} | {t['speedup']:.2f}"
            lines.append(f"| {name} | {rates} | {t['cores_1']:.2f} / {t['cores_2']:.2f} |")
    if "scaling" in result:
        lines += ["", f"Whole loaders, batch {scaling.BATCH}, images/s by threads (workers):", "",
                  scaling.format_markdown(result["scaling"])]
    lines += ["", "| goal | target | measured | met |", "| --- | --- | ---: | --- |"]
    for g in result.get("goals", []):
        value = "-" if g["measured"] is None else f"{g['measured']:.2f}"
        met = "not measured" if g["met"] is None else ("yes" if g["met"] else "no")
        lines.append(f"| {g['goal']} | {g['target']} | {value} | {met} |")
    return "\n".join(lines)


def plot(result: Dict[str, Any], path: str, title: str) -> bool:
    """Two bar charts: microseconds per image on one thread, DataLoader images per second; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("--plot: matplotlib is not installed (pip install matplotlib); no chart written")
        return False
    rows = [r for r in result["rows"] if "unavailable" not in r]
    colors = {"torchvision": "tab:blue", "jitvision": "tab:green", "albumentations": "tab:orange", "dali": "tab:purple"}

    def color(name: str) -> str:
        return next((c for prefix, c in colors.items() if name.startswith(prefix)), "tab:gray")

    loaders = result.get("scaling", {})
    most = max((int(c) for rows in loaders.values() for c in rows), default=0)
    whole = [{"variant": name, "rate": scaling._at(rows, most).get("images_per_s")} for name, rows in loaders.items()]
    whole = [r for r in whole if r["rate"]]
    fig, axes = plt.subplots(1, 3 if whole else 2, figsize=(19 if whole else 13, 4.8))
    panels = [
        ([r for r in rows if "us" in r], lambda r: r["us"], "CPU us per image, 1 thread (median; lower is better)"),
        (
            [r for r in rows if "images_per_s" in r.get("loader", {})],
            lambda r: r["loader"]["images_per_s"],
            f"images/s, DataLoader {WORKERS} workers, batch {BATCH} (DALI: its own loader; higher is better)",
        ),
    ]
    if whole:
        panels.append((whole, lambda r: r["rate"], f"images/s, whole loaders, {most} threads or workers, batch "
                       f"{scaling.BATCH} (higher is better)"))
    for ax, (measured, value, label) in zip(axes, panels):
        names = [r["variant"] for r in measured]
        ax.barh(names, [value(r) for r in measured], color=[color(name) for name in names])
        ax.invert_yaxis()
        ax.set_xlabel(label, fontsize=8)
        for index, r in enumerate(measured):
            ax.text(value(r), index, f" {value(r):,.0f}", va="center", fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(args: Any) -> int:
    """``bench --e2e [DIR]`` as the command line asks for it (see ``jitvision.bench``): the tables on stdout."""
    names = pick(args.variants, VARIANT_NAMES, "variant")
    parts = pick(args.parts, PARTS, "part")
    if BASELINE not in names:
        names = [BASELINE, *names]  # the ratios' reference
    if args.dir is None:
        folder, label = _jpegs.generated(quick=args.quick)
    else:
        folder, label = args.dir, f"the JPEG files under {args.dir}"
    try:
        paths = _jpegs.list_jpegs(folder)
    except ValueError as exc:
        from ._cli import UsageError

        raise UsageError(str(exc)) from exc
    min_run_time = 3.0 if args.min_run_time is None else args.min_run_time
    rounds = 7 if args.rounds is None else args.rounds
    loader_images = LOADER_IMAGES if args.loader_images is None else args.loader_images
    options = {"batch": BATCH, "loader_rounds": 3, "thread_images": THREAD_IMAGES, "check_passes": 3}
    if args.quick:
        min_run_time, rounds = min(min_run_time, 0.02), min(rounds, 1)
        loader_images = min(loader_images, 16)
        options = {"batch": 4, "loader_rounds": 1, "thread_images": 8, "check_passes": 1}
    log(f"files: {label} ({folder}): {len(paths)}")
    result = run(paths, names, parts, min_run_time, rounds, loader_images, log=log, **options)  # type: ignore[arg-type]
    result["goals"] = goals(result)
    if "scaling" in result:
        fused = next((r.get("us") for r in result["rows"] if r["variant"] == "jitvision-fused"), None)
        result["goals"] += scaling.goals(result["scaling"], fused)
    found = library_versions(extra=("nvidia-dali-cuda120", "albumentationsx"))
    versions_seen = {r["variant"]: r.get("version") for r in result["rows"] if r.get("version")}
    result.update({"images": label, "folder": folder, "cores": os.cpu_count(), "versions": found})
    result["variant_versions"] = versions_seen
    header = (
        f"{label}: {len(paths)} files ({result['files']['per_image']} per pass); {os.cpu_count()} cores; per image: 1 "
        f"thread, the process's CPU time and the wall clock, median of {rounds} interleaved rounds; DataLoader: "
        f"{WORKERS} workers, batch {options['batch']}, {loader_images} images; " + installed(found)
    )
    if "albumentationsx" in versions_seen:
        header += f", AlbumentationsX {versions_seen['albumentationsx']} (its own environment)"
    print(header)
    print(format_markdown(result))
    write_json(args.json, result)
    if args.plot:
        plot(result, args.plot, f"JPEG file -> RandomResizedCrop(224) + flip + ToDtype + Normalize; {label}")
    bad = [r["variant"] for r in result["rows"] if r.get("outputs", {}).get("problems")]
    return 1 if bad else 0
