"""Export the two presets for the C++ example (deploy.cpp) and, with --bench, time every runtime against
torchvision's eager Compose.

    python examples/deploy/export.py [--out build/deploy/artifacts] [--presets train,infer] [--bench]

Per preset (``jitvision.bench``'s jobs: ``train`` = RandomResizedCrop(224) + RandomHorizontalFlip + ToDtype +
Normalize on 3x256x256 uint8, ``infer`` = Resize(256) + CenterCrop(224) + ToDtype + Normalize on 3x480x640) it
writes ``<preset>.raw`` (the input image) and:

- ``<preset>.script.pt``: ``torch.jit.script`` with the native library's ops (load the library first in C++);
- ``<preset>.portable.pt``: scripted under ``script_native_ops(False)``, torch ops only (a plain libtorch loads it);
- ``<preset>.aoti.pt2`` / ``<preset>.aoti-strict.pt2``: ``torch.export`` (default non-strict / strict=True) then
  ``torch._inductor.aoti_compile_and_package``; height and width are dynamic for the deterministic ``infer``.

Two more presets, each a C++ op of the library on a 3x256x256 uint8 image (uint8 out), exported as ``script`` and
``aoti`` only: ``jpeg`` = JPEG((50, 95)) (``jitvision_native::jpeg_u8``) and ``randaug`` = RandAugment()
(``jitvision_native::augment_step_u8``). Their draws are aten ops in the graph: scripted, they are torch's global
generator's draws as in eager (same seed, same output); in an AOTI package inductor generates them (random, but
not eager's numbers for a seed).

Then ``deploy --native-lib $(python -c "import jitvision; print(jitvision.native_library_path())")
--aoti build/deploy/artifacts/train.aoti.pt2 --input build/deploy/artifacts/train.raw --out /tmp/out --calls 2``.
"""

import argparse
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
KINDS = ("script", "portable", "aoti", "aoti-strict")
# Presets beyond the bench's jobs: (C, H, W) of the example image.
EXTRA = {"jpeg": (3, 256, 256), "randaug": (3, 256, 256)}
EXTRA_KINDS = ("script", "aoti")


def kinds(preset: str) -> tuple:
    return EXTRA_KINDS if preset in EXTRA else KINDS


def write_raw(path: Path, tensor: torch.Tensor) -> None:
    t = tensor.contiguous()
    dtype = {torch.uint8: 0, torch.float32: 1}[t.dtype]
    with open(path, "wb") as f:
        f.write(b"JVT1" + struct.pack("<ii", dtype, t.ndim) + struct.pack(f"<{t.ndim}q", *t.shape))
        f.write(t.numpy().tobytes())


def read_raw(path: Path) -> torch.Tensor:
    data = Path(path).read_bytes()
    if data[:4] != b"JVT1":
        raise ValueError(f"{path} is not a JVT1 raw tensor")
    dtype, ndim = struct.unpack("<ii", data[4:12])
    shape = struct.unpack(f"<{ndim}q", data[12 : 12 + 8 * ndim])
    values = torch.frombuffer(bytearray(data[12 + 8 * ndim :]), dtype=torch.uint8 if dtype == 0 else torch.float32)
    return values.reshape(shape)


def pipeline(preset: str, ns: Optional[object] = None) -> torch.nn.Module:
    from jitvision import bench

    if ns is None:
        import jitvision.transforms as ns
    if preset == "jpeg":
        return ns.Compose([ns.JPEG((50, 95))])
    if preset == "randaug":
        return ns.Compose([ns.RandAugment()])
    return bench.compose(ns, preset)


def image(preset: str, height: Optional[int] = None, width: Optional[int] = None) -> torch.Tensor:
    from jitvision import bench

    c, h, w = EXTRA[preset] if preset in EXTRA else bench.JOBS[preset]
    gen = torch.Generator().manual_seed(0)
    return torch.randint(0, 256, (c, height or h, width or w), dtype=torch.uint8, generator=gen)


def export_script(preset: str, path: Path, native: bool) -> Path:
    from jitvision.transforms import script_native_ops

    with script_native_ops(native):
        torch.jit.save(torch.jit.script(pipeline(preset)), str(path))
    return path


def exported_program(preset: str, example: torch.Tensor, strict: bool) -> torch.export.ExportedProgram:
    dynamic = None
    if preset == "infer":  # deterministic: any height and width (at least the crop)
        dynamic = ({1: torch.export.Dim("height", min=224, max=4096), 2: torch.export.Dim("width", min=224, max=4096)},)
    return torch.export.export(pipeline(preset), (example,), dynamic_shapes=dynamic, strict=strict)


def export_aoti(preset: str, example: torch.Tensor, path: Path, strict: bool) -> Path:
    program = exported_program(preset, example, strict)
    torch._inductor.aoti_compile_and_package(program, package_path=str(path))
    return path


def export_all(out: Path, presets: List[str], example_sizes: Optional[Dict[str, tuple]] = None) -> Dict[str, Path]:
    """Every artifact of ``presets`` in ``out``; keys ``<preset>.<kind>`` and ``<preset>.raw``."""
    out.mkdir(parents=True, exist_ok=True)
    paths: Dict[str, Path] = {}
    for preset in presets:
        x = image(preset, *(example_sizes or {}).get(preset, ()))
        write_raw(out / f"{preset}.raw", x)
        paths[f"{preset}.raw"] = out / f"{preset}.raw"
        paths[f"{preset}.script"] = export_script(preset, out / f"{preset}.script.pt", native=True)
        if "portable" in kinds(preset):
            paths[f"{preset}.portable"] = export_script(preset, out / f"{preset}.portable.pt", native=False)
        for kind in ("aoti", "aoti-strict"):
            if kind in kinds(preset):
                paths[f"{preset}.{kind}"] = export_aoti(preset, x, out / f"{preset}.{kind}.pt2", kind == "aoti-strict")
    return paths


def run_binary(binary: Path, kind: str, artifact: Path, raw: Path, *extra: str, native: bool = True) -> str:
    import jitvision

    command = [str(binary)]
    if native:
        command += ["--native-lib", jitvision.native_library_path()]
    command += ["--aoti" if kind.startswith("aoti") else "--script", str(artifact), "--input", str(raw), *extra]
    result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def eager_us(preset: str, library: str = "torchvision") -> float:
    """Median time of one eager call of the preset in this process (1 thread), ``library`` torchvision or jitvision."""
    from torch.utils.benchmark import Timer

    if library == "torchvision":
        import torchvision.transforms.v2 as ns
    else:
        import jitvision.transforms as ns
    torch.set_num_threads(1)
    fn, x = pipeline(preset, ns), image(preset)
    return Timer("f(x)", globals={"f": fn, "x": x}).blocked_autorange(min_run_time=0.5).median * 1e6


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "deploy" / "artifacts"))
    parser.add_argument("--presets", default="train,infer", help="comma-separated: train,infer,jpeg,randaug")
    parser.add_argument("--bench", action="store_true", help="time each runtime in C++ against torchvision eager")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (--bench)")
    parser.add_argument("--reuse", action="store_true", help="reuse the artifacts already in --out (no export)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    from build import build

    presets = args.presets.split(",")
    binary = build()
    if args.reuse:
        suffix = {"script": ".pt", "portable": ".pt", "aoti": ".pt2", "aoti-strict": ".pt2"}
        paths = {f"{p}.{k}": Path(args.out) / f"{p}.{k}{suffix[k]}" for p in presets for k in kinds(p)}
        paths.update({f"{p}.raw": Path(args.out) / f"{p}.raw" for p in presets})
    else:
        paths = export_all(Path(args.out), presets)
    for preset in presets:
        if not args.bench:
            for kind in kinds(preset):
                artifact, raw = paths[f"{preset}.{kind}"], paths[f"{preset}.raw"]
                run_binary(binary, kind, artifact, raw, "--calls", "1", native=kind != "portable")
                print(f"{preset:5s} {kind:12s} ok", flush=True)
            continue
        # Interleaved rounds (the shared machine drifts): each round times every variant once; medians over rounds.
        times: Dict[str, List[float]] = {}
        for _ in range(args.rounds):
            for library in ("torchvision", "jitvision"):
                times.setdefault(f"{library} eager (Python)", []).append(eager_us(preset, library))
            for kind in kinds(preset):
                artifact, raw = paths[f"{preset}.{kind}"], paths[f"{preset}.raw"]
                out = run_binary(binary, kind, artifact, raw, "--bench", "100", native=kind != "portable")
                times.setdefault(f"C++ {kind}", []).append(float(out.split()[-1]))
        median = {name: sorted(t)[len(t) // 2] for name, t in times.items()}
        reference = median["torchvision eager (Python)"]
        for name, us in median.items():
            print(f"{preset:5s} {name:28s} {us:8.1f} us  {us / reference:5.2f}x torchvision eager", flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's jitvision (run as a script, sys.path[0] is examples/deploy)
    sys.exit(main())
