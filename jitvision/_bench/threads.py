"""``python -m jitvision bench --threads 2``: does a runtime let two Python threads transform at once?

The two pipelines of the default job (``train``: RandomResizedCrop(224) + RandomHorizontalFlip + ToDtype +
Normalize on a 3x256x256 uint8 image; ``infer``: Resize(256) + CenterCrop(224) + ToDtype + Normalize on
3x480x640), in each runtime:

- ``control``: not a pipeline, one ``torch.mm`` that releases the GIL: its speedup is what the machine allows at
  that moment (read the pipelines' speedups against it: on a loaded machine every row drops to ~1);
- ``torchvision``: torchvision v2's eager Compose (the baseline of the time ratio);
- ``eager``: jitvision's Compose; ``scripted``: ``torch.jit.script`` of it; ``compiled``:
  ``jitvision.transforms.compile`` of it (torch.compile with jitvision's guard filter: one token guard per transform
  instead of the guards on their attributes, and its default backend: the presets' graphs are one native call,
  run as traced, see ``transforms/_compile.py``; static shapes);
  ``compiled-plain``: ``torch.compile`` of it (all of dynamo's guards, the module wrapper);
- ``compiled-forward``: ``torch.compile(pipeline.forward)``: the same graph and guards on the pipeline, without
  ``torch.compile(module)``'s wrapper module (its ``__call__`` runs nn.Module's call machinery and a context manager
  in Python, under the GIL, on every call);
- ``native-op``: not a pipeline runtime but its floor: the one native op call the presets' fused path makes (the
  call in the compiled graph, same arguments), from Python; ``compiled-op``: ``torch.compile`` of a plain function
  making only that call (torch's fixed per-call cost of a compiled function, without the pipeline's module and
  guards). ``compiled`` minus ``compiled-op`` is what the pipeline adds; ``compiled-op`` minus ``native-op`` is
  torch's (dynamo, AOT and inductor wrappers), and all of it holds the GIL;
- ``aoti``: ``torch._inductor.aoti_compile_and_package`` of ``torch.export.export(pipeline, strict=...)``, loaded
  with ``jitvision.aoti.load_for_threads(path, THREADS)`` (one runner per thread, see there: the default single
  runner can deadlock);
- ``onnxruntime``: ``jitvision.onnx.export`` run in an ``InferenceSession`` (1 intra-op thread), if installed;
- ``cpp-control``, ``cpp-script``, ``cpp-aoti``: the C++ example (``examples/deploy``, built against the installed
  torch; needs a checkout, not a wheel) in its threads mode, no Python in the loop: a 200x200 ``torch::mm`` per
  call (what the machine gives the C++ threads), the scripted pipeline (native ops), the AOTInductor package; each
  thread loads its own module or package, with one intra-op thread. ``GIL held`` is ``-`` (no GIL); ``cpu/s``
  is the process's CPU seconds per second on ``THREADS`` threads (below ``THREADS``: the threads waited, for a lock
  or, on a loaded machine, for a core: compare with ``cpp-control``).

Every thread runs with ``torch.set_num_threads(1)`` and its own input. Throughput is calls per second over all
threads during a fixed window (all threads start together); ``speedup`` is throughput on ``THREADS`` threads over
throughput on one (ideal: the thread count, on as many free cores). ``GIL held`` measures the GIL directly: the
share of a call during which a pure-Python watcher thread cannot run (``gil_held``: 1.0 for a call that holds the
GIL throughout, near 0 for one that releases it). Rounds are
interleaved and each number is the best round (see ``_timing.interleaved``); the machine is shared, so run it
twice and read the higher figures.
"""

import bisect
import os
import tempfile
import threading
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ..aoti import load_for_threads
from ._cli import UsageError, installed, library_versions, log, pick, write_json
from ._timing import Unavailable, failure, static_shapes

WARMUP = 5
RUNTIMES = (
    "control", "torchvision", "eager", "scripted", "compiled", "compiled-plain", "compiled-forward", "native-op",
    "compiled-op", "aoti", "onnxruntime", "cpp-control", "cpp-script", "cpp-aoti",
)
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples",
                       "deploy")
Fn = Callable[[torch.Tensor], Any]


def _pipeline(ns: Any, job: str) -> Any:
    from .pipelines import compose

    return compose(ns, job)


def build(runtime: str, job: str, example: torch.Tensor, workdir: str, threads: int, strict: bool = True) -> Fn:
    """The pipeline of ``job`` in ``runtime``, warmed up on ``example``; raises Unavailable."""
    try:
        return _build(runtime, job, example, workdir, threads, strict)
    except Unavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - a runtime that fails is reported, not fatal
        raise failure(exc) from exc


def _build(runtime: str, job: str, example: torch.Tensor, workdir: str, threads: int, strict: bool) -> Fn:
    if runtime == "cpp-control":
        return CppRuntime(runtime, job, None, example, workdir, strict)
    if runtime == "control":
        # No pipeline: a float matmul of about the pipelines' cost, all in one aten call that releases the GIL. Its
        # speedup is what the machine allows at the moment (~2 on 2 idle cores, less when others use them).
        matrix = torch.rand(200, 200, generator=torch.Generator().manual_seed(0))

        def fn(x: torch.Tensor) -> Any:
            return torch.mm(matrix, matrix)

    elif runtime in ("native-op", "compiled-op"):
        fn = native_call(job)
        if runtime == "compiled-op":
            fn = torch.compile(fn)
    elif runtime == "torchvision":
        try:
            import torchvision.transforms.v2 as TV
        except ImportError as exc:
            raise Unavailable(f"torchvision is not installed ({exc})") from exc
        fn = _pipeline(TV, job)
    else:
        import jitvision.transforms as T

        pipeline = _pipeline(T, job)
        if runtime == "eager":
            fn = pipeline
        elif runtime == "scripted":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn = torch.jit.script(pipeline)
        elif runtime == "compiled":
            fn = T.compile(pipeline)
        elif runtime == "compiled-plain":
            fn = torch.compile(pipeline)
        elif runtime == "compiled-forward":
            fn = torch.compile(pipeline.forward)
        elif runtime == "aoti":
            path = os.path.join(workdir, f"{job}-{'strict' if strict else 'nonstrict'}.pt2")
            if not os.path.exists(path):
                exported = torch.export.export(pipeline, (example,), strict=strict)
                torch._inductor.aoti_compile_and_package(exported, package_path=path)
            fn = load_for_threads(path, threads)
        elif runtime == "onnxruntime":
            fn = _onnxruntime(pipeline, example, workdir, job)
        elif runtime in ("cpp-control", "cpp-script", "cpp-aoti"):
            return CppRuntime(runtime, job, pipeline, example, workdir, strict)
        else:
            raise ValueError(runtime)
    for _ in range(WARMUP):  # compiles; TorchScript's profiling executor optimises after its first calls
        fn(example)
    return fn


def native_call(job: str) -> Fn:
    """The native op call that a fused ``job`` pipeline makes on a uint8 CPU image (the only node of its compiled
    graph, with the same arguments: the preset's constants); raises Unavailable without the native library."""
    from .. import _native
    from .pipelines import CROP, MEAN, RESIZE, STD

    if not _native.AVAILABLE:
        raise Unavailable(f"the native library is not loaded ({_native.UNAVAILABLE_REASON})")
    mean, std = list(MEAN), list(STD)
    if job == "train":
        crop_op = torch.ops.jitvision_native.random_resized_crop.default

        def train(x: torch.Tensor) -> torch.Tensor:
            # RandomResizedCrop's default scale and ratio, the flip's p = 0.5, ToDtype(float32, scale) + Normalize
            return crop_op(x.unsqueeze(0), [CROP, CROP], [0.08, 1.0], [3.0 / 4.0, 4.0 / 3.0], 0.5, mean, std,
                           True).squeeze(0)

        return train
    if job == "infer":
        resize_op = torch.ops.jitvision_native.resize_center_crop.default

        def infer(x: torch.Tensor) -> torch.Tensor:
            return resize_op(x.unsqueeze(0), [RESIZE], None, [CROP, CROP], mean, std, True).squeeze(0)

        return infer
    raise Unavailable(f"the {job} job is not one native call")


def _onnxruntime(pipeline: Any, example: torch.Tensor, workdir: str, job: str) -> Fn:
    try:
        import onnxruntime as ort

        from .. import onnx as jonnx
    except ImportError as exc:
        raise Unavailable(f"onnx/onnxscript/onnxruntime are not installed ({exc})") from exc
    path = os.path.join(workdir, f"{job}.onnx")
    if not os.path.exists(path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jonnx.export(pipeline, (example,), dynamic_hw=job == "infer", path=path)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options)
    name = session.get_inputs()[0].name
    return lambda x: session.run(None, {name: x.numpy()})[0]


def _example_module(name: str) -> Any:
    """examples/deploy/<name>.py of this checkout (not installed with the package: Unavailable without it)."""
    import importlib.util

    path = os.path.join(EXAMPLE, f"{name}.py")
    if not os.path.exists(path):
        raise Unavailable(f"the C++ example is not here ({path}): run from a checkout of jitvision")
    spec = importlib.util.spec_from_file_location(f"_jitvision_deploy_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CppRuntime:
    """A runtime measured by the C++ example's threads mode (``deploy --threads N``): each measurement is one run
    of the binary (loading is not timed), throughput over all threads in the window."""

    def __init__(self, runtime: str, job: str, pipeline: Any, example: torch.Tensor, workdir: str, strict: bool):
        from .. import _native

        deploy_build, deploy_export = _example_module("build"), _example_module("export")
        self.binary = str(deploy_build.build(quiet=True))
        if runtime == "cpp-control":
            self.args = ["--control"]
            return
        if not _native.AVAILABLE:
            raise Unavailable(f"the native library is not loaded ({_native.UNAVAILABLE_REASON})")
        raw = os.path.join(workdir, f"{job}.raw")
        deploy_export.write_raw(raw, example)
        if runtime == "cpp-script":
            path = os.path.join(workdir, f"{job}.script.pt")
            if not os.path.exists(path):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.jit.save(torch.jit.script(pipeline), path)
            kind = "--script"
        else:
            path = os.path.join(workdir, f"{job}-{'strict' if strict else 'nonstrict'}.pt2")  # shared with "aoti"
            if not os.path.exists(path):
                exported = torch.export.export(pipeline, (example,), strict=strict)
                torch._inductor.aoti_compile_and_package(exported, package_path=path)
            kind = "--aoti"
        self.args = ["--native-lib", _native.native_library_path(), kind, path, "--input", raw]
        self.throughput(1, 0.05)  # loads and runs once: a broken artifact is reported now

    def throughput(self, threads: int, seconds: float, stats: Optional[Dict[str, float]] = None) -> float:
        import subprocess

        command = [self.binary, *self.args, "--threads", str(threads), "--seconds", str(seconds)]
        result = subprocess.run(
            command, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=300 + seconds
        )
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()[-500:]}")
        fields = result.stdout.split()
        values = dict(zip(fields[::2], fields[1::2]))
        if stats is not None:
            stats.update({key: float(values[key]) for key in ("cpu_per_s", "cpu_us_per_call", "waits_per_call")})
        return float(values["calls_per_s"])


def _voluntary_switches() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw


def throughput(
    fn: Fn, inputs: Sequence[torch.Tensor], seconds: float, stats: Optional[Dict[str, float]] = None
) -> float:
    """Calls per second of ``fn`` over ``len(inputs)`` threads (each on its own input), all started together.
    ``stats`` (if given) receives the window's ``cpu_per_s`` (process CPU seconds per second), ``cpu_us_per_call``
    (grows with the thread count when the threads slow each other down or spin) and ``waits_per_call`` (voluntary
    context switches per call: a thread blocking, on the GIL or a lock; ~0 when nothing serialises, whatever the
    machine's load)."""
    barrier = threading.Barrier(len(inputs) + 1)
    counts = [0] * len(inputs)
    stop = threading.Event()
    errors: List[BaseException] = []

    def work(i: int) -> None:
        torch.set_num_threads(1)
        x = inputs[i]
        barrier.wait()
        try:
            while not stop.is_set():
                fn(x)
                counts[i] += 1
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(len(inputs))]
    for w in workers:
        w.start()
    cpu, switches = time.process_time(), _voluntary_switches()
    barrier.wait()
    start = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for w in workers:
        w.join(timeout=max(60.0, 20 * seconds))
    elapsed = time.perf_counter() - start
    cpu, switches = time.process_time() - cpu, _voluntary_switches() - switches
    if any(w.is_alive() for w in workers):
        raise Unavailable(f"threads still running {elapsed:.0f} s after the window: a deadlock or a stuck call")
    if errors:
        raise failure(errors[0])
    calls = max(sum(counts), 1)
    if stats is not None:
        stats.update(cpu_per_s=cpu / elapsed, cpu_us_per_call=1e6 * cpu / calls, waits_per_call=switches / calls)
    return sum(counts) / elapsed


def gil_held(fn: Fn, x: torch.Tensor, calls: int = 20) -> float:
    """How much of a call of ``fn`` holds the GIL: a watcher thread stamps the clock in a pure-Python loop while the
    main thread makes ``calls`` calls; per call, the longest gap between stamps inside the call over the call's
    duration; the median over calls. ~1.0: the call holds the GIL from start to end (nothing else in Python runs);
    near 0: it releases it (the gaps are then scheduling noise, larger on a loaded machine)."""
    stamps: List[float] = []
    stop = threading.Event()

    def watch() -> None:
        clock, append = time.perf_counter, stamps.append
        while not stop.is_set():
            append(clock())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.01)
    windows = []
    try:
        for _ in range(calls):
            begin = time.perf_counter()
            fn(x)
            windows.append((begin, time.perf_counter()))
            time.sleep(0.002)  # let the watcher stamp between calls
    finally:
        stop.set()
        watcher.join()
    shares = []
    for begin, end in windows:
        lo, hi = bisect.bisect_left(stamps, begin), bisect.bisect_right(stamps, end)
        inside = [begin, *stamps[lo:hi], end]
        gap = max(b - a for a, b in zip(inside, inside[1:]))
        shares.append(gap / (end - begin))
    shares.sort()
    return shares[len(shares) // 2]


def run(
    jobs: Sequence[str],
    runtimes: Sequence[str],
    threads: int = 2,
    seconds: float = 2.0,
    rounds: int = 3,
    workdir: Optional[str] = None,
    strict: bool = True,
    log: Optional[Callable[[str], None]] = None,
) -> List[Dict[str, Any]]:
    """One row per (job, runtime): us per call on one thread, the ratio to torchvision's eager Compose, calls/s
    on 1 and ``threads`` threads, their ratio (``speedup``) and ``gil_held``; ``unavailable`` with the reason for a
    runtime that cannot be built or run."""
    from .pipelines import JOBS

    torch.set_num_threads(1)
    own_dir = workdir is None
    workdir = tempfile.mkdtemp(prefix="jitvision-threads-") if own_dir else workdir
    os.makedirs(workdir, exist_ok=True)  # --aoti-dir may name a folder that does not exist yet
    rows: List[Dict[str, Any]] = []
    with static_shapes():
        for job in jobs:
            gen = torch.Generator().manual_seed(0)
            base = torch.randint(0, 256, JOBS[job], dtype=torch.uint8, generator=gen)
            inputs = [base.clone() for _ in range(threads)]
            built = []
            for runtime in runtimes:
                row: Dict[str, Any] = {"job": job, "runtime": runtime, "threads": threads}
                start = time.perf_counter()
                try:
                    row["fn"] = build(runtime, job, base, workdir, threads, strict)
                    built.append(row)
                except Unavailable as exc:
                    row["unavailable"] = str(exc)
                if log is not None:
                    log(f"{job} {runtime}: built in {time.perf_counter() - start:.1f} s {row.get('unavailable', '')}")
                rows.append(row)
            for _ in range(max(1, rounds)):
                for row in built:
                    if "unavailable" in row:
                        continue
                    fn = row["fn"]
                    stats_1: Dict[str, float] = {}
                    stats_n: Dict[str, float] = {}
                    try:
                        if isinstance(fn, CppRuntime):
                            one, held = fn.throughput(1, seconds, stats_1), None
                            many = fn.throughput(threads, seconds, stats_n)
                        else:
                            one = throughput(fn, inputs[:1], seconds, stats_1)
                            many = throughput(fn, inputs, seconds, stats_n)
                            held = gil_held(fn, inputs[0])
                    except Unavailable as exc:
                        row["unavailable"] = str(exc)
                        continue
                    except Exception as exc:  # noqa: BLE001 - a C++ run that fails is reported, not fatal
                        row["unavailable"] = str(failure(exc))
                        continue
                    if many > row.get("calls_n", 0.0):  # the window statistics of the best round
                        row["cpu_per_s"] = stats_n["cpu_per_s"]
                        row["waits_per_call"] = stats_n["waits_per_call"]
                        row["cpu_us_n"] = stats_n["cpu_us_per_call"]
                    if one > row.get("calls_1", 0.0):
                        row["cpu_us_1"] = stats_1["cpu_us_per_call"]
                    row["calls_1"] = max(row.get("calls_1", 0.0), one)
                    row["calls_n"] = max(row.get("calls_n", 0.0), many)
                    row["gil_held"] = None if held is None else min(row.get("gil_held", 1.0), held)
            tv = next((r for r in rows if r["job"] == job and r["runtime"] == "torchvision" and "calls_1" in r), None)
            for row in rows:
                row.pop("fn", None)
                if row["job"] != job or "calls_1" not in row:
                    continue
                row["time_us"] = 1e6 / row["calls_1"]
                row["speedup"] = row["calls_n"] / row["calls_1"]
                row["vs_torchvision_eager"] = row["time_us"] * tv["calls_1"] / 1e6 if tv is not None else None
                if log is not None:
                    log(format_row(row))
    return rows


def _diagnosis(row: Dict[str, Any]) -> List[str]:
    """cpu/s on N threads, CPU us per call on 1 and N threads, voluntary switches per call on N threads."""
    if "cpu_per_s" not in row:
        return ["-", "-", "-"]
    return [
        f"{row['cpu_per_s']:.2f}",
        f"{row.get('cpu_us_1', float('nan')):.0f} / {row['cpu_us_n']:.0f}",
        f"{row['waits_per_call']:.3f}",
    ]


def format_row(row: Dict[str, Any]) -> str:
    name = f"{row['job']:<6} {row['runtime']:<12}"
    if "time_us" not in row:
        return f"{name} unavailable: {row.get('unavailable', '?')}"
    ratio = row.get("vs_torchvision_eager")
    held = row["gil_held"]
    cpu, cpu_us, waits = _diagnosis(row)
    return (
        f"{name} {row['time_us']:9.1f} {ratio if ratio is not None else float('nan'):9.2f} {row['calls_1']:9.0f} "
        f"{row['calls_n']:9.0f} {row['speedup']:8.2f} {'-' if held is None else f'{held:.2f}':>9} cpu/s {cpu} "
        f"cpu us/call {cpu_us} waits/call {waits}"
    )


def format_markdown(rows: List[Dict[str, Any]]) -> str:
    """The table; the last three columns say why a speedup is below the thread count: ``cpu/s`` (process CPU seconds
    per second on N threads: below N, the threads waited, for the GIL, a lock or a core), ``CPU us/call`` on 1 / N
    threads (grows when the threads slow each other down) and ``waits/call`` on N threads (voluntary context
    switches per call: blocking on the GIL or a lock; ~0 when nothing serialises, whatever the machine's load)."""
    threads = rows[0]["threads"] if rows else 2
    lines = [
        f"| job | runtime | us/call (1 thread) | x torchvision eager | calls/s, 1 thread | calls/s, {threads} threads "
        f"| speedup | GIL held | cpu/s ({threads} threads) | CPU us/call (1 / {threads}) | waits/call |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        if "time_us" not in row:
            reason = row.get("unavailable", "?")
            lines.append(f"| {row['job']} | {row['runtime']} | unavailable: {reason} | | | | | | | | |")
            continue
        ratio = row.get("vs_torchvision_eager")
        held = "-" if row["gil_held"] is None else f"{row['gil_held']:.2f}"
        lines.append(
            f"| {row['job']} | {row['runtime']} | {row['time_us']:.0f} | {'-' if ratio is None else f'{ratio:.2f}'} "
            f"| {row['calls_1']:.0f} | {row['calls_n']:.0f} | x{row['speedup']:.2f} | {held} | "
            + " | ".join(_diagnosis(row)) + " |"
        )
    return "\n".join(lines)


def main(args: Any) -> int:
    """``bench --threads N`` as the command line asks for it (see ``jitvision.bench``): the table on stdout."""
    from .pipelines import JOBS

    if args.threads < 2:
        raise UsageError("--threads needs N >= 2")
    # the presets by default (the detection job's sample is a dict with boxes: Compose-only, no AOTI/ONNX form)
    jobs = pick(args.jobs, list(JOBS), "job") if args.jobs else ["train", "infer"]
    runtimes = pick(args.runtimes, RUNTIMES, "runtime")
    seconds = 2.0 if args.min_run_time is None else args.min_run_time
    rounds = 3 if args.rounds is None else args.rounds
    if args.quick:
        runtimes = [r for r in runtimes if r in ("control", "torchvision", "eager", "scripted")]
        seconds, rounds = min(seconds, 0.1), 1
    rows = run(jobs, runtimes, args.threads, seconds, rounds, args.aoti_dir, strict=args.export == "strict", log=log)
    found = library_versions()
    print(
        f"{args.threads} threads vs 1 (torch.set_num_threads(1) in each), {os.cpu_count()} cores, {seconds:g} s "
        f"windows, best of {rounds} rounds, AOTI from a {args.export} export; " + installed(found)
    )
    print(format_markdown(rows))
    write_json(args.json, {"threads": args.threads, "versions": found, "rows": rows})
    return 0
