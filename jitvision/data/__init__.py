"""Feeding training: ``Loader`` turns a dataset of encoded images into batches decoded and transformed in parallel."""

from ._loader import Loader

__all__ = ["Loader"]
