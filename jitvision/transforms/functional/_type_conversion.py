"""Conversions between PIL images, numpy arrays, plain tensors and tv_tensors. None of them scales values."""

import sys
from typing import Any, Optional

import numpy as np
import PIL.Image
import torch

from ...tv_tensors import Image
from ._dispatch import unwrap


@torch.jit.unused
def pil_to_tensor(pic: Any) -> torch.Tensor:
    """A PIL image as a ``[C, H, W]`` tensor of its own pixel type (uint8 for RGB/L, bool for mode "1",
    uint16/int32/float32 for the wide modes), not scaled. Like torchvision, the result is a channels-first
    view of a height-width-channel copy of the pixels."""
    if not isinstance(pic, PIL.Image.Image):
        raise TypeError(f"pil_to_tensor: pic should be PIL Image, got {type(pic)}")
    pixels = torch.as_tensor(np.array(pic, copy=True))
    return pixels.view(pic.height, pic.width, len(pic.getbands())).permute(2, 0, 1)


def to_image(inpt: torch.Tensor) -> torch.Tensor:
    """A tensor, numpy array (``[H, W, C]`` or ``[H, W]``) or PIL image as an ``Image`` ``[C, H, W]``.
    Scripted (TorchScript has no tv_tensor types): a plain tensor, a 2D one given its channel dimension."""
    if torch.jit.is_scripting():
        if inpt.dim() < 2:
            raise ValueError("to_image: expected at least 2 dimensions ([..., H, W])")
        return inpt.unsqueeze(0) if inpt.dim() == 2 else inpt
    return _to_image(inpt)


@torch.jit.unused
def _to_image(inpt: Any) -> torch.Tensor:
    if isinstance(inpt, np.ndarray):
        tensor = torch.from_numpy(np.atleast_3d(inpt)).permute(2, 0, 1).contiguous()
    elif isinstance(inpt, PIL.Image.Image):
        tensor = pil_to_tensor(inpt)
    elif isinstance(inpt, torch.Tensor):
        tensor = inpt if type(inpt) is torch.Tensor else unwrap(inpt)
    else:
        raise TypeError(
            f"to_image: Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} instead."
        )
    if tensor.ndim < 2:
        raise ValueError(f"to_image: expected at least 2 dimensions ([..., H, W]), got shape {list(tensor.shape)}")
    if tensor.ndim == 2:
        tensor = tensor.unsqueeze(0)
    if torch.compiler.is_exporting():
        # Deliberate difference: an exported program computes on plain tensors (non-strict export cannot
        # create a subclass from its fake tensors), so under torch.export the image stays a plain tensor.
        return tensor.clone()
    return tensor.as_subclass(Image)


def to_pure_tensor(inpt: torch.Tensor) -> torch.Tensor:
    """The plain tensor behind a tv_tensor (ours or torchvision's), sharing its storage; plain tensors as they are."""
    if torch.jit.is_scripting():
        return inpt
    return _to_pure_tensor(inpt)


@torch.jit.unused
def _to_pure_tensor(inpt: Any) -> torch.Tensor:
    if not isinstance(inpt, torch.Tensor):
        raise TypeError(f"to_pure_tensor: expected a tensor, got {type(inpt)}")
    if type(inpt) is torch.Tensor:
        return inpt
    return unwrap(inpt)


# What a single-channel array becomes, by numpy dtype name.
_SINGLE_CHANNEL_MODES = {
    "uint8": "L",
    "int16": "I;16" if sys.byteorder == "little" else "I;16B",
    "int32": "I",
    "float32": "F",
}
# Modes allowed for 2, 3 and 4 channels; the first is the default for uint8 data.
_MULTI_CHANNEL_MODES = {2: ("LA",), 3: ("RGB", "YCbCr", "HSV"), 4: ("RGBA", "CMYK", "RGBX")}


@torch.jit.unused
def to_pil_image(pic: Any, mode: Optional[str] = None) -> PIL.Image.Image:
    """A tensor ``[C, H, W]`` / ``[H, W]`` or array ``[H, W, C]`` / ``[H, W]`` as a PIL image.

    As torchvision: float data is multiplied by 255 and cast to uint8 (unless ``mode="F"``); without ``mode``,
    1 channel becomes "L"/"I;16"/"I"/"F" by dtype, and uint8 data with 2/3/4 channels "LA"/"RGB"/"RGBA".
    """
    if isinstance(pic, torch.Tensor):
        if pic.dtype in (torch.bfloat16, torch.complex32) or pic.is_complex():
            raise TypeError(f"to_pil_image: {pic.dtype} tensors have no PIL mode (convert to float32 or uint8 first)")
        if pic.ndim == 3:
            pic = pic.permute(1, 2, 0)
        pic = unwrap(pic).numpy(force=True) if type(pic) is not torch.Tensor else pic.numpy(force=True)
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"to_pil_image: pic should be Tensor or ndarray, got {type(pic)}")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if pic.ndim != 3:
        raise ValueError(f"to_pil_image: pic should be 2/3 dimensional, got {pic.ndim} dimensions")
    channels = pic.shape[-1]
    if channels < 1 or pic.shape[0] < 1 or pic.shape[1] < 1:
        raise ValueError(f"to_pil_image: expected a non-empty image, got shape {list(pic.shape)} (H, W, C)")
    if channels > 4:
        raise ValueError(f"to_pil_image: pic should not have > 4 channels, got {channels}")
    if np.issubdtype(pic.dtype, np.floating) and mode != "F":
        pic = (pic * 255).astype(np.uint8)

    if channels == 1:
        pic = pic[:, :, 0]
        expected = _SINGLE_CHANNEL_MODES.get(pic.dtype.name)
        if mode is not None and mode != expected:
            raise ValueError(f"to_pil_image: mode {mode!r} does not fit {pic.dtype} data; expected {expected!r}")
        mode = expected
    else:
        allowed = _MULTI_CHANNEL_MODES[channels]
        if mode is not None and mode not in allowed:
            raise ValueError(f"to_pil_image: {channels} channels allow modes {list(allowed)}, got {mode!r}")
        if mode is None and pic.dtype == np.uint8:
            mode = allowed[0]
    if mode is None:
        raise TypeError(f"to_pil_image: {pic.dtype} data with {channels} channel(s) is not supported")
    # frombuffer reads the bytes in ``mode``'s own layout, whatever the array dtype (fromarray would infer).
    height, width = pic.shape[0], pic.shape[1]
    return PIL.Image.frombuffer(mode, (width, height), np.ascontiguousarray(pic).tobytes(), "raw", mode, 0, 1)
