"""Grayscale, RandomGrayscale, RGB, RandomInvert, RandomPosterize, RandomSolarize, RandomAutocontrast,
RandomEqualize, RandomAdjustSharpness and RandomChannelPermutation."""

from typing import Any, Dict, List, Optional

import torch

from ... import _native
from ..._eager_ops import entry
from .. import functional as F
from .._coin import eager_coin_then_apply
from .._random import uniform
from .._transform import RandomApplyTransform, Transform
from .._utils import is_image_like, require_image
from ..functional._color import _native_u8
from ..functional._color._grayscale import _permute_channels
from ..functional._color._pointwise import solarize_cut
from ..functional._dispatch import is_pure_tensor, is_tracing
from ._common import channels_of, native_point_coin, on_leaf, permutation_from_keys


class Grayscale(Transform):
    """Convert images to grayscale with ``num_output_channels`` (1 or 3) channels; videos pass through, as in
    torchvision (``rgb_to_grayscale`` has no video kernel)."""

    _functional = staticmethod(F.rgb_to_grayscale)

    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels}")
        self.num_output_channels = num_output_channels

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.rgb_to_grayscale(inpt, num_output_channels=self.num_output_channels)

    def extra_repr(self) -> str:
        return f"num_output_channels={self.num_output_channels}"


class RandomGrayscale(RandomApplyTransform):
    """Convert to grayscale with probability ``p``, keeping the number of channels (videos pass through)."""

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        require_image(flat_inputs, type(self).__name__)

    _functional = staticmethod(F.rgb_to_grayscale)

    def __init__(self, p: float = 0.1, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(p=p, generator=generator)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting():
            return F.rgb_to_grayscale(inpt, num_output_channels=inpt.shape[-3])
        return F.rgb_to_grayscale(inpt, num_output_channels=channels_of(inpt))


class RGB(Transform):
    """Convert 1-channel images to 3 channels (images with 3 or more channels are left as they are)."""

    _functional = staticmethod(F.grayscale_to_rgb)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.grayscale_to_rgb(inpt)


class RandomInvert(RandomApplyTransform):
    """Invert intensities with probability ``p``."""

    _functional = staticmethod(F.invert)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        return native_point_coin(self, image, _native_u8.INVERT, 0)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.invert(inpt)


class RandomPosterize(RandomApplyTransform):
    """Keep the ``bits`` most significant bits of each intensity with probability ``p``."""

    _functional = staticmethod(F.posterize)

    def __init__(self, bits: int, p: float = 0.5, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(p=p, generator=generator)
        if not isinstance(bits, int) or not (0 <= bits <= 8):
            raise TypeError(f"RandomPosterize: bits must be an integer in [0, 8], got {bits!r}")
        self.bits = bits

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        if self.bits >= 8:  # the identity (a copy): the coin on the host, then posterize's copy
            return eager_coin_then_apply(self, image)
        return native_point_coin(self, image, _native_u8.POSTERIZE, (0xFF << (8 - self.bits)) & 0xFF)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.posterize(inpt, bits=self.bits)

    def extra_repr(self) -> str:
        return f"bits={self.bits}, p={self.p}"


class RandomSolarize(RandomApplyTransform):
    """Invert the pixels at or above ``threshold`` with probability ``p``."""

    _functional = staticmethod(F.solarize)

    def __init__(self, threshold: float, p: float = 0.5, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(p=p, generator=generator)
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise TypeError(f"RandomSolarize: threshold must be a number, got {threshold!r}")
        self.threshold = float(threshold)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        if not self.threshold <= 255:  # solarize's error for uint8 images (and NaN's no-op), after the host coin
            return eager_coin_then_apply(self, image)
        return native_point_coin(self, image, _native_u8.SOLARIZE, solarize_cut(self.threshold))

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.solarize(inpt, threshold=self.threshold)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, p={self.p}"


class RandomAutocontrast(RandomApplyTransform):
    """Stretch each channel to the full intensity range with probability ``p``."""

    _functional = staticmethod(F.autocontrast)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.autocontrast(inpt)


class RandomEqualize(RandomApplyTransform):
    """Equalize each channel's histogram with probability ``p``."""

    _functional = staticmethod(F.equalize)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.equalize(inpt)


class RandomAdjustSharpness(RandomApplyTransform):
    """Adjust the sharpness by ``sharpness_factor`` with probability ``p``."""

    _functional = staticmethod(F.adjust_sharpness)

    def __init__(self, sharpness_factor: float, p: float = 0.5, *, generator: Optional[torch.Generator] = None) -> None:
        super().__init__(p=p, generator=generator)
        if isinstance(sharpness_factor, bool) or not isinstance(sharpness_factor, (int, float)):
            raise TypeError(f"RandomAdjustSharpness: sharpness_factor must be a number, got {sharpness_factor!r}")
        if sharpness_factor < 0:
            raise ValueError(f"RandomAdjustSharpness: sharpness_factor must be non-negative, got {sharpness_factor}")
        self.sharpness_factor = float(sharpness_factor)

    def _apply(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        return F.adjust_sharpness(inpt, sharpness_factor=self.sharpness_factor)

    def extra_repr(self) -> str:
        return f"sharpness_factor={self.sharpness_factor}, p={self.p}"


# The eager entry point of jitvision_native::permute_channels (None without it).
_PERMUTE_CHANNELS = entry("permute_channels") if _native.CHANNELS else None


class RandomChannelPermutation(Transform):
    """Permute the channels randomly (every permutation equally likely; one per sample on batches)."""

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        require_image(flat_inputs, type(self).__name__)

    _functional = staticmethod(F.permute_channels)

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        return {"keys": uniform(batch_shape + [16], self._rng(), device)}

    @torch.jit.unused
    def _public_params(self, drawn: Dict[str, Any], flat_inputs: List[Any], height: int, width: int) -> Dict[str, Any]:
        """torchvision's key ``permutation``: an int64 ``[C]`` tensor (in eager and traced code alike)."""
        image = next(leaf for leaf in flat_inputs if is_image_like(leaf) or is_pure_tensor(leaf))
        return {"permutation": permutation_from_keys(drawn["keys"], channels_of(image), "RandomChannelPermutation")}

    @torch.jit.unused
    def _transform_public(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        """``transform`` with ``make_params``' torchvision-keyed permutation (maybe edited by a subclass)."""
        permutation = params["permutation"]
        if not isinstance(permutation, torch.Tensor):
            permutation = torch.tensor(list(permutation), dtype=torch.int64)
        if isinstance(inpt, torch.Tensor) and is_pure_tensor(inpt):
            return _permute_channels(inpt, permutation.to(torch.int64))
        pil_args = (permutation.tolist(),) if not is_tracing() else ()
        return on_leaf(inpt, _permute_channels, (permutation.to(torch.int64),), F.permute_channels, pil_args)

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if "keys" not in params:  # make_params' torchvision keys
            return self._transform_public(inpt, params)
        return self._permute(inpt, params)

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # _draw's keys, then the permutation: what the generic path does, without nn.Module's call and
        # _forward_sample, which cost more than the permutation itself on a small image
        if image.ndim < 3:
            return None  # the kernels' error: the generic path
        keys = uniform([16], self._rng(), image.device)
        permutation = permutation_from_keys(keys, image.shape[-3], "RandomChannelPermutation")
        if _PERMUTE_CHANNELS is not None and not image.requires_grad:
            return _PERMUTE_CHANNELS(image, permutation)  # the native op, without call_custom_op's views
        return _permute_channels(image, permutation)

    def _permute(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            perm = permutation_from_keys(params["keys"], inpt.shape[-3], "RandomChannelPermutation")
            return _permute_channels(inpt, perm)
        return self._permute_leaf(inpt, params)

    @torch.jit.unused
    def _permute_leaf(self, inpt: Any, params: Dict[str, torch.Tensor]) -> Any:
        perm = permutation_from_keys(params["keys"], channels_of(inpt), "RandomChannelPermutation")
        pil_args = (perm.tolist(),) if perm.ndim == 1 and not torch.compiler.is_compiling() else ()
        return on_leaf(inpt, _permute_channels, (perm,), F.permute_channels, pil_args)


__all__ = [
    "Grayscale",
    "RGB",
    "RandomAdjustSharpness",
    "RandomAutocontrast",
    "RandomChannelPermutation",
    "RandomEqualize",
    "RandomGrayscale",
    "RandomInvert",
    "RandomPosterize",
    "RandomSolarize",
]
