"""Transform classes: the drop-in for ``torchvision.transforms.v2``."""

from . import functional
from ._auto_augment_policies import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide
from ._color._jitter import ColorJitter, RandomPhotometricDistort
from ._color._simple import (
    RGB,
    Grayscale,
    RandomAdjustSharpness,
    RandomAutocontrast,
    RandomChannelPermutation,
    RandomEqualize,
    RandomGrayscale,
    RandomInvert,
    RandomPosterize,
    RandomSolarize,
)
from ._compile import compile
from ._container import Compose
from ._deprecated import ConvertImageDtype, ToTensor
from ._erasing import RandomErasing
from ._filters import GaussianBlur, GaussianNoise
from ._geometry._affine import RandomAffine
from ._geometry._crop import CenterCrop, RandomCrop
from ._geometry._elastic import ElasticTransform
from ._geometry._five_crop import FiveCrop, TenCrop
from ._geometry._flip import RandomHorizontalFlip, RandomVerticalFlip
from ._geometry._iou_crop import RandomIoUCrop
from ._geometry._pad import Pad
from ._geometry._perspective import RandomPerspective
from ._geometry._resize import RandomResizedCrop, Resize
from ._geometry._rotation import RandomRotation
from ._geometry._scale import RandomResize, RandomShortestSize, ScaleJitter
from ._geometry._zoom_out import RandomZoomOut
from ._jpeg import JPEG
from ._meta import ClampBoundingBoxes, ClampKeyPoints, ConvertBoundingBoxFormat, SetClampingMode
from ._misc import Identity, Lambda, Normalize, ToDtype
from ._mix import CutMix, MixUp
from ._query import check_type, get_bounding_boxes, get_keypoints, has_all, has_any, query_chw, query_size
from ._random_containers import RandomApply, RandomChoice, RandomOrder
from ._sanitize import SanitizeBoundingBoxes, SanitizeKeyPoints
from ._script_fusion import script_native_ops
from ._temporal import LinearTransformation, UniformTemporalSubsample
from ._transform import RandomApplyTransform, Transform
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor
from .functional._geometry._interpolation import InterpolationMode
