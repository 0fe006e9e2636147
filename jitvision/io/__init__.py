"""Reading and decoding images: the drop-in for ``torchvision.io``'s image functions (``read_file``,
``decode_jpeg``, ``decode_png``, ``decode_image``, ``read_image``, ``ImageReadMode``), plus the EXIF helpers
``read_exif_orientation`` and ``apply_exif_orientation``. See docs/io.md."""

from ._exif import apply_exif_orientation, read_exif_orientation
from ._image import decode_image, decode_jpeg, decode_png, read_file, read_image
from ._mode import ImageReadMode

__all__ = [
    "ImageReadMode",
    "read_file",
    "decode_jpeg",
    "decode_png",
    "decode_image",
    "read_image",
    "read_exif_orientation",
    "apply_exif_orientation",
]
