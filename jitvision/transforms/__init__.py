"""Transform classes: the drop-in for ``torchvision.transforms.v2``."""

from . import functional
from ._geometry._flip import RandomHorizontalFlip, RandomVerticalFlip
from ._transform import RandomApplyTransform, Transform
