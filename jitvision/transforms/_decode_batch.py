"""A batch of encoded images through the first steps of a pipeline in one parallel native call.

``tv_tensors.BatchedEncodedImages`` given to a ``Compose`` (or to one transform) comes here. The leading steps this
call takes (``consumed`` of them):

- a crop or resize lead (``_stages.DECODE_LEADS``): each image's parameters are the lead's own single-image draw
  (``lead_params``: the draw it makes for that image alone), made for every image in order on the calling thread
  before anything is decoded, so the batch does not depend on the thread count or the schedule;
- after a ``RandomResizedCrop``, a ``RandomHorizontalFlip`` (its coins drawn for the batch at once); after a
  ``Resize``, a ``CenterCrop`` (only its window of the resized image is computed, zero padding where it is larger);
- then a float tail ``ToDtype(float32, scale=True)`` [+ ``Normalize``], where the lead resizes (bilinear,
  antialiased);
- no lead: the whole images are decoded.

Each image is then decoded (only its region, at the DCT scale the single-image path picks: ``_decode_fused``'s
``scaled_region``), resized, flipped and converted on torch's intra-op threads by ``jitvision_native::
decode_batch_into``, straight into its row of one preallocated ``[B, C, H, W]`` tensor (pinned on request). JPEGs
with an EXIF orientation and PNGs are decoded whole in the same call; other formats, the interpolations the native
resize does not implement, crops that pad, 16-bit PNGs and every image the native call could not decode are
finished by the single-image steps on the calling thread with the same parameters (where a file is bad, that is
what raises its error). So row ``i`` is the single-image fused path's output for the same parameters: bit for bit
for uint8 rows, within float rounding where the float tail is fused (as the single-image fusion itself is).
"""

import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from .. import _native
from ..io._mode import ImageReadMode
from ..tv_tensors import BatchedImages
from ..tv_tensors._encoded import BatchedEncodedImages, EncodedImage
from . import functional as F
from ._decode_fused import (
    Geometry,
    _decode_whole,
    _fused_image,
    _region_decodable,
    lead_geometry,
    lead_params,
    scaled_region,
)
from ._stages import (
    CENTER_CROP,
    DECODE_LEADS,
    HORIZONTAL_FLIP,
    RANDOM_RESIZED_CROP,
    RANDOM_SHORTEST_SIZE,
    RESIZE,
    bilinear_antialiased,
    float_tail,
    per_channel,
    stage_of,
)
from .functional._dispatch import is_tracing

_RESIZING = (RANDOM_RESIZED_CROP, RESIZE, RANDOM_SHORTEST_SIZE)
_CHANNELS = {ImageReadMode.RGB: 3, ImageReadMode.GRAY: 1}
# plan row: source, orientation, scale, region (4), box (4), resize, resized height, width, window top, left
_COLUMNS = 16
_REGION, _WHOLE, _NOT_NATIVE = 0, 1, 2
_CPU = torch.device("cpu")


def _center_offset(extent: int, crop: int) -> int:
    """Where a center crop of ``crop`` starts in ``extent`` (negative: it pads), as CenterCrop places it."""
    if crop > extent:
        return -((crop - extent) // 2)
    return int(round((extent - crop) / 2.0))


class _Prefix:
    """The steps this call takes and what each image's row is made of."""

    def __init__(self, transforms: Sequence[Any], images: List[EncodedImage], channels: Optional[int]) -> None:
        self.lead = transforms[0] if transforms and stage_of(transforms[0]) in DECODE_LEADS else None
        self.consumed = 0
        self.params: List[Optional[Dict[str, Any]]] = [None] * len(images)
        self.geometries: List[Optional[Geometry]] = [None] * len(images)
        self.flip: Optional[torch.Tensor] = None
        self.flip_step: Any = None
        self.window: Optional[List[int]] = None
        self.mean: Optional[List[float]] = None
        self.std: Optional[List[float]] = None
        self.to_float = False
        self.resizing = False
        self.native_resize = True
        if self.lead is None:
            return
        stage = stage_of(self.lead)
        # One draw per image, in order, before anything is decoded; what each keeps follows from it.
        self.params = [lead_params(self.lead, image) for image in images]
        self.geometries = [lead_geometry(self.lead, *image.canvas_size, p) for image, p in zip(images, self.params)]
        self.consumed = 1
        self.resizing = stage in _RESIZING
        self.native_resize = not self.resizing or bilinear_antialiased(self.lead)
        if not (self.resizing and self.native_resize):
            return
        second = transforms[1] if len(transforms) > 1 else None
        if stage == RANDOM_RESIZED_CROP and second is not None and stage_of(second) == HORIZONTAL_FLIP:
            self.flip_step = second
            self.flip = second._draw([len(images)], 0, 0, _CPU)["apply"]
            self.consumed = 2
        elif stage == RESIZE and second is not None and stage_of(second) == CENTER_CROP:
            self.window = list(second.size)
            self.consumed = 2
        tail = float_tail(transforms, self.consumed)
        if tail.to_float and channels is not None:
            mean_std = per_channel(tail, channels)
            if mean_std is not None:
                self.mean, self.std = mean_std
                self.to_float = True
                self.consumed = tail.end

    def out_size(self, index: int, image: EncodedImage) -> List[int]:
        """The size of ``image``'s row."""
        if self.window is not None:
            return self.window
        if self.lead is None:
            return list(image.canvas_size)
        if not self.resizing:
            return list(self.lead.size)  # a crop: its size, padded or not
        return self.geometries[index].out_size

    def plan_row(self, index: int, image: EncodedImage, out_size: List[int]) -> List[int]:
        """``image``'s row of the native plan (see csrc/decode_batch.cpp)."""
        row = [_NOT_NATIVE] + [0] * (_COLUMNS - 1)
        if not self.native_resize or image.mode not in _CHANNELS:
            return row
        height, width = image.canvas_size
        if self.lead is None:  # the whole image, as decode() gives it (read to its end, turned by its orientation)
            geometry_box, resized = [0, 0, height, width], out_size
        else:
            geometry = self.geometries[index]
            if geometry is None:
                return row  # a crop that pads
            geometry_box, resized = geometry.box, geometry.out_size
        window = [0, 0] if self.window is None else [
            _center_offset(resized[0], self.window[0]), _center_offset(resized[1], self.window[1])
        ]
        tail = [1 if self.resizing else 0, resized[0], resized[1], window[0], window[1]]
        if _region_decodable(image) and self.lead is not None:
            if self.resizing:
                region, scale = scaled_region(image, geometry_box, resized, self.lead)
            else:
                region, scale = geometry_box, 1
            return [_REGION, 1, scale, *region, 0, 0, region[2], region[3], *tail]
        decodes_whole = (image.format == "jpeg" and _native.DECODE_JPEG) or (
            image.format == "png" and _native.DECODE_PNG
        )
        if decodes_whole:
            return [_WHOLE, image.orientation, 1, 0, 0, 0, 0, *geometry_box, *tail]
        return row

    def single(self, transforms: Sequence[Any], index: int, image: EncodedImage, owner: str) -> torch.Tensor:
        """Row ``index`` by the single-image steps with the batch's parameters: the lead as on one EncodedImage (its
        region decoded where it can be, else the whole image; a bad file raises its error, naming the file), then
        each consumed step."""
        if self.lead is None:
            return _decode_whole(image, owner)
        out = _fused_image(self.lead, image, self.params[index])
        if out is None:
            out = self.lead.transform(_decode_whole(image, owner), self.params[index])
        for step in transforms[1 : self.consumed]:
            if step is self.flip_step:
                if bool(self.flip[index]):
                    out = F.horizontal_flip(out)
            else:
                out = step(out)  # CenterCrop, ToDtype, Normalize: no draw
        return out


def decode_encoded_batch(
    transforms: Sequence[Any],
    batch: BatchedEncodedImages,
    *,
    on_error: str = "raise",
    pin_memory: bool = False,
    allocate: Optional[Callable[[List[int], torch.dtype], torch.Tensor]] = None,
) -> Tuple[torch.Tensor, int, List[int]]:
    """``batch`` through the leading steps of ``transforms`` this call takes: ``(images, consumed, kept)``, the
    plain ``[K, C, H, W]`` tensor of the ``K`` images kept (all of them with ``on_error="raise"``; the ones that
    decoded with ``"skip"``), how many transforms it took, and the indices of the kept images in the batch.
    ``allocate(shape, dtype)``, if given, provides the output (a contiguous tensor to overwrite: a reused buffer)."""
    owner = type(transforms[0]).__name__ if transforms else "BatchedEncodedImages"
    if is_tracing():
        raise TypeError(
            f"{owner}: a tv_tensors.BatchedEncodedImages cannot be decoded under torch.compile/torch.export: "
            "decode it first (outside the compiled function) and pass the BatchedImages"
        )
    if on_error not in ("raise", "skip"):
        raise ValueError(f"{owner}: on_error must be 'raise' or 'skip', got {on_error!r}")
    images = batch.images
    modes = {image.mode for image in images}
    if len(modes) != 1:
        raise ValueError(f"{owner}: the images of a batch must share one mode, got {sorted(m.name for m in modes)}")
    channels = _CHANNELS.get(images[0].mode)
    prefix = _Prefix(transforms, images, channels)
    sizes = [prefix.out_size(index, image) for index, image in enumerate(images)]
    if any(size != sizes[0] for size in sizes):
        distinct = sorted({tuple(size) for size in sizes})
        raise ValueError(
            f"{owner}: the images of the batch end in different sizes {distinct} after the first "
            f"{prefix.consumed} step(s); start the pipeline with a step that gives one size (RandomResizedCrop, "
            "Resize to [h, w], CenterCrop, RandomCrop) to batch them"
        )
    if channels is None:  # UNCHANGED: the channel count is each file's, known once decoded
        return _stack_single(transforms, prefix, images, owner, on_error)
    dtype = torch.float32 if prefix.to_float else torch.uint8
    shape = [len(images), channels, *sizes[0]]
    out = allocate(shape, dtype) if allocate is not None else torch.empty(shape, dtype=dtype, pin_memory=pin_memory)
    plan = torch.tensor([prefix.plan_row(index, image, sizes[0]) for index, image in enumerate(images)])
    if _native.DECODE_BATCH:
        status = torch.ops.jitvision_native.decode_batch_into.default(
            [image.data for image in images], plan, images[0].mode.value, prefix.flip, prefix.mean, prefix.std,
            prefix.to_float, out,
        ).tolist()
    else:
        status = [_NOT_NATIVE] * len(images)
    kept: List[int] = []
    for index, code in enumerate(status):
        if code != 0:  # the single-image steps, with the batch's parameters
            row = _single_or_skip(prefix, transforms, index, images[index], owner, on_error, out[index])
            if row is None:
                continue
            out[index].copy_(row)
        kept.append(index)
    if len(kept) < len(images):
        out = out[kept]
    return out, prefix.consumed, kept


def _single_or_skip(
    prefix: _Prefix,
    transforms: Sequence[Any],
    index: int,
    image: EncodedImage,
    owner: str,
    on_error: str,
    like: Optional[torch.Tensor] = None,
) -> Optional[torch.Tensor]:
    """Row ``index`` by the single-image steps (of ``like``'s shape and dtype, when given); where they fail, the
    error (naming the file and the row) raised, or None and a warning with ``on_error="skip"``."""
    try:
        row = prefix.single(transforms, index, image, owner).as_subclass(torch.Tensor)
        if like is not None and (row.shape != like.shape or row.dtype != like.dtype):
            raise ValueError(
                f"{owner}: the image gives {row.dtype} {list(row.shape)}, the batch holds {like.dtype} "
                f"{list(like.shape)}{image._where()}"
            )
        return row
    except (ValueError, RuntimeError, TypeError) as error:
        if on_error == "raise":
            raise ValueError(f"{error} [image {index} of the batch]") from None
        _warn_skipped(image, index, error)
        return None


def _stack_single(
    transforms: Sequence[Any], prefix: _Prefix, images: List[EncodedImage], owner: str, on_error: str
) -> Tuple[torch.Tensor, int, List[int]]:
    rows, kept = [], []
    for index, image in enumerate(images):
        row = _single_or_skip(prefix, transforms, index, image, owner, on_error)
        if row is not None:
            rows.append(row)
            kept.append(index)
    shapes = {(tuple(row.shape), row.dtype) for row in rows}
    if len(shapes) > 1:
        raise ValueError(f"{owner}: the images of the batch decode to different shapes or dtypes {sorted(shapes)}")
    return torch.stack(rows), prefix.consumed, kept


_warned: set = set()


def _warn_skipped(image: EncodedImage, index: int, error: Exception) -> None:
    where = image.path if image.path is not None else f"image {index} of a batch"
    if where not in _warned:
        _warned.add(where)
        warnings.warn(f"skipped {where}: {error}", RuntimeWarning, stacklevel=4)


def run_encoded_batch(transforms: Sequence[Any], batch: BatchedEncodedImages) -> Tuple[BatchedImages, int]:
    """Compose's entry: the batch after the steps this call takes, and how many it took."""
    out, consumed, _ = decode_encoded_batch(transforms, batch)
    return BatchedImages(out), consumed


def forward_encoded_batch(transform: Any, batch: BatchedEncodedImages) -> Any:
    """One transform given a BatchedEncodedImages: decoded with it where it leads, else decoded whole and passed."""
    images, consumed = run_encoded_batch([transform], batch)
    return images if consumed else transform(images)
