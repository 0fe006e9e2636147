"""Transform classes: the drop-in for ``torchvision.transforms.v2``."""

from . import functional
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
from ._container import Compose
from ._geometry._crop import CenterCrop, RandomCrop
from ._geometry._five_crop import FiveCrop, TenCrop
from ._geometry._flip import RandomHorizontalFlip, RandomVerticalFlip
from ._geometry._pad import Pad
from ._geometry._resize import RandomResizedCrop, Resize
from ._misc import Identity, Lambda, Normalize, ToDtype
from ._transform import RandomApplyTransform, Transform
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor
from .functional._geometry._interpolation import InterpolationMode
