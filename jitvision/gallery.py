"""``python -m jitvision.gallery``: every transform class on real photographs, one PNG each, and the page showing them.

Each entry names a public transform class, the code that builds it (run as written, so the page shows exactly what
made the picture), the input it is given and, where the input needs preparing (targets pushed off the canvas for the
clamping and sanitizing transforms, say), the code that prepares it. Inputs are scikit-image's photographs with the
hand-written boxes, masks and keypoints of ``jitvision._photos``, resized to a 192-pixel shorter side. Random
transforms get a fixed seed and, where they have one, ``p=1`` so the picture shows the effect.

Writes ``<out>/<ClassName>.png`` (input on the left, output on the right) and the Markdown page (``--page``): plain
Markdown with relative image links, so it renders the same in the docs site and as a raw file.
"""

import argparse
import functools
import inspect
import os
import sys
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import PIL.Image
import PIL.ImageDraw
import torch

from . import transforms as T
from . import tv_tensors
from ._photos import PHOTOS, draw_sample, photo_sample

SIZE = 192  # the photographs' shorter side (their longer side is at most 1.5 times that)
MAX_HEIGHT, MIN_HEIGHT, MAX_WIDTH = 288, 96, 960  # a panel's picture, and a row of panels
CAPTION = 14
GAP = 8
BACKGROUND = (255, 255, 255)
# Abstract bases: they are public so users can subclass them, and do nothing by themselves.
BASES = ("Transform", "RandomApplyTransform")


@dataclass(frozen=True)
class Entry:
    """``code`` builds the transform (evaluated with ``T`` = jitvision.transforms and ``torch``). ``inputs`` says
    what it is applied to: "sample" (a detection sample), "image", "pil", "float" (a float image in [0, 1]),
    "gray" (a 1-channel image), "small" (a 32x32 float image), "video" or "batch" (two photographs of one size with
    class labels). ``prepare`` (same namespace) turns the sample into the transform's input."""

    name: str
    family: str
    code: str
    note: str
    inputs: str = "sample"
    photo: Optional[str] = None
    prepare: Optional[str] = None


ENTRIES: Tuple[Entry, ...] = (
    # Geometry: boxes, masks and keypoints move with the pixels.
    Entry("Resize", "Geometry", "T.Resize(128)", "The shorter side to 128 pixels; targets scale with the image."),
    Entry("CenterCrop", "Geometry", "T.CenterCrop(160)", "The central 160x160 window."),
    Entry("RandomCrop", "Geometry", "T.RandomCrop(160, generator=g)", "A 160x160 window at a random place."),
    Entry("RandomResizedCrop", "Geometry", "T.RandomResizedCrop(192, scale=(0.25, 1.0), generator=g)",
          "A random area and aspect ratio, resized to 192x192: the classification training crop."),
    Entry("RandomHorizontalFlip", "Geometry", "T.RandomHorizontalFlip(p=1.0, generator=g)", "Mirrored left to right."),
    Entry("RandomVerticalFlip", "Geometry", "T.RandomVerticalFlip(p=1.0, generator=g)", "Mirrored top to bottom."),
    Entry("Pad", "Geometry", "T.Pad([32, 16], fill={tv_tensors.Image: 127, 'others': 0})",
          "32 pixels left and right, 16 at the top and bottom: grey on the image, 0 on the masks."),
    Entry("RandomZoomOut", "Geometry", "T.RandomZoomOut(fill=127, side_range=(1.5, 2.0), p=1.0, generator=g)",
          "The image placed at a random spot of a canvas up to twice its size."),
    Entry("RandomIoUCrop", "Geometry", "T.RandomIoUCrop(generator=g)",
          "The SSD crop: a random window that keeps enough overlap with some box; boxes outside it are dropped "
          "by a following SanitizeBoundingBoxes."),
    Entry("RandomResize", "Geometry", "T.RandomResize(96, 192)", "The shorter side to a random size in [96, 192)."),
    Entry("RandomShortestSize", "Geometry", "T.RandomShortestSize([96, 128, 160], max_size=200)",
          "The shorter side to one of the sizes, the longer side at most 200."),
    Entry("ScaleJitter", "Geometry", "T.ScaleJitter((192, 192), scale_range=(0.4, 0.8))",
          "Large-scale jitter: resized by a random factor of the target size."),
    Entry("RandomRotation", "Geometry", "T.RandomRotation(30, expand=True, generator=g)",
          "A random rotation within 30 degrees, the canvas grown to hold it."),
    Entry("RandomAffine", "Geometry",
          "T.RandomAffine(degrees=15, translate=(0.1, 0.1), scale=(0.8, 1.0), shear=10, generator=g)",
          "Rotation, translation, scale and shear in one warp."),
    Entry("RandomPerspective", "Geometry", "T.RandomPerspective(distortion_scale=0.5, p=1.0, generator=g)",
          "A random perspective warp."),
    Entry("ElasticTransform", "Geometry", "T.ElasticTransform(alpha=150.0, sigma=7.0, generator=g)",
          "Pixels displaced by a smooth random field."),
    Entry("FiveCrop", "Geometry", "T.FiveCrop(96)", "Four corners and the centre, 96x96 each (images only).",
          inputs="image"),
    Entry("TenCrop", "Geometry", "T.TenCrop(96)", "FiveCrop of the image and of its mirror (images only).",
          inputs="image"),
    # Colour: pixels change, targets pass through.
    Entry("ColorJitter", "Colour", "T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.6, hue=0.1, "
          "generator=g)", "Brightness, contrast, saturation and hue, in a random order."),
    Entry("RandomPhotometricDistort", "Colour", "T.RandomPhotometricDistort(p=1.0, generator=g)",
          "The SSD colour augmentation, channels permuted included."),
    Entry("Grayscale", "Colour", "T.Grayscale(num_output_channels=3)", "Luma, kept in three channels."),
    Entry("RandomGrayscale", "Colour", "T.RandomGrayscale(p=1.0, generator=g)", "Grayscale with probability p."),
    Entry("RGB", "Colour", "T.RGB()", "A one-channel image to three channels.", inputs="gray"),
    Entry("RandomAdjustSharpness", "Colour", "T.RandomAdjustSharpness(4.0, p=1.0, generator=g)",
          "Sharpened by a factor of 4."),
    Entry("RandomAutocontrast", "Colour", "T.RandomAutocontrast(p=1.0, generator=g)",
          "Each channel stretched to the full range."),
    Entry("RandomEqualize", "Colour", "T.RandomEqualize(p=1.0, generator=g)", "Histogram equalization."),
    Entry("RandomInvert", "Colour", "T.RandomInvert(p=1.0, generator=g)", "The negative."),
    Entry("RandomPosterize", "Colour", "T.RandomPosterize(2, p=1.0, generator=g)", "Two bits per channel."),
    Entry("RandomSolarize", "Colour", "T.RandomSolarize(128, p=1.0, generator=g)",
          "Pixels above 128 inverted."),
    Entry("RandomChannelPermutation", "Colour", "T.RandomChannelPermutation(generator=g)",
          "The colour channels in a random order."),
    Entry("GaussianBlur", "Colour", "T.GaussianBlur(9, sigma=(2.0, 3.0), generator=g)", "A 9x9 Gaussian blur."),
    Entry("GaussianNoise", "Colour", "T.GaussianNoise(sigma=0.08, generator=g)",
          "Additive noise on a float image in [0, 1].", inputs="float"),
    Entry("JPEG", "Colour", "T.JPEG(quality=(5, 10), generator=g)", "Re-encoded as JPEG at quality 5 to 10."),
    Entry("RandomErasing", "Colour", "T.RandomErasing(p=1.0, value=0, generator=g)",
          "A random rectangle erased (images only: targets pass through).", inputs="float"),
    # Augmentation policies.
    Entry("AutoAugment", "Policies", "T.AutoAugment(generator=g)", "The ImageNet policy of AutoAugment (images only).",
          inputs="image"),
    Entry("RandAugment", "Policies", "T.RandAugment(num_ops=2, magnitude=12, generator=g)",
          "Two random operations at magnitude 12 (images only).", inputs="image"),
    Entry("TrivialAugmentWide", "Policies", "T.TrivialAugmentWide(generator=g)",
          "One random operation at a random magnitude (images only).", inputs="image"),
    Entry("AugMix", "Policies", "T.AugMix(severity=4, generator=g)",
          "A random mix of augmentation chains (images only).", inputs="image"),
    # Mixing a batch of two photographs: labels become soft.
    Entry("CutMix", "Mixing", "T.CutMix(num_classes=2, generator=g)",
          "A rectangle of each image pasted from the other; labels mixed by area.", inputs="batch"),
    Entry("MixUp", "Mixing", "T.MixUp(num_classes=2, generator=g)",
          "A convex combination of the two images and their labels.", inputs="batch"),
    # Targets: clamping, sanitizing, formats. A crop prepares the input: it leaves targets partly or wholly off the
    # new canvas (the rocket's outer towers and a light lie outside a 160-pixel-wide centre crop).
    Entry("ClampBoundingBoxes", "Targets", "T.ClampBoundingBoxes(clamping_mode='hard')",
          "Boxes that run past the border (left: crossing it) clamped to the canvas (right: all four sides show).",
          photo="astronaut", prepare="T.Compose([T.SetClampingMode(None), T.CenterCrop(120)])"),
    Entry("ClampKeyPoints", "Targets", "T.ClampKeyPoints()",
          "A keypoint off the canvas (left, not visible) moved onto its border (right, bottom left).",
          photo="rocket", prepare="T.CenterCrop((192, 160))"),
    Entry("SanitizeBoundingBoxes", "Targets", "T.SanitizeBoundingBoxes()",
          "Boxes the crop reduced to nothing are dropped, with their masks and labels: five boxes become three.",
          photo="rocket", prepare="T.CenterCrop((192, 160))"),
    Entry("SanitizeKeyPoints", "Targets", "T.SanitizeKeyPoints()",
          "Keypoints off the canvas are dropped: six become five (the panel titles count them).",
          photo="rocket", prepare="T.CenterCrop((192, 160))"),
    Entry("ConvertBoundingBoxFormat", "Targets", "T.ConvertBoundingBoxFormat('CXCYWH')",
          "The same boxes written as centre, width, height (drawn converted back)."),
    Entry("SetClampingMode", "Targets", "T.SetClampingMode(None)",
          "Boxes keep coordinates outside the canvas in later transforms (nothing to see by itself)."),
    # Types and dtypes.
    Entry("ToImage", "Types", "T.ToImage()", "A PIL image to an Image tensor.", inputs="pil"),
    Entry("PILToTensor", "Types", "T.PILToTensor()", "A PIL image to a uint8 tensor.", inputs="pil"),
    Entry("ToTensor", "Types", "T.ToTensor()", "A PIL image to a float tensor in [0, 1] (deprecated upstream).",
          inputs="pil"),
    Entry("ToPILImage", "Types", "T.ToPILImage()", "A tensor image to a PIL image.", inputs="image"),
    Entry("ToPureTensor", "Types", "T.ToPureTensor()",
          "Every tv_tensor to a plain tensor: the targets lose their meaning (so nothing is drawn on the right)."),
    Entry("ToDtype", "Types", "T.ToDtype(torch.float32, scale=True)", "uint8 to float32 in [0, 1]."),
    Entry("ConvertImageDtype", "Types", "T.ConvertImageDtype(torch.float32)", "uint8 to float32 in [0, 1]."),
    Entry("Normalize", "Types", "T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])",
          "ImageNet mean and std (the output is shown stretched to [0, 1]).", inputs="float"),
    Entry("LinearTransformation", "Types", "T.LinearTransformation(_SEPIA, torch.zeros(_SEPIA.shape[0]))",
          "A matrix on the flattened image: here a sepia colour matrix on a 32x32 thumbnail.", inputs="small"),
    Entry("Lambda", "Types", "T.Lambda(lambda image: image.flip(-3), tv_tensors.Image)",
          "Any function, on the leaves of the given types: here RGB to BGR on images only."),
    Entry("Identity", "Types", "T.Identity()", "Returns its input."),
    Entry("UniformTemporalSubsample", "Types", "T.UniformTemporalSubsample(4)",
          "Four evenly spaced frames of an eight-frame video (a pan across the photograph).", inputs="video"),
    # Containers.
    Entry("Compose", "Containers",
          "T.Compose([T.RandomResizedCrop(192, scale=(0.3, 1.0), generator=g), "
          "T.RandomHorizontalFlip(generator=g), T.ColorJitter(0.3, 0.3, 0.3, generator=g)])",
          "Transforms in sequence: a training pipeline."),
    Entry("RandomApply", "Containers", "T.RandomApply([T.RandomRotation(20, generator=g), T.RandomGrayscale(1.0)], "
          "p=0.5)", "The whole list, or nothing, with probability p."),
    Entry("RandomChoice", "Containers",
          "T.RandomChoice([T.RandomVerticalFlip(1.0), T.RandomInvert(1.0), T.RandomPosterize(2, 1.0)])",
          "One transform of the list, picked at random."),
    Entry("RandomOrder", "Containers",
          "T.RandomOrder([T.CenterCrop(160), T.RandomHorizontalFlip(1.0), T.RandomSolarize(100, 1.0)])",
          "All of the list, in a random order."),
)


@functools.lru_cache(maxsize=1)  # 38 MB for a 32x32 image: built once, not per entry
def _sepia_matrix(height: int, width: int) -> torch.Tensor:
    """LinearTransformation works on the flattened ``C*H*W`` vector: a per-pixel colour matrix is its Kronecker
    product with the identity over pixels."""
    colour = torch.tensor([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]) * 0.75
    return torch.kron(colour, torch.eye(height * width))


def _namespace(seed: int) -> Dict[str, Any]:
    generator = torch.Generator().manual_seed(seed)
    return {"T": T, "torch": torch, "tv_tensors": tv_tensors, "g": generator, "_SEPIA": _sepia_matrix(32, 32)}


def public_transform_classes() -> List[str]:
    """The names of jitvision.transforms' public transform classes, the abstract bases left out."""
    return sorted(
        name for name, value in vars(T).items()
        if not name.startswith("_") and inspect.isclass(value) and issubclass(value, torch.nn.Module)
        and name not in BASES
    )


def _scaled(picture: PIL.Image.Image) -> PIL.Image.Image:
    """Pixels shown at their size (so Resize and Pad look smaller or bigger), large ones shrunk to MAX_HEIGHT,
    thumbnails (LinearTransformation's 32x32) enlarged with visible pixels."""
    if picture.height > MAX_HEIGHT:
        return picture.resize((round(picture.width * MAX_HEIGHT / picture.height), MAX_HEIGHT), PIL.Image.LANCZOS)
    if picture.height < MIN_HEIGHT:
        factor = -(-MIN_HEIGHT // picture.height)
        return picture.resize((picture.width * factor, picture.height * factor), PIL.Image.NEAREST)
    return picture


def _captioned(picture: PIL.Image.Image, caption: str) -> PIL.Image.Image:
    """The picture under a one-line caption (drawn outside it, so it hides nothing)."""
    picture = _scaled(picture)
    draw = PIL.ImageDraw.Draw(picture)
    width = max(picture.width, round(draw.textlength(caption)) + 4)
    panel = PIL.Image.new("RGB", (width, picture.height + CAPTION), BACKGROUND)
    PIL.ImageDraw.Draw(panel).text((2, 2), caption, fill=(0, 0, 0))
    panel.paste(picture, (0, CAPTION))
    return panel


def _stretched(image: torch.Tensor) -> torch.Tensor:
    """A float image of any range, stretched to [0, 1] for display."""
    low, high = image.amin(), image.amax()
    return (image - low) / (high - low).clamp_min(1e-6)


def _count(sample: Any) -> str:
    if not isinstance(sample, dict):
        return ""
    parts = []
    for key in ("boxes", "keypoints"):
        value = sample.get(key)
        if isinstance(value, torch.Tensor):
            parts.append(f"{value.reshape(-1, value.shape[-1]).shape[0]} {key}")
    return ": " + ", ".join(parts) if parts else ""


def _labels(labels: torch.Tensor) -> str:
    values = labels.tolist()
    return str(values) if isinstance(values, int) else "[" + ", ".join(f"{value:.2f}" for value in values) + "]"


def _panels(value: Any, title: str, entry: Entry) -> List[PIL.Image.Image]:
    """Pictures of an input or output: one for a sample or an image, one per image of a tuple (FiveCrop), of a batch
    (CutMix) or of a video's frames."""
    if isinstance(value, (tuple, list)):
        return [_captioned(draw_sample(item), f"{title} {index + 1}") for index, item in enumerate(value)]
    if entry.inputs == "batch":
        images, labels = value["image"], value["labels"]
        return [_captioned(draw_sample(images[index]), f"{title}: label {_labels(labels[index])}")
                for index in range(images.shape[0])]
    if isinstance(value, tv_tensors.Video):
        return [_captioned(draw_sample(frame), f"{title}: frame {index}") for index, frame in enumerate(value)]
    if entry.name == "Normalize" and title == "after":
        value = _stretched(value.as_subclass(torch.Tensor))
    return [_captioned(draw_sample(value), title + _count(value))]


def _make_input(entry: Entry, photo: str, namespace: Dict[str, Any]) -> Any:
    sample = photo_sample(photo, SIZE)
    image = sample["image"]
    if entry.inputs == "sample":
        return eval(entry.prepare, namespace)(sample) if entry.prepare else sample
    if entry.inputs == "image":
        return image
    if entry.inputs == "pil":
        return PIL.Image.fromarray(image.permute(1, 2, 0).numpy())
    if entry.inputs == "float":
        return T.ToDtype(torch.float32, scale=True)(image)
    if entry.inputs == "gray":
        return T.Grayscale(1)(image)
    if entry.inputs == "small":
        return tv_tensors.Image(T.ToDtype(torch.float32, scale=True)(T.Resize((32, 32))(T.CenterCrop(SIZE)(image))))
    if entry.inputs == "video":  # eight frames panning left to right across a square window
        square = min(image.shape[-2:])
        starts = torch.linspace(0, image.shape[-1] - square, 8).round().long().tolist()
        frames = [T.Resize(96)(image[..., :square, start:start + square]) for start in starts]
        return tv_tensors.Video(torch.stack(frames))
    if entry.inputs == "batch":  # two photographs, square-cropped to one size, labelled 0 and 1
        other = photo_sample(PHOTOS[(PHOTOS.index(photo) + 2) % len(PHOTOS)], SIZE)["image"]
        images = torch.stack([T.CenterCrop(SIZE)(image), T.CenterCrop(SIZE)(other)])
        return {"image": tv_tensors.Image(images), "labels": torch.tensor([0, 1])}
    raise ValueError(f"gallery: unknown input kind {entry.inputs!r} for {entry.name}")


def build(entry: Entry, namespace: Dict[str, Any]) -> Any:
    """The entry's transform, from its code as written on the page."""
    with warnings.catch_warnings():  # ToTensor warns that it is deprecated, as upstream: the page says so
        warnings.simplefilter("ignore", UserWarning)
        transform = eval(entry.code, namespace)
    if type(transform).__name__ != entry.name:
        raise TypeError(f"gallery: the code of {entry.name} builds a {type(transform).__name__}")
    return transform


def _row_width(row: List[PIL.Image.Image]) -> int:
    return sum(picture.width for picture in row) + GAP * (len(row) - 1)


def render(entry: Entry, index: int) -> PIL.Image.Image:
    """The entry's picture: its input on the left, its output on the right (or below, when they do not fit)."""
    photo = entry.photo or PHOTOS[index % len(PHOTOS)]
    seed = 1000 + index
    namespace = _namespace(seed)
    inpt = _make_input(entry, photo, namespace)
    transform = build(entry, namespace)
    torch.manual_seed(seed)  # transforms without a generator= argument draw from the global RNG
    output = transform(inpt)
    before, after = _panels(inpt, "before", entry), _panels(output, "after", entry)
    rows = [before + after] if _row_width(before + after) <= MAX_WIDTH else [before, after]
    rows = [_shrunk(row) for row in rows]
    width = max(_row_width(row) for row in rows)
    height = sum(max(picture.height for picture in row) for row in rows) + GAP * (len(rows) - 1)
    sheet = PIL.Image.new("RGB", (width, height), BACKGROUND)
    y = 0
    for row in rows:
        x = 0
        for picture in row:
            sheet.paste(picture, (x, y))
            x += picture.width + GAP
        y += max(picture.height for picture in row) + GAP
    return sheet


def _shrunk(row: List[PIL.Image.Image]) -> List[PIL.Image.Image]:
    """A row wider than MAX_WIDTH (ten crops, eight frames) scaled down to it."""
    scale = min(1.0, (MAX_WIDTH - GAP * (len(row) - 1)) / sum(picture.width for picture in row))
    if scale == 1.0:
        return row
    return [picture.resize((round(picture.width * scale), round(picture.height * scale)), PIL.Image.LANCZOS)
            for picture in row]


def _save_small(picture: PIL.Image.Image, path: Path) -> None:
    """A 256-colour palette PNG: photographs lose little at this size and the files are about a third as big."""
    picture.quantize(colors=256, method=PIL.Image.Quantize.MEDIANCUT, dither=PIL.Image.Dither.NONE).save(
        path, optimize=True
    )


def page(entries: Tuple[Entry, ...] = ENTRIES, folder: str = "gallery") -> str:
    """The Markdown page: a section per family, a heading, the code, the picture and a line per transform."""
    intro = (
        "Every transform class of `jitvision.transforms` on a real photograph: scikit-image's sample photographs "
        "(astronaut, coffee, chelsea, rocket), each with hand-written targets: **boxes** (outlines), instance "
        "**masks** (translucent) and **keypoints** (white dots), one colour per object. The input is on the left, "
        "the output on the right (below, when they do not fit), drawn at their pixel size; the captions count the "
        "boxes and keypoints. Random transforms ran with a fixed seed and, where they have one, `p=1.0`, so the "
        "effect shows. Geometric transforms move the targets with the pixels; colour transforms leave them as they "
        "are."
    )
    how = (
        "The pictures are made by `python -m jitvision.gallery` (`make gallery`), which runs the code shown above "
        "each one as written: `T` is `jitvision.transforms`, `g` a seeded `torch.Generator`."
    )
    lines = ["# Gallery", "", *textwrap.wrap(intro, 116), "", *textwrap.wrap(how, 116), ""]
    family = None
    for entry in entries:
        if entry.family != family:
            family = entry.family
            lines += [f"## {family}", ""]
        lines += [
            f"### {entry.name}",
            "",
            f"`{entry.code}`" + (f" on the output of `{entry.prepare}`" if entry.prepare else ""),
            "",
            f"![{entry.name}]({folder}/{entry.name}.png)",
            "",
            entry.note,
            "",
        ]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitvision.gallery", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/gallery", help="folder for the PNGs (default: docs/gallery)")
    parser.add_argument("--page", default="docs/gallery.md", help="the Markdown page to write (default: "
                        "docs/gallery.md; its image links are relative to its folder)")
    parser.add_argument("--only", nargs="*", help="render only these transforms (the page is not written)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    missing = set(public_transform_classes()) - {entry.name for entry in ENTRIES}
    if missing:
        raise SystemExit(f"gallery: no entry for {', '.join(sorted(missing))}")
    total, failed = 0, []
    for index, entry in enumerate(ENTRIES):
        if args.only and entry.name not in args.only:
            continue
        path = out / f"{entry.name}.png"
        try:
            picture = render(entry, index)
        except Exception as error:  # report every failing entry, not only the first
            failed.append(f"{entry.name}: {type(error).__name__}: {error}")
            continue
        _save_small(picture, path)
        total += path.stat().st_size
        print(f"{path}  {path.stat().st_size / 1024:.0f} KiB")
    if not args.only:
        page_path = Path(args.page)
        folder = Path(os.path.relpath(out, page_path.parent)).as_posix()  # the page's links are relative to it
        page_path.write_text(page(folder=folder))
        print(f"wrote {page_path}; {total / 1024 / 1024:.2f} MiB of pictures")
    for line in failed:
        print(f"FAILED {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
