"""pad: kernels per kind and the functional.

``padding`` follows torchvision: an int (all sides), ``[p]``, ``[left/right, top/bottom]`` or
``[left, top, right, bottom]``; negative amounts crop that side. Modes: constant (with ``fill``), edge,
reflect and symmetric. Boxes and keypoints only support constant padding (as in torchvision).
"""

from typing import Any, List, Optional, Tuple, Union

import numpy as np
import PIL.Image
import PIL.ImageOps
import torch
import torch.nn.functional as torch_functional

from .... import _native
from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import call_custom_op, get_kernel, is_exporting, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import as_box_format, check_boxes, clamp_bounding_boxes_kernel, get_canvas_size

_PADDING_MODES = ["constant", "edge", "reflect", "symmetric"]


@torch.jit.unused
def _padding_as_list(padding: Any, op: str) -> List[int]:
    """The Python-only forms of ``padding`` (an int, a tuple) as a list of ints."""
    if isinstance(padding, bool) or not isinstance(padding, (int, list, tuple)):
        raise TypeError(
            f"{op}: Padding must be an int or a 1, 2, or 4 element of tuple or list (ints), got {padding!r}"
        )
    if isinstance(padding, int):
        return [padding]
    if not all(isinstance(p, (int, torch.SymInt)) and not isinstance(p, bool) for p in padding):  # SymInt: drawn
        raise TypeError(
            f"{op}: Padding must be an int or a 1, 2, or 4 element of tuple or list (ints), got {padding!r}"
        )
    return list(padding)


def _parse_pad_padding(padding: List[int]) -> List[int]:
    """``padding`` in any accepted form as ``[left, right, top, bottom]`` (the order of torch's pad)."""
    if not torch.jit.is_scripting():
        padding = _padding_as_list(padding, "pad")
    if len(padding) == 1:
        return [padding[0], padding[0], padding[0], padding[0]]
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    if len(padding) == 4:
        return [padding[0], padding[2], padding[1], padding[3]]
    raise ValueError(
        f"pad: Padding must be an int or a 1, 2, or 4 element of tuple or list (ints), got {len(padding)} values"
    )


def _check_padding_mode(padding_mode: str) -> None:
    modes = ["constant", "edge", "reflect", "symmetric"]  # _PADDING_MODES (TorchScript reads no global lists)
    if padding_mode not in modes:
        raise ValueError(
            f"pad: Padding mode should be either constant, edge, reflect or symmetric, got '{padding_mode}'"
        )


def _symmetric_indices(size: int, before: int, after: int, device: torch.device) -> torch.Tensor:
    # Mirror including the edge pixel: [before-1, ..., 0, 0, 1, ..., size-1, size-1, ..., size-after].
    body = torch.arange(size, device=device)
    head = torch.arange(before - 1, -1, -1, device=device)
    tail = torch.arange(size - 1, size - 1 - after, -1, device=device)
    return torch.cat([head, body, tail])


def _pad_symmetric(image: torch.Tensor, torch_padding: List[int]) -> torch.Tensor:
    left, right, top, bottom = torch_padding
    height, width = image.shape[-2], image.shape[-1]
    # Negative amounts crop first, as torchvision does.
    image = image[..., max(-top, 0) : height - max(-bottom, 0), max(-left, 0) : width - max(-right, 0)]
    height, width = image.shape[-2], image.shape[-1]
    if max(top, bottom) > height or max(left, right) > width:
        raise ValueError(f"pad: symmetric padding {torch_padding} is larger than the image ({height}, {width})")
    rows = _symmetric_indices(height, max(top, 0), max(bottom, 0), image.device)
    cols = _symmetric_indices(width, max(left, 0), max(right, 0), image.device)
    return image.index_select(-2, rows).index_select(-1, cols)


def _check_padded_extent(torch_padding: List[int], height: int, width: int, padding_mode: str) -> None:
    """Refuse, naming ``pad``, what torch's pad would fail on deep inside (``narrow()``, "padding size should be
    less than the corresponding input dimension"): negative amounts that remove more than the image has, and
    reflect/edge padding of an image too small for it. Checked in Python ints: no tensor op, no guard."""
    left, right, top, bottom = torch_padding
    for before, after, size in ((left, right, width), (top, bottom, height)):
        kept = size - max(-before, 0) - max(-after, 0)
        if kept < 0 or size + before + after < 0:
            raise ValueError(f"pad: padding {torch_padding} removes more than the image's extent {size}")
        if padding_mode == "reflect" and max(before, after) >= kept and max(before, after) > 0:
            raise ValueError(
                f"pad: reflect padding {torch_padding} needs every amount below the image's extent {kept}"
            )
        if padding_mode == "edge" and kept == 0 and max(before, after) > 0:
            raise ValueError(f"pad: edge padding {torch_padding} of an empty image")
        if padding_mode in ("edge", "reflect") and size + before + after == 0:
            raise ValueError(f"pad: {padding_mode} padding {torch_padding} leaves an empty image")


def _check_fill_fits(fill: float, dtype: torch.dtype) -> None:
    """An integer image's fill must convert without overflow (torch raises a RuntimeError otherwise)."""
    if dtype == torch.bool or dtype.is_floating_point or dtype.is_complex:
        return
    info = torch.iinfo(dtype)
    if not (info.min - 1 < fill < info.max + 1):  # NaN and infinities fail too
        raise ValueError(f"pad: fill {fill} does not fit the image's dtype {dtype} ([{info.min}, {info.max}])")


_ROW_PAD_DTYPES = (
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool,
)


@torch.jit.unused
def _native_pad_applies(image: torch.Tensor, torch_padding: List[int]) -> bool:
    """A uint8 constant pad under torch.compile (not export) runs ATen's kernel as one native node: inductor's uint8
    pad code is a masked load per element (see csrc/pad.cpp). In eager, a contiguous CPU image padded by non-negative
    amounts takes the native op's row-copy form (whole rows, where torch's constant pad goes element by element);
    others call torch's pad."""
    if not _native.AVAILABLE:
        return False
    if is_tracing():
        return image.dtype == torch.uint8 and not is_exporting()
    return (
        _native.GEOMETRY
        and not torch._C._get_tracing_state()
        and image.is_cpu
        and image.dtype in _ROW_PAD_DTYPES
        and not image.requires_grad
        and image.numel() > 0
        and min(torch_padding) >= 0
        and image.is_contiguous()
    )


@torch.jit.unused
def _op_fill(fill: float) -> Union[int, float]:
    """The native pad's ``value``: an int where the fill is an integer that fits int64 (exact for int64 images), else
    the float (1e30 as an int overflowed the op's Scalar argument)."""
    fill = float(fill)
    return int(fill) if fill.is_integer() and -(2.0**63) <= fill < 2.0**63 else fill


@torch.jit.unused
def _native_pad(image: torch.Tensor, torch_padding: List[int], fill: float) -> torch.Tensor:
    value = _op_fill(fill)
    if not is_tracing():  # eager: no graph input to keep apart, the op runs on the image itself
        return torch.ops.jitvision_native.constant_pad.default(image, torch_padding, value)
    return call_custom_op(torch.ops.jitvision_native.constant_pad, image, torch_padding, value)


def _pad_with_scalar_fill(
    image: torch.Tensor, torch_padding: List[int], fill: float, padding_mode: str
) -> torch.Tensor:
    if not torch.jit.is_scripting():
        _check_padded_extent(torch_padding, image.shape[-2], image.shape[-1], padding_mode)
    if padding_mode == "constant":
        if not torch.jit.is_scripting():
            _check_fill_fits(fill, image.dtype)
            if _native_pad_applies(image, torch_padding):
                return _native_pad(image, torch_padding, fill)
        return torch_functional.pad(image, torch_padding, mode="constant", value=fill)
    if padding_mode == "symmetric":
        return _pad_symmetric(image, torch_padding)
    # torch's reflect/replicate pad wants [N, C, H, W] (or [C, H, W]) and has no bool or uint16 kernels: those go
    # through a dtype that holds their values exactly.
    shape = image.shape
    flat = image.reshape([-1, shape[-3], shape[-2], shape[-1]])
    dtype = image.dtype
    if dtype == torch.bool:
        flat = flat.to(torch.uint8)
    elif dtype == torch.uint16:
        flat = flat.to(torch.int32)
    out = torch_functional.pad(flat, torch_padding, mode="replicate" if padding_mode == "edge" else "reflect")
    return out.to(dtype).reshape(shape[:-2] + out.shape[-2:])


def _pad_with_vector_fill(image: torch.Tensor, torch_padding: List[int], fill: List[float]) -> torch.Tensor:
    left, right, top, bottom = torch_padding
    height, width = image.shape[-2], image.shape[-1]
    inner = image[..., max(-top, 0) : height - max(-bottom, 0), max(-left, 0) : width - max(-right, 0)]
    out_shape = image.shape[:-2] + (height + top + bottom, width + left + right)
    # Converted like torchvision: through a float tensor, so a uint8 image gets the fill truncated.
    values = torch.tensor(fill, device=image.device).to(image.dtype).reshape(-1, 1, 1)
    out = values.expand(out_shape).clone()
    out[..., max(top, 0) : max(top, 0) + inner.shape[-2], max(left, 0) : max(left, 0) + inner.shape[-1]] = inner
    return out


def pad_image(
    image: torch.Tensor,
    padding: List[int],
    fill: Optional[Union[int, float, List[float]]] = None,
    padding_mode: str = "constant",
) -> torch.Tensor:
    torch_padding = _parse_pad_padding(padding)
    _check_padding_mode(padding_mode)
    if image.ndim < 3:
        raise ValueError(f"pad: expected an image [..., C, H, W] with at least 3 dimensions, got {image.ndim}")
    if fill is None:
        return _pad_with_scalar_fill(image, torch_padding, 0.0, padding_mode)
    if isinstance(fill, (int, float)):
        return _pad_with_scalar_fill(image, torch_padding, float(fill), padding_mode)
    if len(fill) == 1:
        return _pad_with_scalar_fill(image, torch_padding, float(fill[0]), padding_mode)
    if padding_mode != "constant":
        raise ValueError(f"pad: a per-channel fill needs padding_mode='constant', got '{padding_mode}'")
    if len(fill) != image.shape[-3]:
        raise ValueError(f"pad: fill has {len(fill)} values but the image has {image.shape[-3]} channels")
    if not torch.jit.is_scripting():
        _check_padded_extent(torch_padding, image.shape[-2], image.shape[-1], padding_mode)
    return _pad_with_vector_fill(image, torch_padding, fill)


def pad_video(
    video: torch.Tensor,
    padding: List[int],
    fill: Optional[Union[int, float, List[float]]] = None,
    padding_mode: str = "constant",
) -> torch.Tensor:
    return pad_image(video, padding, fill, padding_mode)


def pad_mask(
    mask: torch.Tensor,
    padding: List[int],
    fill: Optional[Union[int, float, List[float]]] = None,
    padding_mode: str = "constant",
) -> torch.Tensor:
    if fill is not None and not isinstance(fill, (int, float)):
        raise ValueError("pad: Non-scalar fill value is not supported for masks (a single number)")
    if mask.ndim < 3:
        return pad_image(mask.unsqueeze(0), padding, fill, padding_mode).squeeze(0)
    return pad_image(mask, padding, fill, padding_mode)


@torch.jit.unused
def pad_image_pil(
    image: PIL.Image.Image,
    padding: List[int],
    fill: Optional[Union[int, float, List[float]]] = None,
    padding_mode: str = "constant",
) -> PIL.Image.Image:
    left, right, top, bottom = _parse_pad_padding(padding)
    _check_padding_mode(padding_mode)
    # numpy's reflect/edge extend any image (as torchvision's PIL path does): only the negative amounts are checked
    _check_padded_extent([left, right, top, bottom], image.height, image.width, "constant")
    source = image
    if min(left, right, top, bottom) < 0:  # negative amounts crop first, as on tensors
        crop_box = (max(-left, 0), max(-top, 0), image.width - max(-right, 0), image.height - max(-bottom, 0))
        image = image.crop(crop_box)
        left, right, top, bottom = max(left, 0), max(right, 0), max(top, 0), max(bottom, 0)
    if padding_mode == "constant":
        out = PIL.ImageOps.expand(image, border=(left, top, right, bottom), fill=_pil_fill(fill, image))
    else:
        if (image.height == 0 and max(top, bottom) > 0) or (image.width == 0 and max(left, right) > 0):
            raise ValueError(f"pad: {padding_mode} padding of an empty image (after the negative amounts crop it)")
        array = np.asarray(image)
        widths = [(max(top, 0), max(bottom, 0)), (max(left, 0), max(right, 0))] + [(0, 0)] * (array.ndim - 2)
        out = PIL.Image.fromarray(np.pad(array, widths, mode=padding_mode))
    if source.mode == "P":
        out.putpalette(source.getpalette())
    return out


@torch.jit.unused
def _pil_fill(fill: Any, image: PIL.Image.Image) -> Any:
    channels = len(image.getbands())
    values = [0] if fill is None else ([fill] if isinstance(fill, (int, float)) else list(fill))
    if len(values) == 1:
        values = values * channels
    if len(values) != channels:
        raise ValueError(f"pad: fill has {len(values)} values but the image has {channels} channels")
    if image.mode != "F":
        values = [int(v) for v in values]
    return values[0] if channels == 1 else tuple(values)


def translate_boxes(boxes: torch.Tensor, format: BoundingBoxFormat, offset_xy: torch.Tensor) -> torch.Tensor:
    """``boxes`` moved by ``offset_xy = [dx, dy]`` (a tensor, so the offset may be a traced value)."""
    offset = offset_xy.to(boxes.dtype)  # [2], or [R, 2]: one offset per row of boxes
    if format == BoundingBoxFormat.XYXY:
        offset = torch.cat([offset, offset], dim=-1)
    elif format == BoundingBoxFormat.XYXYXYXY:
        offset = torch.cat([offset, offset, offset, offset], dim=-1)
    elif format == BoundingBoxFormat.XYWHR or format == BoundingBoxFormat.CXCYWHR:
        zero = torch.zeros_like(offset)
        offset = torch.cat([offset, zero, zero[..., :1]], dim=-1)
    else:
        offset = torch.cat([offset, torch.zeros_like(offset)], dim=-1)
    return boxes + offset


def pad_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    padding: List[int],
    padding_mode: str = "constant",
    clamping_mode: Optional[str] = "soft",
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    if padding_mode != "constant":
        raise ValueError(f"pad: bounding boxes: padding_mode '{padding_mode}' is not supported (only 'constant')")
    left, right, top, bottom = _parse_pad_padding(padding)
    format = as_box_format(format, "pad")
    check_boxes(bounding_boxes, format, "pad")
    moved = translate_boxes(bounding_boxes, format, torch.tensor([left, top], device=bounding_boxes.device))
    height, width = canvas_size[0] + top + bottom, canvas_size[1] + left + right
    return clamp_bounding_boxes_kernel(moved, format, [height, width], clamping_mode), (height, width)


def pad_keypoints(
    keypoints: torch.Tensor, canvas_size: List[int], padding: List[int], padding_mode: str = "constant"
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    if padding_mode != "constant":
        raise ValueError(f"pad: keypoints: padding_mode '{padding_mode}' is not supported (only 'constant')")
    left, right, top, bottom = _parse_pad_padding(padding)
    moved = keypoints + torch.tensor([left, top], dtype=keypoints.dtype, device=keypoints.device)
    return moved, (canvas_size[0] + top + bottom, canvas_size[1] + left + right)


def pad(
    inpt: torch.Tensor,
    padding: List[int],
    fill: Optional[Union[int, float, List[float]]] = None,
    padding_mode: str = "constant",
) -> torch.Tensor:
    """Pad the last two dimensions (or the canvas of boxes/keypoints). Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return pad_image(inpt, padding, fill, padding_mode)
    return get_kernel(pad, type(inpt))(inpt, padding=padding, fill=fill, padding_mode=padding_mode)


for _kind, _kernel in ((Image, pad_image), (Video, pad_video), (Mask, pad_mask), (PIL.Image.Image, pad_image_pil)):
    register_kernel(pad, _kind)(_kernel)


@register_kernel(pad, BoundingBoxes, tv_tensor_wrapper=False)
def _pad_bounding_boxes_dispatch(
    inpt: torch.Tensor, padding: List[int], padding_mode: str = "constant", **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = pad_bounding_boxes(
        unwrap(inpt),
        box_format_from(inpt.format),
        get_canvas_size(inpt),
        padding,
        padding_mode,
        inpt.clamping_mode,
    )
    return wrap(out, like=inpt, canvas_size=canvas_size)


@register_kernel(pad, KeyPoints, tv_tensor_wrapper=False)
def _pad_keypoints_dispatch(
    inpt: torch.Tensor, padding: List[int], padding_mode: str = "constant", **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = pad_keypoints(unwrap(inpt), get_canvas_size(inpt), padding, padding_mode)
    return wrap(out, like=inpt, canvas_size=canvas_size)
