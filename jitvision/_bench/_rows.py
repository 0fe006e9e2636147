"""The rows of ``bench --per-transform``: one transform at fixed parameters, built for every library.

Torch libraries (jitvision, torchvision v2) are built from torchvision's class names looked up at run time, so
a class that does not exist yet makes that variant "unavailable" (with the reason) instead of failing the run.
Random transforms get p=1, so the work is always done. Parameters, matched as closely as the APIs allow:

| row | torchvision v2 / jitvision | albumentations 2.0.8 | kornia 0.9 (float input) |
|---|---|---|---|
| Resize | Resize((256, 256)), bilinear, antialias=True | Resize(256, 256, INTER_AREA) (cv2's antialiased downscale) | Resize((256, 256), antialias=True) |
| RandomCrop | RandomCrop(128) | RandomCrop(128, 128) | RandomCrop((128, 128)) |
| CenterCrop | CenterCrop(128) | CenterCrop(128, 128) | CenterCrop(128) |
| RandomResizedCrop | RandomResizedCrop(224), scale (0.08, 1), ratio (3/4, 4/3), bilinear, antialias | RandomResizedCrop((224, 224)), same scale/ratio, INTER_LINEAR | RandomResizedCrop((224, 224)), same |
| HorizontalFlip | RandomHorizontalFlip(p=1) | HorizontalFlip(p=1) | RandomHorizontalFlip(p=1) |
| VerticalFlip | RandomVerticalFlip(p=1) | VerticalFlip(p=1) | RandomVerticalFlip(p=1) |
| Pad | Pad(10, fill=0, constant) | Pad(10, fill=0, BORDER_CONSTANT) | – (no Pad class) |
| Normalize | ToDtype(float32, scale=True) + Normalize(ImageNet) on uint8 | Normalize(ImageNet, max_pixel_value=255) on uint8 | Normalize(ImageNet) on the float input (no conversion) |
| Brightness | ColorJitter(brightness=(1.2, 1.2)) | RandomBrightnessContrast(brightness (0.2, 0.2), contrast 0) (additive) | RandomBrightness((1.2, 1.2)) (additive) |
| Contrast | ColorJitter(contrast=(1.2, 1.2)) | RandomBrightnessContrast(brightness 0, contrast (0.2, 0.2)) | RandomContrast((1.2, 1.2)) |
| Saturation | ColorJitter(saturation=(1.5, 1.5)) | ColorJitter(1, 1, (1.5, 1.5), 0) (runs all four steps) | RandomSaturation((1.5, 1.5)) |
| Hue | ColorJitter(hue=(0.05, 0.05)) | ColorJitter(1, 1, 1, (0.05, 0.05)) (runs all four steps) | RandomHue((0.05, 0.05)) |
| ColorJitter | ColorJitter(0.4, 0.4, 0.4, 0.1) | ColorJitter(0.4, 0.4, 0.4, 0.1, p=1) | ColorJitter(0.4, 0.4, 0.4, 0.1) |
| Grayscale | Grayscale(num_output_channels=3) | ToGray(3, weighted_average, p=1) | RandomGrayscale(p=1) |
| Sharpen | RandomAdjustSharpness(2.0, p=1) | Sharpen(alpha (0.5, 0.5), lightness (1, 1), p=1) (a different kernel) | RandomSharpness((2, 2), p=1)|
| Posterize | RandomPosterize(4, p=1) | Posterize(4, p=1) | RandomPosterize((4, 4), p=1) |
| Solarize | RandomSolarize(128, p=1) | Solarize(threshold_range (0.5, 0.5), p=1) | RandomSolarize(thresholds=0, additions=0, p=1) (threshold 0.5) |
| Equalize | RandomEqualize(p=1) | Equalize(p=1) (cv, per channel) | RandomEqualize(p=1) |
| AutoContrast | RandomAutocontrast(p=1) | AutoContrast(p=1) | RandomAutoContrast(p=1) |
| Invert | RandomInvert(p=1) | InvertImg(p=1) | RandomInvert(p=1) |
| ChannelPermutation | RandomChannelPermutation() | ChannelShuffle(p=1) | RandomChannelShuffle(p=1) |
| Rotate | RandomRotation(45), bilinear, fill 0 | Rotate(45, INTER_LINEAR, BORDER_CONSTANT, p=1) | RandomRotation(45.0, p=1) |
| Affine | RandomAffine(25, translate (0.1, 0.1), scale (0.9, 1.1), shear 10), bilinear | Affine(rotate +-25, translate_percent +-0.1, scale (0.9, 1.1), shear +-10, p=1) | RandomAffine(25, (0.1, 0.1), (0.9, 1.1), 10, p=1) |
| Perspective | RandomPerspective(0.2, p=1), bilinear | Perspective(scale (0.05, 0.1), p=1) (its own corner jitter) | RandomPerspective(0.2, p=1) |
| Elastic | ElasticTransform(alpha=50, sigma=5), bilinear | ElasticTransform(alpha=50, sigma=5, INTER_LINEAR, p=1) | RandomElasticTransform((31, 31), sigma (5, 5), alpha (0.1, 0.1), p=1) (alpha is relative) |

Outputs are made contiguous (``.contiguous()``, ``np.ascontiguousarray``), as the albumentations benchmark does.
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional

import torch

from ._timing import Unavailable

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


class Row(NamedTuple):
    name: str
    torch: Callable[[Any], Any]  # (transforms namespace) -> transform; uses torchvision's class names
    albumentations: Optional[Callable[[Any, Any], Any]]  # (albumentations, cv2) -> transform; None: no equivalent
    kornia: Optional[Callable[[Any], Any]]  # (kornia.augmentation) -> module; None: no equivalent


def cls(ns: Any, name: str) -> Any:
    """``ns.name``, or Unavailable naming the missing class."""
    found = getattr(ns, name, None)
    if found is None:
        raise Unavailable(f"{getattr(ns, '__name__', ns)} has no {name}")
    return found


def _interp(ns: Any, mode: str = "BILINEAR") -> Any:
    return getattr(cls(ns, "InterpolationMode"), mode)


def _normalize(ns: Any) -> Any:
    return cls(ns, "Compose")([cls(ns, "ToDtype")(torch.float32, scale=True), cls(ns, "Normalize")(MEAN, STD)])


def _jitter(**factors: Any) -> Callable[[Any], Any]:
    return lambda ns: cls(ns, "ColorJitter")(**factors)


def _alb_jitter(brightness: Any = (1, 1), contrast: Any = (1, 1), saturation: Any = (1, 1), hue: Any = (0, 0)):
    return lambda A, cv2: A.ColorJitter(brightness=brightness, contrast=contrast, saturation=saturation, hue=hue, p=1)


ROWS: List[Row] = [
    Row(
        "Resize",
        lambda ns: cls(ns, "Resize")((256, 256), interpolation=_interp(ns), antialias=True),
        lambda A, cv2: A.Resize(256, 256, interpolation=cv2.INTER_AREA),
        lambda K: K.Resize((256, 256), antialias=True),
    ),
    Row(
        "RandomCrop",
        lambda ns: cls(ns, "RandomCrop")(128),
        lambda A, cv2: A.RandomCrop(128, 128, p=1),
        lambda K: K.RandomCrop((128, 128), p=1),
    ),
    Row(
        "CenterCrop",
        lambda ns: cls(ns, "CenterCrop")(128),
        lambda A, cv2: A.CenterCrop(128, 128, p=1),
        lambda K: K.CenterCrop(128),
    ),
    Row(
        "RandomResizedCrop",
        lambda ns: cls(ns, "RandomResizedCrop")(224, interpolation=_interp(ns), antialias=True),
        lambda A, cv2: A.RandomResizedCrop((224, 224), interpolation=cv2.INTER_LINEAR, p=1),
        lambda K: K.RandomResizedCrop((224, 224)),
    ),
    Row(
        "HorizontalFlip",
        lambda ns: cls(ns, "RandomHorizontalFlip")(p=1.0),
        lambda A, cv2: A.HorizontalFlip(p=1),
        lambda K: K.RandomHorizontalFlip(p=1.0),
    ),
    Row(
        "VerticalFlip",
        lambda ns: cls(ns, "RandomVerticalFlip")(p=1.0),
        lambda A, cv2: A.VerticalFlip(p=1),
        lambda K: K.RandomVerticalFlip(p=1.0),
    ),
    Row(
        "Pad",
        lambda ns: cls(ns, "Pad")(10, fill=0, padding_mode="constant"),
        lambda A, cv2: A.Pad(10, fill=0, border_mode=cv2.BORDER_CONSTANT, p=1),
        None,
    ),
    Row(
        "Normalize",
        _normalize,
        lambda A, cv2: A.Normalize(mean=MEAN, std=STD, max_pixel_value=255.0, p=1),
        lambda K: K.Normalize(mean=torch.tensor(MEAN), std=torch.tensor(STD)),
    ),
    Row(
        "Brightness",
        _jitter(brightness=(1.2, 1.2)),
        lambda A, cv2: A.RandomBrightnessContrast(brightness_limit=(0.2, 0.2), contrast_limit=(0.0, 0.0), p=1),
        lambda K: K.RandomBrightness((1.2, 1.2), p=1.0),
    ),
    Row(
        "Contrast",
        _jitter(contrast=(1.2, 1.2)),
        lambda A, cv2: A.RandomBrightnessContrast(brightness_limit=(0.0, 0.0), contrast_limit=(0.2, 0.2), p=1),
        lambda K: K.RandomContrast((1.2, 1.2), p=1.0),
    ),
    Row(
        "Saturation",
        _jitter(saturation=(1.5, 1.5)),
        _alb_jitter(saturation=(1.5, 1.5)),
        lambda K: K.RandomSaturation((1.5, 1.5), p=1.0),
    ),
    Row(
        "Hue",
        _jitter(hue=(0.05, 0.05)),
        _alb_jitter(hue=(0.05, 0.05)),
        lambda K: K.RandomHue((0.05, 0.05), p=1.0),
    ),
    Row(
        "ColorJitter",
        _jitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1),
        lambda A, cv2: A.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1, p=1),
        lambda K: K.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0),
    ),
    Row(
        "Grayscale",
        lambda ns: cls(ns, "Grayscale")(num_output_channels=3),
        lambda A, cv2: A.ToGray(num_output_channels=3, method="weighted_average", p=1),
        lambda K: K.RandomGrayscale(p=1.0),
    ),
    Row(
        "Sharpen",
        lambda ns: cls(ns, "RandomAdjustSharpness")(2.0, p=1.0),
        lambda A, cv2: A.Sharpen(alpha=(0.5, 0.5), lightness=(1.0, 1.0), p=1),
        lambda K: K.RandomSharpness((2.0, 2.0), p=1.0),
    ),
    Row(
        "Posterize",
        lambda ns: cls(ns, "RandomPosterize")(4, p=1.0),
        lambda A, cv2: A.Posterize(num_bits=4, p=1),
        lambda K: K.RandomPosterize((4.0, 4.0), p=1.0),
    ),
    Row(
        "Solarize",
        lambda ns: cls(ns, "RandomSolarize")(128, p=1.0),
        lambda A, cv2: A.Solarize(threshold_range=(0.5, 0.5), p=1),
        lambda K: K.RandomSolarize(thresholds=0.0, additions=0.0, p=1.0),
    ),
    Row(
        "Equalize",
        lambda ns: cls(ns, "RandomEqualize")(p=1.0),
        lambda A, cv2: A.Equalize(p=1),
        lambda K: K.RandomEqualize(p=1.0),
    ),
    Row(
        "AutoContrast",
        lambda ns: cls(ns, "RandomAutocontrast")(p=1.0),
        lambda A, cv2: A.AutoContrast(p=1),
        lambda K: K.RandomAutoContrast(p=1.0),
    ),
    Row(
        "Invert",
        lambda ns: cls(ns, "RandomInvert")(p=1.0),
        lambda A, cv2: A.InvertImg(p=1),
        lambda K: K.RandomInvert(p=1.0),
    ),
    Row(
        "ChannelPermutation",
        lambda ns: cls(ns, "RandomChannelPermutation")(),
        lambda A, cv2: A.ChannelShuffle(p=1),
        lambda K: K.RandomChannelShuffle(p=1.0),
    ),
    Row(
        "Rotate",
        lambda ns: cls(ns, "RandomRotation")(45, interpolation=_interp(ns), fill=0),
        lambda A, cv2: A.Rotate(
            limit=45, interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_CONSTANT, fill=0, p=1
        ),
        lambda K: K.RandomRotation(45.0, p=1.0),
    ),
    Row(
        "Affine",
        lambda ns: cls(ns, "RandomAffine")(
            25, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=10, interpolation=_interp(ns), fill=0
        ),
        lambda A, cv2: A.Affine(
            rotate=(-25, 25),
            translate_percent=(-0.1, 0.1),
            scale=(0.9, 1.1),
            shear=(-10, 10),
            interpolation=cv2.INTER_LINEAR,
            border_mode=cv2.BORDER_CONSTANT,
            fill=0,
            p=1,
        ),
        lambda K: K.RandomAffine(25.0, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=10.0, p=1.0),
    ),
    Row(
        "Perspective",
        lambda ns: cls(ns, "RandomPerspective")(0.2, p=1.0, interpolation=_interp(ns), fill=0),
        lambda A, cv2: A.Perspective(scale=(0.05, 0.1), interpolation=cv2.INTER_LINEAR, p=1),
        lambda K: K.RandomPerspective(0.2, p=1.0),
    ),
    Row(
        "Elastic",
        lambda ns: cls(ns, "ElasticTransform")(alpha=50.0, sigma=5.0, interpolation=_interp(ns)),
        lambda A, cv2: A.ElasticTransform(alpha=50.0, sigma=5.0, interpolation=cv2.INTER_LINEAR, p=1),
        lambda K: K.RandomElasticTransform((31, 31), sigma=(5.0, 5.0), alpha=(0.1, 0.1), p=1.0),
    ),
]

ROW_NAMES = [row.name for row in ROWS]

# Where a library has no equivalent of a row (shown as "–").
MISSING_REASON: Dict[str, str] = {"kornia": "kornia.augmentation has no equivalent class"}
