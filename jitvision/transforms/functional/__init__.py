"""Functionals (dispatch on the input's type) and their kernels: the drop-in for
``torchvision.transforms.v2.functional``."""

from . import _utils  # noqa: F401  (torchvision.transforms.v2.functional._utils, for code that reaches into it)
from ._blur import gaussian_blur, gaussian_blur_image, gaussian_blur_image_pil, gaussian_blur_video
from ._color._adjust import (
    adjust_brightness,
    adjust_brightness_image,
    adjust_brightness_image_pil,
    adjust_brightness_video,
    adjust_contrast,
    adjust_contrast_image,
    adjust_contrast_image_pil,
    adjust_contrast_video,
    adjust_gamma,
    adjust_gamma_image,
    adjust_gamma_image_pil,
    adjust_gamma_video,
    adjust_saturation,
    adjust_saturation_image,
    adjust_saturation_image_pil,
    adjust_saturation_video,
    adjust_sharpness,
    adjust_sharpness_image,
    adjust_sharpness_image_pil,
    adjust_sharpness_video,
)
from ._color._equalize import equalize, equalize_image, equalize_image_pil, equalize_video
from ._color._grayscale import (
    grayscale_to_rgb,
    grayscale_to_rgb_image,
    grayscale_to_rgb_image_pil,
    permute_channels,
    permute_channels_image,
    permute_channels_image_pil,
    permute_channels_video,
    rgb_to_grayscale,
    rgb_to_grayscale_image,
    rgb_to_grayscale_image_pil,
    to_grayscale,
)
from ._color._hue import adjust_hue, adjust_hue_image, adjust_hue_image_pil, adjust_hue_video
from ._color._pointwise import (
    autocontrast,
    autocontrast_image,
    autocontrast_image_pil,
    autocontrast_video,
    invert,
    invert_image,
    invert_image_pil,
    invert_video,
    posterize,
    posterize_image,
    posterize_image_pil,
    posterize_video,
    solarize,
    solarize_image,
    solarize_image_pil,
    solarize_video,
)
from ._deprecated import get_image_size, to_tensor
from ._dispatch import is_pure_tensor
from ._dispatch import publish_functionals as _publish_functionals
from ._dispatch import register_user_kernel as register_kernel
from ._erase import erase, erase_image, erase_image_pil, erase_video
from ._geometry._affine import (
    affine,
    affine_bounding_boxes,
    affine_image,
    affine_image_pil,
    affine_keypoints,
    affine_mask,
    affine_video,
)
from ._geometry._crop import (
    center_crop,
    center_crop_bounding_boxes,
    center_crop_image,
    center_crop_image_pil,
    center_crop_keypoints,
    center_crop_mask,
    center_crop_video,
    crop,
    crop_bounding_boxes,
    crop_image,
    crop_image_pil,
    crop_keypoints,
    crop_mask,
    crop_video,
)
from ._geometry._elastic import (
    elastic,
    elastic_bounding_boxes,
    elastic_image,
    elastic_image_pil,
    elastic_keypoints,
    elastic_mask,
    elastic_transform,
    elastic_video,
)
from ._geometry._five_crop import (
    five_crop,
    five_crop_image,
    five_crop_image_pil,
    five_crop_video,
    ten_crop,
    ten_crop_image,
    ten_crop_image_pil,
    ten_crop_video,
)
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
from ._geometry._interpolation import InterpolationMode
from ._geometry._pad import (
    pad,
    pad_bounding_boxes,
    pad_image,
    pad_image_pil,
    pad_keypoints,
    pad_mask,
    pad_video,
)
from ._geometry._perspective import (
    perspective,
    perspective_bounding_boxes,
    perspective_image,
    perspective_image_pil,
    perspective_keypoints,
    perspective_mask,
    perspective_video,
)
from ._geometry._resize import (
    resize,
    resize_bounding_boxes,
    resize_image,
    resize_image_pil,
    resize_keypoints,
    resize_mask,
    resize_video,
)
from ._geometry._resized_crop import (
    resized_crop,
    resized_crop_bounding_boxes,
    resized_crop_image,
    resized_crop_image_pil,
    resized_crop_keypoints,
    resized_crop_mask,
    resized_crop_video,
)
from ._geometry._rotate import (
    rotate,
    rotate_bounding_boxes,
    rotate_image,
    rotate_image_pil,
    rotate_keypoints,
    rotate_mask,
    rotate_video,
)
from ._jpeg import jpeg, jpeg_image, jpeg_image_pil, jpeg_video
from ._meta import (
    clamp_bounding_boxes,
    clamp_keypoints,
    convert_bounding_box_format,
    get_size,
    get_size_image,
)
from ._misc import (
    convert_image_dtype,
    normalize,
    normalize_image,
    normalize_video,
    to_dtype,
    to_dtype_image,
    to_dtype_video,
)
from ._noise import gaussian_noise, gaussian_noise_image, gaussian_noise_video
from ._sanitize import sanitize_bounding_boxes, sanitize_keypoints
from ._size import (
    get_dimensions,
    get_dimensions_image,
    get_dimensions_video,
    get_image_num_channels,
    get_num_channels,
    get_num_channels_image,
    get_num_channels_video,
    get_num_frames,
    get_num_frames_video,
    get_size_bounding_boxes,
    get_size_keypoints,
    get_size_mask,
    get_size_video,
)
from ._temporal import uniform_temporal_subsample, uniform_temporal_subsample_video
from ._type_conversion import pil_to_tensor, to_image, to_pil_image, to_pure_tensor

# register_kernel checks a functional against this namespace; _dispatch cannot import this package (it imports it)
_publish_functionals(globals())
