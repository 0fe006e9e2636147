"""jitvision: torchvision.transforms.v2-compatible transforms that work eager, scripted, compiled and exported."""

from . import transforms, tv_tensors

__version__ = "0.1.0"
__all__ = ["transforms", "tv_tensors", "__version__"]
