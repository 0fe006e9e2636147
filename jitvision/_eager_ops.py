"""The Python entry points of the native ops that the eager fast path of one plain tensor calls.

``entry(name)`` is the function to call ``jitvision_native::name`` with from eager Python code (positional
arguments in the schema's order, the op's result): the op's binding in ``jitvision._fastcall`` when that extension is
built for this torch (``jitvision/csrc_py/fastcall.cpp``: it skips ``torch.ops``' argument conversion, the larger
part of a cheap op's call), else the op's C++ entry point ``torch.ops.jitvision_native.name.default._op``, else None (no
native library, or one without the op). Only eager code calls these (TorchScript, dynamo and export keep calling
the registered ops), so the extension is never part of a graph.

``FAST`` is the extension module or None, ``BOUND`` the names of the ops it calls (those the library has);
``FAST_UNAVAILABLE_REASON`` says why it is None (not built, built for another torch, ``JITVISION_FASTCALL=0`` in
the environment, none of its ops in the library). Its absence is silent: the ``torch.ops`` calls do the same work,
only slower.
"""

import importlib
import os
from types import ModuleType
from typing import Any, Callable, FrozenSet, Optional, Tuple

import torch

from . import _native

_DIRECTORY = os.path.dirname(os.path.abspath(__file__))
MODULE = "jitvision._fastcall"


def _load(
    directory: str = _DIRECTORY, module: str = MODULE
) -> Tuple[Optional[ModuleType], Optional[str], FrozenSet[str]]:
    """(the extension, None, the names of the ops it bound), or (None, the reason it is not used, empty)."""
    if os.environ.get("JITVISION_FASTCALL") == "0":
        return None, "JITVISION_FASTCALL=0", frozenset()
    if not _native.AVAILABLE:
        return None, "the native library is not loaded", frozenset()
    try:
        with open(os.path.join(directory, "_fastcall.torch_version")) as f:
            built_for = f.read().strip()
    except OSError:
        return None, "jitvision._fastcall was not built", frozenset()
    if built_for != torch.__version__:
        reason = f"jitvision._fastcall was built for torch {built_for}, this is torch {torch.__version__}"
        return None, reason, frozenset()
    try:
        extension = importlib.import_module(module)
    except ImportError as error:
        return None, f"jitvision._fastcall failed to import: {error}", frozenset()
    bound = extension.bind()
    if not bound:
        return None, "the native library has none of the ops jitvision._fastcall calls", frozenset()
    return extension, None, frozenset(bound)


FAST, FAST_UNAVAILABLE_REASON, BOUND = _load()


def entry(name: str) -> Optional[Callable[..., Any]]:
    """The eager entry point of ``jitvision_native::name`` (see the module docstring), or None."""
    if not _native.AVAILABLE:
        return None
    if name in BOUND:
        return getattr(FAST, name)
    packet = getattr(torch.ops.jitvision_native, name, None)
    return packet.default._op if packet is not None else None
