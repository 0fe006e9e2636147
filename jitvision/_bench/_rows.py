"""The rows of ``bench --per-transform``: one transform at fixed parameters, built for every library.

Torch libraries (jitvision, torchvision v2) are built from torchvision's class names looked up at run time, so
a class that does not exist yet makes that variant "unavailable" (with the reason) instead of failing the run.
Random transforms get p=1, so the work is always done. Parameters, matched as closely as the APIs allow:

Per row: torchvision v2 and jitvision (TV), albumentations 2.0.8 (A), kornia 0.9 on its float input (K).
AlbumentationsX 2.5.1 (AX) runs A's parameters under its own argument names (``ALBUMENTATIONSX``, at the end).
Note on Brightness/Contrast: A's RandomBrightnessContrast computes ``x * alpha + beta * 255`` (one table); AX's, with
its default ``brightness_by_max=False``, computes torchvision's operations (``x * (1 + beta)``, and the blend with the
mean gray level), which is what the TV row computes.

- Resize: TV Resize((256, 256)), bilinear, antialias=True; A Resize(256, 256, INTER_AREA) (cv2's
  antialiased downscale); K Resize((256, 256), antialias=True).
- RandomCrop: TV RandomCrop(128); A RandomCrop(128, 128); K RandomCrop((128, 128)).
- CenterCrop: TV CenterCrop(128); A CenterCrop(128, 128); K CenterCrop(128).
- RandomResizedCrop: TV RandomResizedCrop(224), scale (0.08, 1), ratio (3/4, 4/3), bilinear, antialias=True;
  A RandomResizedCrop((224, 224)), same scale and ratio, INTER_LINEAR; K RandomResizedCrop((224, 224)), same.
- HorizontalFlip / VerticalFlip: TV RandomHorizontalFlip(p=1) / RandomVerticalFlip(p=1); A HorizontalFlip /
  VerticalFlip(p=1); K RandomHorizontalFlip / RandomVerticalFlip(p=1).
- Pad: TV Pad(10, fill=0, "constant"); A Pad(10, fill=0, BORDER_CONSTANT); K – (kornia has no Pad class).
- Normalize: TV ToDtype(float32, scale=True) then Normalize(ImageNet mean/std), on uint8; A Normalize(ImageNet,
  max_pixel_value=255) on uint8; K Normalize(ImageNet) on the float input (its conversion is not timed).
- Brightness: TV ColorJitter(brightness=(1.2, 1.2)); A RandomBrightnessContrast(brightness_limit=(0.2, 0.2),
  contrast_limit=0) (additive); K RandomBrightness((1.2, 1.2)) (additive).
- Contrast: TV ColorJitter(contrast=(1.2, 1.2)); A RandomBrightnessContrast(brightness_limit=0,
  contrast_limit=(0.2, 0.2)); K RandomContrast((1.2, 1.2)).
- Saturation: TV ColorJitter(saturation=(1.5, 1.5)); A ColorJitter with identity brightness/contrast/hue and
  saturation (1.5, 1.5) (it runs all four steps); K RandomSaturation((1.5, 1.5)).
- Hue: TV ColorJitter(hue=(0.05, 0.05)); A ColorJitter with identity brightness/contrast/saturation and hue
  (0.05, 0.05) (all four steps); K RandomHue((0.05, 0.05)).
- ColorJitter: TV ColorJitter(0.4, 0.4, 0.4, 0.1); A ColorJitter(0.4, 0.4, 0.4, 0.1, p=1); K the same.
- Grayscale: TV Grayscale(num_output_channels=3); A ToGray(3, "weighted_average"); K RandomGrayscale(p=1).
- Sharpen: TV RandomAdjustSharpness(2.0, p=1); A Sharpen(alpha=(0.5, 0.5), lightness=(1, 1)) (a different
  kernel); K RandomSharpness((2, 2), p=1).
- Posterize: TV RandomPosterize(4, p=1); A Posterize(4); K RandomPosterize((4, 4), p=1).
- Solarize: TV RandomSolarize(128, p=1); A Solarize(threshold_range=(0.5, 0.5)); K RandomSolarize(thresholds=0,
  additions=0, p=1) (threshold 0.5).
- Equalize: TV RandomEqualize(p=1); A Equalize() (cv, per channel); K RandomEqualize(p=1).
- AutoContrast: TV RandomAutocontrast(p=1); A AutoContrast(); K RandomAutoContrast(p=1).
- Gamma: TV functional adjust_gamma(image, 1.2) (v2 has no gamma transform class; a fixed gamma); A
  RandomGamma(gamma_limit=(120, 120)) (gamma = limit / 100); K RandomGamma((1.2, 1.2), p=1).
- Invert: TV RandomInvert(p=1); A InvertImg(); K RandomInvert(p=1).
- ChannelPermutation: TV RandomChannelPermutation(); A ChannelShuffle(); K RandomChannelShuffle(p=1).
- Rotate: TV RandomRotation(45), bilinear, fill 0; A Rotate(45, INTER_LINEAR, BORDER_CONSTANT); K
  RandomRotation(45, p=1).
- RotateNearest: TV RandomRotation(45, interpolation=NEAREST, fill=0); A Rotate(45, INTER_NEAREST, BORDER_CONSTANT);
  K RandomRotation(45, resample="nearest", p=1).
- Affine: TV RandomAffine(25, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=10), bilinear, fill 0; A
  Affine(rotate=(-25, 25), translate_percent=(-0.1, 0.1), scale=(0.9, 1.1), shear=(-10, 10), INTER_LINEAR);
  K RandomAffine(25, (0.1, 0.1), (0.9, 1.1), 10, p=1).
- Perspective: TV RandomPerspective(0.2, p=1), bilinear, fill 0; A Perspective(scale=(0.05, 0.1), INTER_LINEAR)
  (its own corner jitter); K RandomPerspective(0.2, p=1).
- ZoomOut: TV RandomZoomOut(fill=0, side_range=(1, 4), p=1); A and K – (no random zoom-out/canvas class).
- IoUCrop: TV RandomIoUCrop() (defaults) on the image with 8 fixed boxes; A and K – (albumentations'
  RandomSizedBBoxSafeCrop keeps every box: another operation).
- ShortestSize: TV RandomShortestSize((480, 512, 544, 576, 608), max_size=1000), bilinear; A
  SmallestMaxSize(max_size=[480, ..., 608], INTER_LINEAR) (the same draw, without the longer-side cap); K –.
- ScaleJitter: TV ScaleJitter((512, 512), scale_range=(0.1, 2.0)), bilinear; A RandomScale(scale_limit=(-0.9, 1.0),
  INTER_LINEAR) (a factor in [0.1, 2] of the input rather than of the 512 fit); K –.
- RandomResize: TV RandomResize(400, 600), bilinear; A SmallestMaxSize(max_size=[400, ..., 599], INTER_LINEAR); K –.
- Elastic: TV ElasticTransform(alpha=50, sigma=5), bilinear; A ElasticTransform(alpha=50, sigma=5,
  INTER_LINEAR); K RandomElasticTransform((31, 31), sigma=(5, 5), alpha=(0.1, 0.1), p=1) (alpha relative to the
  size: about 50 px on these images).
- GaussianBlur / GaussianBlur9: TV GaussianBlur(5 / 9, sigma=(1.0, 1.0)) / (2.0, 2.0) (a fixed sigma; reflect
  borders); A GaussianBlur(blur_limit=(5, 5) / (9, 9), sigma_limit=(1.0, 1.0) / (2.0, 2.0)) (cv2.GaussianBlur,
  BORDER_REFLECT_101); K RandomGaussianBlur((5, 5) / (9, 9), (1.0, 1.0) / (2.0, 2.0), p=1) (reflect).
- GaussianNoise: TV GaussianNoise(mean=0, sigma=0.1, clip=True) on uint8 (noise in units of 255, clipped); A
  GaussNoise(std_range=(0.1, 0.1), mean_range=(0, 0), per_channel=True); K RandomGaussianNoise(0, 0.1, p=1).
- RandomErasing: TV RandomErasing(p=1, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0); A Erasing(the same
  scale, ratio, fill=0) (albumentations' port of it; CoarseDropout draws several holes of other sizes); K
  RandomErasing(the same scale, ratio, value=0, p=1).
- JPEG: TV JPEG(quality=50) (encode + decode, uint8); A ImageCompression("jpeg", quality_range=(50, 50)) (cv2's
  libjpeg-turbo); K RandomJPEG(jpeg_quality=50, p=1) (kornia's differentiable JPEG on float input).

- RandAugment: TV RandAugment(num_ops=2, magnitude=9) (of 31 bins); A –; K auto.RandAugment(n=2, m=9) (kornia's
  own operation set and magnitude scale).
- TrivialAugmentWide: TV TrivialAugmentWide(); A –; K auto.TrivialAugment() (kornia's operation set).
- AutoAugment: TV AutoAugment(IMAGENET); A –; K auto.AutoAugment("imagenet").
- AugMix: TV AugMix() (severity 3, 3 chains of 1-3 operations, bilinear); A –; K –.
  The four draw a random operation per call: their times are means over the operations.

All albumentations transforms get p=1.
Outputs are made contiguous (``.contiguous()``, ``np.ascontiguousarray``), as the albumentations benchmark does.
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional

import torch

from ._timing import Unavailable

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
SHORTEST = (480, 512, 544, 576, 608)  # torchvision's detection references' RandomShortestSize sizes


def _with_boxes(ns: Any, transform: Any) -> Callable[[Any], Any]:
    """RandomIoUCrop needs boxes: each call gets the image with 8 fixed boxes (relative to its size) in the
    library's BoundingBoxes (building them is timed for both libraries) and returns the image."""
    import importlib

    tv_tensors = importlib.import_module(ns.__name__.split(".")[0] + ".tv_tensors")
    relative = torch.tensor(
        [[0.1, 0.1, 0.3, 0.4], [0.5, 0.2, 0.9, 0.6], [0.2, 0.5, 0.4, 0.9], [0.6, 0.6, 0.8, 0.8]]
        + [[0.05, 0.7, 0.25, 0.95], [0.4, 0.05, 0.55, 0.3], [0.7, 0.1, 0.95, 0.35], [0.3, 0.3, 0.7, 0.7]]
    )

    def run(image: Any) -> Any:
        height, width = image.shape[-2], image.shape[-1]
        xyxy = relative * torch.tensor([width, height, width, height])
        boxes = tv_tensors.BoundingBoxes(xyxy, format="XYXY", canvas_size=(height, width))
        return transform(image, boxes)[0]

    return run


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


def _functional(name: str, **kwargs: Any) -> Callable[[Any], Any]:
    """A row that calls the namespace's functional ``name`` with fixed arguments (where v2 has no class)."""

    def build(ns: Any) -> Callable[[Any], Any]:
        import importlib

        fn = getattr(importlib.import_module(ns.__name__ + ".functional"), name, None)
        if fn is None:
            raise Unavailable(f"{ns.__name__}.functional has no {name}")
        return lambda image: fn(image, **kwargs)

    return build


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
        "Gamma",
        _functional("adjust_gamma", gamma=1.2),
        lambda A, cv2: A.RandomGamma(gamma_limit=(120, 120), p=1),
        lambda K: K.RandomGamma((1.2, 1.2), p=1.0),
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
        lambda A, cv2: A.Rotate(limit=45, interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_CONSTANT, fill=0, p=1),
        lambda K: K.RandomRotation(45.0, p=1.0),
    ),
    Row(
        "RotateNearest",
        lambda ns: cls(ns, "RandomRotation")(45, interpolation=_interp(ns, "NEAREST"), fill=0),
        lambda A, cv2: A.Rotate(
            limit=45, interpolation=cv2.INTER_NEAREST, border_mode=cv2.BORDER_CONSTANT, fill=0, p=1
        ),
        lambda K: K.RandomRotation(45.0, resample="nearest", p=1.0),
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
    # Detection: output sizes drawn per call.
    Row(
        "ZoomOut",
        lambda ns: cls(ns, "RandomZoomOut")(fill=0, side_range=(1.0, 4.0), p=1.0),
        None,
        None,
    ),
    Row("IoUCrop", lambda ns: _with_boxes(ns, cls(ns, "RandomIoUCrop")()), None, None),
    Row(
        "ShortestSize",
        lambda ns: cls(ns, "RandomShortestSize")(list(SHORTEST), max_size=1000, interpolation=_interp(ns)),
        lambda A, cv2: A.SmallestMaxSize(max_size=list(SHORTEST), interpolation=cv2.INTER_LINEAR, p=1),
        None,
    ),
    Row(
        "ScaleJitter",
        lambda ns: cls(ns, "ScaleJitter")((512, 512), scale_range=(0.1, 2.0), interpolation=_interp(ns)),
        lambda A, cv2: A.RandomScale(scale_limit=(-0.9, 1.0), interpolation=cv2.INTER_LINEAR, p=1),
        None,
    ),
    Row(
        "RandomResize",
        lambda ns: cls(ns, "RandomResize")(400, 600, interpolation=_interp(ns)),
        lambda A, cv2: A.SmallestMaxSize(max_size=list(range(400, 600)), interpolation=cv2.INTER_LINEAR, p=1),
        None,
    ),
    Row(
        "GaussianBlur",
        lambda ns: cls(ns, "GaussianBlur")(5, sigma=(1.0, 1.0)),
        lambda A, cv2: A.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.0, 1.0), p=1),
        lambda K: K.RandomGaussianBlur((5, 5), (1.0, 1.0), p=1.0),
    ),
    Row(
        "GaussianBlur9",
        lambda ns: cls(ns, "GaussianBlur")(9, sigma=(2.0, 2.0)),
        lambda A, cv2: A.GaussianBlur(blur_limit=(9, 9), sigma_limit=(2.0, 2.0), p=1),
        lambda K: K.RandomGaussianBlur((9, 9), (2.0, 2.0), p=1.0),
    ),
    Row(
        "GaussianNoise",
        lambda ns: cls(ns, "GaussianNoise")(mean=0.0, sigma=0.1, clip=True),
        lambda A, cv2: A.GaussNoise(std_range=(0.1, 0.1), mean_range=(0.0, 0.0), per_channel=True, p=1),
        lambda K: K.RandomGaussianNoise(mean=0.0, std=0.1, p=1.0),
    ),
    Row(
        "RandomErasing",
        lambda ns: cls(ns, "RandomErasing")(p=1.0, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0),
        lambda A, cv2: A.Erasing(scale=(0.02, 0.33), ratio=(0.3, 3.3), fill=0, p=1),
        lambda K: K.RandomErasing(scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0.0, p=1.0),
    ),
    Row(
        "JPEG",
        lambda ns: cls(ns, "JPEG")(50),
        lambda A, cv2: A.ImageCompression(compression_type="jpeg", quality_range=(50, 50), p=1),
        lambda K: K.RandomJPEG(jpeg_quality=50.0, p=1.0),
    ),
]

ROWS += [
    Row(
        "RandAugment",
        lambda ns: cls(ns, "RandAugment")(num_ops=2, magnitude=9),
        None,
        lambda K: K.auto.RandAugment(n=2, m=9),
    ),
    Row("TrivialAugmentWide", lambda ns: cls(ns, "TrivialAugmentWide")(), None, lambda K: K.auto.TrivialAugment()),
    Row("AutoAugment", lambda ns: cls(ns, "AutoAugment")(), None, lambda K: K.auto.AutoAugment("imagenet")),
    Row("AugMix", lambda ns: cls(ns, "AugMix")(), None, None),
]
ROW_NAMES = [row.name for row in ROWS]

# AlbumentationsX (the maintained, AGPL successor of albumentations, installed under the same module name and run
# in its own process, see ``_peer_process``) renamed the arguments of these classes: given 2.0.8's names it warns
# and falls back to its defaults, so its rows are built from these (at the same parameters) with warnings turned
# into errors. Every other row's albumentations builder runs as it is under AlbumentationsX too.
ALBUMENTATIONSX: Dict[str, Optional[Callable[[Any, Any], Any]]] = {
    "Brightness": lambda A, cv2: A.RandomBrightnessContrast(
        brightness_range=(0.2, 0.2), contrast_range=(0.0, 0.0), p=1
    ),
    "Contrast": lambda A, cv2: A.RandomBrightnessContrast(brightness_range=(0.0, 0.0), contrast_range=(0.2, 0.2), p=1),
    "Saturation": lambda A, cv2: A.ColorJitter(
        brightness_range=(1, 1), contrast_range=(1, 1), saturation_range=(1.5, 1.5), hue_range=(0, 0), p=1
    ),
    "Hue": lambda A, cv2: A.ColorJitter(
        brightness_range=(1, 1), contrast_range=(1, 1), saturation_range=(1, 1), hue_range=(0.05, 0.05), p=1
    ),
    "ColorJitter": lambda A, cv2: A.ColorJitter(
        brightness_range=(0.6, 1.4), contrast_range=(0.6, 1.4), saturation_range=(0.6, 1.4), hue_range=(-0.1, 0.1), p=1
    ),
    "Sharpen": lambda A, cv2: A.Sharpen(alpha_range=(0.5, 0.5), lightness_range=(1.0, 1.0), p=1),
    "Posterize": lambda A, cv2: A.Posterize(num_bits=(4, 4), p=1),
    "Gamma": lambda A, cv2: A.RandomGamma(gamma_range=(120, 120), p=1),
    "Rotate": lambda A, cv2: A.Rotate(
        angle_range=(-45, 45), interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_CONSTANT, fill=0, p=1
    ),
    "RotateNearest": lambda A, cv2: A.Rotate(
        angle_range=(-45, 45), interpolation=cv2.INTER_NEAREST, border_mode=cv2.BORDER_CONSTANT, fill=0, p=1
    ),
    "ScaleJitter": lambda A, cv2: A.RandomScale(scale_range=(-0.9, 1.0), interpolation=cv2.INTER_LINEAR, p=1),
    "GaussianBlur": lambda A, cv2: A.GaussianBlur(blur_range=(5, 5), sigma_range=(1.0, 1.0), p=1),
    "GaussianBlur9": lambda A, cv2: A.GaussianBlur(blur_range=(9, 9), sigma_range=(2.0, 2.0), p=1),
    # Its ElasticTransform is another algorithm (a displacement on a coarse control grid, relative to the size; no
    # alpha/sigma): not the same operation.
    "Elastic": None,
}
ALBUMENTATIONSX_MISSING = (
    "AlbumentationsX's ElasticTransform is another algorithm (control-grid displacement, no alpha/sigma)"
)


def albumentationsx_builder(row: Row) -> Optional[Callable[[Any, Any], Any]]:
    """The AlbumentationsX builder of ``row``: its own where it renamed the arguments, else albumentations'."""
    return ALBUMENTATIONSX[row.name] if row.name in ALBUMENTATIONSX else row.albumentations


# Where a library has no equivalent of a row (shown as "–").
MISSING_REASON: Dict[str, str] = {"kornia": "kornia.augmentation has no equivalent class"}
