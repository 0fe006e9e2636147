"""ToDtype, Normalize, Identity and Lambda."""

import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import PIL.Image
import torch

from ..tv_tensors import Image, Video, kind_of
from . import _stages
from . import functional as F
from ._transform import Transform
from .functional._dispatch import is_pure_tensor


class _Deterministic(Transform):
    """A transform without random parameters: it needs neither the sample's size nor a draw (``make_params``
    returns ``{}``, and ``__call__`` gives one plain tensor to ``transform(tensor, {})`` directly)."""

    _draw_uses_size = False


class Identity(_Deterministic):
    """Return the input unchanged."""

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return inpt


def _same_kind_key(cls: Any) -> Any:
    """Dict keys and input types compared so that a torchvision tv_tensor class and the jitvision class of the
    same name are one key (any other class is itself)."""
    if not isinstance(cls, type):
        return cls
    kind = kind_of(cls)
    tv_module = sys.modules.get("torchvision.tv_tensors")
    if kind is not None and (cls is kind or (tv_module is not None and cls is getattr(tv_module, kind.__name__))):
        return kind
    return cls


class ToDtype(_Deterministic):
    """Convert images and videos (and, with a dict, any kind) to ``dtype``; ``scale`` rescales image values.

    As torchvision: a plain ``dtype`` converts images, videos and the pure tensor that stands for the image only;
    a dict maps types to dtypes (``None``: leave as is), e.g. ``{Image: torch.float32, Mask: torch.int64,
    "others": None}``, and a type that is neither a key nor covered by ``"others"`` is an error. Keys may be
    jitvision or torchvision tv_tensor classes (either matches both); ``torch.Tensor`` is the key for pure tensors.
    Scaling only ever applies to images and videos (see ``functional.to_dtype``).

    Scripted, the transform sees plain tensors: it converts them to the plain dtype, or to the dict's
    ``torch.Tensor`` entry (else ``"others"``).
    """

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.TO_FLOAT if self.dtype is torch.float32 and self.scale else None

    _transformed_types = (torch.Tensor,)
    # Scripted code reads these; the dict of Python types stays out of TorchScript's sight.
    _tensor_dtype: Optional[torch.dtype]
    __jit_ignored_attributes__ = ["generator", "dtype", "_dtype_table"]

    def __init__(
        self, dtype: Union[torch.dtype, Dict[Union[type, str], Optional[torch.dtype]]], scale: bool = False
    ) -> None:
        super().__init__()
        if not isinstance(dtype, (dict, torch.dtype)):
            raise ValueError(f"ToDtype: dtype must be a torch.dtype or a dict of them, got {dtype!r}")
        if not isinstance(scale, bool):
            raise TypeError(f"ToDtype: scale must be a bool, got {scale!r}")
        self.dtype = dtype
        self.scale = scale
        self._tensor_dtype_missing = False
        if isinstance(dtype, torch.dtype):
            self._dtype_table: Dict[Any, Optional[torch.dtype]] = {}
            self._tensor_dtype = dtype
            return
        for key, value in dtype.items():
            if not (key == "others" or isinstance(key, type)):
                raise ValueError(f'ToDtype: dict keys must be types or "others", got {key!r}')
            if value is not None and not isinstance(value, torch.dtype):
                raise ValueError(f"ToDtype: dict values must be torch.dtype or None, got {value!r} for {key!r}")
        self._dtype_table = {_same_kind_key(key): value for key, value in dtype.items()}
        if torch.Tensor in dtype and any(_same_kind_key(key) in (Image, Video) for key in dtype):
            warnings.warn(
                "ToDtype: got dtypes for torch.Tensor and for Image or Video; a plain `torch.Tensor` will *not* be "
                "transformed (by this or any transform) when the sample holds an Image or Video",
                stacklevel=2,
            )
        self._tensor_dtype_missing = torch.Tensor not in dtype and "others" not in dtype
        self._tensor_dtype = dtype.get(torch.Tensor, dtype.get("others"))

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting():
            if self._tensor_dtype_missing:
                raise ValueError('ToDtype: no dtype for torch.Tensor in the dict (add it or an "others" entry)')
            dtype = self._tensor_dtype
            if dtype is None:
                return inpt
            return F.to_dtype(inpt, dtype, scale=self.scale)
        return self._convert(inpt)

    @torch.jit.unused
    def _convert(self, inpt: torch.Tensor) -> torch.Tensor:
        pure = is_pure_tensor(inpt)
        image_like = pure or kind_of(type(inpt)) in (Image, Video)
        if isinstance(self.dtype, torch.dtype):
            if not image_like:
                return inpt
            dtype: Optional[torch.dtype] = self.dtype
        else:
            key = torch.Tensor if pure else _same_kind_key(type(inpt))
            if key in self._dtype_table:
                dtype = self._dtype_table[key]
            elif "others" in self._dtype_table:
                dtype = self._dtype_table["others"]
            else:
                raise ValueError(
                    f"ToDtype: No dtype was specified for {type(inpt).__name__}; add it to the dict, or pass "
                    '"others": None to let other types through (or a plain dtype to convert images and videos only)'
                )
        if dtype is None:
            if self.scale and image_like:
                warnings.warn(
                    "ToDtype: scale=True but no dtype was specified for images or videos: no scaling will be done",
                    stacklevel=2,
                )
            return inpt
        return F.to_dtype(inpt, dtype, scale=self.scale)

    def extra_repr(self) -> str:
        return f"dtype={self.dtype}, scale={self.scale}"


class Normalize(_Deterministic):
    """``(x - mean) / std`` per channel, for float images and videos; masks, boxes and keypoints pass through.
    PIL images are rejected (convert them with ``ToImage`` and ``ToDtype(torch.float32, scale=True)``)."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.NORMALIZE

    _functional = staticmethod(F.normalize)

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean: List[float] = _numbers(mean, "mean")
        self.std: List[float] = _numbers(std, "std")
        if any(s == 0 for s in self.std):
            raise ValueError(f"Normalize: std evaluated to zero, leading to division by zero, got {self.std}")
        self.inplace = inplace

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        if any(isinstance(inpt, PIL.Image.Image) for inpt in flat_inputs):
            raise TypeError("Normalize: PIL images are not supported; convert them to float tensors first")

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.normalize(inpt, self.mean, self.std, inplace=self.inplace)

    def extra_repr(self) -> str:
        return f"mean={self.mean}, std={self.std}, inplace={self.inplace}"


def _numbers(values: Any, name: str) -> List[float]:
    if isinstance(values, torch.Tensor):
        values = values.reshape(-1).tolist()
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, Sequence) or not values or not all(isinstance(v, (int, float)) for v in values):
        raise TypeError(f"Normalize: {name} must be a non-empty sequence of numbers, got {values!r}")
    return [float(v) for v in values]


class Lambda(_Deterministic):
    """Apply ``lambd`` to every leaf of the sample that is an instance of ``types`` (default: every leaf).

    Python only: scripting a Lambda, or a Compose that holds one, raises a TypeError naming it."""

    _transformed_types = (object,)

    def __init__(self, lambd: Callable[[Any], Any], *types: type) -> None:
        super().__init__()
        if not callable(lambd):
            raise TypeError(f"Lambda: lambd must be callable, got {lambd!r}")
        if not all(isinstance(t, type) for t in types):
            raise TypeError(f"Lambda: types must be classes, got {types!r}")
        self.lambd = lambd
        self.types = types or self._transformed_types

    @torch.jit.unused
    def transform(self, inpt: Any, params: Dict[str, Any]) -> Any:
        return self.lambd(inpt) if isinstance(inpt, self.types) else inpt

    def __prepare_scriptable__(self) -> None:
        raise TypeError(
            f"Lambda({_callable_name(self.lambd)}) cannot be scripted: it runs a Python function; "
            "replace it with a scriptable transform (or an nn.Module) to use torch.jit.script"
        )

    def extra_repr(self) -> str:
        return f"{_callable_name(self.lambd)}, types={[t.__name__ for t in self.types]}"


def _callable_name(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return name if name else repr(fn)
