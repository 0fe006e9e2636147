"""Hypothesis strategies for fuzz inputs: every kind, dtype, shape and layout the ops meet, as a pair of equal
inputs (ours, torchvision's) that share no memory."""

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np
import PIL.Image
import torch
from hypothesis import strategies as st

from jitvision import tv_tensors
from jitvision.transforms.functional import convert_bounding_box_format
from tests.helpers import to_torchvision

DENSE_DTYPES = [torch.uint8, torch.float16, torch.float32, torch.float64, torch.bfloat16]
MASK_DTYPES = [torch.uint8, torch.bool, torch.int64]
BOX_FORMATS = ["XYXY", "XYWH", "CXCYWH", "XYWHR", "CXCYWHR", "XYXYXYXY"]
SIDES = [1, 2, 3, 5, 8, 17]
ALL_KINDS = ("tensor", "Image", "Video", "Mask", "BoundingBoxes", "KeyPoints", "PIL")
DENSE_KINDS = ("tensor", "Image", "Video", "Mask", "PIL")


@dataclass
class Sample:
    """One fuzz input: ``make()`` builds a fresh copy (ours), ``theirs()`` the same data as torchvision's types."""

    kind: str
    make: Callable[[], Any]
    canvas: tuple

    def theirs(self) -> Any:
        value = self.make()
        return value.copy() if isinstance(value, PIL.Image.Image) else to_torchvision(value)


def _values(generator: torch.Generator, shape: tuple, dtype: torch.dtype) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape, generator=generator) < 0.5
    if not dtype.is_floating_point:
        high = 2 if dtype == torch.int64 else 256
        return torch.randint(0, high, shape, generator=generator, dtype=torch.int64).to(dtype)
    return torch.rand(shape, generator=generator, dtype=torch.float64).to(dtype)


def _layout(tensor: torch.Tensor, layout: str) -> torch.Tensor:
    """The same values as a channels-last view ([..., C, H, W] over [..., H, W, C] memory) or a strided view."""
    if layout == "channels_last" and tensor.ndim >= 3:
        return tensor.movedim(-3, -1).contiguous().movedim(-1, -3)
    if layout == "strided":
        doubled = torch.zeros((*tensor.shape[:-1], 2 * tensor.shape[-1]), dtype=tensor.dtype)
        doubled[..., ::2] = tensor
        return doubled[..., ::2]
    return tensor


@st.composite
def canvases(draw: Any) -> tuple:
    shape = draw(st.sampled_from(["square", "any", "strip"]))
    if shape == "strip":  # extreme aspect ratios
        long = draw(st.integers(20, 300))
        return draw(st.sampled_from([(1, long), (long, 1), (2, long)]))
    height = draw(st.sampled_from(SIDES))
    return (height, height) if shape == "square" else (height, draw(st.sampled_from(SIDES)))


@st.composite
def samples(draw: Any, kinds: tuple = ALL_KINDS, canvas: Optional[tuple] = None) -> Sample:
    kind = draw(st.sampled_from(kinds))
    height, width = canvas if canvas is not None else draw(canvases())
    seed = draw(st.integers(0, 2**31 - 1))

    def gen() -> torch.Generator:
        return torch.Generator().manual_seed(seed)

    if kind in ("tensor", "Image", "Video"):
        dtype = draw(st.sampled_from(DENSE_DTYPES))
        channels = draw(st.sampled_from([1, 2, 3, 4]))
        batch = draw(st.sampled_from([(), (2,)]))
        if kind == "Video":
            batch = batch + (draw(st.sampled_from([1, 2])),)
        layout = draw(st.sampled_from(["contiguous", "channels_last", "strided"]))
        shape = (*batch, channels, height, width)
        wrap = {"tensor": lambda t: t, "Image": tv_tensors.Image, "Video": tv_tensors.Video}[kind]
        return Sample(kind, lambda: wrap(_layout(_values(gen(), shape, dtype), layout)), (height, width))
    if kind == "Mask":
        dtype = draw(st.sampled_from(MASK_DTYPES))
        shape = draw(st.sampled_from([(height, width), (1, height, width), (3, height, width)]))
        return Sample(kind, lambda: tv_tensors.Mask(_values(gen(), shape, dtype)), (height, width))
    if kind == "BoundingBoxes":
        count = draw(st.integers(0, 4))
        fmt = draw(st.sampled_from(BOX_FORMATS))
        # Rotated boxes are floating point (torchvision's BoundingBoxes refuses integer ones, and so do we).
        dtype = draw(
            st.sampled_from(
                [torch.float32] if fmt in ("XYWHR", "CXCYWHR", "XYXYXYXY") else [torch.float32, torch.int64]
            )
        )

        def boxes() -> tv_tensors.BoundingBoxes:
            g = gen()
            xy = torch.rand(count, 2, generator=g) * torch.tensor([width, height])
            wh = torch.rand(count, 2, generator=g) * torch.tensor([width, height])
            if fmt in ("XYWHR", "CXCYWHR", "XYXYXYXY"):
                angle = torch.rand(count, 1, generator=g) * 360 - 180
                xywhr = tv_tensors.BoundingBoxes(torch.cat([xy, wh, angle], -1), format="XYWHR", canvas_size=(1, 1))
                data = convert_bounding_box_format(xywhr, new_format=fmt).as_subclass(torch.Tensor)
            else:
                data = torch.cat([xy, xy + wh] if fmt == "XYXY" else [xy, wh], -1)
            data = data.round() if dtype == torch.int64 else data
            return tv_tensors.BoundingBoxes(data.to(dtype), format=fmt, canvas_size=(height, width))

        return Sample(kind, boxes, (height, width))
    if kind == "KeyPoints":
        count = draw(st.integers(0, 4))

        def points() -> tv_tensors.KeyPoints:
            data = torch.rand(count, 2, generator=gen()) * torch.tensor([width + 2.0, height + 2.0]) - 1
            return tv_tensors.KeyPoints(data, canvas_size=(height, width))

        return Sample(kind, points, (height, width))
    if kind == "PIL":
        mode = draw(st.sampled_from(["L", "RGB", "RGBA"]))
        bands = len(mode)

        def pil() -> PIL.Image.Image:
            array = _values(gen(), (height, width, bands), torch.uint8).numpy()
            return PIL.Image.fromarray(array[..., 0] if bands == 1 else np.ascontiguousarray(array), mode)

        return Sample(kind, pil, (height, width))
    # a detection sample: every kind at once, on one canvas
    raise ValueError(kind)


@st.composite
def detection_samples(draw: Any) -> Sample:
    """{"image", "boxes", "masks", "points", "labels"} on one canvas (the classes' usual input)."""
    height, width = draw(canvases())
    parts = {
        "image": draw(samples(("Image",), (height, width))),
        "boxes": draw(samples(("BoundingBoxes",), (height, width))),
        "masks": draw(samples(("Mask",), (height, width))),
        "points": draw(samples(("KeyPoints",), (height, width))),
    }

    def make() -> dict:
        return {**{name: part.make() for name, part in parts.items()}, "labels": torch.arange(3)}

    return Sample("detection", make, (height, width))
