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
