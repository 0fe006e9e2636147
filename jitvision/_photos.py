"""Real photographs with hand-written detection targets, and a drawing of a sample: used by the demo and the gallery.

The photographs are scikit-image's sample data (``skimage.data``: astronaut, coffee, chelsea, rocket), shipped
inside the scikit-image wheel, so nothing is downloaded. Their boxes, instance masks and keypoints below were
written by hand (pixel coordinates of the full-size photograph, traced on a grid): approximate outlines, good
enough to see what a transform does to each target.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import PIL.Image
import PIL.ImageDraw
import torch

from . import tv_tensors

Point = Tuple[float, float]

# One colour per instance (masks and boxes); keypoints are drawn in white with a dark rim.
PALETTE = [(230, 60, 50), (40, 170, 80), (60, 110, 235), (245, 190, 30), (200, 80, 220), (30, 190, 200)]
DISPLAY_MEAN = [0.485, 0.456, 0.406]
DISPLAY_STD = [0.229, 0.224, 0.225]


@dataclass(frozen=True)
class Region:
    """An object: an ellipse given by two corners of its bounding box, or a polygon given by its vertices."""

    label: str
    shape: str
    points: Tuple[Point, ...]


@dataclass(frozen=True)
class Annotation:
    regions: Tuple[Region, ...]
    keypoints: Tuple[Point, ...]


def _rect(label: str, x1: float, y1: float, x2: float, y2: float) -> Region:
    return Region(label, "polygon", ((x1, y1), (x2, y1), (x2, y2), (x1, y2)))


ANNOTATIONS: Dict[str, Annotation] = {
    "astronaut": Annotation(
        regions=(
            Region("head", "ellipse", ((150, 15), (300, 185))),
            Region("patch", "ellipse", ((132, 347), (208, 423))),
            Region("helmet", "polygon", ((300, 390), (340, 355), (400, 342), (460, 355), (500, 390), (505, 511),
                                         (278, 511), (282, 440))),
            Region("shuttle", "polygon", ((405, 0), (425, 0), (440, 60), (445, 160), (465, 250), (455, 275),
                                          (360, 270), (355, 215), (395, 150), (398, 60))),
        ),
        keypoints=((199, 101), (245, 101), (222, 123), (206, 143), (240, 143)),
    ),
    "coffee": Annotation(
        regions=(
            Region("saucer", "ellipse", ((78, 95), (480, 388))),
            Region("cup", "polygon", ((175, 60), (200, 30), (290, 18), (380, 30), (405, 70), (395, 150), (380, 210),
                                      (350, 250), (300, 265), (255, 268), (250, 300), (205, 300), (195, 250),
                                      (185, 200), (178, 150))),
            Region("spoon", "polygon", ((405, 68), (422, 72), (395, 140), (380, 230), (400, 270), (405, 300),
                                        (385, 322), (350, 325), (327, 305), (325, 270), (345, 250), (365, 235),
                                        (385, 140))),
        ),
        keypoints=((414, 70), (366, 290), (225, 270), (290, 150)),
    ),
    "chelsea": Annotation(
        regions=(
            Region("left eye", "ellipse", ((135, 85), (205, 148))),
            Region("right eye", "ellipse", ((293, 108), (345, 163))),
            Region("nose", "polygon", ((240, 225), (292, 228), (275, 250), (262, 262), (250, 250))),
        ),
        keypoints=((172, 116), (320, 135), (266, 240), (70, 10), (375, 15)),
    ),
    "rocket": Annotation(
        regions=(
            Region("rocket", "polygon", ((321, 126), (330, 135), (335, 160), (334, 400), (310, 400), (308, 160),
                                         (312, 135))),
            _rect("tower", 0, 0, 90, 426),
            _rect("tower", 170, 120, 210, 400),
            _rect("tower", 435, 120, 472, 410),
            _rect("tower", 555, 0, 639, 426),
        ),
        keypoints=((321, 127), (110, 413), (150, 377), (193, 395), (363, 395), (433, 395)),
    ),
}
PHOTOS = tuple(ANNOTATIONS)


def load_photograph(name: str) -> np.ndarray:
    """An ``[H, W, 3]`` uint8 photograph from scikit-image's sample data."""
    if name not in ANNOTATIONS:
        raise ValueError(f"load_photograph: unknown photograph {name!r}, expected one of {', '.join(PHOTOS)}")
    try:
        from skimage import data
    except ImportError as error:  # an optional dependency: the demo and the gallery need it, the library does not
        raise ImportError(
            "the demo and the gallery use scikit-image's sample photographs: pip install scikit-image"
        ) from error
    return np.ascontiguousarray(getattr(data, name)()[..., :3])


def _region_mask(region: Region, height: int, width: int) -> torch.Tensor:
    canvas = PIL.Image.new("L", (width, height))
    draw = PIL.ImageDraw.Draw(canvas)
    if region.shape == "ellipse":
        draw.ellipse(region.points, fill=1)
    else:
        draw.polygon(region.points, fill=1)
    return torch.from_numpy(np.asarray(canvas).copy())


def _region_box(region: Region, height: int, width: int) -> List[float]:
    xs = [min(max(x, 0.0), width) for x, _ in region.points]
    ys = [min(max(y, 0.0), height) for _, y in region.points]
    return [min(xs), min(ys), max(xs), max(ys)]


def photo_sample(name: str, size: Optional[int] = None) -> Dict[str, Any]:
    """A detection sample: the photograph as an ``Image``, XYXY ``boxes``, instance ``masks`` ``[K, H, W]``,
    ``labels`` (the region's index in its photograph) and ``keypoints`` ``[P, 2]``. With ``size``, the sample is
    resized (the shorter side to ``size``) by jitvision's own ``Resize``, targets included."""
    pixels = load_photograph(name)
    height, width = pixels.shape[:2]
    annotation = ANNOTATIONS[name]
    canvas = (height, width)
    sample = {
        "image": tv_tensors.Image(torch.from_numpy(pixels).permute(2, 0, 1)),
        "boxes": tv_tensors.BoundingBoxes(
            [_region_box(region, height, width) for region in annotation.regions],
            format="XYXY", canvas_size=canvas, dtype=torch.float32,
        ),
        "masks": tv_tensors.Mask(torch.stack([_region_mask(region, height, width) for region in annotation.regions])),
        "labels": torch.arange(len(annotation.regions)),
        "keypoints": tv_tensors.KeyPoints(list(annotation.keypoints), canvas_size=canvas, dtype=torch.float32),
    }
    if size is not None:
        from .transforms import Resize

        sample = Resize(size, antialias=True)(sample)
    return sample


def _display_pixels(image: Any) -> np.ndarray:
    """``[H, W, 3]`` uint8 for any image leaf: a PIL image, uint8, float in [0, 1], or a normalized float image
    (values outside [0, 1]: the ImageNet normalization is undone, then clamped)."""
    if isinstance(image, PIL.Image.Image):
        return np.asarray(image.convert("RGB"))
    pixels = image.as_subclass(torch.Tensor).detach().cpu()
    if pixels.ndim == 2:
        pixels = pixels.unsqueeze(0)
    if pixels.is_floating_point():
        if pixels.shape[0] == 3 and (pixels.min() < -0.01 or pixels.max() > 1.01):
            pixels = pixels * torch.tensor(DISPLAY_STD).view(3, 1, 1) + torch.tensor(DISPLAY_MEAN).view(3, 1, 1)
        pixels = (pixels.clamp(0, 1) * 255).round()
    pixels = pixels.to(torch.uint8)
    if pixels.shape[0] == 1:
        pixels = pixels.expand(3, -1, -1)
    return pixels[:3].permute(1, 2, 0).contiguous().numpy()


def _xyxy(boxes: Any) -> List[List[float]]:
    from .transforms import functional as F

    if boxes.format != tv_tensors.BoundingBoxFormat.XYXY:
        boxes = F.convert_bounding_box_format(boxes, new_format="XYXY")
    return boxes.as_subclass(torch.Tensor).reshape(-1, 4).tolist()


def _find(sample: Any, kind: type) -> Any:
    if isinstance(sample, dict):
        return next((value for value in sample.values() if isinstance(value, kind)), None)
    return sample if isinstance(sample, kind) else None


def _image_of(sample: Any) -> Any:
    if isinstance(sample, dict):
        image = sample.get("image")
        return image if image is not None else next(iter(sample.values()))
    return sample


def draw_sample(sample: Any, title: str = "", labels: Optional[Sequence[int]] = None) -> PIL.Image.Image:
    """The sample's image with its masks (translucent, one colour per instance), boxes and keypoints drawn on it.

    ``sample`` is a dict from ``photo_sample`` (transformed or not), or an image alone (tensor or PIL)."""
    pixels = _display_pixels(_image_of(sample)).astype(np.float32)
    masks = _find(sample, tv_tensors.Mask)
    boxes = _find(sample, tv_tensors.BoundingBoxes)
    keypoints = _find(sample, tv_tensors.KeyPoints)
    if labels is None and isinstance(sample, dict) and isinstance(sample.get("labels"), torch.Tensor):
        labels = sample["labels"].tolist()
    if masks is not None:
        for index, mask in enumerate(masks.as_subclass(torch.Tensor).reshape(-1, *masks.shape[-2:]).bool()):
            colour = np.array(PALETTE[(labels[index] if labels else index) % len(PALETTE)], dtype=np.float32)
            inside = mask.numpy()[..., None]
            pixels = np.where(inside, pixels * 0.55 + colour * 0.45, pixels)
    picture = PIL.Image.fromarray(pixels.round().astype(np.uint8))
    draw = PIL.ImageDraw.Draw(picture)
    if boxes is not None:
        for index, box in enumerate(_xyxy(boxes)):
            colour = PALETTE[(labels[index] if labels and index < len(labels) else index) % len(PALETTE)]
            draw.rectangle(box, outline=colour, width=2)
    if keypoints is not None:
        for x, y in keypoints.as_subclass(torch.Tensor).reshape(-1, 2).tolist():
            draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=(255, 255, 255), outline=(20, 20, 20))
    if title:
        draw.rectangle((0, 0, round(draw.textlength(title)) + 8, 15), fill=(0, 0, 0))
        draw.text((4, 2), title, fill=(255, 255, 255))
    return picture
