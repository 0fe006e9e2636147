"""What the audit feeds each op: the input kinds, and the arguments per op name.

Adding an op to the audit is one row here: the functional's keyword arguments in ``FUNCTIONAL_CASES`` or the
class's constructor arguments in ``CLASS_CASES`` (torchvision's argument names, so one row serves every
target). Names the target exports without a row are listed as "no audit case".
"""

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Dict, Optional, Tuple, Type, Union

import PIL.Image
import torch

from jitvision import _native

# Every kind a case can ask for. The default kinds leave out PIL (only the PIL converters take it) and the plain
# tensors of boxes [N, 4] (XYXY) and keypoints [N, 2] (only the box and keypoint helpers take them).
# ``RotatedBoxes`` are XYWHR boxes (some reaching past the canvas) and ``detection-rotated`` a detection sample
# with CXCYWHR boxes: every geometric op moves rotated boxes too.
KINDS: Tuple[str, ...] = (
    "float",
    "uint8",
    "Image",
    "Video",
    "Mask",
    "BoundingBoxes",
    "RotatedBoxes",
    "KeyPoints",
    "detection",
    "detection-rotated",
)
# Per-sample batches (classes only, added to every class that takes images): ``batch`` is a BatchedImages of 2,
# ``batch-tensor`` a plain [2, C, H, W] tensor through ``forward_batch`` (what TorchScript runs), and
# ``detection-batch`` two detection samples with 3 and 1 objects (batch_samples).
BATCH_KINDS: Tuple[str, ...] = ("batch", "batch-tensor", "detection-batch")
# What MixUp and CutMix take: a batch [2, C, H, W] and its labels [2] (class indices), as one tuple. The batch is
# a plain tensor (``labelled-tensor``; scripted, the class is called with the two as arguments), an Image
# (``labelled-Image``) or a BatchedImages, whose samples draw their own mix (``labelled-batch``).
LABELLED_KINDS: Tuple[str, ...] = ("labelled-tensor", "labelled-Image", "labelled-batch")
ALL_KINDS: Tuple[str, ...] = (*KINDS, "PIL", "boxes", "points", *BATCH_KINDS, *LABELLED_KINDS)
PLAIN_KINDS: Tuple[str, ...] = ("float", "uint8", "boxes", "points", "batch-tensor", "labelled-tensor")
# Kinds whose last two tensor dimensions are height and width (export with dynamic H/W applies to them).
DENSE_KINDS: Tuple[str, ...] = ("float", "uint8", "Image", "Video", "Mask", "batch", "batch-tensor")


class NotApplicable(Exception):
    """An input kind the target cannot take at all (torchvision has no batch tv_tensors)."""


MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]

# The shape every case runs at, and the other shapes of the dynamic=True and dynamic-export checks.
FIXED_SIZE: Tuple[int, int] = (32, 40)
OTHER_SIZES: Tuple[Tuple[int, int], ...] = ((36, 44), (44, 36), (40, 52))

Kwargs = Union[Dict[str, Any], Callable[[ModuleType], Dict[str, Any]]]


@dataclass(frozen=True)
class BoxFormat:
    """A bounding box format in a case, given as the target's own ``BoundingBoxFormat`` member when called."""

    name: str


@dataclass(frozen=True)
class ByDesign:
    """A refusal of ours that the README documents: in ``mode`` ("eager", "compile", "script" or "export"), on
    ``kinds``, the op raises an error whose message contains ``says``. Such a cell is n/a with ``why``; any other
    error there stays a failure."""

    mode: str
    kinds: Tuple[str, ...]
    says: str
    why: str


# The drawn-size classes refuse a batch alone (the samples would come out in different sizes; README, Modes).
_DRAWN_SIZE_BATCH = ByDesign(
    "eager",
    ("batch", "batch-tensor", "detection-batch"),
    "its output size is drawn per sample",
    "a drawn output size would give the samples of a batch different sizes (run it sample by sample before a "
    "fixed-size Resize in a Compose)",
)
# The random containers refuse a ragged detection batch under compile/export (no per-sample form there).
_RAGGED_TRACED = tuple(
    ByDesign(
        mode,
        ("detection-batch",),
        "has no per-sample form under torch.compile/export",
        "a ragged detection batch has no per-sample form under compile/export (pass BatchedImages, or use "
        "forward_batch)",
    )
    for mode in ("compile", "export")
)


@dataclass(frozen=True)
class Case:
    """How to call one op: ``kwargs`` (or a function of the target's transforms module, for ops that take other
    transforms), the input kinds it supports, the dtype of its image-like inputs, ``plain_kwargs`` added for
    plain-tensor inputs (which carry no format or canvas), ``python_only``: why the op cannot be traced or
    scripted at all (its output is not a tensor), which makes those modes not applicable, and
    ``torchvision_refuses``: the kinds on which torchvision raises too (checked against torchvision per cell)."""

    kwargs: Kwargs = field(default_factory=dict)
    kinds: Tuple[str, ...] = KINDS
    image_dtype: torch.dtype = torch.uint8
    plain_kwargs: Dict[str, Any] = field(default_factory=dict)
    python_only: Optional[str] = None
    # What a passing TorchScript cell depends on (kept as the cell's reason), e.g. an operator implemented in Python.
    script_note: Optional[str] = None
    # Why the arguments fix the input's height and width (a tensor argument of the image's size): the dynamic=True
    # and dynamic-export cells, which call at other sizes with the same arguments, are then not applicable.
    shape_bound: Optional[str] = None
    # Input kinds torchvision itself refuses for this op, with the exception type it raises there (e.g. a sample
    # without an image for a transform that draws from the image's size). An eager failure on such a kind with that
    # exception type becomes "n/a" only once the audit has run torchvision on the same input and seen it raise the
    # same type (see ``oracle.py``); otherwise the cell stays a failure.
    torchvision_refuses: Dict[str, Type[Exception]] = field(default_factory=dict)
    # Our own documented refusals (see ``ByDesign``): matched by mode, kind and message, never by kind alone.
    by_design: Tuple[ByDesign, ...] = ()

    def arguments(
        self, transforms_module: Optional[ModuleType], tv_tensors: Optional[ModuleType] = None, kind: str = "float"
    ) -> Dict[str, Any]:
        if callable(self.kwargs):
            if transforms_module is None:
                raise TypeError("this case builds other transforms and needs the target's transforms module")
            arguments = self.kwargs(transforms_module)
        else:
            arguments = dict(self.kwargs)
        if kind in PLAIN_KINDS:
            arguments.update(self.plain_kwargs)
        for name, value in arguments.items():
            if isinstance(value, BoxFormat):
                if tv_tensors is None:
                    raise TypeError("this case names a box format and needs the target's tv_tensors module")
                arguments[name] = tv_tensors.BoundingBoxFormat[value.name]
        return arguments


def _flip_last(x: Any) -> Any:
    return x.flip(-1)


def _classification_pipeline(T: ModuleType) -> Dict[str, Any]:
    return {
        "transforms": [
            T.RandomResizedCrop(size=16),
            T.RandomHorizontalFlip(),
            T.ToDtype(torch.float32, scale=True),
            T.Normalize(mean=MEAN, std=STD),
        ]
    }


_FLOAT_KINDS = ("float", "Image", "Video")
_IMAGE_KINDS = ("float", "uint8", "Image", "Video")
_JPEG_SCRIPT = (
    "libjpeg in the native library: one graph node jitvision_native::jpeg_u8 under compile/export, and TorchScript "
    "calls it too, so a C++ runtime that loads the library runs it"
    if _native.JPEG
    else "the codec is OpenCV's or Pillow's (Python; the native library was built without libjpeg): one graph node "
    "jitvision::jpeg under compile/export; TorchScript calls that operator, which runs in a Python process that "
    "imported jitvision and not in a C++ runtime"
)


def _linear_transformation(T: ModuleType) -> Dict[str, Any]:
    size = 3 * FIXED_SIZE[0] * FIXED_SIZE[1]
    return {"transformation_matrix": torch.eye(size) * 0.5, "mean_vector": torch.full((size,), 0.1)}


# Photometric functionals take images and videos (tensor, tv_tensor, PIL); masks, boxes and keypoints are rejected
# (as torchvision does). rgb_to_grayscale and grayscale_to_rgb have no video kernel. The classes pass other kinds
# through.
_PHOTOMETRIC_KINDS = ("float", "uint8", "Image", "Video", "PIL")
_GRAYSCALE_KINDS = ("float", "uint8", "Image", "PIL")
_PHOTOMETRIC_CLASS_KINDS = (*KINDS, "PIL", *BATCH_KINDS)
# The automatic augmentation policies take images and videos only, as torchvision's (boxes/masks raise).
_POLICY_KINDS = ("float", "uint8", "Image", "Video", "PIL", "batch", "batch-tensor")


# These classes size their draw from the sample's image or video (its channels, or its height and width): a sample
# holding only masks, boxes or keypoints has none, and torchvision raises a TypeError, as jitvision does.
_NO_IMAGE_REFUSED: Dict[str, Type[Exception]] = {
    kind: TypeError for kind in ("Mask", "BoundingBoxes", "RotatedBoxes", "KeyPoints")
}


def _random_steps(T: ModuleType) -> Dict[str, Any]:
    return {"transforms": [T.RandomInvert(p=1.0), T.RandomVerticalFlip(p=1.0), T.RandomPosterize(3, p=1.0)]}


_NOT_A_TENSOR = "returns a PIL image: Python only, nothing for the compilers to trace"

FUNCTIONAL_CASES: Dict[str, Case] = {
    "resize": Case({"size": [24]}),
    "center_crop": Case({"output_size": [16, 16]}),
    "crop": Case({"top": 2, "left": 3, "height": 16, "width": 18}),
    "resized_crop": Case({"top": 2, "left": 3, "height": 20, "width": 18, "size": [16, 16]}),
    "pad": Case({"padding": [2, 3]}),
    "horizontal_flip": Case(),
    "vertical_flip": Case(),
    "to_dtype": Case({"dtype": torch.float32, "scale": True}),
    "normalize": Case({"mean": MEAN, "std": STD}, kinds=_FLOAT_KINDS, image_dtype=torch.float32),
    "convert_image_dtype": Case({"dtype": torch.float32}, kinds=("float", "uint8")),
    "get_size": Case(kinds=("float", "uint8", "Image", "Video", "Mask", "BoundingBoxes", "RotatedBoxes", "KeyPoints")),
    "convert_bounding_box_format": Case(
        {"new_format": BoxFormat("CXCYWH")},
        kinds=("BoundingBoxes", "boxes"),
        plain_kwargs={"old_format": BoxFormat("XYXY")},
    ),
    "clamp_bounding_boxes": Case(
        kinds=("BoundingBoxes", "RotatedBoxes", "boxes"),
        plain_kwargs={"format": BoxFormat("XYXY"), "canvas_size": list(FIXED_SIZE), "clamping_mode": "soft"},
    ),
    "clamp_keypoints": Case(kinds=("KeyPoints", "points"), plain_kwargs={"canvas_size": list(FIXED_SIZE)}),
    "to_image": Case(kinds=("float", "uint8", "PIL")),
    "pil_to_tensor": Case(kinds=("PIL",)),
    "to_pil_image": Case(kinds=("float", "uint8", "Image"), python_only=_NOT_A_TENSOR),
    "to_pure_tensor": Case(kinds=("Image", "Video", "Mask", "BoundingBoxes", "KeyPoints")),
    "get_dimensions": Case(kinds=_IMAGE_KINDS),
    "get_num_channels": Case(kinds=_IMAGE_KINDS),
    "get_num_frames": Case(kinds=("Video",)),
    "get_image_size": Case(kinds=(*_IMAGE_KINDS, "Mask")),
    "to_tensor": Case(kinds=("PIL",)),
    "gaussian_blur": Case({"kernel_size": [5, 5], "sigma": [1.5, 1.5]}, kinds=_IMAGE_KINDS),
    "gaussian_noise": Case({"mean": 0.0, "sigma": 0.1}, kinds=_IMAGE_KINDS),
    "erase": Case({"i": 2, "j": 3, "h": 5, "w": 6, "v": torch.tensor(0.0)}, kinds=_IMAGE_KINDS),
    "jpeg": Case({"quality": 50}, kinds=("uint8", "Image", "Video"), script_note=_JPEG_SCRIPT),
    "uniform_temporal_subsample": Case({"num_samples": 2}, kinds=("Video",)),
    "sanitize_bounding_boxes": Case(
        kinds=("BoundingBoxes", "RotatedBoxes", "boxes"),
        plain_kwargs={"format": BoxFormat("XYXY"), "canvas_size": list(FIXED_SIZE)},
    ),
    "sanitize_keypoints": Case(kinds=("KeyPoints", "points"), plain_kwargs={"canvas_size": list(FIXED_SIZE)}),
    "adjust_brightness": Case({"brightness_factor": 1.3}, kinds=_PHOTOMETRIC_KINDS),
    "adjust_contrast": Case({"contrast_factor": 0.7}, kinds=_PHOTOMETRIC_KINDS),
    "adjust_saturation": Case({"saturation_factor": 1.4}, kinds=_PHOTOMETRIC_KINDS),
    "adjust_hue": Case({"hue_factor": 0.2}, kinds=_PHOTOMETRIC_KINDS),
    "adjust_gamma": Case({"gamma": 0.8, "gain": 1.1}, kinds=_PHOTOMETRIC_KINDS),
    "adjust_sharpness": Case({"sharpness_factor": 1.7}, kinds=_PHOTOMETRIC_KINDS),
    "autocontrast": Case(kinds=_PHOTOMETRIC_KINDS),
    "equalize": Case(kinds=_PHOTOMETRIC_KINDS),
    "invert": Case(kinds=_PHOTOMETRIC_KINDS),
    "posterize": Case({"bits": 3}, kinds=_PHOTOMETRIC_KINDS),
    "solarize": Case({"threshold": 0.5}, kinds=_PHOTOMETRIC_KINDS),
    "rgb_to_grayscale": Case({"num_output_channels": 1}, kinds=_GRAYSCALE_KINDS),
    "to_grayscale": Case({"num_output_channels": 3}, kinds=_GRAYSCALE_KINDS),
    "grayscale_to_rgb": Case(kinds=_GRAYSCALE_KINDS),
    "permute_channels": Case({"permutation": [2, 0, 1]}, kinds=_PHOTOMETRIC_KINDS),
    "five_crop": Case({"size": [12, 16]}, kinds=("float", "uint8", "Image", "Video")),
    "ten_crop": Case({"size": [12, 16], "vertical_flip": True}, kinds=("float", "uint8", "Image", "Video")),
    "affine": Case({"angle": 30.0, "translate": [2.0, -1.0], "scale": 1.1, "shear": [5.0, 2.0]}),
    "rotate": Case({"angle": 30.0}),
    "perspective": Case(
        {"startpoints": [[0, 0], [39, 0], [39, 31], [0, 31]], "endpoints": [[2, 1], [36, 3], [38, 29], [1, 30]]}
    ),
    # The field is [1, H, W, 2] at FIXED_SIZE: the other sizes of the dynamic checks reject it (as torchvision).
    "elastic": Case(
        {"displacement": torch.full((1, *FIXED_SIZE, 2), 0.02)},
        shape_bound="the displacement argument is [1, H, W, 2] of the image's size (torchvision's contract): other "
        "sizes reject it in eager too; ElasticTransform, which draws its field, covers dynamic shapes",
    ),
}

CLASS_CASES: Dict[str, Case] = {
    "Resize": Case({"size": 24}),
    "CenterCrop": Case({"size": 16}),
    "RandomCrop": Case({"size": 16}),
    "RandomResizedCrop": Case({"size": 16}),
    "RandomHorizontalFlip": Case({"p": 0.5}),
    "RandomVerticalFlip": Case({"p": 0.5}),
    "Pad": Case({"padding": [2, 3]}),
    "ToDtype": Case({"dtype": torch.float32, "scale": True}),
    "Normalize": Case({"mean": MEAN, "std": STD}, kinds=(*_FLOAT_KINDS, "detection"), image_dtype=torch.float32),
    "Compose": Case(_classification_pipeline),
    "ToImage": Case(kinds=("float", "uint8", "PIL")),
    "ToPILImage": Case(kinds=("float", "uint8", "Image"), python_only=_NOT_A_TENSOR),
    "ToPureTensor": Case(kinds=("Image", "Video", "Mask", "BoundingBoxes", "KeyPoints", "detection")),
    "PILToTensor": Case(kinds=("PIL",)),
    "Identity": Case(),
    "Lambda": Case(
        {"lambd": _flip_last},
        kinds=("float", "uint8", "Image"),
        by_design=(
            ByDesign("script", ("float", "uint8", "batch-tensor"), "cannot be scripted: it runs a Python function",
                     "a Lambda runs a Python function"),
        ),
    ),
    "ConvertImageDtype": Case({"dtype": torch.float32}),
    "ToTensor": Case(kinds=("PIL",)),
    "GaussianBlur": Case({"kernel_size": 5, "sigma": (0.1, 2.0)}),
    "GaussianNoise": Case({"mean": 0.0, "sigma": 0.1}),
    "RandomErasing": Case({"p": 0.5, "value": 0.0}, torchvision_refuses=_NO_IMAGE_REFUSED),
    "JPEG": Case({"quality": (20, 80)}, kinds=KINDS[1:], script_note=_JPEG_SCRIPT),  # uint8 only, as torchvision
    "LinearTransformation": Case(
        _linear_transformation,
        kinds=("float", "Image"),
        image_dtype=torch.float32,
        shape_bound="the matrix is [C*H*W, C*H*W] of the image's size (torchvision's contract): other sizes are "
        "rejected in eager too",
    ),
    "UniformTemporalSubsample": Case({"num_samples": 2}, kinds=("Video",)),
    "SanitizeBoundingBoxes": Case(kinds=("detection", "detection-rotated")),
    "ConvertBoundingBoxFormat": Case({"format": "CXCYWH"}, kinds=("float", "BoundingBoxes", "detection")),
    "ClampBoundingBoxes": Case(kinds=("float", "BoundingBoxes", "RotatedBoxes", "detection", "detection-rotated")),
    "ClampKeyPoints": Case(kinds=("float", "KeyPoints", "detection")),
    "SetClampingMode": Case({"clamping_mode": "hard"}, kinds=("float", "BoundingBoxes", "RotatedBoxes", "detection")),
    "SanitizeKeyPoints": Case(kinds=("KeyPoints",)),
    "ColorJitter": Case(
        {"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1}, kinds=_PHOTOMETRIC_CLASS_KINDS
    ),
    "RandomPhotometricDistort": Case(kinds=_PHOTOMETRIC_CLASS_KINDS, torchvision_refuses=_NO_IMAGE_REFUSED),
    "Grayscale": Case({"num_output_channels": 1}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomGrayscale": Case({"p": 0.5}, kinds=_PHOTOMETRIC_CLASS_KINDS, torchvision_refuses=_NO_IMAGE_REFUSED),
    "RGB": Case(kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomInvert": Case({"p": 0.5}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomPosterize": Case({"bits": 3}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomSolarize": Case({"threshold": 0.5}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomAutocontrast": Case({"p": 0.5}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomEqualize": Case({"p": 0.5}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomAdjustSharpness": Case({"sharpness_factor": 2.0}, kinds=_PHOTOMETRIC_CLASS_KINDS),
    "RandomChannelPermutation": Case(kinds=_PHOTOMETRIC_CLASS_KINDS, torchvision_refuses=_NO_IMAGE_REFUSED),
    "FiveCrop": Case({"size": 12}, kinds=("float", "uint8", "Image", "Video")),
    "TenCrop": Case({"size": 12}, kinds=("float", "uint8", "Image", "Video")),
    "RandomAffine": Case({"degrees": 30, "translate": (0.1, 0.1), "scale": (0.9, 1.1), "shear": 5}),
    "RandomRotation": Case({"degrees": 30}),
    "RandomPerspective": Case({"p": 0.5}),
    "ElasticTransform": Case({"alpha": 20.0, "sigma": 2.0}),
    # Output sizes drawn per call (per-sample batches are refused: the samples would differ in size).
    "RandomZoomOut": Case({"side_range": (1.0, 2.0)}, by_design=(_DRAWN_SIZE_BATCH,)),
    "RandomIoUCrop": Case(kinds=("detection",), by_design=(_DRAWN_SIZE_BATCH,)),
    "ScaleJitter": Case({"target_size": (24, 24)}, by_design=(_DRAWN_SIZE_BATCH,)),
    "RandomShortestSize": Case({"min_size": [20, 24], "max_size": 40}, by_design=(_DRAWN_SIZE_BATCH,)),
    "RandomResize": Case({"min_size": 20, "max_size": 30}, by_design=(_DRAWN_SIZE_BATCH,)),
    "MixUp": Case({"num_classes": 4}, kinds=LABELLED_KINDS, image_dtype=torch.float32),
    "CutMix": Case({"num_classes": 4}, kinds=LABELLED_KINDS, image_dtype=torch.float32),
    "AutoAugment": Case(kinds=_POLICY_KINDS),
    "RandAugment": Case({"num_ops": 2, "magnitude": 9}, kinds=_POLICY_KINDS),
    "TrivialAugmentWide": Case(kinds=_POLICY_KINDS),
    "AugMix": Case(kinds=_POLICY_KINDS),
    "RandomApply": Case(
        lambda T: {**_random_steps(T), "p": 0.5}, kinds=_PHOTOMETRIC_CLASS_KINDS, by_design=_RAGGED_TRACED
    ),
    "RandomChoice": Case(_random_steps, kinds=_PHOTOMETRIC_CLASS_KINDS, by_design=_RAGGED_TRACED),
    "RandomOrder": Case(_random_steps, kinds=_PHOTOMETRIC_CLASS_KINDS, by_design=_RAGGED_TRACED),
}


def _shape_changing_steps(T: ModuleType) -> Dict[str, Any]:
    """Steps of which one changes the shape; every order gives the same output size (3 x (H + 2) x (W + 4)) and
    the orders differ in where the padding ends. Three steps: the orders of two drawn right after seeding 0 come
    out the same 13 times in a row (torch's first uniforms from that seed), which reads as a frozen draw."""
    return {"transforms": [T.Pad([4, 2, 0, 0]), T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)]}


# RandomRotation(expand=True) refuses batches (every sample would come out in its own size).
_EXPAND_BATCH = ByDesign(
    "eager",
    ("batch", "batch-tensor", "detection-batch"),
    "expand=True gives every sample its own output size",
    "with expand=True every sample of a batch would come out in its own size",
)

# Further cases of a class, each a row of its own under its label (which names the class): ``--ops Class`` runs
# them with the class's own row. The label takes no comma (``--ops`` splits on commas).
CLASS_VARIANTS: Dict[str, Dict[str, Case]] = {
    "RandomRotation": {"RandomRotation(expand)": Case({"degrees": 30, "expand": True}, by_design=(_EXPAND_BATCH,))},
    "RandomOrder": {"RandomOrder(shape-changing)": Case(_shape_changing_steps, by_design=_RAGGED_TRACED)},
}

# ---- inputs ---------------------------------------------------------------------------------------------------


def _image(height: int, width: int, dtype: torch.dtype, leading: Tuple[int, ...] = ()) -> torch.Tensor:
    shape = (*leading, 3, height, width)
    if dtype.is_floating_point:
        return torch.rand(shape, dtype=dtype)
    return torch.randint(0, 256, shape, dtype=dtype)


def _xyxy_boxes(height: int, width: int, num: int) -> torch.Tensor:
    x1 = torch.rand(num) * (width / 2)
    y1 = torch.rand(num) * (height / 2)
    x2 = x1 + 1 + torch.rand(num) * (width / 2 - 1)
    y2 = y1 + 1 + torch.rand(num) * (height / 2 - 1)
    return torch.stack([x1, y1, x2, y2], dim=-1)


def _xywhr_boxes(height: int, width: int, num: int) -> torch.Tensor:
    """Rotated boxes: first corners across the canvas, sides up to half of it (some reach past an edge)."""
    corner = torch.rand(num, 2) * torch.tensor([float(width), float(height)])
    sides = 2 + torch.rand(num, 2) * torch.tensor([width / 2, height / 2])
    return torch.cat([corner, sides, torch.rand(num, 1) * 360 - 180], dim=-1)


def _xywhr_to_cxcywhr(boxes: torch.Tensor) -> torch.Tensor:
    x, y, w, h, r = boxes.unbind(-1)
    rad = r * torch.pi / 180
    cos, sin = rad.cos(), rad.sin()
    return torch.stack([x + w / 2 * cos + h / 2 * sin, y - w / 2 * sin + h / 2 * cos, w, h, r], dim=-1)


def make_input(kind: str, tv_tensors: ModuleType, size: Tuple[int, int], image_dtype: torch.dtype) -> Any:
    """A fresh random input of ``kind`` at ``size`` built with the target's ``tv_tensors`` module."""
    height, width = size
    if kind == "float":
        return _image(height, width, torch.float32)
    if kind == "uint8":
        return _image(height, width, torch.uint8)
    if kind == "Image":
        return tv_tensors.Image(_image(height, width, image_dtype))
    if kind == "Video":
        return tv_tensors.Video(_image(height, width, image_dtype, leading=(2,)))
    if kind == "Mask":
        return tv_tensors.Mask(torch.randint(0, 2, (2, height, width), dtype=torch.uint8))
    if kind == "BoundingBoxes":
        return tv_tensors.BoundingBoxes(_xyxy_boxes(height, width, 4), format="XYXY", canvas_size=(height, width))
    if kind == "RotatedBoxes":
        return tv_tensors.BoundingBoxes(_xywhr_boxes(height, width, 4), format="XYWHR", canvas_size=(height, width))
    if kind in ("KeyPoints", "points"):
        # Some points past the canvas (up to 20% beyond each edge), so clamping has work to do.
        points = (torch.rand(5, 2) * 1.4 - 0.2) * torch.tensor([width - 1.0, height - 1.0])
        return tv_tensors.KeyPoints(points, canvas_size=(height, width)) if kind == "KeyPoints" else points
    if kind == "boxes":
        return _xyxy_boxes(height, width, 4) * 1.5  # reaching past the canvas
    if kind == "detection":
        return {
            "image": tv_tensors.Image(_image(height, width, image_dtype)),
            "boxes": tv_tensors.BoundingBoxes(
                _xyxy_boxes(height, width, 3), format="XYXY", canvas_size=(height, width)
            ),
            "masks": tv_tensors.Mask(torch.randint(0, 2, (3, height, width), dtype=torch.uint8)),
            "labels": torch.arange(3),
        }
    if kind == "detection-rotated":
        boxes = tv_tensors.BoundingBoxes(
            _xywhr_boxes(height, width, 3), format="XYWHR", canvas_size=(height, width), clamping_mode="hard"
        )
        return {
            "image": tv_tensors.Image(_image(height, width, image_dtype)),
            "boxes": tv_tensors.wrap(_xywhr_to_cxcywhr(boxes.as_subclass(torch.Tensor)), like=boxes, format="CXCYWHR"),
            "labels": torch.arange(3),
        }
    if kind in BATCH_KINDS:
        if not hasattr(tv_tensors, "BatchedImages"):
            raise NotApplicable("the target has no per-sample batch API")
        if kind == "batch":
            return tv_tensors.BatchedImages(_image(height, width, image_dtype, leading=(2,)))
        if kind == "batch-tensor":
            return _image(height, width, image_dtype, leading=(2,))
        samples = [
            {
                "image": tv_tensors.Image(_image(height, width, image_dtype)),
                "boxes": tv_tensors.BoundingBoxes(
                    _xyxy_boxes(height, width, objects), format="XYXY", canvas_size=(height, width)
                ),
                "masks": tv_tensors.Mask(torch.randint(0, 2, (objects, height, width), dtype=torch.uint8)),
                "labels": torch.arange(objects),
            }
            for objects in (3, 1)
        ]
        return tv_tensors.batch_samples(samples)
    if kind in LABELLED_KINDS:
        labels = torch.randint(0, 4, (2,))
        images = _image(height, width, image_dtype, leading=(2,))
        if kind == "labelled-tensor":
            return images, labels
        if kind == "labelled-Image":
            return tv_tensors.Image(images), labels
        if not hasattr(tv_tensors, "BatchedImages"):
            raise NotApplicable("the target has no per-sample batch API")
        return tv_tensors.BatchedImages(images), labels
    if kind == "PIL":
        hwc = _image(height, width, torch.uint8).permute(1, 2, 0).contiguous()
        return PIL.Image.frombytes("RGB", (width, height), bytes(hwc.flatten().tolist()))
    raise ValueError(f"audit: unknown input kind {kind!r}; known kinds are {list(ALL_KINDS)}")
