"""jitvision: torchvision.transforms.v2-compatible transforms that work eager, scripted, compiled and exported."""

from . import io, transforms, tv_tensors
from ._native import native_library_path

__version__ = "0.1.0"
__all__ = ["io", "transforms", "tv_tensors", "native_library_path", "__version__"]
