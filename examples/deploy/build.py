"""Build the deployment example (deploy.cpp) against the libtorch inside the installed torch wheel.

    python examples/deploy/build.py            # prints the binary's path

A plain compiler line against the wheel's include/ and lib/ (no CMake: ``find_package(Torch)`` fails on a CPU
machine with the CUDA wheel). The wheel's headers need C++20; the ABI flag follows torch's. The binary is cached
in build/deploy/, keyed by a hash of the source, the command and the torch version, so a rebuild only happens when
one of them changes (one translation unit with the big libtorch headers: ~1-2 minutes on a loaded 2-core machine).
"""

import hashlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SOURCE = HERE / "deploy.cpp"


def compile_command(output: Path) -> list:
    import torch

    torch_dir = Path(torch.__file__).resolve().parent
    include, lib = torch_dir / "include", torch_dir / "lib"
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return [
        os.environ.get("CXX", "g++"),
        "-std=c++20",
        "-O1",
        f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
        "-Wno-deprecated-declarations",
        f"-I{include}",
        f"-I{include / 'torch' / 'csrc' / 'api' / 'include'}",
        str(SOURCE),
        "-o",
        str(output),
        f"-L{lib}",
        f"-Wl,-rpath,{lib}",
        "-Wl,--no-as-needed",
        "-ltorch",
        "-ltorch_cpu",
        "-lc10",
        "-Wl,--as-needed",
        "-ldl",
    ]


def build(quiet: bool = False) -> Path:
    """The path of the example's binary, compiled now if the cached one is missing or stale."""
    import torch

    out_dir = ROOT / "build" / "deploy"
    out_dir.mkdir(parents=True, exist_ok=True)
    probe = compile_command(out_dir / "deploy")
    key = hashlib.sha256((SOURCE.read_text() + " ".join(probe) + torch.__version__).encode()).hexdigest()[:16]
    binary = out_dir / f"deploy-{key}"
    if binary.exists():
        return binary
    # A temporary name of this process's own, then an atomic replace: two processes building at once (pytest-xdist
    # workers) each finish with the same binary instead of one renaming the other's half-written file away.
    partial = binary.with_name(f"{binary.name}.{os.getpid()}.tmp")
    command = compile_command(partial)
    if not quiet:
        print(shlex.join(command), file=sys.stderr)
    subprocess.run(command, check=True)
    os.replace(partial, binary)
    return binary


if __name__ == "__main__":
    print(build())
