"""Functionals (dispatch on the input's type) and their kernels: the drop-in for
``torchvision.transforms.v2.functional``."""

from ._dispatch import register_kernel
from ._geometry._flip import (
    hflip,
    horizontal_flip,
    horizontal_flip_bounding_boxes,
    horizontal_flip_image,
    horizontal_flip_image_pil,
    horizontal_flip_keypoints,
    horizontal_flip_mask,
    horizontal_flip_video,
    vertical_flip,
    vertical_flip_bounding_boxes,
    vertical_flip_image,
    vertical_flip_image_pil,
    vertical_flip_keypoints,
    vertical_flip_mask,
    vertical_flip_video,
    vflip,
)
from ._meta import (
    clamp_bounding_boxes,
    clamp_keypoints,
    convert_bounding_box_format,
    get_size,
)
