"""Argument strategies per public op: the only per-op work of the fuzz suite.

``FUNCTIONALS[name]`` gives the keyword arguments of the dispatching functional ``name`` (named as its
parameters), the input kinds it is fuzzed with and how its output is compared with torchvision's. Kernels
(``<name>_image``, ``<name>_bounding_boxes``, ...) need no entry: they take the same strategies by parameter name,
plus ``format``/``canvas_size``/``clamping_mode`` from the input. ``CLASSES[name]`` gives a transform class's
constructor arguments. A new public op joins the suite with a one-line entry, e.g.

    FUNCTIONALS["adjust_brightness"] = op(brightness_factor=st.floats(0, 3))
    CLASSES["ColorJitter"] = op(brightness=st.floats(0, 1), compare="meta")

``compare``: "values" (torchvision's output within the parity tolerances), "meta" (types, shapes, dtypes and
canvas sizes only: random transforms draw from another stream than torchvision's) or "none" (no torchvision
counterpart).
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

import torch
from hypothesis import strategies as st

from tests.fuzz.inputs import ALL_KINDS, BOX_FORMATS, DENSE_KINDS


@dataclass
class Op:
    kwargs: Dict[str, Any] = field(default_factory=dict)
    kinds: Tuple[str, ...] = ALL_KINDS
    compare: str = "values"


def op(*, kinds: Tuple[str, ...] = ALL_KINDS, compare: str = "values", **kwargs: Any) -> Op:
    return Op(kwargs, kinds, compare)


# ---- shared argument strategies ------------------------------------------------------------------------------

small = st.integers(-2, 24)
positive = st.integers(1, 24)
sizes = st.one_of(positive, st.lists(st.integers(-1, 24), min_size=1, max_size=2), st.just([1, 1]))
sizes_or_none = st.one_of(st.none(), sizes)
interpolations = st.sampled_from(["nearest", "nearest-exact", "bilinear", "bicubic", "box", "hamming", "lanczos", 2])
antialias = st.one_of(st.none(), st.booleans())
max_sizes = st.one_of(st.none(), st.integers(1, 40))
paddings = st.one_of(st.integers(-3, 6), st.lists(st.integers(-3, 6), min_size=1, max_size=4))
fills = st.one_of(st.none(), st.integers(0, 255), st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=4))
padding_modes = st.sampled_from(["constant", "edge", "reflect", "symmetric"])
dtypes = st.sampled_from([torch.uint8, torch.float16, torch.float32, torch.float64, torch.bfloat16, torch.int16])
box_formats = st.sampled_from(BOX_FORMATS)
canvas_sizes = st.tuples(positive, positive)
clamping_modes = st.sampled_from(["soft", "hard", None, "auto", "bogus"])
channel_values = st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=4))
stds = st.one_of(st.floats(0.05, 2), st.lists(st.floats(0.05, 2), min_size=1, max_size=4), st.just(0.0))
probabilities = st.sampled_from([0.0, 1.0, 0.5])
crop_box = dict(top=small, left=small, height=st.integers(-1, 24), width=st.integers(-1, 24))


# ---- the functionals -------------------------------------------------------------------------------------------

FUNCTIONALS: Dict[str, Op] = {
    "crop": op(**crop_box),
    "center_crop": op(output_size=sizes),
    "resize": op(size=sizes_or_none, interpolation=interpolations, max_size=max_sizes, antialias=antialias),
    "resized_crop": op(**crop_box, size=sizes, interpolation=interpolations, antialias=antialias),
    "pad": op(padding=paddings, fill=fills, padding_mode=padding_modes),
    "horizontal_flip": op(),
    "hflip": op(),
    "vertical_flip": op(),
    "vflip": op(),
    "clamp_bounding_boxes": op(
        kinds=("BoundingBoxes", "tensor"),
        format=st.one_of(st.none(), box_formats),
        canvas_size=st.one_of(st.none(), canvas_sizes),
        clamping_mode=clamping_modes,
    ),
    "clamp_keypoints": op(kinds=("KeyPoints", "tensor"), canvas_size=st.one_of(st.none(), canvas_sizes)),
    "convert_bounding_box_format": op(
        kinds=("BoundingBoxes", "tensor"), old_format=st.one_of(st.none(), box_formats), new_format=box_formats
    ),
    "get_size": op(),
    "convert_image_dtype": op(dtype=dtypes),
    "to_dtype": op(dtype=dtypes, scale=st.booleans()),
    "normalize": op(mean=channel_values, std=stds),  # inplace=True mutates its input by contract: not fuzzed
    "pil_to_tensor": op(kinds=DENSE_KINDS),
    "to_image": op(kinds=DENSE_KINDS),
    "to_pil_image": op(kinds=DENSE_KINDS),
    "to_pure_tensor": op(compare="none"),  # torchvision has no such functional
}

# ---- the transform classes -------------------------------------------------------------------------------------

CLASSES: Dict[str, Op] = {
    "CenterCrop": op(size=sizes),
    "RandomCrop": op(
        size=sizes,
        padding=st.one_of(st.none(), paddings),
        pad_if_needed=st.booleans(),
        fill=fills,
        padding_mode=padding_modes,
        compare="meta",
    ),
    "Pad": op(padding=paddings, fill=fills, padding_mode=padding_modes),
    "Resize": op(size=sizes_or_none, interpolation=interpolations, max_size=max_sizes, antialias=antialias),
    "RandomResizedCrop": op(
        size=sizes,
        scale=st.tuples(st.floats(0, 1.5), st.floats(0, 1.5)).map(sorted),
        ratio=st.tuples(st.floats(0.1, 10), st.floats(0.1, 10)).map(sorted),
        interpolation=interpolations,
        antialias=antialias,
        compare="meta",
    ),
    "RandomHorizontalFlip": op(p=probabilities, compare="meta"),
    "RandomVerticalFlip": op(p=probabilities, compare="meta"),
    "Normalize": op(mean=channel_values, std=stds),
    "ToDtype": op(dtype=dtypes, scale=st.booleans()),
    "Identity": op(),
    "ToImage": op(),
    "ToPureTensor": op(),
    "PILToTensor": op(),
    "ToPILImage": op(kinds=DENSE_KINDS),
    "Lambda": op(lambd=st.just(lambda x: x)),
    "Compose": op(transforms=st.just("steps")),  # built from other classes' draws in the test
}

# Not fuzzed as ops: the bases users subclass, and the registry.
NOT_OPS = {"Transform", "RandomApplyTransform", "InterpolationMode", "register_kernel"}
