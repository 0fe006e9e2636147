"""The JPEG files of ``bench --e2e``: a folder the user names, or photographs made into JPEGs on first use.

The default set is every colour photograph scikit-image ships inside its wheel (no download), each re-encoded by
Pillow as JPEG quality 90 (4:2:0, as most cameras and ImageNet's files) at five sizes typical of ImageNet's training
images, written once into a cache folder: ``$JITVISION_CACHE_DIR``, else ``$XDG_CACHE_HOME/jitvision``, else
``~/.cache/jitvision``. Without scikit-image the images are synthetic (smooth colour noise of the same sizes), and
the label says so. ``quick`` makes four small files instead (tests).
"""

import io
import os
from typing import List, Optional, Sequence, Tuple

from ._photos import _synthetic, skimage_data_dir

# The colour photographs of skimage/data, in this order.
PHOTOS: Tuple[str, ...] = (
    "astronaut.png",
    "coffee.png",
    "chelsea.png",
    "rocket.jpg",
    "motorcycle_left.png",
    "retina.jpg",
    "hubble_deep_field.jpg",
    "ihc.png",
)
# (width, height): landscape and portrait 4:3, 3:2, 5:4 and a near-square one, 500 pixels on the long side as most of
# ImageNet's training images (its most common size is 500x375).
SIZES: Tuple[Tuple[int, int], ...] = ((500, 375), (375, 500), (500, 333), (500, 400), (442, 500))
QUICK_SIZES: Tuple[Tuple[int, int], ...] = ((96, 72), (72, 96))
QUALITY = 90
EXTENSIONS = (".jpg", ".jpeg")


def cache_dir() -> str:
    """Where the generated sets live."""
    root = os.environ.get("JITVISION_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "jitvision")
    return root


def _save_jpeg(image, path: str) -> None:  # image: PIL.Image.Image
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=QUALITY)
    partial = f"{path}.{os.getpid()}.part"  # written whole, then renamed: a concurrent reader never sees half a file
    with open(partial, "wb") as f:
        f.write(buffer.getvalue())
    os.replace(partial, path)


def generated(quick: bool = False) -> Tuple[str, str]:
    """``(folder, label)``: the default set, made on first use (files that already exist are kept)."""
    import PIL.Image

    source = skimage_data_dir()
    photos = [name for name in PHOTOS if source and os.path.isfile(os.path.join(source, name))]
    sizes = QUICK_SIZES if quick else SIZES
    if quick:
        photos = photos[:2]
    kind = "photos" if photos else "synthetic"
    folder = os.path.join(cache_dir(), f"e2e-{'quick' if quick else 'jpegs'}-{kind}-q{QUALITY}")
    os.makedirs(folder, exist_ok=True)
    names = [os.path.splitext(name)[0] for name in photos] or [f"synthetic{i}" for i in range(2 if quick else 8)]
    for index, name in enumerate(names):
        loaded = None
        for width, height in sizes:
            path = os.path.join(folder, f"{name}-{width}x{height}.jpg")
            if os.path.isfile(path):
                continue
            if loaded is None:
                if photos:
                    with PIL.Image.open(os.path.join(source, photos[index])) as opened:  # type: ignore[arg-type]
                        loaded = opened.convert("RGB")
                else:
                    loaded = PIL.Image.fromarray(_synthetic(512, 512, index).numpy())
            _save_jpeg(loaded.resize((width, height), PIL.Image.BICUBIC), path)
    what = "scikit-image's colour photographs" if photos else "SYNTHETIC images (scikit-image is not installed)"
    label = f"{what}, JPEG q{QUALITY} at {', '.join(f'{w}x{h}' for w, h in sizes)}"
    return folder, label


def list_jpegs(folder: str) -> List[str]:
    """Every ``.jpg``/``.jpeg`` file under ``folder`` (recursively, as ImageFolder finds them), sorted."""
    if not os.path.isdir(folder):
        raise ValueError(f"bench --e2e: {folder} is not a folder")
    found = []
    for root, _, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files if f.lower().endswith(EXTENSIONS)]
    if not found:
        raise ValueError(f"bench --e2e: no .jpg or .jpeg file under {folder}")
    return sorted(found)


def spread(paths: Sequence[str], count: int) -> List[str]:
    """At most ``count`` of ``paths``, evenly spaced (the per-image passes of a large folder)."""
    if len(paths) <= count:
        return list(paths)
    step = len(paths) / count
    return [paths[int(i * step)] for i in range(count)]


def describe(datas: Sequence[bytes], sizes: Optional[Sequence[Tuple[int, int]]] = None) -> str:
    """``"40 files, 31-76 kB"``, and the pixel sizes when given."""
    kb = sorted(len(d) // 1000 for d in datas)
    text = f"{len(datas)} files, {kb[0]}-{kb[-1]} kB"
    if sizes:
        text += ", " + ", ".join(sorted({f"{w}x{h}" for h, w in sizes}))
    return text
