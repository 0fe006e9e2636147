"""Build hook: the optional native kernel in jitvision/csrc (jitvision._C, torch ops ``jitvision_native::*``).

The package works without it (``jitvision._native.AVAILABLE`` is then False and the pure-PyTorch path runs), so
the extension is optional: no torch at build time, or no C++ compiler, builds a pure-Python package.
Flags: -O3 and -ffp-contract=off (no -march, no -ffast-math: the kernels must stay bit-exact and run on any x86-64,
and a fused multiply-add is written out where torch fuses one); the hot loops carry GCC target_clones, picked at load
time.
JITVISION_SANITIZE=1 builds the sanitizer variant (ASan + UBSan, aborting on the first report) that `make
sanitize` builds into build/sanitize and runs the native tests against; never install it.
"""

import os

from setuptools import setup

_SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]


def _extensions():
    try:
        from torch.utils.cpp_extension import BuildExtension, CppExtension
    except ImportError:
        return [], {}
    sanitize = os.environ.get("JITVISION_SANITIZE") == "1"
    ext = CppExtension(
        "jitvision._C",
        ["jitvision/csrc/resize.cpp", "jitvision/csrc/warp.cpp", "jitvision/csrc/color.cpp", "jitvision/csrc/pad.cpp"],
        depends=["jitvision/csrc/resize_kernel.h"],
        extra_compile_args=["-O3", "-Wno-psabi", "-ffp-contract=off"] + (["-O1", *_SANITIZE] if sanitize else []),
        extra_link_args=_SANITIZE if sanitize else [],
        optional=True,
    )
    return [ext], {"build_ext": BuildExtension.with_options(use_ninja=False)}


ext_modules, cmdclass = _extensions()
setup(ext_modules=ext_modules, cmdclass=cmdclass)
