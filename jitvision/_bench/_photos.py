"""The benchmark's photographs: the sample photos scikit-image ships inside its wheel, decoded once.

Only files stored in the installed ``skimage/data`` folder are read (no download, and skimage itself is not
imported: the files are located with ``importlib`` and decoded with Pillow). Without scikit-image the loader
falls back to synthetic images of the same sizes, and says so in its label.
"""

import importlib.util
import os
from typing import List, Optional, Sequence, Tuple

import torch

# (name, file in skimage/data, height, width): colour photographs, in the order used. The sizes are what the
# synthetic fallback reproduces.
PHOTOS: Tuple[Tuple[str, str, int, int], ...] = (
    ("astronaut", "astronaut.png", 512, 512),
    ("coffee", "coffee.png", 400, 600),
    ("chelsea", "chelsea.png", 300, 451),
    ("rocket", "rocket.jpg", 427, 640),
)


# What ``--per-transform`` uses unless told otherwise: three sizes, i.e. three compiles per jitvision row (the
# compiles dominate the run's time); ``--photos all`` adds rocket.
DEFAULT_PHOTOS: Tuple[str, ...] = ("astronaut", "coffee", "chelsea")


def skimage_data_dir() -> Optional[str]:
    """The ``data`` folder of the installed scikit-image, or None when it is not installed."""
    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "data")
        if os.path.isdir(path):
            return path
    return None


def _decode(path: str) -> torch.Tensor:
    import numpy as np
    import PIL.Image

    with PIL.Image.open(path) as image:
        array = np.asarray(image.convert("RGB"), dtype=np.uint8)
    return torch.from_numpy(array.copy())  # HWC uint8, contiguous


def _synthetic(height: int, width: int, seed: int) -> torch.Tensor:
    """A smooth random colour image (low-frequency noise upsampled, plus a little grain): HWC uint8."""
    gen = torch.Generator().manual_seed(seed)
    coarse = torch.rand(1, 3, max(2, height // 32), max(2, width // 32), generator=gen)
    smooth = torch.nn.functional.interpolate(coarse, size=(height, width), mode="bilinear", align_corners=False)
    grain = torch.rand(1, 3, height, width, generator=gen) * 0.1
    image = ((smooth * 0.9 + grain).clamp(0, 1) * 255).round().to(torch.uint8)[0]
    return image.permute(1, 2, 0).contiguous()


def load_photos(
    names: Optional[Sequence[str]] = None, synthetic: bool = False
) -> Tuple[List[torch.Tensor], List[str], str]:
    """``(images, names, label)``: HWC uint8 tensors. ``label`` says where they came from ("skimage X.Y sample
    photographs" or "synthetic ..., scikit-image not installed")."""
    wanted = [p for p in PHOTOS if names is None or p[0] in names]
    if not wanted:
        raise ValueError(f"load_photos: no photograph among {names}; choose from {[p[0] for p in PHOTOS]}")
    folder = None if synthetic else skimage_data_dir()
    if folder is not None and all(os.path.isfile(os.path.join(folder, p[1])) for p in wanted):
        images = [_decode(os.path.join(folder, p[1])) for p in wanted]
        return images, [p[0] for p in wanted], f"scikit-image sample photographs ({folder})"
    reason = "requested" if synthetic else "scikit-image is not installed or lacks the files"
    images = [_synthetic(h, w, seed) for seed, (_, _, h, w) in enumerate(wanted)]
    return images, [f"synthetic-{p[0]}" for p in wanted], f"SYNTHETIC images of the photos' sizes ({reason})"


def as_chw(images: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    """CHW uint8, contiguous (torchvision and jitvision)."""
    return [image.permute(2, 0, 1).contiguous() for image in images]


def as_float_chw(images: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    """CHW float32 in [0, 1], contiguous (kornia)."""
    return [image.permute(2, 0, 1).to(torch.float32).div(255).contiguous() for image in images]


def as_hwc_numpy(images: Sequence[torch.Tensor]) -> list:
    """HWC uint8 numpy arrays, C-contiguous (albumentations)."""
    return [image.contiguous().numpy().copy() for image in images]
