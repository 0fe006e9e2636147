"""``python -m jitvision bench``: jitvision against torchvision v2 and its peers (albumentations, kornia, DALI, ...).

The jobs (one flag each; each job's runner is a module of ``jitvision._bench``):

- default: the classification pipelines, jitvision's styles and modes against torchvision v2 and albumentations
  (see ``jitvision._bench.pipelines``);
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
- ``--threads N``: the classification pipelines on 1 and N Python threads in eager, scripted, compiled,
  AOTInductor and onnxruntime, the time per call against torchvision's and whether the GIL is held (see
  ``jitvision._bench.threads``).
- ``--e2e [DIR]``: from a JPEG file's bytes to the normalized training tensor, every decoder and library (PIL,
  torchvision.io, jitvision's fused decode, albumentations, AlbumentationsX, NVIDIA DALI on the CPU), per image on
  one thread, as a DataLoader with 2 workers, and jitvision's fast path on 2 threads against 1 (see
  ``jitvision._bench.e2e``).

This module is the command line: it parses the arguments, refuses options the chosen job does not read, and hands
the rest to the job's ``main``. ``compose``, ``JOBS`` and the other names of the pipelines job are re-exported here
for the code that builds its pipelines from them (``examples/deploy``).
"""

import argparse
import importlib
import sys
from typing import Optional, Sequence

from ._bench._cli import UsageError
from ._bench._timing import Unavailable
from ._bench.e2e import VARIANT_NAMES as E2E_VARIANTS
from ._bench.pipelines import (
    CROP,
    JOBS,
    LAYOUTS,
    MEAN,
    RESIZE,
    STD,
    VARIANTS,
    build,
    compose,
    format_table,
    make_input,
    plot,
    run,
)

__all__ = [
    "CROP",
    "JOBS",
    "MEAN",
    "RESIZE",
    "STD",
    "VARIANTS",
    "Unavailable",
    "UsageError",
    "build",
    "compose",
    "format_table",
    "main",
    "make_input",
    "plot",
    "run",
]

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
    "e2e": _COMMON | {"quick", "plot", "variants", "parts", "loader_images"},
}
_JOB_FLAGS = {"per_transform", "batch", "pil", "augment", "threads", "e2e"}


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
    "e2e": "--e2e",
}

# The module of jitvision._bench whose ``main(args)`` runs each job.
_RUNNERS = {
    "pipelines": "pipelines",
    "per-transform": "per_transform",
    "batch": "batch",
    "pil": "pil_path",
    "augment": "augment",
    "threads": "threads",
    "e2e": "e2e",
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
    job.add_argument(
        "--e2e",
        action="store_true",
        help="from the JPEG file to the normalized tensor: decoders and libraries, per image, DataLoader, threads",
    )
    parser.add_argument(
        "dir",
        nargs="?",
        metavar="DIR",
        help="--e2e: a folder of JPEG files (default: scikit-image's photographs re-encoded, made on first use)",
    )
    parser.add_argument(
        "--variants",
        help="--e2e: comma-separated: " + ",".join(E2E_VARIANTS) + " (default: all)",
    )
    parser.add_argument(
        "--parts", help="--e2e: comma-separated: per-image,loader,threads,scaling (default: all four)"
    )
    parser.add_argument(
        "--loader-images", type=int, metavar="N", help="--e2e: images per DataLoader measurement (default 1280)"
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
        help="seconds per variant over all rounds (default 2.0; --per-transform: 0.4 per row and variant; --e2e: 3.0)",
    )
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 7; --per-transform, --batch: 5)")
    parser.add_argument(
        "--layout", choices=LAYOUTS, default="chw", help="chw: contiguous image; hwc: a view of HWC memory (PIL)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="eager only, short measurements (for tests; --e2e: four tiny JPEGs)"
    )
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
    job = "e2e" if args.e2e else job
    try:
        _check_options(parser, args, job)
        if args.dir is not None and job != "e2e":
            raise UsageError(f"a folder ({args.dir}) goes with --e2e only")
        runner = importlib.import_module(f"._bench.{_RUNNERS[job]}", __package__)
        return runner.main(args)
    except UsageError as exc:
        parser.error(str(exc))  # the usage and one line on stderr, exit status 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
