"""The kernel registry: which kernel a functional runs for which input type.

Plain tensors never come here: every functional sends them straight to its image kernel (that branch is
all TorchScript sees). For everything else the functional asks ``get_kernel`` for the kernel registered for
the input's type (walking the type's MRO, then mapping a torchvision tv_tensor to the jitvision kind of the
same name). Kernels registered with ``tv_tensor_wrapper=True`` see a plain tensor and their output is
wrapped back into the input's type, so they stay pure tensor functions that dynamo traces into one graph.

``register_kernel`` here is the internal registration (built-in kinds, PIL images, optional wrapping);
``functional.register_kernel`` is ``register_user_kernel``, torchvision's public contract for users' own
tv_tensor types.
"""

import functools
from typing import Any, Callable, Dict, List, Tuple

import torch

from ... import tv_tensors
from ...tv_tensors import TVTensor, kind_of

Kernel = Callable[..., Any]

_KERNEL_REGISTRY: dict[Callable[..., Any], dict[type, Kernel]] = {}


@torch.jit.unused  # scripted code only ever sees plain tensors; every caller checks is_scripting() first
def is_pure_tensor(inpt: torch.Tensor) -> bool:
    """True for a tensor that is not a tv_tensor (ours or torchvision's)."""
    if type(inpt) is torch.Tensor:
        return True
    return isinstance(inpt, torch.Tensor) and kind_of(type(inpt)) is None and not isinstance(inpt, TVTensor)


def unwrap(inpt: torch.Tensor) -> torch.Tensor:
    """The plain tensor behind a tv_tensor, sharing its storage."""
    if torch.compiler.is_compiling():
        # as_subclass on a tensor subclass is rejected by dynamo; a view goes through __torch_function__,
        # which returns plain tensors, and traces. (Under set_return_type("TVTensor") ops keep the type: the view
        # is taken with subclass dispatch disabled, which dynamo traces too.)
        with torch._C.DisableTorchFunctionSubclass():
            return inpt.view(inpt.shape)
    return inpt.as_subclass(torch.Tensor)


def call_custom_op(op: Callable[..., torch.Tensor], dense: torch.Tensor, *args: Any) -> torch.Tensor:
    """``op(dense, *args)`` for a custom op on a dense tensor whose leading dimensions it keeps.

    The op gets a view with an extra leading dimension (dropped from its output): under torch.compile, inductor
    then hands it a reinterpreted plain tensor, never the graph input itself. A graph input may be a tv_tensor,
    and AOT autograd's first-call check of custom ops (functorch config ``check_custom_op_aliasing``) rejects
    tensor subclasses ("all __torch_dispatch__ handlers returned NotImplemented"); inductor drops identity
    views, so ``unwrap`` alone does not help. The same in eager (two cheap views), so an op sees one layout."""
    return op(dense.unsqueeze(0), *args).squeeze(0)


def _wrapping(kernel: Kernel) -> Kernel:
    @functools.wraps(kernel)
    def run_and_rewrap(inpt: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        return tv_tensors.wrap(kernel(unwrap(inpt), *args, **kwargs), like=inpt)

    return run_and_rewrap


def register_kernel(
    functional: Callable[..., Any], tv_tensor_cls: type, *, tv_tensor_wrapper: bool = True
) -> Callable[[Kernel], Kernel]:
    """Decorator: run the decorated kernel when ``functional`` gets an input of type ``tv_tensor_cls``.

    With ``tv_tensor_wrapper`` the kernel gets the plain tensor and its output is wrapped back into the
    input's type; without it, the kernel gets the tv_tensor itself (to read metadata such as
    ``canvas_size``) and must return what the functional should return.
    """
    if not callable(functional):
        raise TypeError(f"register_kernel: functional must be callable, got {functional!r}")
    if not isinstance(tv_tensor_cls, type):
        raise TypeError(f"register_kernel: tv_tensor_cls must be a type, got {tv_tensor_cls!r}")
    if tv_tensor_cls is torch.Tensor:
        raise ValueError("register_kernel: plain tensors always use the image kernel and cannot be registered")

    def decorator(kernel: Kernel) -> Kernel:
        registry = _KERNEL_REGISTRY.setdefault(functional, {})
        wraps_tensor = tv_tensor_wrapper and issubclass(tv_tensor_cls, torch.Tensor)
        registry[tv_tensor_cls] = _wrapping(kernel) if wraps_tensor else kernel
        return kernel

    return decorator


def _builtin_tv_tensor_classes() -> list:
    import sys

    classes = [tv_tensors.Image, tv_tensors.Video, tv_tensors.Mask, tv_tensors.BoundingBoxes, tv_tensors.KeyPoints]
    theirs = sys.modules.get("torchvision.tv_tensors")
    if theirs is not None:
        classes += [getattr(theirs, cls.__name__) for cls in classes if hasattr(theirs, cls.__name__)]
    return classes


def _tv_tensor_bases() -> tuple:
    import sys

    theirs = sys.modules.get("torchvision.tv_tensors")
    return (TVTensor,) if theirs is None else (TVTensor, theirs.TVTensor)


# The public functional namespace (``jitvision.transforms.functional``'s globals), handed over by the package once
# every functional is imported: the package imports this module, so this module cannot import the package back.
_PUBLIC_FUNCTIONALS: Dict[str, Any] = {}


def publish_functionals(namespace: Dict[str, Any]) -> None:
    """Record the public functional namespace that ``register_user_kernel`` checks functionals against."""
    _PUBLIC_FUNCTIONALS.update(namespace)


def register_user_kernel(functional: Any, tv_tensor_cls: type) -> Callable[[Kernel], Kernel]:
    """Decorator: run the decorated kernel when ``functional`` (a functional of ``jitvision.transforms.functional``
    or its name, e.g. ``"resize"``) gets an input of the user's own tv_tensor class ``tv_tensor_cls``.

    torchvision's contract: the kernel receives the tv_tensor itself and whatever it returns is the functional's
    result (wrap it with ``tv_tensors.wrap(out, like=inpt)`` to keep the type). Refused with a ValueError, as in
    torchvision: a class that is not a TVTensor subclass (ours or torchvision's), a built-in tv_tensor class
    (Image, Video, Mask, BoundingBoxes, KeyPoints: their kernels are the library's own), a second kernel for the
    same functional and class, and a functional that is not one of ours."""
    if isinstance(functional, str):
        found = _PUBLIC_FUNCTIONALS.get(functional)
        if found is None or not callable(found) or isinstance(found, type):
            raise ValueError(
                f"register_kernel: Could not find functional with name {functional!r} in jitvision's functionals"
            )
        functional = found
    if not callable(functional) or not any(functional is value for value in _PUBLIC_FUNCTIONALS.values()):
        raise ValueError(
            f"register_kernel: Kernels can only be registered on functionals of jitvision.transforms.functional, "
            f"got {functional!r}"
        )
    if not isinstance(tv_tensor_cls, type) or not issubclass(tv_tensor_cls, _tv_tensor_bases()):
        raise ValueError(
            f"register_kernel: Kernels can only be registered for subclasses of TVTensor, got {tv_tensor_cls!r}"
        )
    if tv_tensor_cls in _builtin_tv_tensor_classes():
        raise ValueError(
            f"register_kernel: {tv_tensor_cls.__name__}: kernels cannot be registered for the builtin tv_tensor classes"
        )
    if tv_tensor_cls in _KERNEL_REGISTRY.get(functional, {}):
        raise ValueError(
            f"register_kernel: {functional.__name__} already has a kernel registered for type {tv_tensor_cls.__name__}"
        )

    def decorator(kernel: Kernel) -> Kernel:
        _KERNEL_REGISTRY.setdefault(functional, {})[tv_tensor_cls] = kernel
        return kernel

    return decorator


def get_kernel(functional: Callable[..., Any], input_type: type, *, allow_passthrough: bool = False) -> Kernel:
    """The kernel registered for ``input_type`` (or the nearest registered base type)."""
    registry = _KERNEL_REGISTRY.get(functional, {})
    for cls in input_type.__mro__:
        if cls in registry:
            return registry[cls]
    kind = kind_of(input_type)
    if kind is not None and kind in registry:
        return registry[kind]
    if allow_passthrough and (kind is not None or issubclass(input_type, TVTensor)):
        return _passthrough
    supported = ["torch.Tensor"] + sorted(
        set(
            cls.__name__ if cls.__module__.startswith("jitvision") else f"{cls.__module__}.{cls.__qualname__}"
            for cls in registry
        )
    )
    # torchvision's wording ("supports inputs of type [...], but got <class '...'> instead"), which callers match on
    raise TypeError(
        f"{functional.__name__}: unsupported input type {input_type}: {functional.__name__} supports inputs of "
        f"type [{', '.join(supported)}], but got {input_type} instead"
    )


def _passthrough(inpt: Any, *args: Any, **kwargs: Any) -> Any:
    return inpt


def is_tracing() -> bool:
    """True under dynamo (torch.compile, torch.export): random choices must then stay tensors."""
    if torch.jit.is_scripting():
        return False
    return torch.compiler.is_compiling()


_DEVICE_CONSTANTS: Dict[Tuple[Any, ...], torch.Tensor] = {}


def device_constant(values: List[float], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """``torch.tensor(values, dtype=dtype, device=device)``, read-only. On a GPU it is made once per (values, dtype,
    device) and kept: made per call it is a copy from the host, which synchronises the host with the device on
    every call of a per-sample batch. Traced and scripted code builds it in place (a constant of the graph)."""
    if not torch.jit.is_scripting():
        if device.type not in ("cpu", "meta") and not is_tracing():
            return _cached_constant(values, dtype, device)
    return torch.tensor(values, dtype=dtype, device=device)


@torch.jit.unused
def _cached_constant(values: List[float], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    key = (tuple(values), dtype, device)
    constant = _DEVICE_CONSTANTS.get(key)
    if constant is None:
        constant = _DEVICE_CONSTANTS[key] = torch.tensor(values, dtype=dtype, device=device)
    return constant


_DEVICE_COPIES: Dict[Tuple[int, torch.device], Tuple[torch.Tensor, torch.Tensor]] = {}


def device_copy(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``tensor.to(device)`` for a constant host tensor (a lookup table of a transform), read-only: on a GPU copied
    once per device and kept (see ``device_constant``)."""
    if not torch.jit.is_scripting():
        if device.type not in ("cpu", "meta") and not is_tracing():
            return _cached_copy(tensor, device)
    return tensor.to(device)


@torch.jit.unused
def _cached_copy(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    key = (id(tensor), device)
    hit = _DEVICE_COPIES.get(key)
    if hit is None or hit[0] is not tensor:  # the source is kept in the entry, so its id is not reused
        hit = _DEVICE_COPIES[key] = (tensor, tensor.to(device))
    return hit[1]


def is_exporting() -> bool:
    """True under torch.export (strict or not): sizes with a ``Dim`` must then stay symbolic, no guards."""
    if torch.jit.is_scripting():
        return False
    return torch.compiler.is_exporting()


def where_like(condition: torch.Tensor, if_true: torch.Tensor, if_false: torch.Tensor) -> torch.Tensor:
    """``torch.where`` that keeps the tv_tensor type and metadata of ``if_true``."""
    if torch.jit.is_scripting() or is_pure_tensor(if_true):
        return torch.where(condition, if_true, if_false)
    return tv_tensors.wrap(torch.where(condition, unwrap(if_true), unwrap(if_false)), like=if_true)
