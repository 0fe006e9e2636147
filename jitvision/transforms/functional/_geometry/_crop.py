"""crop and center_crop: kernels per kind and their functionals, plus ``crop_at`` (a crop at a tensor offset).

As in torchvision, the parts of a crop that fall outside the image are zero-padded, and ``center_crop`` pads
when the crop is larger than the image. Boxes are clamped to the new canvas (unless their clamping_mode is
None); keypoints are only moved.

``crop_at(inpt, top_left, height, width)`` takes the offset as an int64 tensor ``[top, left]`` so that random
crops trace into one graph: dense kinds go through the ``jitvision_native::crop_at`` operator of the native library
(C++, so exported and scripted graphs run without Python; ``jitvision::crop_at`` below, in Python, when the library
is not loaded; their fake implementations return the static output shape), boxes and keypoints through tensor
arithmetic.
"""

from typing import Any, List, Optional, Tuple

import PIL.Image
import torch
import torch.nn.functional as torch_functional

from .... import _native
from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import (
    call_custom_op,
    get_kernel,
    is_exporting,
    is_pure_tensor,
    is_tracing,
    register_kernel,
    unwrap,
)
from .._meta import as_box_format, check_boxes, clamp_bounding_boxes_kernel, get_canvas_size
from .._rotated import fit_rectangle
from ._pad import translate_boxes
from ._resize_taps import resized_crop_taps


def check_crop_size(height: int, width: int, op: str) -> None:
    """A crop of height or width 0 is empty, as in torchvision; a negative one is an error (torchvision returns a
    tensor of some other size: its pad reads the negative extent as cropping)."""
    if height < 0 or width < 0:
        raise ValueError(f"{op}: the crop height and width must not be negative, got [{height}, {width}]")


def _check_image_rank(image: torch.Tensor, op: str) -> None:
    if image.ndim < 2:
        raise ValueError(f"{op}: expected a tensor [..., H, W] with at least 2 dimensions, got {image.ndim}")


def crop_image(image: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    check_crop_size(height, width, "crop")
    _check_image_rank(image, "crop")
    image_height, image_width = image.shape[-2], image.shape[-1]
    bottom, right = top + height, left + width
    if top >= 0 and left >= 0 and bottom <= image_height and right <= image_width:
        return image[..., top:bottom, left:right]
    # The part inside the image, then zeros for the rows/columns outside it.
    y0, y1 = min(max(top, 0), image_height), min(max(bottom, 0), image_height)
    x0, x1 = min(max(left, 0), image_width), min(max(right, 0), image_width)
    pad_top, pad_left = min(max(-top, 0), height), min(max(-left, 0), width)
    padding = [pad_left, width - pad_left - (x1 - x0), pad_top, height - pad_top - (y1 - y0)]
    return torch_functional.pad(image[..., y0:y1, x0:x1], padding, mode="constant", value=0.0)


def crop_video(video: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    return crop_image(video, top, left, height, width)


def crop_mask(mask: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    return crop_image(mask, top, left, height, width)


@torch.jit.unused
def crop_image_pil(image: PIL.Image.Image, top: int, left: int, height: int, width: int) -> PIL.Image.Image:
    check_crop_size(height, width, "crop")
    return image.crop((left, top, left + width, top + height))


def crop_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    top: int,
    left: int,
    height: int,
    width: int,
    clamping_mode: Optional[str] = "soft",
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    check_crop_size(height, width, "crop")
    format = as_box_format(format, "crop")
    check_boxes(bounding_boxes, format, "crop")
    offset = torch.tensor([-left, -top], device=bounding_boxes.device)
    moved = crop_translate(bounding_boxes, format, offset)
    return clamp_bounding_boxes_kernel(moved, format, [height, width], clamping_mode), (height, width)


def crop_translate(boxes: torch.Tensor, format: BoundingBoxFormat, offset_xy: torch.Tensor) -> torch.Tensor:
    """Boxes moved by ``offset_xy`` for a crop: as torchvision, XYXYXYXY boxes are then refitted to a rectangle."""
    moved = translate_boxes(boxes, format, offset_xy)
    if format == BoundingBoxFormat.XYXYXYXY:
        moved = fit_rectangle(moved)
    return moved


def crop_keypoints(
    keypoints: torch.Tensor, top: int, left: int, height: int, width: int
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    check_crop_size(height, width, "crop")
    moved = keypoints - torch.tensor([left, top], dtype=keypoints.dtype, device=keypoints.device)
    return moved, (height, width)


def crop(inpt: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    """Crop ``[top, top + height) x [left, left + width)``; parts outside the image are zero-padded.

    Differs from torchvision 0.29 for a crop that ends above or left of the image (``top + height < 0`` or
    ``left + width < 0``): torchvision's slice then wraps around and returns a wrongly sized output; this
    returns ``height x width`` zeros, as PIL's crop does. A height or width of 0 gives an empty result (as in
    torchvision); a negative one raises a ValueError (torchvision returns a tensor of another size)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return crop_image(inpt, top, left, height, width)
    return get_kernel(crop, type(inpt))(inpt, top=top, left=left, height=height, width=width)


for _kind, _kernel in ((Image, crop_image), (Video, crop_video), (Mask, crop_mask), (PIL.Image.Image, crop_image_pil)):
    register_kernel(crop, _kind)(_kernel)


@register_kernel(crop, BoundingBoxes, tv_tensor_wrapper=False)
def _crop_bounding_boxes_dispatch(inpt: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    format = box_format_from(inpt.format)
    out, canvas_size = crop_bounding_boxes(unwrap(inpt), format, top, left, height, width, inpt.clamping_mode)
    return wrap(out, like=inpt, canvas_size=canvas_size)


@register_kernel(crop, KeyPoints, tv_tensor_wrapper=False)
def _crop_keypoints_dispatch(inpt: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    out, canvas_size = crop_keypoints(unwrap(inpt), top, left, height, width)
    return wrap(out, like=inpt, canvas_size=canvas_size)


# ---- center_crop --------------------------------------------------------------------------------------------


def _center_crop_parse_output_size(output_size: List[int]) -> List[int]:
    if not torch.jit.is_scripting():
        output_size = _output_size_as_list(output_size)
    if len(output_size) == 1:
        output_size = [output_size[0], output_size[0]]
    if len(output_size) != 2:
        raise ValueError(f"center_crop: output_size must be an int or a sequence of 1 or 2 ints, got {output_size}")
    check_crop_size(output_size[0], output_size[1], "center_crop")
    return output_size


@torch.jit.unused
def _output_size_as_list(output_size: Any) -> List[int]:
    if isinstance(output_size, (int, float)) and not isinstance(output_size, bool):
        return [int(output_size), int(output_size)]
    if not isinstance(output_size, (list, tuple)):
        raise TypeError(f"center_crop: output_size must be an int or a sequence of ints, got {output_size!r}")
    return [int(s) for s in output_size]


def _half_rounded_to_even(difference: int) -> int:
    """``round(difference / 2)`` with Python's ties-to-even rounding (what torchvision's anchor uses), in
    integer arithmetic so that symbolic sizes stay exact: 1 -> 0, 3 -> 2, 5 -> 2, -1 -> 0, -3 -> -2."""
    half = difference // 2
    return half + (difference % 2) * (half % 2)


def _center_crop_anchor(crop_height: int, crop_width: int, height: int, width: int) -> Tuple[int, int]:
    return _half_rounded_to_even(height - crop_height), _half_rounded_to_even(width - crop_width)


def center_crop_image(image: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    crop_height, crop_width = _center_crop_parse_output_size(output_size)
    _check_image_rank(image, "center_crop")
    # Under export, sizes with a Dim must not be guarded on, so the crop takes the branch-free formulation;
    # dynamo shows symbolic sizes as plain ints to Python code, hence the explicit export check. Eager and
    # torch.compile keep the slice: a view there, where inductor's code for the masked pad reads every pixel.
    if not torch.jit.is_scripting() and (is_exporting() or _has_symbolic_size(image)):
        return _center_crop_image_symbolic(image, crop_height, crop_width)
    height, width = image.shape[-2], image.shape[-1]
    if crop_height > height or crop_width > width:
        pad_height, pad_width = max(crop_height - height, 0), max(crop_width - width, 0)
        padding = [pad_width // 2, (pad_width + 1) // 2, pad_height // 2, (pad_height + 1) // 2]
        image = torch_functional.pad(image, padding, mode="constant", value=0.0)
        height, width = height + pad_height, width + pad_width
    top, left = _center_crop_anchor(crop_height, crop_width, height, width)
    return image[..., top : top + crop_height, left : left + crop_width]


@torch.jit.unused
def _has_symbolic_size(image: torch.Tensor) -> bool:
    return isinstance(image.shape[-2], torch.SymInt) or isinstance(image.shape[-1], torch.SymInt)


@torch.jit.unused
def _center_crop_image_symbolic(image: torch.Tensor, crop_height: int, crop_width: int) -> torch.Tensor:
    """The same crop for symbolic sizes (torch.export with dynamic height/width), with no branch on them.

    Slicing at a symbolic anchor makes the shape solver prove ``0 <= top <= height - crop``, which it cannot
    for the rounded anchor. One constant pad with negative amounts crops instead: its output size is
    ``crop`` by construction, and positive amounts zero-pad where the image is smaller than the crop.
    """
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    def start(size: Any, crop_size: int) -> Any:
        # Where the crop starts in the input; negative where torchvision pads before cropping.
        if statically_known_true(size >= crop_size):
            return _half_rounded_to_even(size - crop_size)
        missing = torch.sym_max(crop_size - size, 0)
        return _half_rounded_to_even(size + missing - crop_size) - missing // 2

    height, width = image.shape[-2], image.shape[-1]
    top, left = start(height, crop_height), start(width, crop_width)
    padding = [-left, left + crop_width - width, -top, top + crop_height - height]
    return torch_functional.pad(image, padding, mode="constant", value=0.0)


def center_crop_video(video: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    return center_crop_image(video, output_size)


def center_crop_mask(mask: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    return center_crop_image(mask, output_size)


@torch.jit.unused
def center_crop_image_pil(image: PIL.Image.Image, output_size: List[int]) -> PIL.Image.Image:
    crop_height, crop_width = _center_crop_parse_output_size(output_size)
    # PIL's crop fills the outside with zeros: padding first (as torchvision does) gives the same pixels.
    pad_height, pad_width = max(crop_height - image.height, 0), max(crop_width - image.width, 0)
    top, left = _center_crop_anchor(crop_height, crop_width, image.height + pad_height, image.width + pad_width)
    return image.crop(
        (
            left - pad_width // 2,
            top - pad_height // 2,
            left - pad_width // 2 + crop_width,
            top - pad_height // 2 + crop_height,
        )
    )


def center_crop_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    canvas_size: List[int],
    output_size: List[int],
    clamping_mode: Optional[str] = "soft",
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    crop_height, crop_width = _center_crop_parse_output_size(output_size)
    top, left = _center_crop_anchor(crop_height, crop_width, canvas_size[0], canvas_size[1])
    return crop_bounding_boxes(bounding_boxes, format, top, left, crop_height, crop_width, clamping_mode)


def center_crop_keypoints(
    inpt: torch.Tensor, canvas_size: List[int], output_size: List[int]
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    crop_height, crop_width = _center_crop_parse_output_size(output_size)
    top, left = _center_crop_anchor(crop_height, crop_width, canvas_size[0], canvas_size[1])
    return crop_keypoints(inpt, top, left, crop_height, crop_width)


def center_crop(inpt: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    """Crop the center ``output_size`` (an int or [h, w]); zero-pads where the crop is larger than the image."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return center_crop_image(inpt, output_size)
    return get_kernel(center_crop, type(inpt))(inpt, output_size=output_size)


for _kind, _kernel in (
    (Image, center_crop_image),
    (Video, center_crop_video),
    (Mask, center_crop_mask),
    (PIL.Image.Image, center_crop_image_pil),
):
    register_kernel(center_crop, _kind)(_kernel)


@register_kernel(center_crop, BoundingBoxes, tv_tensor_wrapper=False)
def _center_crop_bounding_boxes_dispatch(inpt: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    out, canvas_size = center_crop_bounding_boxes(
        unwrap(inpt), box_format_from(inpt.format), get_canvas_size(inpt), output_size, inpt.clamping_mode
    )
    return wrap(out, like=inpt, canvas_size=canvas_size)


@register_kernel(center_crop, KeyPoints, tv_tensor_wrapper=False)
def _center_crop_keypoints_dispatch(inpt: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    out, canvas_size = center_crop_keypoints(unwrap(inpt), get_canvas_size(inpt), output_size)
    return wrap(out, like=inpt, canvas_size=canvas_size)


# ---- crop_at: a crop at a tensor offset ---------------------------------------------------------------------


# Registered with the low-level torch.library API rather than torch.library.custom_op: the same operator for
# dynamo/export, without custom_op's Python wrapper, which costs more than a small crop itself on every call.
_LIBRARY = torch.library.Library("jitvision", "FRAGMENT")
_LIBRARY.define("crop_at(Tensor image, Tensor top_left, SymInt height, SymInt width) -> Tensor")


def _crop_window(image: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    if top < 0 or left < 0 or top + height > image.shape[-2] or left + width > image.shape[-1]:
        raise ValueError(
            f"crop_at: the crop [{top}, {left}] + [{height}, {width}] leaves the image {tuple(image.shape[-2:])}"
        )
    return image[..., top : top + height, left : left + width]


def _crop_at_impl(image: torch.Tensor, top_left: torch.Tensor, height: int, width: int) -> torch.Tensor:
    if top_left.ndim == 1:
        top, left = top_left.tolist()
        return _crop_window(image, top, left, height, width).clone(memory_format=torch.contiguous_format)
    # One offset per row: top_left is [*lead, 2] for an image [*lead, ..., H, W] (a batch).
    lead = top_left.ndim - 1
    if list(top_left.shape[:-1]) != list(image.shape[:lead]) or image.ndim < lead + 2:
        raise ValueError(
            f"crop_at: an offset per row needs shape [*leading dims, 2], got {tuple(top_left.shape)} for an input of "
            f"shape {tuple(image.shape)}"
        )
    rows = image.flatten(0, lead - 1) if lead > 1 else image
    out = rows.new_empty([*rows.shape[:-2], height, width])
    for row, source, (top, left) in zip(out, rows, top_left.reshape(-1, 2).tolist()):
        row.copy_(_crop_window(source, top, left, height, width))
    return out.reshape([*image.shape[:-2], height, width])


_LIBRARY.impl("crop_at", _crop_at_impl, "CompositeExplicitAutograd")


@torch.library.register_fake("jitvision::crop_at")
def _crop_at_fake(image: torch.Tensor, top_left: torch.Tensor, height: int, width: int) -> torch.Tensor:
    return image.new_empty(image.shape[:-2] + (height, width))


# The C++ operator of the native library when it is loaded (an AOTInductor package or TorchScript in C++ can run
# it); this Python one otherwise, so that traced crops still work, in Python only.
_crop_at_op = torch.ops.jitvision_native.crop_at.default if _native.AVAILABLE else torch.ops.jitvision.crop_at.default


@torch.jit.unused
def crop_at(inpt: torch.Tensor, top_left: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """``crop(inpt, top, left, height, width)`` with ``top_left = tensor([top, left])`` (int64), for a crop
    inside the image. Under dynamo/export the offset stays a tensor (one graph, no recompiles per offset);
    elsewhere it is read once and the regular ``crop`` runs."""
    if not is_tracing() and top_left.ndim == 1 and top_left.device.type == "cpu":
        top, left = top_left.tolist()
        return crop(inpt, int(top), int(left), height, width)
    # Traced, or one offset per row of a batch ([R, 2]): the tensor formulation.
    if is_pure_tensor(inpt):
        return _crop_at_dense(inpt, top_left, height, width)
    return get_kernel(crop_at, type(inpt))(inpt, top_left, height, width)


def _crop_at_dense(dense: torch.Tensor, top_left: torch.Tensor, height: int, width: int) -> torch.Tensor:
    if dense.device.type != "cpu":
        # no native kernel there and no read of the offsets on the host: a one-tap gather (a crop is a resize at
        # scale 1 with nearest taps; zeros outside the image as the op pads)
        extent = torch.stack([top_left[..., 0] * 0 + height, top_left[..., 1] * 0 + width], -1)
        return resized_crop_taps(dense, torch.cat([top_left, extent], -1), [height, width], "nearest", False)
    # call_custom_op gives the op a leading unit dimension: an offset per row gets it too.
    return call_custom_op(_crop_at_op, dense, top_left.unsqueeze(0) if top_left.ndim == 2 else top_left, height, width)


for _kind in (Image, Video, Mask):
    register_kernel(crop_at, _kind)(_crop_at_dense)


@register_kernel(crop_at, BoundingBoxes, tv_tensor_wrapper=False)
def _crop_at_bounding_boxes(inpt: torch.Tensor, top_left: torch.Tensor, height: int, width: int) -> torch.Tensor:
    format = box_format_from(inpt.format)
    moved = crop_translate(unwrap(inpt), format, -top_left.flip(-1))
    out = clamp_bounding_boxes_kernel(moved, format, [height, width], inpt.clamping_mode)
    return wrap(out, like=inpt, canvas_size=(height, width))


@register_kernel(crop_at, KeyPoints, tv_tensor_wrapper=False)
def _crop_at_keypoints(inpt: torch.Tensor, top_left: torch.Tensor, height: int, width: int) -> torch.Tensor:
    offset = top_left.flip(-1).to(inpt.dtype)
    if offset.ndim == 2:  # one offset per row of [R, ..., 2] keypoints
        offset = offset.reshape([offset.shape[0]] + [1] * (inpt.ndim - 2) + [2])
    out = unwrap(inpt) - offset
    return wrap(out, like=inpt, canvas_size=(height, width))
