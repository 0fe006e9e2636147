"""The PIL path of Compose: a PIL image that the pipeline turns into a tensor anyway runs on the native kernels.

A ``Compose`` whose steps, up to a ``PILToTensor`` or ``ToImage``, all transform tensors as they transform PIL
images (jitvision's own geometry, colour, blur and augmentation-policy transforms, and containers of them) takes
a PIL image as a tensor at its first step instead: a ``[C, H, W]`` view of the image's own pixel memory (no copy,
see ``pil_view``), which the steps read as a channels-last image (the native resize splits out only the crop it
needs). The converter then has nothing left to convert: ``PILToTensor`` passes the tensor through, and for
``ToImage`` the view is an ``Image`` from the start, so the output has the type torchvision's pipeline returns.
A transform called alone on a PIL image, and any pipeline with a step that needs PIL before the conversion (a
``Lambda``, a plain callable, ``ToDtype`` or ``Normalize``, which pass PIL images through), keeps PIL.

Deliberate difference: the geometric steps resample with torch's kernels (those of a tensor pipeline) rather
than with PIL's; docs/pil-path.md gives the measured difference per pixel. The draws are the same (the
parameters depend on the size only), so a seed gives the same crop and flip either way.

Why not ``numpy.asarray(image)``: Pillow builds it from ``tobytes()``, a packing copy of the whole image
(~200 us for a 500x375 photograph, as long as the native crop-resize-normalize that follows). Pillow exports its
pixels through the Arrow C data interface without a copy: an RGB image is stored as 4 bytes per pixel (the 4th
unused), so the view has strides ``(1, 4 * W, 4)``. Images Pillow does not hold in one block (very large ones), and
modes other than RGB and L, take the copy.
"""

import ctypes
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import PIL.Image
import torch

from ..tv_tensors import Image


class _ArrowArray(ctypes.Structure):
    pass


_ArrowArray._fields_ = [  # the Arrow C data interface's ArrowArray, in its declared order
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(_ArrowArray))),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# mode -> (channels held per pixel in memory, channels of the tensor)
_VIEWABLE = {"RGB": (4, 3), "RGBA": (4, 4), "L": (1, 1)}


class _ExportedPixels:
    """Owns the exported Arrow array (its capsule releases Pillow's reference when collected) and describes the
    pixel bytes to numpy, which keeps this object alive as long as any array or tensor made from it."""

    def __init__(self, capsule: Any, address: int, nbytes: int) -> None:
        self._capsule = capsule
        # Declared writable so that torch.from_numpy takes it without a warning: nothing here writes into it (the
        # steps allocate their outputs, and Compose copies a result that still aliases it).
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1", "data": (address, False)}


def _arrow_view(image: PIL.Image.Image, stored: int, channels: int) -> Optional[torch.Tensor]:
    try:
        _, capsule = image.__arrow_c_array__()
    except (AttributeError, ValueError):  # an older Pillow; an image not held in one block
        return None
    array = ctypes.cast(_capsule_pointer(capsule, b"arrow_array"), ctypes.POINTER(_ArrowArray)).contents
    if stored > 1:  # a fixed-size list of `stored` bytes per pixel: the bytes are the child's data buffer
        if array.n_children != 1:
            return None
        values = array.children[0].contents
        offset = (array.offset * stored) + values.offset
    else:
        values = array
        offset = array.offset
    if values.n_buffers != 2 or not values.buffers[1]:
        return None
    height, width = image.height, image.width
    nbytes = height * width * stored
    flat = torch.from_numpy(np.asarray(_ExportedPixels(capsule, values.buffers[1] + offset, nbytes)))
    return flat.as_strided((channels, height, width), (1, width * stored, stored))


def pil_view(image: PIL.Image.Image) -> torch.Tensor:
    """``image`` (RGB, RGBA or L) as a uint8 ``[C, H, W]`` tensor over Pillow's own memory where Pillow exports it
    (read only: the caller must not write into it), else over a copy (``numpy.asarray``)."""
    layout = _VIEWABLE.get(image.mode)
    if layout is None:
        raise ValueError(f"pil_view: expected an RGB, RGBA or L image, got mode {image.mode!r}")
    view = _arrow_view(image, *layout)
    if view is not None:
        return view
    pixels = torch.from_numpy(np.array(image, copy=True))
    return pixels.view(image.height, image.width, layout[1]).permute(2, 0, 1)


def _converter_kind(step: Any) -> Optional[str]:
    from ._type_conversion import PILToTensor, ToImage

    if type(step) is PILToTensor:
        return "tensor"
    if type(step) is ToImage:
        return "image"
    return None


def _same_on_tensors(step: Any) -> bool:
    """Whether ``step`` does to a uint8 image tensor what it does to a PIL image (up to resampling): jitvision's own
    transforms that transform PIL images (ToDtype, Normalize and the converters pass them through or change their
    type), and containers of such steps. A Lambda, a plain callable or a user's subclass may need PIL."""
    from ._deprecated import ToTensor
    from ._misc import Lambda
    from ._transform import Transform
    from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor

    if getattr(step, "_holds_steps", False):  # Compose, RandomApply/RandomChoice/RandomOrder
        return all(_same_on_tensors(child) for child in step.transforms)
    # Lambdas may need PIL; the type conversions change what a PIL image becomes (a converter nested in a
    # container is not the pipeline's conversion point).
    conversions = (ToTensor, ToPILImage, PILToTensor, ToImage, ToPureTensor)
    if not isinstance(step, Transform) or isinstance(step, (Lambda, *conversions)):
        return False
    if not type(step).__module__.startswith("jitvision."):
        return False
    if not issubclass(PIL.Image.Image, step._transformed_types):
        return False
    return step._supports(PIL.Image.Image)


def plan(transforms: Sequence[Any], sample: Any) -> Optional[Tuple[List[Any], str]]:
    """``(steps to run on the tensor, "tensor" or "image")`` when ``sample`` (a PIL image) can be converted at the
    first step of ``transforms``, else None."""
    if not isinstance(sample, PIL.Image.Image) or sample.mode not in ("RGB", "L"):
        return None
    for position, step in enumerate(transforms):
        kind = _converter_kind(step)
        if kind is not None:
            return list(transforms[:position]) + list(transforms[position + 1 :]), kind
        if not _same_on_tensors(step):
            return None
    return None


def own(output: Any, view: torch.Tensor) -> Any:
    """``output``, copied if it still shares memory with ``view`` (a pipeline of crops and flips may return a view
    of the PIL image's pixels, which the caller would then hold, or write into)."""
    if isinstance(output, torch.Tensor) and output.untyped_storage().data_ptr() == view.untyped_storage().data_ptr():
        return output.clone(memory_format=torch.contiguous_format)
    return output


def as_input(image: PIL.Image.Image, kind: str) -> Tuple[torch.Tensor, torch.Tensor]:
    """``(what the steps get, the view)``: the view, as an ``Image`` for ``ToImage``."""
    view = pil_view(image)
    return (view.as_subclass(Image) if kind == "image" else view), view
