"""The operation table of the automatic augmentation policies: one kernel per operation with a TENSOR magnitude.

Operations are numbered globally (TorchScript has no module-level int constants, so the names are in ``OP_NAMES``
and the numbers are written out in ``apply_op``):

 0 Identity    1 ShearX     2 ShearY      3 TranslateX  4 TranslateY  5 Rotate     6 Brightness  7 Color
 8 Contrast    9 Sharpness  10 Posterize  11 Solarize   12 AutoContrast  13 Equalize  14 Invert

``apply_op(image, op, magnitude, ...)`` applies operation ``op`` (a Python int: every branch is static) with a signed
magnitude that is a float64 tensor, ``[]`` for one sample or ``[R]`` for the rows of a batch, so a drawn magnitude
stays live under torch.compile. The semantics are torchvision's ``_apply_image_or_video_transform``: shears by
``atan(magnitude)`` about the top-left corner, translations by ``int(magnitude)`` pixels, rotations about the centre,
colour factors ``1 + magnitude``, posterize ``int(magnitude)`` bits, solarize at ``magnitude`` of the full range.
``apply_op_pil`` is the same for PIL images (torchvision's PIL kernels, Python numbers).

``magnitude_table`` gives each policy's magnitude bins as torchvision computes them (float32 ``linspace``; posterize
bits rounded), read back as float64.
"""

import math
from typing import Any, List, Optional

import torch

from .. import tv_tensors  # noqa: F401  (keeps the import order of the package: tv_tensors before functional)
from . import functional as F
from .functional._color._adjust import _adjust_brightness, _adjust_contrast, _adjust_saturation, _adjust_sharpness
from .functional._color._equalize import equalize_image
from .functional._color._pointwise import _invert, _solarize, autocontrast_image, posterize_image
from .functional._color._utils import max_value, rows_factor
from .functional._dispatch import is_tracing
from .functional._geometry._affine_matrix import warp_affine_image
from .functional._geometry._rotate import rotate_image
from .functional._geometry._warp_matrix import affine_matrix

OP_NAMES = (
    "Identity",
    "ShearX",
    "ShearY",
    "TranslateX",
    "TranslateY",
    "Rotate",
    "Brightness",
    "Color",
    "Contrast",
    "Sharpness",
    "Posterize",
    "Solarize",
    "AutoContrast",
    "Equalize",
    "Invert",
)
OP_INDEX = {name: index for index, name in enumerate(OP_NAMES)}
# Operations that change pixel positions (the others are photometric).
GEOMETRIC = (1, 2, 3, 4, 5)
# Operations whose magnitude is drawn with a random sign (torchvision's "signed").
SIGNED = (1, 2, 3, 4, 5, 6, 7, 8, 9)


# ---- magnitude bins ---------------------------------------------------------------------------------------------


@torch.jit.unused
def magnitude_row(name: str, kind: str, num_bins: int, height: int, width: int) -> torch.Tensor:
    """The ``num_bins`` magnitudes of operation ``name`` in policy family ``kind`` ("auto" for AutoAugment and
    RandAugment, "wide" for TrivialAugmentWide, "augmix"), float32 as torchvision builds them."""
    if name in ("Identity", "AutoContrast", "Equalize", "Invert"):
        return torch.zeros(num_bins)
    if name == "Posterize":
        top, span = (8, 6) if kind == "wide" else ((4, 4) if kind == "augmix" else (8, 4))
        denominator = (num_bins - 1) / span if num_bins > 1 else 1.0
        return (top - (torch.arange(num_bins) / denominator)).round().int().float()
    if name == "Solarize":
        return torch.linspace(1.0, 0.0, num_bins)
    if kind == "wide":
        high = {"ShearX": 0.99, "ShearY": 0.99, "TranslateX": 32.0, "TranslateY": 32.0, "Rotate": 135.0}.get(name, 0.99)
        return torch.linspace(0.0, high, num_bins)
    if name in ("ShearX", "ShearY"):
        return torch.linspace(0.0, 0.3, num_bins)
    if name in ("TranslateX", "TranslateY"):
        extent = width if name == "TranslateX" else height
        high = extent / 3.0 if kind == "augmix" else 150.0 / 331.0 * extent
        return torch.linspace(0.0, high, num_bins)
    if name == "Rotate":
        return torch.linspace(0.0, 30.0, num_bins)
    return torch.linspace(0.0, 0.9, num_bins)  # Brightness, Color, Contrast, Sharpness


@torch.jit.unused
def magnitude_table(ops: List[int], kind: str, num_bins: int, height: int, width: int) -> List[List[float]]:
    """``[len(ops)][num_bins]`` magnitudes (Python floats of the float32 bins) for the global op ids ``ops``."""
    return [magnitude_row(OP_NAMES[op], kind, num_bins, height, width).tolist() for op in ops]


# ---- tensor-magnitude kernels ------------------------------------------------------------------------------------


def _warp(
    image: torch.Tensor,
    angle: torch.Tensor,
    translate: torch.Tensor,
    shear: torch.Tensor,
    corner: bool,
    mode: str,
    fill: Optional[List[float]],
) -> torch.Tensor:
    """An affine warp (scale 1) about the image centre, or about the top-left corner with ``corner``."""
    height, width = image.shape[-2], image.shape[-1]
    center = [-0.5 * width, -0.5 * height] if corner else [0.0, 0.0]
    center_t = torch.tensor(center, dtype=torch.float64, device=image.device)
    inverse = affine_matrix(angle, translate, torch.ones_like(angle), shear, center_t, True)
    return warp_affine_image(image, inverse, height, width, mode, fill, "AutoAugment")


def _shifted(image: torch.Tensor, dx: int, dy: int, fill: Optional[List[float]]) -> torch.Tensor:
    """``image`` moved by ``dx`` columns and ``dy`` rows, the uncovered pixels set to ``fill`` (0 when None)."""
    height, width = image.shape[-2], image.shape[-1]
    if fill is None or len(fill) == 1:
        value = 0.0 if fill is None else fill[0]
        if not image.is_floating_point():
            value = min(max(float(round(value)), 0.0), max_value(image.dtype))
        out = torch.full_like(image, value)
    else:
        values = torch.tensor(fill, dtype=torch.float32, device=image.device)
        if not image.is_floating_point():
            values = values.round().clamp(0.0, max_value(image.dtype))
        out = values.to(image.dtype).reshape(-1, 1, 1).expand(image.shape).contiguous()
    if abs(dx) >= width or abs(dy) >= height:
        return out
    out[..., max(dy, 0) : height + min(dy, 0), max(dx, 0) : width + min(dx, 0)] = image[
        ..., max(-dy, 0) : height + min(-dy, 0), max(-dx, 0) : width + min(-dx, 0)
    ]
    return out


def _pair(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    return torch.stack([first, second], dim=-1)


def _posterize(image: torch.Tensor, bits: torch.Tensor) -> torch.Tensor:
    """``posterize`` with a tensor number of bits (``[]`` or ``[R]``, integral values in 0..8)."""
    bits = rows_factor(bits, image)
    if image.is_floating_point():
        levels = torch.pow(2.0, bits.to(image.dtype))
        return (image * levels).floor_().clamp_(min=0.0).minimum(levels - 1).div_(levels)
    if image.dtype != torch.uint8:
        raise TypeError("AutoAugment: posterize takes uint8 or float images here, got " + str(image.dtype))
    keep = (255 - (torch.pow(2.0, 8.0 - bits.to(torch.float32)) - 1)).to(torch.uint8)
    return image.bitwise_and(keep)


def _solarize_tensor(image: torch.Tensor, threshold: torch.Tensor) -> torch.Tensor:
    threshold = rows_factor(threshold, image)
    if image.is_floating_point():
        return torch.where(image >= threshold.to(image.dtype), _invert(image), image)
    return torch.where(image.to(torch.float64) >= threshold, _invert(image), image)


def _eager_scalar(magnitude: torch.Tensor) -> Optional[float]:
    """The magnitude as a Python float where eager code may read it (one sample on the CPU, not traced)."""
    if magnitude.ndim != 0 or magnitude.device.type != "cpu" or is_tracing():
        return None
    return float(magnitude.item())


def apply_op(
    image: torch.Tensor, op: int, magnitude: torch.Tensor, mode: str, fill: Optional[List[float]]
) -> torch.Tensor:
    """Operation ``op`` on ``image`` ``[..., C, H, W]`` (or ``[R, ...]`` with ``[R]`` magnitudes)."""
    if op == 0:
        return image
    if op <= 5:
        zero = torch.zeros_like(magnitude)
        if op == 1 or op == 2:
            degrees = torch.rad2deg(torch.atan(magnitude))
            shear = _pair(degrees, zero) if op == 1 else _pair(zero, degrees)
            return _warp(image, zero, _pair(zero, zero), shear, True, mode, fill)
        if op == 3 or op == 4:
            scalar = _eager_scalar(magnitude)
            if scalar is not None:  # a whole-pixel shift is a copy (exactly what the warp samples)
                shift = int(scalar)
                return _shifted(image, shift if op == 3 else 0, shift if op == 4 else 0, fill)
            pixels = magnitude.trunc()
            translate = _pair(pixels, zero) if op == 3 else _pair(zero, pixels)
            return _warp(image, zero, translate, _pair(zero, zero), False, mode, fill)
        scalar = _eager_scalar(magnitude)
        if scalar is not None and scalar % 90.0 == 0.0:  # rotate's exact special cases, as torchvision
            return rotate_image(image, scalar, mode, False, None, fill)
        return _warp(image, -magnitude, _pair(zero, zero), _pair(zero, zero), False, mode, fill)
    if op == 6:
        return _adjust_brightness(image, rows_factor(1.0 + magnitude, image))
    if op == 7:
        if image.shape[-3] == 1:
            return image
        return _adjust_saturation(image, rows_factor(1.0 + magnitude, image))
    if op == 8:
        return _adjust_contrast(image, rows_factor(1.0 + magnitude, image))
    if op == 9:
        return _adjust_sharpness(image, rows_factor(1.0 + magnitude, image))
    if op == 10:
        scalar = _eager_scalar(magnitude)
        if scalar is not None:
            return posterize_image(image, int(scalar))
        return _posterize(image, magnitude)
    if op == 11:
        bound = max_value(image.dtype)
        scalar = _eager_scalar(magnitude)
        if scalar is not None:
            return _solarize(image, bound * scalar)
        return _solarize_tensor(image, bound * magnitude)
    if op == 12:
        return autocontrast_image(image)
    if op == 13:
        return equalize_image(image)
    return _invert(image)


def apply_step(
    image: torch.Tensor, op: torch.Tensor, magnitude: torch.Tensor, mode: str, fill: Optional[List[float]]
) -> torch.Tensor:
    """One step with the drawn op read on the host: an int for one sample, rows grouped by op on a batch (``[R]``
    ops and magnitudes). What TorchScript and the compiled step's graph node run."""
    if op.ndim == 0:
        return apply_op(image, int(op), magnitude, mode, fill)
    out = image.clone()
    keys: List[int] = torch.unique(op).tolist()
    for key in keys:
        rows = (op == key).nonzero().squeeze(1)
        part = apply_op(image.index_select(0, rows), key, magnitude.index_select(0, rows), mode, fill)
        out.index_copy_(0, rows, part)
    return out


@torch.jit.unused
def apply_op_pil(image: Any, op: int, magnitude: float, interpolation: Any, fill: Any) -> Any:
    """Operation ``op`` on a PIL image with a Python magnitude: torchvision's PIL kernels, its argument forms."""
    name = OP_NAMES[op]
    if name == "Identity":
        return image
    if name in ("ShearX", "ShearY"):
        degrees = math.degrees(math.atan(magnitude))
        shear = [degrees, 0.0] if name == "ShearX" else [0.0, degrees]
        return F.affine(image, 0.0, [0, 0], 1.0, shear, interpolation, fill, [0, 0])
    if name in ("TranslateX", "TranslateY"):
        translate = [int(magnitude), 0] if name == "TranslateX" else [0, int(magnitude)]
        return F.affine(image, 0.0, translate, 1.0, [0.0, 0.0], interpolation, fill)
    if name == "Rotate":
        return F.rotate(image, magnitude, interpolation, False, None, fill)
    if name == "Brightness":
        return F.adjust_brightness(image, 1.0 + magnitude)
    if name == "Color":
        return F.adjust_saturation(image, 1.0 + magnitude)
    if name == "Contrast":
        return F.adjust_contrast(image, 1.0 + magnitude)
    if name == "Sharpness":
        return F.adjust_sharpness(image, 1.0 + magnitude)
    if name == "Posterize":
        return F.posterize(image, int(magnitude))
    if name == "Solarize":
        return F.solarize(image, 255.0 * magnitude)
    if name == "AutoContrast":
        return F.autocontrast(image)
    if name == "Equalize":
        return F.equalize(image)
    return F.invert(image)


# ---- AutoAugment policies ------------------------------------------------------------------------------------
# The sub-policies of the AutoAugment paper (as torchvision lists them): "operation probability bin" twice, "-" for
# operations without a magnitude.
POLICY_TABLES = {
    "imagenet": (
        "Posterize 0.4 8, Rotate 0.6 9",
        "Solarize 0.6 5, AutoContrast 0.6 -",
        "Equalize 0.8 -, Equalize 0.6 -",
        "Posterize 0.6 7, Posterize 0.6 6",
        "Equalize 0.4 -, Solarize 0.2 4",
        "Equalize 0.4 -, Rotate 0.8 8",
        "Solarize 0.6 3, Equalize 0.6 -",
        "Posterize 0.8 5, Equalize 1.0 -",
        "Rotate 0.2 3, Solarize 0.6 8",
        "Equalize 0.6 -, Posterize 0.4 6",
        "Rotate 0.8 8, Color 0.4 0",
        "Rotate 0.4 9, Equalize 0.6 -",
        "Equalize 0.0 -, Equalize 0.8 -",
        "Invert 0.6 -, Equalize 1.0 -",
        "Color 0.6 4, Contrast 1.0 8",
        "Rotate 0.8 8, Color 1.0 2",
        "Color 0.8 8, Solarize 0.8 7",
        "Sharpness 0.4 7, Invert 0.6 -",
        "ShearX 0.6 5, Equalize 1.0 -",
        "Color 0.4 0, Equalize 0.6 -",
        "Equalize 0.4 -, Solarize 0.2 4",
        "Solarize 0.6 5, AutoContrast 0.6 -",
        "Invert 0.6 -, Equalize 1.0 -",
        "Color 0.6 4, Contrast 1.0 8",
        "Equalize 0.8 -, Equalize 0.6 -",
    ),
    "cifar10": (
        "Invert 0.1 -, Contrast 0.2 6",
        "Rotate 0.7 2, TranslateX 0.3 9",
        "Sharpness 0.8 1, Sharpness 0.9 3",
        "ShearY 0.5 8, TranslateY 0.7 9",
        "AutoContrast 0.5 -, Equalize 0.9 -",
        "ShearY 0.2 7, Posterize 0.3 7",
        "Color 0.4 3, Brightness 0.6 7",
        "Sharpness 0.3 9, Brightness 0.7 9",
        "Equalize 0.6 -, Equalize 0.5 -",
        "Contrast 0.6 7, Sharpness 0.6 5",
        "Color 0.7 7, TranslateX 0.5 8",
        "Equalize 0.3 -, AutoContrast 0.4 -",
        "TranslateY 0.4 3, Sharpness 0.2 6",
        "Brightness 0.9 6, Color 0.2 8",
        "Solarize 0.5 2, Invert 0.0 -",
        "Equalize 0.2 -, AutoContrast 0.6 -",
        "Equalize 0.2 -, Equalize 0.6 -",
        "Color 0.9 9, Equalize 0.6 -",
        "AutoContrast 0.8 -, Solarize 0.2 8",
        "Brightness 0.1 3, Color 0.7 0",
        "Solarize 0.4 5, AutoContrast 0.9 -",
        "TranslateY 0.9 9, TranslateY 0.7 9",
        "AutoContrast 0.9 -, Solarize 0.8 3",
        "Equalize 0.8 -, Invert 0.1 -",
        "TranslateY 0.7 9, AutoContrast 0.9 -",
    ),
    "svhn": (
        "ShearX 0.9 4, Invert 0.2 -",
        "ShearY 0.9 8, Invert 0.7 -",
        "Equalize 0.6 -, Solarize 0.6 6",
        "Invert 0.9 -, Equalize 0.6 -",
        "Equalize 0.6 -, Rotate 0.9 3",
        "ShearX 0.9 4, AutoContrast 0.8 -",
        "ShearY 0.9 8, Invert 0.4 -",
        "ShearY 0.9 5, Solarize 0.2 6",
        "Invert 0.9 -, AutoContrast 0.8 -",
        "Equalize 0.6 -, Rotate 0.9 3",
        "ShearX 0.9 4, Solarize 0.3 3",
        "ShearY 0.8 8, Invert 0.7 -",
        "Equalize 0.9 -, TranslateY 0.6 6",
        "Invert 0.9 -, Equalize 0.6 -",
        "Contrast 0.3 3, Rotate 0.8 4",
        "Invert 0.8 -, TranslateY 0.0 2",
        "ShearY 0.7 6, Solarize 0.4 8",
        "Invert 0.6 -, Rotate 0.8 4",
        "ShearY 0.3 7, TranslateX 0.9 3",
        "ShearX 0.1 6, Invert 0.6 -",
        "Solarize 0.7 2, TranslateY 0.6 7",
        "ShearY 0.8 4, Invert 0.8 -",
        "ShearX 0.7 9, TranslateY 0.8 3",
        "ShearY 0.8 5, AutoContrast 0.7 -",
        "ShearX 0.7 2, Invert 0.1 -",
    ),
}


@torch.jit.unused
def parse_policy(value: str) -> List[List[Any]]:
    """``[[op, probability, bin], [op, probability, bin]]`` per sub-policy (global op ids; bin 0 where unused)."""
    rows = []
    for line in POLICY_TABLES[value]:
        row = []
        for step in line.split(", "):
            name, probability, level = step.split(" ")
            row.append([OP_INDEX[name], float(probability), 0 if level == "-" else int(level)])
        rows.append(row)
    return rows


# ---- one graph node per step under torch.compile ------------------------------------------------------------------

# Registered with the low-level torch.library API (no custom_op wrapper cost, as jitvision::crop_at): the drawn op
# and magnitude are tensor inputs, read inside, so the choice stays live and the step runs the eager kernels.
_LIBRARY = torch.library.Library("jitvision", "FRAGMENT")
_LIBRARY.define("augment_step(Tensor image, Tensor op, Tensor magnitude, str mode, float[]? fill) -> Tensor")


def _augment_step_impl(
    image: torch.Tensor, op: torch.Tensor, magnitude: torch.Tensor, mode: str, fill: Optional[List[float]]
) -> torch.Tensor:
    image = image.squeeze(0)  # call_custom_op's leading unit dimension
    out = apply_step(image, op, magnitude, mode, fill)
    out = out.clone() if out is image else out
    return out.contiguous().unsqueeze(0)


_LIBRARY.impl("augment_step", _augment_step_impl, "CompositeExplicitAutograd")


@torch.library.register_fake("jitvision::augment_step")
def _augment_step_fake(
    image: torch.Tensor, op: torch.Tensor, magnitude: torch.Tensor, mode: str, fill: Optional[List[float]]
) -> torch.Tensor:
    return torch.empty_like(image, memory_format=torch.contiguous_format)


augment_step_op = torch.ops.jitvision.augment_step.default
