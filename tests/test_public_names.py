"""The drop-in promise, name by name: every public name of torchvision 0.29.1's ``transforms.v2``,
``transforms.v2.functional`` and ``tv_tensors`` exists in the matching jitvision module, is the same kind of
object (class, enum, function), and takes the same parameters.

Parameters: every parameter of torchvision's signature appears in ours, in the same order, with the same kind
(positional-or-keyword, keyword-only, ...) and an equal default (an enum member equals its value, a tuple equals a
list; the names of ``*args``/``**kwargs`` are free); ours may add keyword-only parameters after them
(``generator=``). Enum classes have the same members.
"""

import enum
import inspect
import types
from typing import Any, List

import pytest
import torchvision.transforms.v2 as tv_transforms
import torchvision.transforms.v2.functional as tv_functional
import torchvision.tv_tensors as tv_tv_tensors

import jitvision.transforms as jv_transforms
import jitvision.transforms.functional as jv_functional
import jitvision.tv_tensors as jv_tv_tensors

MODULES = {
    "transforms": (tv_transforms, jv_transforms),
    "functional": (tv_functional, jv_functional),
    "tv_tensors": (tv_tv_tensors, jv_tv_tensors),
}

def public_names(module: types.ModuleType) -> List[str]:
    """What ``from module import *`` would see without an ``__all__``: no underscore names, no submodules (the
    ``torch`` that torchvision.tv_tensors re-exports by accident is not API)."""
    names = getattr(module, "__all__", None) or dir(module)
    return sorted(n for n in names if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType))


def _cases() -> List[Any]:
    cases = []
    for where, (tv_module, _) in MODULES.items():
        for name in public_names(tv_module):
            cases.append(pytest.param(where, name, id=f"{where}.{name}"))
    return cases


def _kind(obj: Any) -> str:
    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        return "enum"
    if isinstance(obj, type):
        return "class"
    if callable(obj):
        return "function"
    return type(obj).__name__


def _normalised_default(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return _normalised_default(value.value)
    if isinstance(value, (list, tuple)):
        return [_normalised_default(v) for v in value]
    return value


def _parameters(obj: Any) -> List[inspect.Parameter]:
    target = obj.__init__ if isinstance(obj, type) else obj
    return [p for p in inspect.signature(target).parameters.values() if p.name != "self"]


def _check_signature(where: str, name: str, tv_obj: Any, jv_obj: Any) -> None:
    ours = _parameters(jv_obj)
    theirs = _parameters(tv_obj)
    names = f"{[p.name for p in ours]} vs torchvision's {[p.name for p in theirs]}"
    assert len(ours) >= len(theirs), f"{where}.{name}: parameters {names}"
    for mine, other in zip(ours, theirs):
        variadic = other.kind in (other.VAR_POSITIONAL, other.VAR_KEYWORD)  # no caller writes their names
        assert (mine.kind, variadic or mine.name) == (other.kind, variadic or other.name), (
            f"{where}.{name}: parameter {mine.name} ({mine.kind.description}) where torchvision has "
            f"{other.name} ({other.kind.description})"
        )
        assert _normalised_default(mine.default) == _normalised_default(other.default), (
            f"{where}.{name}: default of {other.name} is {mine.default!r}, torchvision's {other.default!r}"
        )
    extra = ours[len(theirs) :]
    assert all(p.kind is p.KEYWORD_ONLY for p in extra), (
        f"{where}.{name}: parameters beyond torchvision's must be keyword-only, got {[p.name for p in extra]}"
    )


@pytest.mark.parametrize(("where", "name"), _cases())
def test_torchvision_name_exists_with_the_same_signature(where: str, name: str) -> None:
    tv_module, jv_module = MODULES[where]
    assert hasattr(jv_module, name), f"jitvision.{where} has no {name} (torchvision's {tv_module.__name__} has)"
    tv_obj, jv_obj = getattr(tv_module, name), getattr(jv_module, name)
    assert _kind(jv_obj) == _kind(tv_obj), f"{where}.{name}: a {_kind(jv_obj)} where torchvision has a {_kind(tv_obj)}"
    if _kind(tv_obj) == "enum":
        assert sorted(jv_obj.__members__) == sorted(tv_obj.__members__), f"{where}.{name}: members differ"
        return
    _check_signature(where, name, tv_obj, jv_obj)
