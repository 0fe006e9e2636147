"""The TVTensor base class: a torch.Tensor subclass whose ops return plain tensors."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence, TypeVar

import torch
from torch._C import DisableTorchFunctionSubclass

T = TypeVar("T", bound="TVTensor")

# Ops whose result keeps the input's type (and metadata), as in torchvision: they change where or how the
# data is stored, not what it means.
_KEEP_TYPE_OPS = frozenset(
    {
        torch.Tensor.clone,
        torch.Tensor.to,
        torch.Tensor.detach,
        torch.Tensor.requires_grad_,
        torch.Tensor.pin_memory,
    }
)


# set_return_type's flag: whether torch ops on a TVTensor return the TVTensor type (a list, so that the flag is one
# mutable module-level object that dynamo guards on).
_RETURN_TV_TENSOR = [False]


class _ReturnTypeContext:
    """What ``set_return_type`` returns: used as a context manager, it restores the previous return type on exit."""

    def __init__(self, to_restore: bool) -> None:
        self.to_restore = to_restore

    def __enter__(self) -> _ReturnTypeContext:
        return self

    def __exit__(self, *args: Any) -> None:
        _RETURN_TV_TENSOR[0] = self.to_restore


def set_return_type(return_type: str) -> _ReturnTypeContext:
    """Whether torch ops on tv_tensors return plain tensors (``"Tensor"``, the default) or keep the tv_tensor type
    and metadata of their first tv_tensor argument (``"TVTensor"``); case-insensitive. Set globally, or for a block:
    ``with set_return_type("TVTensor"): ...``. Transforms and functionals always return their input's type either
    way. Traceable by dynamo (the flag is a guarded global: changing it recompiles, it never breaks the graph)."""
    choices = {"tensor": False, "tvtensor": True}
    if not isinstance(return_type, str) or return_type.lower() not in choices:
        raise ValueError(f"set_return_type: return_type must be 'TVTensor' or 'Tensor', got {return_type!r}")
    previous = _RETURN_TV_TENSOR[0]
    _RETURN_TV_TENSOR[0] = choices[return_type.lower()]
    return _ReturnTypeContext(previous)


def _first_instance(values: Any, cls: type) -> Any:
    for value in values:
        if isinstance(value, cls):
            return value
        if isinstance(value, (list, tuple)):
            found = _first_instance(value, cls)
            if found is not None:
                return found
    return None


def _known_class(cls: type) -> type:
    """``cls`` read from the registry of subclasses (dynamo needs a class with a source for ``as_subclass``)."""
    if torch.compiler.is_compiling():
        for known in TVTensor._subclasses:
            if cls is known:
                return known
    return cls


def _rewrap(output: Any, like: TVTensor) -> Any:
    if isinstance(output, (list, tuple)):  # chunk, unbind, split, ...
        return type(output)(_rewrap(part, like) for part in output)
    if isinstance(output, torch.Tensor) and not isinstance(output, TVTensor):
        return _known_class(type(like))._wrap(output, **like._metadata())
    return output


class TVTensor(torch.Tensor):
    """Base of ``Image``, ``Video``, ``Mask``, ``BoundingBoxes`` and ``KeyPoints``.

    Any torch op on a TVTensor returns a plain ``torch.Tensor`` (metadata such as a box format cannot be
    kept meaningfully through arbitrary math), except ``clone``, ``to``, ``detach``, ``requires_grad_``
    and ``pin_memory``, which keep the type and metadata.
    """

    # Every subclass, in definition order (see ``traceable_class``).
    _subclasses: list[type] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        TVTensor._subclasses.append(cls)

    @staticmethod
    def _to_tensor(
        data: Any,
        dtype: Optional[torch.dtype] = None,
        device: Optional[torch.device | str | int] = None,
        requires_grad: Optional[bool] = None,
    ) -> torch.Tensor:
        if requires_grad is None:
            requires_grad = data.requires_grad if isinstance(data, torch.Tensor) else False
        return torch.as_tensor(data, dtype=dtype, device=device).requires_grad_(requires_grad)

    def _metadata(self) -> dict[str, Any]:
        """The attributes that ``wrap(tensor, like=self)`` copies onto a new tensor."""
        return {}

    @classmethod
    def _wrap(cls: type[T], tensor: torch.Tensor, **metadata: Any) -> T:
        out = tensor.as_subclass(cls)
        for name, value in metadata.items():
            setattr(out, name, value)
        return out

    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: Sequence[Any] = (),
        kwargs: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            output = func(*args, **(kwargs or {}))
            if func in _KEEP_TYPE_OPS and isinstance(args[0], cls) and isinstance(output, torch.Tensor):
                return type(args[0])._wrap(output, **args[0]._metadata())
            # Attribute reads (``_base``, ``grad``, ``__class__``, ...) stay as torch returns them: dynamo reads
            # ``_base`` of a view through here, and a rewrapped base would be a view again, without end.
            if (
                _RETURN_TV_TENSOR[0]
                and isinstance(output, (torch.Tensor, list, tuple))
                and getattr(func, "__name__", "") != "__get__"
            ):
                like = _first_instance(args, cls)
                if like is None and kwargs:
                    like = _first_instance(list(kwargs.values()), cls)
                if like is not None:
                    return _rewrap(output, like)
        return output

    def _make_repr(self, **metadata: Any) -> str:
        extra = ", ".join(f"{key}={value}" for key, value in metadata.items())
        with DisableTorchFunctionSubclass():
            base = torch.Tensor.__repr__(self)
        return f"{base[:-1]}, {extra})" if extra else base

    def __repr__(self, *, tensor_contents: Any = None) -> str:  # type: ignore[override]
        return self._make_repr(**self._metadata())

    def __deepcopy__(self: T, memo: dict[int, Any]) -> T:
        return self.detach().clone().requires_grad_(self.requires_grad)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # Pickle as plain data plus metadata, so that DataLoader workers can send samples across processes.
        with DisableTorchFunctionSubclass():
            plain = self.as_subclass(torch.Tensor)
        return (_rebuild, (type(self), plain, self._metadata()))


def _rebuild(cls: type[T], plain: torch.Tensor, metadata: dict[str, Any]) -> T:
    return cls._wrap(plain, **metadata)
