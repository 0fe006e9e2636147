"""What the audit runs on: a module with the torchvision.transforms.v2 API, or one user class.

``jitvision`` and ``torchvision`` name the two known APIs; ``pkg.module`` is any module with that API (its
classes, and the functionals of ``pkg.module.functional`` if it has one); ``pkg.module:Class`` is one class.
Every public functional and transform class the target has when the audit runs is listed; those without a
row in ``cases.py`` are reported as skipped, never silently dropped.
"""

import dataclasses
import importlib
import inspect
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Dict, List, Optional

import torch

from .cases import CLASS_CASES, CLASS_VARIANTS, FUNCTIONAL_CASES, Case

KNOWN_TARGETS = {
    "jitvision": ("jitvision.transforms", "jitvision.tv_tensors"),
    "torchvision": ("torchvision.transforms.v2", "torchvision.tv_tensors"),
}
# Kernel names are <functional>_<kind>: they are not audited on their own.
_KERNEL_SUFFIXES = ("image", "image_pil", "image_tensor", "video", "mask", "bounding_boxes", "keypoints")
# Base classes and helpers that are exported but are not transforms to audit (is_pure_tensor: a type test that
# torchvision's functional namespace exports too).
_NOT_OPS = {"Transform", "RandomApplyTransform", "register_kernel", "is_pure_tensor"}


@dataclass
class Entry:
    """One functional or transform class to audit."""

    name: str
    api: str  # "functional" or "class"
    obj: Any
    case: Case
    aliases: List[str] = field(default_factory=list)


@dataclass
class Target:
    name: str
    transforms: Optional[ModuleType]
    tv_tensors: ModuleType
    entries: List[Entry]
    skipped: List[Dict[str, str]]  # {"api", "name", "reason"}


def _tv_tensors_for(module_name: str, override: Optional[str]) -> ModuleType:
    if override:
        return importlib.import_module(KNOWN_TARGETS.get(override, (None, override))[1])
    if module_name.split(".")[0] == "torchvision":
        return importlib.import_module("torchvision.tv_tensors")
    return importlib.import_module("jitvision.tv_tensors")


def _functional_entries(functional: ModuleType) -> tuple[List[Entry], List[Dict[str, str]]]:
    public = {
        name: obj
        for name, obj in vars(functional).items()
        if not name.startswith("_") and inspect.isroutine(obj) and name not in _NOT_OPS
    }
    by_object: Dict[int, List[str]] = {}
    for name, obj in public.items():
        if any(name.endswith("_" + suffix) and name[: -len(suffix) - 1] in public for suffix in _KERNEL_SUFFIXES):
            continue  # a kernel
        by_object.setdefault(id(obj), []).append(name)
    entries, skipped = [], []
    for names in by_object.values():
        # The name with an audit case wins; otherwise the longest (``horizontal_flip`` over ``hflip``).
        names.sort(key=lambda n: (n not in FUNCTIONAL_CASES, -len(n), n))
        name = names[0]
        if name in FUNCTIONAL_CASES:
            entries.append(Entry(name, "functional", public[name], FUNCTIONAL_CASES[name], names[1:]))
        else:
            skipped.append({"api": "functional", "name": name, "reason": "no audit case"})
    return entries, skipped


def _class_entries(transforms: ModuleType) -> tuple[List[Entry], List[Dict[str, str]]]:
    entries, skipped = [], []
    for name, obj in vars(transforms).items():
        if name.startswith("_") or name in _NOT_OPS or not inspect.isclass(obj):
            continue
        if not issubclass(obj, torch.nn.Module):
            continue
        if name in CLASS_CASES:
            entries.append(Entry(name, "class", obj, CLASS_CASES[name]))
            for label, case in CLASS_VARIANTS.get(name, {}).items():
                entries.append(Entry(label, "class", obj, case, [name]))
        else:
            skipped.append({"api": "class", "name": name, "reason": "no audit case"})
    return entries, skipped


def resolve_target(spec: str, *, tv_tensors: Optional[str] = None, init: Optional[Dict[str, Any]] = None) -> Target:
    """The entries to audit for ``spec`` (see the module docstring)."""
    module_name, _, class_name = spec.partition(":")
    module_name = KNOWN_TARGETS.get(module_name, (module_name, None))[0]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"audit: cannot import target module {module_name!r}: {exc}") from exc
    if class_name:
        return _class_target(spec, module, class_name, tv_tensors, init)
    functional = getattr(module, "functional", None)
    entries, skipped = [], []
    if isinstance(functional, ModuleType):
        entries, skipped = _functional_entries(functional)
    class_entries, class_skipped = _class_entries(module)
    return Target(
        name=spec,
        transforms=module,
        tv_tensors=_tv_tensors_for(module_name, tv_tensors),
        entries=entries + class_entries,
        skipped=skipped + class_skipped,
    )


def _class_target(
    spec: str, module: ModuleType, class_name: str, tv_tensors: Optional[str], init: Optional[Dict[str, Any]]
) -> Target:
    cls = getattr(module, class_name, None)
    if cls is None or not callable(cls):
        raise ValueError(f"audit: {module.__name__} has no class {class_name!r}")
    # A user's transform is fed the tv_tensors of the library it builds on.
    bases = [base.__module__ for base in inspect.getmro(cls)] if inspect.isclass(cls) else []
    library = "torchvision" if any(b.startswith("torchvision") for b in bases) else "jitvision"
    tv_module = _tv_tensors_for(library, tv_tensors)
    transforms = importlib.import_module(KNOWN_TARGETS[library][0])
    case = CLASS_CASES.get(class_name, Case())
    if init is not None:
        case = dataclasses.replace(case, kwargs=init)
    return Target(spec, transforms, tv_module, [Entry(class_name, "class", cls, case)], [])
