"""``torchvision.transforms.v2.functional._utils`` for code written against torchvision: the fill type aliases that
custom transforms annotate with, ``is_pure_tensor``, and the kernel registry under torchvision's internal names
(``_get_kernel``, ``_register_kernel_internal``), which are ``get_kernel`` and ``register_kernel`` of
``_dispatch``. docs/migration-helpers.md lists who uses them."""

from typing import List, Optional, Sequence, Union

from ._dispatch import get_kernel as _get_kernel
from ._dispatch import is_pure_tensor
from ._dispatch import register_kernel as _register_kernel_internal

_FillType = Union[int, float, Sequence[int], Sequence[float], None]
_FillTypeJIT = Optional[List[float]]

__all__ = ["_FillType", "_FillTypeJIT", "_get_kernel", "_register_kernel_internal", "is_pure_tensor"]
