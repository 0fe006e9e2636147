"""CenterCrop and RandomCrop."""

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import torch

from ... import _native
from ..._eager_ops import entry
from .. import _stages
from .. import functional as F
from .._random import draws_on_host, uniform
from .._transform import Transform
from .._utils import setup_size
from ..functional._dispatch import is_tracing
from ..functional._geometry._crop import crop_at
from ..functional._geometry._pad import _parse_pad_padding
from ._pad import PaddingTransform, check_padding

# The native ops' eager entry points (jitvision._eager_ops: the CPython binding, else ``OpOverload._op``; both skip
# the functional's dispatch); None without the native geometry ops.
_CROP_COPY = entry("crop_copy") if _native.GEOMETRY else None
_RANDOM_CROP = entry("random_crop") if _native.GEOMETRY else None


@torch.jit.unused
def _fast_crop_applies(image: torch.Tensor) -> bool:
    """``_row_copy_applies`` for ``_eager_plain`` (the caller has checked ``ndim >= 2``)."""
    return _native.GEOMETRY and image.is_cpu and not image.requires_grad and image.is_contiguous()


@torch.jit.unused
def _row_copy_applies(image: torch.Tensor) -> bool:
    """Whether the eager fast path may crop ``image`` with the native row copy (csrc/fastgeo.cpp)."""
    return _native.GEOMETRY and image.ndim >= 2 and image.is_cpu and not image.requires_grad and image.is_contiguous()


class CenterCrop(Transform):
    """Crop the center ``size`` (an int or (h, w)) of the sample, zero-padding where the input is smaller.

    Exports with dynamic height and width: no Python branch on the input size when it is at least ``size``.
    Called eagerly on one plain contiguous CPU tensor (the fast path), the output is a contiguous copy rather
    than a view of the input as in torchvision (the same values; one native row copy).
    """

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.CENTER_CROP

    _functional = staticmethod(F.center_crop)

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        super().__init__()
        self.size = setup_size(size, type(self).__name__)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.center_crop(inpt, self.size)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # A crop inside a contiguous CPU image: one native row copy (a contiguous tensor, not a view).
        if image.ndim < 2 or not _fast_crop_applies(image):
            return None
        crop_height, crop_width = self.size
        shape = image.shape
        room_height, room_width = shape[-2] - crop_height, shape[-1] - crop_width
        if room_height < 0 or room_width < 0:
            return None
        # _center_crop_anchor inline (half the room, rounded half to even): a function call costs as much as the crop
        top = (room_height >> 1) + (room_height & 1) * ((room_height >> 1) & 1)
        left = (room_width >> 1) + (room_width & 1) * ((room_width >> 1) & 1)
        return _CROP_COPY(image, top, left, crop_height, crop_width)

    def extra_repr(self) -> str:
        return f"size={self.size}"


class RandomCrop(PaddingTransform):
    """Crop a random ``size`` window: first ``padding`` is applied, then with ``pad_if_needed`` each side too
    small for the crop is padded by the missing amount on both ends, then the offset is drawn uniformly among
    the in-bounds ones (torchvision's order and semantics).

    The offset is one int64 tensor ``[top, left]``, so a compiled RandomCrop stays random without recompiling.
    Called eagerly on one plain contiguous CPU tensor without padding (the fast path), the draw and the crop are
    one native call (``jitvision_native::random_crop``: the same draw on the same generator) and the output is a
    contiguous copy rather than a view of the input as in torchvision (the same values).
    """

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.RANDOM_CROP

    _functional = staticmethod(F.crop)
    padding: Optional[List[int]]

    def __init__(
        self,
        size: Union[int, Sequence[int]],
        padding: Optional[Union[int, Sequence[int]]] = None,
        pad_if_needed: bool = False,
        fill: Any = 0,
        padding_mode: str = "constant",
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(fill, padding_mode, generator=generator)
        owner = type(self).__name__
        self.size = setup_size(size, owner)
        # torchvision keeps the padding as [left, right, top, bottom], and None for a padding of 0.
        self.padding = _parse_pad_padding(check_padding(padding, owner)) if padding else None
        self.pad_if_needed = bool(pad_if_needed)

    def _fixed_padding(self) -> List[int]:
        """[left, right, top, bottom]: the ``padding`` argument's (zeros without one)."""
        padding = self.padding
        if padding is None:
            return [0, 0, 0, 0]
        return [padding[0], padding[1], padding[2], padding[3]]

    def _plan(self, height: int, width: int) -> List[int]:
        """[left, top, right, bottom] padding and the padded [height, width] for an input of this size."""
        if not torch.jit.is_scripting():
            if is_tracing():  # the sizes may be symbolic (the same values where they are not)
                return self._plan_symbolic(height, width)
        left, right, top, bottom = self._fixed_padding()
        padded_height, padded_width = height + top + bottom, width + left + right
        crop_height, crop_width = self.size[0], self.size[1]
        if self.pad_if_needed and padded_height < crop_height:
            missing = crop_height - padded_height
            top, bottom, padded_height = top + missing, bottom + missing, padded_height + 2 * missing
        if self.pad_if_needed and padded_width < crop_width:
            missing = crop_width - padded_width
            left, right, padded_width = left + missing, right + missing, padded_width + 2 * missing
        if padded_height < crop_height or padded_width < crop_width:
            padded = "padded " if self.padding is not None or self.pad_if_needed else ""
            raise ValueError(
                f"RandomCrop: Required crop size ({self.size[0]}, {self.size[1]}) is larger than {padded}input image "
                f"size ({padded_height}, {padded_width})"
            )
        return [left, top, right, bottom, padded_height, padded_width]

    @torch.jit.unused
    def _plan_symbolic(self, height: Any, width: Any) -> List[Any]:
        """``_plan`` for symbolic sizes under torch.compile/export, such as a size drawn by an earlier RandomResize
        (unbacked: no example value to branch on). The padding is branch-free (``sym_max``: the same values as
        ``_plan``'s branches), and the check that the crop fits becomes a ``torch._check`` where the compiler cannot
        decide it, so a drawn size flows through instead of failing on a data-dependent guard."""
        from torch.fx.experimental.symbolic_shapes import guard_or_false

        left, right, top, bottom = self._fixed_padding()
        padded_height, padded_width = height + top + bottom, width + left + right
        crop_height, crop_width = self.size[0], self.size[1]
        if self.pad_if_needed:
            missing = torch.sym_max(crop_height - padded_height, 0)
            top, bottom, padded_height = top + missing, bottom + missing, padded_height + 2 * missing
            missing = torch.sym_max(crop_width - padded_width, 0)
            left, right, padded_width = left + missing, right + missing, padded_width + 2 * missing
        if guard_or_false(padded_height < crop_height) or guard_or_false(padded_width < crop_width):
            raise ValueError(
                f"RandomCrop: Required crop size ({self.size[0]}, {self.size[1]}) is larger than the input image "
                f"size ({padded_height}, {padded_width})"
            )
        torch._check(padded_height >= crop_height, lambda: "RandomCrop: the crop is taller than the input")
        torch._check(padded_width >= crop_width, lambda: "RandomCrop: the crop is wider than the input")
        return [left, top, right, bottom, padded_height, padded_width]

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        if len(batch_shape) == 0 and not torch.jit.is_scripting():
            if draws_on_host(device):
                return self._draw_eager(height, width, device)
        return {"top_left": self._offsets(batch_shape, height, width, device)}

    @torch.jit.unused
    def _draw_eager(self, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        # The same draw and float64 arithmetic as _offsets on Python floats (a dozen tiny tensor ops cost more than
        # the crop itself on a small image).
        plan = self._plan(height, width)
        dtype = torch.float32 if device.type == "mps" else torch.float64
        u_top, u_left = uniform([2], self._rng(), device, dtype).tolist()
        room_height, room_width = plan[4] - self.size[0], plan[5] - self.size[1]
        top = min(math.floor(u_top * (room_height + 1)), room_height)
        left = min(math.floor(u_left * (room_width + 1)), room_width)
        return {"top_left": torch.tensor([top, left], dtype=torch.int64, device=device)}

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # _draw_eager's draw, then the slice itself: no offset tensor built and read back, no dispatch.
        if image.ndim < 2:
            return None
        if self.padding is None and _fast_crop_applies(image):  # the common case, the native draw and copy
            size = self.size
            shape = image.shape
            room_height, room_width = shape[-2] - size[0], shape[-1] - size[1]
            if room_height >= 0 and room_width >= 0 and (room_height or room_width):
                return _RANDOM_CROP(image, size, self._rng())
        plan = self._plan(image.shape[-2], image.shape[-1])
        if plan[0] != 0 or plan[1] != 0 or plan[2] != 0 or plan[3] != 0:
            return None
        if _row_copy_applies(image) and (plan[4] != self.size[0] or plan[5] != self.size[1]):
            return torch.ops.jitvision_native.random_crop.default(image, self.size, self._rng())
        dtype = torch.float32 if image.device.type == "mps" else torch.float64
        u_top, u_left = uniform([2], self._rng(), image.device, dtype).tolist()
        crop_height, crop_width = self.size[0], self.size[1]
        room_height, room_width = plan[4] - crop_height, plan[5] - crop_width
        top = min(math.floor(u_top * (room_height + 1)), room_height)
        left = min(math.floor(u_left * (room_width + 1)), room_width)
        if room_height == 0 and room_width == 0:
            return image  # what transform returns when the crop is the whole input
        return image[..., top : top + crop_height, left : left + crop_width]

    def _offsets(self, batch_shape: List[int], height: int, width: int, device: torch.device) -> torch.Tensor:
        """int64 ``[*batch_shape, 2]`` crop offsets (top, left), uniform over the in-bounds ones."""
        plan = self._plan(height, width)
        # Uniform offsets as floor(u * (room + 1)): the room enters as a size, not as randint's bound, so a
        # compiled RandomCrop keeps one graph across input sizes (randint would specialise on each size). The
        # draws therefore differ from torchvision's randint stream for the same seed; the distribution is the
        # same. float64 keeps floor(u * n) < n for any image size (MPS has no float64).
        dtype = torch.float32 if device.type == "mps" else torch.float64
        uniforms = uniform(batch_shape + [2], self._rng(), device, dtype)
        room_height, room_width = plan[4] - self.size[0], plan[5] - self.size[1]
        top = (uniforms[..., 0] * (room_height + 1)).floor().clamp(max=room_height)
        left = (uniforms[..., 1] * (room_width + 1)).floor().clamp(max=room_width)
        return torch.stack([top, left], dim=-1).to(torch.int64)

    def _padded(self, inpt: torch.Tensor) -> Tuple[torch.Tensor, bool]:
        """The input after ``padding``/``pad_if_needed``, and whether the crop still has to be taken."""
        size = F.get_size(inpt)
        plan = self._plan(size[0], size[1])
        if not torch.jit.is_scripting():
            if is_tracing():
                needs_pad, needs_crop = _needs_symbolic(plan, self.size)
                return (self._pad(inpt, plan[:4]) if needs_pad else inpt), needs_crop
        if plan[0] != 0 or plan[1] != 0 or plan[2] != 0 or plan[3] != 0:
            inpt = self._pad(inpt, plan[:4])
        return inpt, not (plan[4] == self.size[0] and plan[5] == self.size[1])

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's keys: ``needs_crop``, ``top``, ``left``, ``height``, ``width``, ``needs_pad``, ``padding``
        ([left, top, right, bottom]); ``top``/``left`` are ints, 0-d int64 tensors under torch.compile/export."""
        plan = self._plan(height, width)
        top_left = drawn["top_left"]
        top, left = (top_left[0], top_left[1]) if is_tracing() else top_left.tolist()
        if is_tracing():
            needs_pad, needs_crop = _needs_symbolic(plan, self.size)
        else:
            needs_pad = any(side != 0 for side in plan[:4])
            needs_crop = not (plan[4] == self.size[0] and plan[5] == self.size[1])
        return {
            "needs_crop": needs_crop,
            "top": top,
            "left": left,
            "height": self.size[0],
            "width": self.size[1],
            "needs_pad": needs_pad,
            "padding": plan[:4],
        }

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed parameters (maybe edited by a subclass)."""
        if params["needs_pad"]:
            inpt = self._pad(inpt, list(params["padding"]))
        if not params["needs_crop"]:
            return inpt
        top, left, height, width = params["top"], params["left"], params["height"], params["width"]
        if is_tracing() and isinstance(top, torch.Tensor):
            return crop_at(inpt, torch.stack([top, left]).to(torch.int64), height, width)
        return F.crop(inpt, int(top), int(left), height, width)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "top_left" not in params:
            return self._transform_public(inpt, params)
        inpt, needs_crop = self._padded(inpt)
        if not needs_crop:
            return inpt
        crop_height, crop_width = self.size[0], self.size[1]
        if is_tracing():
            return crop_at(inpt, params["top_left"], crop_height, crop_width)
        top_left = params["top_left"]
        if torch.jit.is_scripting():
            top, left = int(top_left[0]), int(top_left[1])
        else:
            top, left = top_left.tolist()
        return F.crop(inpt, top, left, crop_height, crop_width)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        inpt, needs_crop = self._padded(inpt)
        if not needs_crop:
            return inpt
        top_left = params["top_left"]
        if torch.jit.is_scripting():  # no custom ops in TorchScript: one crop per row
            rows = [
                F.crop(inpt[i], int(top_left[i, 0]), int(top_left[i, 1]), self.size[0], self.size[1])
                for i in range(inpt.shape[0])
            ]
            return torch.stack(rows) if len(rows) > 0 else inpt[:, ..., : self.size[0], : self.size[1]]
        return crop_at(inpt, top_left, self.size[0], self.size[1])

    def extra_repr(self) -> str:
        return (
            f"size={self.size}, padding={self.padding}, pad_if_needed={self.pad_if_needed}, "
            f"fill={self.fill}, padding_mode={self.padding_mode}"
        )


@torch.jit.unused
def _needs_symbolic(plan: List[Any], size: List[int]) -> Tuple[bool, bool]:
    """Whether to pad and whether to crop, for a plan whose sizes may be unbacked symbols: where the compiler cannot
    decide, pad (by a padding that may be zero) and crop (a crop of the whole input): the same output either way,
    without a data-dependent guard."""
    from torch.fx.experimental.symbolic_shapes import guard_or_false, guard_or_true

    needs_pad = any(guard_or_true(side != 0) for side in plan[:4])
    needs_crop = not (guard_or_false(plan[4] == size[0]) and guard_or_false(plan[5] == size[1]))
    return needs_pad, needs_crop
