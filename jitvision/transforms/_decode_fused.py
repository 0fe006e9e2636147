"""Decoding fused with the first crop or resize of a pipeline: how a transform takes a ``tv_tensors.EncodedImage``.

A sample holding an EncodedImage reaches ``Transform._forward_sample``, which hands it here. The parameters are
drawn by the transform's own ``make_params`` on the sample with the EncodedImage standing as an image of its
header's size (a stride-0 placeholder, no pixels), so they are exactly the draws the decoded image would get for the
same seed, and the other leaves (boxes, masks, keypoints, labels) are transformed with them as usual. Then:

- ``RandomResizedCrop``, ``Resize``, ``RandomShortestSize`` (bilinear or bicubic, antialiased) on a JPEG: libjpeg
  decodes only the region's rows and iMCU columns, at the coarsest DCT scale 1/d (d in 8, 4, 2) that still leaves at
  least the output size in both directions, and the resize finishes from there. At d > 1 the region's edges fall on
  the scaled grid (rounded to the nearest scaled pixel), and the DCT-domain downscale replaces part of the
  antialiasing filter's work: the output differs from decode-then-transform by a few levels (docs/io.md has the
  measured differences). Other interpolations decode at full scale (d = 1).
- ``CenterCrop``, ``RandomCrop`` (a crop inside the image, no padding), and the three above at d = 1: the region's
  pixels are exactly the full decode's, so the output equals decode-then-transform bit for bit.
- Anything else (another transform, a PNG or other format, an EXIF orientation to apply, a crop that pads, a
  library without the JPEG decoder): the EncodedImage is decoded whole and the transform runs on the image.

Under torch.compile/export an EncodedImage is refused with a message saying to decode it first (the bytes-dependent
sizes cannot be traced).
"""

from typing import Any, List, NamedTuple, Optional, Sequence, Tuple

import torch
from torch.utils import _pytree as pytree

from .. import _native
from ..io._image import native_error
from ..io._mode import ImageReadMode
from ..tv_tensors import Image
from ..tv_tensors._encoded import BatchedEncodedImages, EncodedImage
from . import functional as F
from ._stages import (
    CENTER_CROP,
    DECODE_LEADS,
    RANDOM_CROP,
    RANDOM_RESIZED_CROP,
    RANDOM_SHORTEST_SIZE,
    RESIZE,
    per_channel,
    plan_prefix,
    stage_of,
)
from .functional._dispatch import is_tracing
from .functional._geometry._interpolation import InterpolationMode
from .functional._geometry._resize import _compute_resized_output_size

_SCALES = (8, 4, 2)  # libjpeg's DCT scalings 1/d, coarsest first
_SCALED_INTERPOLATIONS = (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC)
_JPEG_MODES = (ImageReadMode.UNCHANGED, ImageReadMode.GRAY, ImageReadMode.RGB)
_ONE = torch.empty(1, 1, 1, dtype=torch.uint8)  # expanded into the placeholder images (no pixels)


def holds_encoded(flat_inputs: Sequence[Any]) -> bool:
    for inpt in flat_inputs:
        if type(inpt) is EncodedImage:
            return True
        if type(inpt) is BatchedEncodedImages:
            raise TypeError(
                "a tv_tensors.BatchedEncodedImages is transformed alone: pass it as the whole input (its labels and "
                "other targets beside the call, as jitvision.data.Loader does), not inside a tuple, list or dict"
            )
    return False


def _placeholder(encoded: EncodedImage) -> Image:
    """An Image of ``encoded``'s size whose pixels are one element seen through stride 0: what ``make_params`` and
    the leaf rules see in its place."""
    height, width = encoded.canvas_size
    return Image(_ONE.expand(1, height, width))


def _decode_region(encoded: EncodedImage, region: List[int], scale: int, owner: str) -> torch.Tensor:
    try:
        return torch.ops.jitvision_native.decode_jpeg.default(encoded.data, encoded.mode.value, region, scale)
    except (RuntimeError, ValueError) as error:
        raise ValueError(f"{native_error(error, owner)}{encoded._where()}") from None


def _scale_for(region_size: Tuple[int, int], out_size: List[int], transform: Any, max_scale: int = 8) -> int:
    """The coarsest DCT scale (at most ``max_scale``) whose decoded region still has at least the output's rows and
    columns."""
    if getattr(transform, "interpolation", None) not in _SCALED_INTERPOLATIONS or transform.antialias is not True:
        return 1
    for scale in _SCALES:
        if scale > max_scale:
            continue
        if region_size[0] >= out_size[0] * scale and region_size[1] >= out_size[1] * scale:
            return scale
    return 1


def scaled_region(encoded: EncodedImage, box: List[int], out_size: List[int], transform: Any) -> Tuple[List[int], int]:
    """The region to decode for ``box`` = [top, left, height, width] (full-resolution coordinates) and its DCT scale:
    the coarsest that still covers ``out_size``, the region on that scale's grid."""
    top, left, height, width = box
    scale = _scale_for((height, width), out_size, transform, encoded.max_dct_scale)
    if scale == 1:
        return [top, left, height, width], 1
    # The region on the scaled grid (ceil(size / d) pixels), its edges rounded to the nearest scaled pixel.
    full_height, full_width = encoded.canvas_size
    scaled_height, scaled_width = -(-full_height // scale), -(-full_width // scale)
    y0, x0 = min(round(top / scale), scaled_height - 1), min(round(left / scale), scaled_width - 1)
    y1 = min(max(round((top + height) / scale), y0 + 1), scaled_height)
    x1 = min(max(round((left + width) / scale), x0 + 1), scaled_width)
    return [y0, x0, y1 - y0, x1 - x0], scale


def _scaled_region(encoded: EncodedImage, box: List[int], out_size: List[int], transform: Any, owner: str):
    """The pixels of ``box`` (full-resolution coordinates), decoded at the coarsest DCT scale that still covers
    ``out_size``: a uint8 ``[C, h, w]`` tensor (the region at that scale)."""
    region, scale = scaled_region(encoded, box, out_size, transform)
    return _decode_region(encoded, region, scale, owner)


def _finish(
    region: torch.Tensor,
    out_size: List[int],
    transform: Any,
    flip: Optional[torch.Tensor] = None,
    mean: Any = None,
    std: Any = None,
    to_float: bool = False,
) -> torch.Tensor:
    """``region`` resized to ``out_size`` (then flipped, scaled to float and normalised where asked): bilinear
    antialiased in one native call (``jitvision_native::resized_crop``, torch's uint8 arithmetic, reading the
    decoder's channels-last layout directly), other interpolations through ``F.resize``."""
    if transform.interpolation == InterpolationMode.BILINEAR and transform.antialias is True:
        box = torch.tensor([0, 0, region.shape[-2], region.shape[-1]], dtype=torch.int64)
        return torch.ops.jitvision_native.resized_crop.default(region, box, flip, out_size, mean, std, to_float)
    if list(region.shape[-2:]) == list(out_size):
        return region
    return F.resize(region, out_size, transform.interpolation, None, transform.antialias)


def _resized_region(
    encoded: EncodedImage, box: List[int], out_size: List[int], transform: Any, owner: str
) -> torch.Tensor:
    """The region ``box`` = [top, left, height, width] (full-resolution coordinates) resized to ``out_size``."""
    return Image(_finish(_scaled_region(encoded, box, out_size, transform, owner), out_size, transform))


def _region_decodable(encoded: EncodedImage) -> bool:
    return (
        _native.DECODE_JPEG
        and encoded.format == "jpeg"
        and encoded.orientation == 1
        and encoded.mode in _JPEG_MODES
    )


class Geometry(NamedTuple):
    """What a leading crop or resize keeps of an image of a given size: ``box`` = [top, left, height, width] of the
    decoded image, ``out_size`` [height, width]; ``resize``: the box is resized to ``out_size`` (else copied)."""

    box: List[int]
    out_size: List[int]
    resize: bool


def lead_geometry(transform: Any, height: int, width: int, params: dict) -> Optional[Geometry]:
    """The region a leading ``transform`` (a stage of ``DECODE_LEADS``) keeps of a ``height`` x ``width`` image for
    the drawn ``params``, or None where it pads or is no such stage."""
    stage = stage_of(transform)
    owner = type(transform).__name__
    if stage == RANDOM_RESIZED_CROP:
        if "box" in params:
            box = params["box"].tolist()
        else:  # make_params' torchvision form (top, left, height, width as numbers)
            box = [int(params[key]) for key in ("top", "left", "height", "width")]
        return Geometry(box, list(transform.size), True)
    if stage == RESIZE:
        out_size = _compute_resized_output_size([height, width], transform.size, transform.max_size, owner)
        return Geometry([0, 0, height, width], out_size, True)
    if stage == RANDOM_SHORTEST_SIZE:
        size = params["size"]  # make_params' torchvision form is a (height, width) tuple of ints
        out_size = size.tolist() if isinstance(size, torch.Tensor) else [int(side) for side in size]
        return Geometry([0, 0, height, width], out_size, True)
    if stage == CENTER_CROP:
        crop_height, crop_width = transform.size
        if crop_height > height or crop_width > width:
            return None  # the crop pads
        top, left = int(round((height - crop_height) / 2.0)), int(round((width - crop_width) / 2.0))
        return Geometry([top, left, crop_height, crop_width], [crop_height, crop_width], False)
    if stage == RANDOM_CROP:
        plan = transform._plan(height, width)
        if any(plan[:4]):
            return None  # padding
        if "top_left" in params:
            top, left = params["top_left"].tolist()
        else:  # make_params' torchvision form (top, left as numbers)
            top, left = int(params["top"]), int(params["left"])
        crop_height, crop_width = transform.size
        return Geometry([top, left, crop_height, crop_width], [crop_height, crop_width], False)
    return None


def lead_params(transform: Any, encoded: EncodedImage) -> dict:
    """The parameters ``transform`` draws for ``encoded`` alone: its ``_draw`` from the header's size where the class
    draws with the base ``make_params`` (the call it makes on an image), else its own ``make_params``."""
    if not type(transform)._own_make_params:
        height, width = encoded.canvas_size
        return transform._draw([], height, width, torch.device("cpu"))
    return transform.make_params([_placeholder(encoded)])


def _fused_image(transform: Any, encoded: EncodedImage, params: dict) -> Optional[torch.Tensor]:
    """The transform's output for ``encoded`` decoded only where needed, or None where it must be decoded whole."""
    if not _region_decodable(encoded):
        return None
    geometry = lead_geometry(transform, *encoded.canvas_size, params)
    if geometry is None:
        return None
    owner = type(transform).__name__
    if geometry.resize:
        return _resized_region(encoded, geometry.box, geometry.out_size, transform, owner)
    return Image(_decode_region(encoded, geometry.box, 1, owner))


def _decode_whole(encoded: EncodedImage, owner: str) -> torch.Tensor:
    try:
        return encoded.decode()
    except ValueError as error:
        raise ValueError(f"{owner}: {error}") from None


def forward_encoded_alone(transform: Any, encoded: EncodedImage) -> Any:
    """``transform(encoded)`` for a sample that is one EncodedImage: ``forward_encoded`` without the flattening and
    the leaf rules (an image alone is always transformed), the parameters drawn directly from the header's size
    where the class draws them with the base ``make_params`` (the same call it makes on an image)."""
    if is_tracing() or stage_of(transform) not in DECODE_LEADS:
        return forward_encoded(transform, [encoded], pytree.tree_flatten(encoded)[1])
    params = lead_params(transform, encoded)
    image = _fused_image(transform, encoded, params)
    if image is None:
        image = transform.transform(_decode_whole(encoded, type(transform).__name__), params)
    return image


def forward_encoded(transform: Any, flat_inputs: List[Any], spec: Any) -> Any:
    """``transform`` on a flattened sample that holds EncodedImages (see the module docstring)."""
    owner = type(transform).__name__
    if is_tracing():
        raise TypeError(
            f"{owner}: a tv_tensors.EncodedImage cannot be decoded under torch.compile/torch.export (its size is in "
            "its bytes): decode it first (EncodedImage.decode() or jitvision.io.decode_image) and pass the image"
        )
    encoded_positions = [i for i, inpt in enumerate(flat_inputs) if type(inpt) is EncodedImage]
    if len(encoded_positions) == 1 and stage_of(transform) in DECODE_LEADS:
        position = encoded_positions[0]
        encoded = flat_inputs[position]
        stand_in = list(flat_inputs)
        stand_in[position] = _placeholder(encoded)
        needs = transform._needs_transform_list(stand_in)
        if needs[position]:
            transform.check_inputs(stand_in)
            selected = [inpt for inpt, need in zip(stand_in, needs) if need]
            params = transform.make_params(selected)
            image = _fused_image(transform, encoded, params)
            if image is None:
                image = transform.transform(_decode_whole(encoded, owner), params)
            outputs = [
                image if i == position else (transform.transform(inpt, params) if need else inpt)
                for i, (inpt, need) in enumerate(zip(flat_inputs, needs))
            ]
            return pytree.tree_unflatten(outputs, spec)
    # Decoded whole, then the transform as on any sample.
    decoded = [_decode_whole(inpt, owner) if type(inpt) is EncodedImage else inpt for inpt in flat_inputs]
    return transform(pytree.tree_unflatten(decoded, spec))


def run_fused_encoded(transforms: Sequence[Any], sample: Any) -> Optional[Tuple[Any, int]]:
    """Compose's fusion for an EncodedImage: ``RandomResizedCrop`` [+ ``RandomHorizontalFlip``] or ``Resize``, then
    an optional ``ToDtype(float32, scale=True)`` [+ ``Normalize``], as one region decode and one native
    ``resized_crop`` call (the flip and the float tail included): ``(output, number of transforms consumed)``, or
    None (nothing drawn) where the prefix does not fit. The draws are the unfused steps' (the crop's ``_draw``, then
    the flip's, on their generators), so the output is the step-by-step fused path's, within float rounding."""
    if type(sample) is not EncodedImage or not transforms or is_tracing() or not _region_decodable(sample):
        return None
    if sample.mode is ImageReadMode.UNCHANGED:
        return None  # the channel count (which Normalize's mean/std must fit) is the file's
    plan = plan_prefix(transforms)
    if plan is None or plan.consumed == 1 or (not plan.random_crop and plan.middle is not None):
        # nothing to fuse beyond the first step (the step-by-step path does the same), or a center crop after the
        # resize, which the region decode does not take
        return None
    mean_std = per_channel(plan.tail, 1 if sample.mode is ImageReadMode.GRAY else 3)
    if mean_std is None:
        return None
    mean, std = mean_std
    first, is_crop, flips = plan.lead, plan.random_crop, plan.middle is not None
    height, width = sample.canvas_size
    cpu = torch.device("cpu")
    owner = type(first).__name__
    if is_crop:
        box = first._draw([], height, width, cpu)["box"].tolist()
        out_size = list(first.size)
    else:
        box = [0, 0, height, width]
        out_size = _compute_resized_output_size([height, width], first.size, first.max_size, owner)
    flip = plan.middle._draw([], height, width, cpu)["apply"] if flips else None
    region = _scaled_region(sample, box, out_size, first, owner)
    return Image(_finish(region, out_size, first, flip, mean, std, plan.tail.to_float)), plan.consumed
