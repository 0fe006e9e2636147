"""Build hook: the native library ``jitvision/lib/libjitvision_native.so`` (torch ops ``jitvision_native::*``).

It is a plain shared library, not a Python extension: every ``jitvision/csrc/*.cpp`` (a glob, so a new file needs
no edit here) compiled without ``Python.h`` and linked with ``-Wl,--no-undefined`` against libtorch only (c10,
torch_cpu, torch), so a C++ program without Python can load it (``dlopen`` with ``RTLD_NOW``, or link it).
Python loads it with ``torch.ops.load_library`` (``jitvision._native``). Next to it the build writes
``libjitvision_native.torch_version``, the torch version it was compiled against, which the import compares with
the running torch; the package's metadata requires exactly that torch (``torch==X``, ``_torch_requirement``), so a
wheel installs only next to the torch it was built for.
Torch versions: built and tested against torch 2.13.0 (CPU) and 2.14.1; torch 2.11.0's headers compile every source
(not linked or run). torch 2.14's headers need C++20 (2.11 and 2.13: C++17; ``torch.utils.cpp_extension`` picks the
flag). ``csrc/crop.cpp`` calls torch's lanczos kernel (``_upsample_lanczos2d_aa``) only from 2.12 on, where it
exists. A library built against one torch does not load into another: C++ symbols change between releases (a
2.14.1 build needs 15 symbols that 2.11's libtorch lacks).

The package works without it (``jitvision._native.AVAILABLE`` is then False, the pure-PyTorch path runs and the
import warns once), so the library is optional: no torch at build time, or no C++ compiler, builds a pure-Python
package. ``pip install .`` with build isolation gets torch from ``[build-system] requires`` in pyproject.toml
(pinned to the torch the package is tested with); ``pip install --no-build-isolation .`` uses the installed torch.
Flags: -O3 and -ffp-contract=off (no -march, no -ffast-math: the kernels must stay bit-exact and run on any x86-64,
and a fused multiply-add is written out where torch fuses one); the hot loops carry GCC target_clones or check the
CPU's features at run time.
JPEG (``csrc/jpeg.cpp``, the op ``jitvision_native::jpeg_u8``) needs libjpeg's header and library (Debian/Ubuntu:
``libjpeg-dev`` / ``libjpeg62-turbo-dev``; libjpeg-turbo is what torchvision and OpenCV use). The build checks with a
one-line test program (compiled and linked with ``-ljpeg`` by the C++ compiler; ``JITVISION_JPEG=0`` skips it); when
that fails, jpeg.cpp (and its helper jpeg_ycc.cpp) is left out, the library is built without the op, the build says
so once, and ``jitvision._native.JPEG`` is False at run time (``jpeg`` then uses OpenCV's or Pillow's codec, and a
Python operator under tracing, which a C++ program cannot run). With it, the library links ``libjpeg.so.62`` (a C++
program that loads the library needs it installed too). The same probe decides on libjpeg's decoder
(``csrc/decode_jpeg.cpp``, ``jitvision_native::decode_jpeg``/``jpeg_header`` of ``jitvision.io``), and another on
libpng (``csrc/decode_png.cpp``, ``jitvision_native::decode_png``; Debian/Ubuntu: ``libpng-dev``;
``JITVISION_PNG=0`` skips it): without it ``jitvision.io.decode_png`` decodes with Pillow.
``JITVISION_PNG_STATIC=DIR`` links libpng statically instead (zlib stays shared), from ``DIR/libpng16.a``
(``tools/build_libpng.sh DIR``: libpng 1.6.39 from its pinned source, position-independent), its symbols hidden:
the release wheel's build (``tools/release_wheel.py``), which then puts a copy of libjpeg-turbo into the wheel with
``auditwheel repair``.
glibc: on x86-64 Linux the library and the fast-call extension are linked with ``--wrap`` for the few glibc symbols
newer than 2.28 that a build on a newer glibc references (``csrc/glibc_compat.cpp``), so they load on glibc 2.28
(manylinux_2_28, the tag torch's own wheels carry).
Beside it, ``jitvision._fastcall`` (``jitvision/csrc_py/fastcall.cpp``): a small CPython extension (linked with
libtorch_python, so one per Python version) that calls a few of the library's ops from Python without
``torch.ops``'s ~2-3 us of argument conversion, for the eager fast path of one plain tensor. It is optional too
(``jitvision._native.FAST`` is None without it, and the callers call the ops through ``torch.ops``); it records the
torch it was built for next to it (``jitvision/_fastcall.torch_version``) and is only imported with that torch.
JITVISION_SANITIZE=1 builds the sanitizer variant (ASan + UBSan, aborting on the first report) that `make
sanitize` builds into build/sanitize and runs the native tests against; never install it.
"""

import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup

_SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
LIBRARY = "jitvision.lib.libjitvision_native"
FASTCALL = "jitvision._fastcall"
VERSION_SUFFIX = ".torch_version"


_JPEG_SOURCE = "jitvision/csrc/jpeg.cpp"
# left out together: jpeg_ycc.cpp serves jpeg.cpp, decode_jpeg.cpp is the decoder of jitvision.io
_JPEG_SOURCES = (
    _JPEG_SOURCE, "jitvision/csrc/jpeg_ycc.cpp", "jitvision/csrc/decode_jpeg.cpp", "jitvision/csrc/decode_batch.cpp"
)
_JPEG_PROBE = """#include <cstdio>
#include <jpeglib.h>
int main() { jpeg_compress_struct c; jpeg_error_mgr e; c.err = jpeg_std_error(&e); jpeg_create_compress(&c);
  jpeg_destroy_compress(&c); return 0; }
"""
_PNG_SOURCES = ("jitvision/csrc/decode_png.cpp",)
_PNG_PROBE = """#include <png.h>
int main() { png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, 0, 0, 0); png_destroy_read_struct(&p, 0, 0);
  return 0; }
"""


def _library_found(name: str, probe_source: str, flag: str, env: str, without: str) -> bool:
    """Whether the C++ compiler finds a library's header and links ``flag`` (a one-file test program); says once
    what is built without it if not (``env=0`` skips the probe)."""
    if os.environ.get(env) == "0":
        print(f"jitvision: {env}=0: building the native library without {without}")
        return False
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    reason = "no C++ compiler found" if compiler is None else None
    if compiler is not None:
        with tempfile.TemporaryDirectory() as tmp:
            probe = os.path.join(tmp, "probe.cpp")
            with open(probe, "w") as f:
                f.write(probe_source)
            run = subprocess.run(
                [*compiler.split(), probe, "-o", os.path.join(tmp, "probe"), flag], capture_output=True, text=True
            )
            if run.returncode != 0:
                reason = (run.stderr.strip().splitlines() or ["the test program did not build"])[0]
    if reason is not None:
        print(f"jitvision: {name} not found ({reason}): building the native library without {without}")
        return False
    return True


def _torch_requirement() -> str:
    """The wheel's torch requirement: exactly the torch distribution the native library is compiled against (its
    metadata version, which pip compares: ``2.14.1`` for PyPI's wheel, whose ``torch.__version__`` says
    ``2.14.1+cu130``; ``2.13.0+cpu`` for a CPU wheel), as torchvision's wheels pin theirs; any torch when the
    build has none (a pure-Python package)."""
    import importlib.metadata

    try:
        return "torch==" + importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "torch"


def _libjpeg_found() -> bool:
    return _library_found(
        "libjpeg",
        _JPEG_PROBE,
        "-ljpeg",
        "JITVISION_JPEG",
        "JPEG (install libjpeg-dev / libjpeg62-turbo-dev for jitvision_native::jpeg_u8 and decode_jpeg; jpeg then "
        "uses OpenCV or Pillow, jitvision.io Pillow)",
    )


def _libpng_static() -> str:
    """JITVISION_PNG_STATIC=DIR: libpng linked statically from DIR/libpng16.a (headers in DIR/include), as
    ``tools/build_libpng.sh DIR`` builds it for the wheel (``make wheel``), instead of the system's libpng16.so.16."""
    folder = os.environ.get("JITVISION_PNG_STATIC", "")
    if folder and not os.path.exists(os.path.join(folder, "libpng16.a")):
        raise SystemExit(f"jitvision: JITVISION_PNG_STATIC={folder} has no libpng16.a (tools/build_libpng.sh {folder})")
    return os.path.abspath(folder) if folder else ""


# glibc_compat.cpp (in csrc and csrc_py) takes these references, so that a build on a newer glibc asks for glibc
# 2.28 at most (manylinux_2_28): x86-64 Linux only.
_GLIBC_WRAPPED = ("exp", "log", "pow", "__libc_single_threaded")


def _glibc_wrap_args(symbols, sources) -> list:
    """The --wrap flags, where the sources hold the glibc_compat.cpp that defines the wrappers (a checkout of some
    sources only, as tests/deploy/test_build.py builds, links without them)."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return []
    if not any(os.path.basename(source) == "glibc_compat.cpp" for source in sources):
        return []
    return ["-Wl," + ",".join(f"--wrap={symbol}" for symbol in symbols)]


def _libpng_found() -> bool:
    if _libpng_static():
        return True
    return _library_found(
        "libpng",
        _PNG_PROBE,
        "-lpng",
        "JITVISION_PNG",
        "PNG (install libpng-dev for jitvision_native::decode_png; jitvision.io.decode_png then uses Pillow)",
    )


def _extensions():
    try:
        import torch
        from torch.utils.cpp_extension import BuildExtension, CppExtension, is_ninja_available
    except ImportError:
        return [], {}
    sanitize = os.environ.get("JITVISION_SANITIZE") == "1"
    sources = sorted(glob.glob("jitvision/csrc/*.cpp"))
    jpeg = _JPEG_SOURCE in sources and _libjpeg_found()
    if not jpeg:
        sources = [source for source in sources if source not in _JPEG_SOURCES]
    png = _PNG_SOURCES[0] in sources and _libpng_found()
    if not png:
        sources = [source for source in sources if source not in _PNG_SOURCES]
    ext = CppExtension(
        LIBRARY,
        sources,
        depends=sorted(glob.glob("jitvision/csrc/*.h")),
        # -fopenmp: at::parallel_for is inlined into this library, and with torch's OpenMP backend it is a
        # `#pragma omp parallel` that runs serially unless compiled with OpenMP. Linked with -fopenmp, the library
        # needs libgomp.so.1, which resolves to the copy torch has already loaded (torch/lib/libgomp.so.1): one
        # thread pool, the width torch.set_num_threads sets.
        extra_compile_args=["-O3", "-Wno-psabi", "-ffp-contract=off", "-fopenmp"]
        + (["-O1", *_SANITIZE] if sanitize else []),
        # No undefined symbol may remain (no Python symbol in particular); $ORIGIN/../../torch/lib finds the
        # installed torch wheel's libraries from site-packages/jitvision/lib when a C++ program loads it.
        extra_link_args=["-fopenmp", "-Wl,--no-undefined", "-Wl,-rpath,$ORIGIN/../../torch/lib"]
        + _glibc_wrap_args(_GLIBC_WRAPPED, sources)
        + (_SANITIZE if sanitize else []),
        optional=True,
    )
    # CppExtension links libtorch_python, which needs Python's symbols: this library must not.
    png_static = _libpng_static() if png else ""
    codecs = (["jpeg"] if jpeg else []) + (["png"] if png and not png_static else [])
    ext.libraries = [lib for lib in ext.libraries if lib != "torch_python"] + codecs
    if png_static:  # its objects inside the library, its symbols hidden; zlib stays a shared library
        ext.include_dirs.insert(0, os.path.join(png_static, "include"))
        ext.extra_objects = [os.path.join(png_static, "libpng16.a")]
        ext.libraries.append("z")
        ext.extra_link_args.append("-Wl,--exclude-libs,libpng16.a")
    # The CPython binding of the eager hot ops (a Python extension: Python.h and libtorch_python; no kernels).
    fastcall_sources = sorted(glob.glob("jitvision/csrc_py/*.cpp"))
    fastcall = CppExtension(
        FASTCALL,
        fastcall_sources,
        extra_compile_args=["-O2", "-Wno-psabi"],
        extra_link_args=_glibc_wrap_args(["__libc_single_threaded"], fastcall_sources),
        optional=True,
    )

    # ninja (when installed) compiles the sources in parallel and recompiles only what changed: a one-file change
    # rebuilds in ~25 s instead of ~3 min on 2 cores. Without it setuptools compiles every source, one by one.
    class BuildNative(BuildExtension.with_options(use_ninja=is_ninja_available())):
        """Names the library libjitvision_native.so (no Python ABI tag) and records the torch it was built for."""

        def get_ext_filename(self, fullname):
            # called with the dotted name and with its last part alone (distutils' get_ext_fullpath)
            if fullname.rsplit(".", 1)[-1] == LIBRARY.rsplit(".", 1)[-1]:
                return os.path.join(*fullname.split(".")) + ".so"
            return super().get_ext_filename(fullname)

        def get_export_symbols(self, ext):
            return [] if ext.name == LIBRARY else super().get_export_symbols(ext)

        def run(self):
            # jitvision/lib holds only build products (gitignored): a fresh clone has no such folder to copy into.
            os.makedirs(os.path.join("jitvision", "lib"), exist_ok=True)
            super().run()  # builds into build_lib, then copies into the source tree when inplace (editable)
            places = {self.inplace}
            for inplace in sorted(places | {0}):
                for name in (LIBRARY, FASTCALL):
                    saved, self.inplace = self.inplace, inplace
                    path = self.get_ext_fullpath(name)
                    self.inplace = saved
                    if os.path.exists(path):
                        # jitvision/lib/libjitvision_native.torch_version, jitvision/_fastcall.torch_version
                        stem = os.path.join(os.path.dirname(path), name.rsplit(".", 1)[-1])
                        with open(stem + VERSION_SUFFIX, "w") as f:
                            f.write(torch.__version__ + "\n")

    # The sanitizer build is of the library alone (the native tests load it into an uninstrumented Python); a tree
    # without csrc_py (tests/deploy/test_build.py's minimal checkout) builds the library alone too.
    return [ext] + ([] if sanitize or not fastcall_sources else [fastcall]), {"build_ext": BuildNative}


ext_modules, cmdclass = _extensions()
# pyproject.toml declares the dependencies dynamic: torch pinned here, the rest plain.
setup(ext_modules=ext_modules, cmdclass=cmdclass, install_requires=[_torch_requirement(), "Pillow", "numpy"])
