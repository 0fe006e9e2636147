"""GaussianBlur and GaussianNoise."""

from numbers import Number
from typing import Any, Dict, List, Optional, Sequence, Union

import PIL.Image
import torch

from ..tv_tensors import wrap
from . import functional as F
from ._random import uniform
from ._transform import Transform
from .functional._blur import gaussian_blur_with_tensor_sigma, native_blur_takes
from .functional._dispatch import is_pure_tensor, is_tracing, unwrap
from .functional._noise import add_gaussian_noise


class GaussianBlur(Transform):
    """Blur images and videos with a Gaussian of ``kernel_size`` (an odd int or [kx, ky]) and a sigma drawn
    uniformly in ``sigma`` (a number: fixed; (min, max): drawn per call, per sample on batches); masks, boxes and
    keypoints pass through. The sigma is a tensor, so a compiled GaussianBlur stays random."""

    _functional = staticmethod(F.gaussian_blur)

    _draw_uses_size = False  # the draw ignores the size (make_params takes a sample without a sized leaf)

    def __init__(
        self,
        kernel_size: Union[int, Sequence[int]],
        sigma: Union[int, float, Sequence[float]] = (0.1, 2.0),
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(generator=generator)
        owner = type(self).__name__
        if isinstance(kernel_size, int) and not isinstance(kernel_size, bool):
            kernel_size = [kernel_size, kernel_size]
        elif isinstance(kernel_size, Sequence) and len(kernel_size) == 1:
            kernel_size = [kernel_size[0], kernel_size[0]]
        if (
            not isinstance(kernel_size, Sequence)
            or len(kernel_size) != 2
            or not all(isinstance(k, int) for k in kernel_size)
        ):
            raise ValueError(
                f"{owner}: Kernel size should be a tuple/list of two integers (or an int), got {kernel_size!r}"
            )
        if any(k <= 0 or k % 2 == 0 for k in kernel_size):
            raise ValueError(
                f"{owner}: Kernel size value should be an odd and positive number, got {list(kernel_size)}"
            )
        self.kernel_size: List[int] = [int(k) for k in kernel_size]
        if isinstance(sigma, Number) and not isinstance(sigma, bool):
            sigma = [float(sigma), float(sigma)]  # type: ignore[arg-type]
        elif isinstance(sigma, Sequence) and len(sigma) == 1:
            sigma = [float(sigma[0]), float(sigma[0])]
        if isinstance(sigma, Sequence) and len(sigma) != 2:
            raise ValueError(f"{owner}: If sigma is a sequence its length should be 1 or 2. Got {len(sigma)}")
        if not isinstance(sigma, Sequence) or not all(isinstance(s, Number) for s in sigma):
            raise TypeError(f"{owner}: sigma should be a number or a sequence of numbers (min, max), got {sigma!r}")
        if not 0.0 < sigma[0] <= sigma[1]:
            raise ValueError(
                f"{owner}: sigma values should be positive and of the form (min, max), got {list(sigma)}"
            )
        self.sigma: List[float] = [float(sigma[0]), float(sigma[1])]

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"sigma": self._sigmas(batch_shape, device)}

    def _sigmas(self, shape: List[int], device: torch.device) -> torch.Tensor:
        low, high = self.sigma[0], self.sigma[1]
        return uniform(shape, self._rng(), device, torch.float64).mul_(high - low).add_(low)  # in place: fresh

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # One plain tensor the C++ blur takes: _draw's draw, then the op itself (no parameter dict, no module call,
        # no dispatch checks, which dominate a small image's call). Anything else takes the generic path.
        if not native_blur_takes(image) or image.numel() == 0:
            return None
        sigma = self._sigmas([], image.device)
        return torch.ops.jitvision_native.gaussian_blur.default(image, self.kernel_size, sigma, sigma)

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's ``sigma``: ``[sigma_x, sigma_y]``, two equal Python floats (a ``[2]`` float64 tensor under
        torch.compile/export)."""
        sigma = drawn["sigma"]
        if is_tracing():
            return {"sigma": torch.stack([sigma, sigma])}
        value = float(sigma)
        return {"sigma": [value, value]}

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        sigma = params["sigma"]
        if not torch.jit.is_scripting() and not isinstance(sigma, torch.Tensor):  # make_params' [x, y] (Python)
            return F.gaussian_blur(inpt, self.kernel_size, [float(sigma[0]), float(sigma[1])])
        if not torch.jit.is_scripting() and sigma.ndim == 1:  # make_params' [x, y] traced: equal unless edited
            sigma = sigma[0]
        if not torch.jit.is_scripting() and native_blur_takes(inpt):  # the drawn tensor straight to the C++ op
            return gaussian_blur_with_tensor_sigma(inpt, self.kernel_size, sigma)
        if not is_tracing() and sigma.ndim == 0:  # scripted, PIL: a Python float, torchvision's path
            value = float(sigma)
            return F.gaussian_blur(inpt, self.kernel_size, [value, value])
        return gaussian_blur_with_tensor_sigma(inpt, self.kernel_size, sigma)

    def transform_batch(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return gaussian_blur_with_tensor_sigma(inpt, self.kernel_size, params["sigma"])

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, sigma={self.sigma}"


class GaussianNoise(Transform):
    """Add Gaussian noise of ``mean`` and ``sigma`` (in [0, 1] units, scaled by 255 for uint8) to images and
    videos, clipped to the dtype's range with ``clip``. Every element draws its own noise (per sample on batches,
    and live under torch.compile). PIL images are rejected."""

    _functional = staticmethod(F.gaussian_noise)

    def __init__(
        self, mean: float = 0.0, sigma: float = 0.1, clip: bool = True, *, generator: Optional[torch.Generator] = None
    ) -> None:
        super().__init__(generator=generator)
        if sigma < 0:
            raise ValueError(f"GaussianNoise: sigma shouldn't be negative, got {sigma}")
        self.mean = float(mean)
        self.sigma = float(sigma)
        self.clip = bool(clip)

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        if any(isinstance(inpt, PIL.Image.Image) for inpt in flat_inputs):
            raise TypeError("GaussianNoise: PIL images are not supported; convert them to tensors first (ToImage)")

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return add_gaussian_noise(inpt, self.mean, self.sigma, self.clip, self._rng())
        return wrap(add_gaussian_noise(unwrap(inpt), self.mean, self.sigma, self.clip, self._rng()), like=inpt)

    def extra_repr(self) -> str:
        return f"mean={self.mean}, sigma={self.sigma}, clip={self.clip}"
