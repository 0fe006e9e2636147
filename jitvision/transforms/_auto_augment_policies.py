"""The four policies: AutoAugment, RandAugment, TrivialAugmentWide and AugMix. Each says which operations it draws
from and how (``_draw_batch``); drawing, the native steps and applying are ``_auto_augment._AutoAugmentBase``'s, the
operations themselves ``_augment_ops``'s."""

import enum
import struct
from typing import Any, Dict, List, Optional, Union

import PIL.Image
import torch

from . import _stages
from . import functional as F
from ._augment_ops import (
    parse_policy,
)
from ._auto_augment import _AutoAugmentBase
from ._random import uniform
from .functional._color._utils import check_image
from .functional._dispatch import (
    device_copy,
)
from .functional._geometry._interpolation import InterpolationMode
from .functional._geometry._warp import fill_as_list


class AutoAugmentPolicy(enum.Enum):
    """The AutoAugment policies learned on three datasets (torchvision's values)."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


_SPACE_AUTO = ["ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
               "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize"]


def _randint(u: torch.Tensor, n: int) -> torch.Tensor:
    """Uniform integers in [0, n) from uniforms in [0, 1)."""
    return (u * n).floor().to(torch.int64).clamp(max=n - 1)


_FLOAT32 = struct.Struct("f")


def _randint_host(u: float, n: int) -> int:
    """``_randint`` of one float32 uniform read on the host: the float32 product (the exact double product rounded
    to float32, as torch computes ``u * n``), floored, clamped."""
    product = _FLOAT32.unpack(_FLOAT32.pack(u * n))[0]
    return min(int(product), n - 1)


def _dirichlet(
    alpha: float, shape: List[int], generator: Optional[torch.Generator], device: torch.device
) -> torch.Tensor:
    """Symmetric Dirichlet(``alpha``) rows of ``shape`` (float32) as normalised Gamma(``alpha``, 1) draws: the
    distribution of torchvision's ``torch._sample_dirichlet`` (which normalises Gamma draws too), but with ops that
    have fake kernels for a symbolic batch size (``_sample_dirichlet`` has none: compile with dynamic shapes and
    export failed on batches)."""
    concentration = torch.full(shape, alpha, device=device)
    if generator is None:
        gamma = torch._standard_gamma(concentration)
    else:
        gamma = torch._standard_gamma(concentration, generator=generator)
    return gamma / gamma.sum(-1, keepdim=True)


class AutoAugment(_AutoAugmentBase):
    """AutoAugment (Cubuk et al., 2018): one of the policy's 25 sub-policies per call, each two operations applied
    with their probability and magnitude bin (of 10), signed at random. Arguments as torchvision's."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.AUGMENT_POLICY

    __jit_ignored_attributes__ = _AutoAugmentBase.__jit_ignored_attributes__ + ["policy", "_policy_rows"]

    def __init__(
        self,
        policy: Any = AutoAugmentPolicy.IMAGENET,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
        fill: Any = None,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        value = getattr(policy, "value", policy)
        if value not in ("imagenet", "cifar10", "svhn"):
            raise ValueError(f"AutoAugment: the provided policy {policy!r} is not recognized")
        super().__init__(_SPACE_AUTO + ["Invert"], "auto", 10, interpolation, fill, generator)
        self.policy = AutoAugmentPolicy(value)
        table = parse_policy(value)
        self._policy_ops = torch.tensor([[step[0] for step in row] for row in table], dtype=torch.int64)
        self._policy_p = torch.tensor([[step[1] for step in row] for row in table], dtype=torch.float32)
        self._policy_bins = torch.tensor([[step[2] for step in row] for row in table], dtype=torch.int64)
        self._num_policies: int = len(table)
        # float32 probabilities read back, so the host comparison is the tensor one
        p = self._policy_p.tolist()
        self._policy_rows = [[(s[0], p[i][k], s[2]) for k, s in enumerate(row)] for i, row in enumerate(table)]
        space = [value for row in table for step in row for value in (step[0], step[2])]
        self._set_native_spec(0, 2, 0, space, [step[1] for row in table for step in row])

    def _draw_rows(self, batch_size: int, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        u = uniform([batch_size, 5], self._rng(), device)
        policy = _randint(u[:, 0], self._num_policies)
        ops = device_copy(self._policy_ops, device)[policy]
        bins = device_copy(self._policy_bins, device)[policy]
        applied = u[:, 1:3] <= device_copy(self._policy_p, device)[policy]
        ops = torch.where(applied, ops, torch.zeros_like(ops))
        return {"ops": ops, "magnitudes": self._magnitudes(ops, bins, u[:, 3:5], height, width)}

    @torch.jit.unused
    def _eager_choices(self, height: int, width: int) -> Optional[Any]:
        u = uniform([1, 5], self._rng(), torch.device("cpu")).tolist()[0]
        policy = _randint_host(u[0], self._num_policies)
        steps = self._policy_rows[policy]
        ops = [op if u[1 + k] <= p else 0 for k, (op, p, _) in enumerate(steps)]
        return ops, [level for _, _, level in steps], u[3:5]

    def extra_repr(self) -> str:
        return f"policy={self.policy}, " + super().extra_repr()


class RandAugment(_AutoAugmentBase):
    """RandAugment (Cubuk et al., 2019): ``num_ops`` operations drawn uniformly (Identity among them), all at bin
    ``magnitude`` of ``num_magnitude_bins``, signed at random. Arguments as torchvision's."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.AUGMENT_POLICY

    def __init__(
        self,
        num_ops: int = 2,
        magnitude: int = 9,
        num_magnitude_bins: int = 31,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
        fill: Any = None,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or num_ops < 0:
            raise ValueError(f"RandAugment: num_ops should be a non-negative integer, but got {num_ops} instead.")
        super().__init__(["Identity"] + _SPACE_AUTO, "auto", num_magnitude_bins, interpolation, fill, generator)
        if isinstance(magnitude, bool) or not isinstance(magnitude, int) or not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(
                f"RandAugment: magnitude must be an integer in [0, {num_magnitude_bins}) (a bin of "
                f"num_magnitude_bins), got {magnitude!r}"
            )
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins
        self._set_native_spec(1, num_ops, magnitude, self._space, [])

    def _draw_rows(self, batch_size: int, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        u = uniform([batch_size, self.num_ops, 2], self._rng(), device)
        ops = self._space_on(device)[_randint(u[..., 0], len(self._space))]
        bins = torch.full_like(ops, self.magnitude)
        return {"ops": ops, "magnitudes": self._magnitudes(ops, bins, u[..., 1], height, width)}

    @torch.jit.unused
    def _eager_choices(self, height: int, width: int) -> Optional[Any]:
        u = uniform([1, self.num_ops, 2], self._rng(), torch.device("cpu")).tolist()[0]
        ops = [self._space[_randint_host(row[0], len(self._space))] for row in u]
        return ops, [self.magnitude] * len(ops), [row[1] for row in u]

    def extra_repr(self) -> str:
        return (
            f"num_ops={self.num_ops}, magnitude={self.magnitude}, num_magnitude_bins={self.num_magnitude_bins}, "
            + super().extra_repr()
        )


class TrivialAugmentWide(_AutoAugmentBase):
    """TrivialAugment Wide (Müller and Hutter, 2021): one operation drawn uniformly (Identity among them) at a
    uniformly drawn bin of ``num_magnitude_bins``, signed at random. Arguments as torchvision's."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.AUGMENT_POLICY

    def __init__(
        self,
        num_magnitude_bins: int = 31,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.NEAREST,
        fill: Any = None,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        super().__init__(["Identity"] + _SPACE_AUTO, "wide", num_magnitude_bins, interpolation, fill, generator)
        self.num_magnitude_bins = num_magnitude_bins
        self._set_native_spec(2, 1, 0, self._space, [])

    def _draw_rows(self, batch_size: int, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        u = uniform([batch_size, 1, 3], self._rng(), device)
        ops = self._space_on(device)[_randint(u[..., 0], len(self._space))]
        bins = _randint(u[..., 1], self._num_bins)
        return {"ops": ops, "magnitudes": self._magnitudes(ops, bins, u[..., 2], height, width)}

    @torch.jit.unused
    def _eager_choices(self, height: int, width: int) -> Optional[Any]:
        u = uniform([1, 1, 3], self._rng(), torch.device("cpu")).tolist()[0][0]
        return [self._space[_randint_host(u[0], len(self._space))]], [_randint_host(u[1], self._num_bins)], u[2:]

    def extra_repr(self) -> str:
        return f"num_magnitude_bins={self.num_magnitude_bins}, " + super().extra_repr()


_SPACE_AUGMIX = ["ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Posterize", "Solarize", "AutoContrast",
                 "Equalize"]


class AugMix(_AutoAugmentBase):
    """AugMix (Hendrycks et al., 2020): ``mixture_width`` chains of ``chain_depth`` operations (1 to 3 drawn per chain
    when negative) at bins below ``severity``, mixed with the image by Dirichlet(``alpha``) weights. Arguments as
    torchvision's; images and videos only.

    Deliberate difference: on a plain ``[N, C, H, W]`` tensor torchvision draws the mixing weights per leading row
    (the operations are shared); here one draw covers the sample (``forward_batch`` or ``BatchedImages`` give every
    row its own operations and weights)."""

    @torch.jit.unused
    def native_stage(self) -> Optional[str]:
        return _stages.AUGMENT_POLICY

    def __init__(
        self,
        severity: int = 3,
        mixture_width: int = 3,
        chain_depth: int = -1,
        alpha: float = 1.0,
        all_ops: bool = True,
        interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
        fill: Any = None,
        *,
        generator: Optional[torch.Generator] = None,
    ) -> None:
        space = _SPACE_AUGMIX + (["Brightness", "Color", "Contrast", "Sharpness"] if all_ops else [])
        super().__init__(space, "augmix", 10, interpolation, fill, generator)
        if isinstance(severity, bool) or not isinstance(severity, int) or not 1 <= severity <= 10:
            raise ValueError(f"AugMix: the severity must be between [1, 10] (an integer), got {severity!r}")
        if isinstance(mixture_width, bool) or not isinstance(mixture_width, int) or mixture_width < 1:
            raise ValueError(f"AugMix: mixture_width must be a positive integer, got {mixture_width!r}")
        if isinstance(chain_depth, bool) or not isinstance(chain_depth, int):
            raise ValueError(f"AugMix: chain_depth must be an integer (<= 0: 1 to 3 drawn), got {chain_depth!r}")
        if not float(alpha) > 0.0:
            raise ValueError(f"AugMix: alpha must be positive, got {alpha!r}")
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = float(alpha)
        self.all_ops = bool(all_ops)
        self._depth: int = chain_depth if chain_depth > 0 else 3

    def _draw_rows(self, batch_size: int, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        generator = self._rng()
        chains, depth = self.mixture_width, self._depth
        u = uniform([batch_size, chains, depth, 3], generator, device)
        ops = self._space_on(device)[_randint(u[..., 0], len(self._space))]
        if self.chain_depth <= 0:  # 1 to 3 operations per chain; the steps after a chain's depth are Identity
            drawn = _randint(uniform([batch_size, chains, 1], generator, device), 3) + 1
            steps = torch.arange(depth, device=device)
            ops = torch.where(steps < drawn, ops, torch.zeros_like(ops))
        bins = _randint(u[..., 1], self.severity)
        magnitudes = self._magnitudes(ops, bins, u[..., 2], height, width)
        beta = _dirichlet(self.alpha, [batch_size, 2], generator, device)
        weights = _dirichlet(self.alpha, [batch_size, chains], generator, device) * beta[:, 1:2]
        return {
            "ops": ops.reshape(batch_size, chains * depth),
            "magnitudes": magnitudes.reshape(batch_size, chains * depth),
            "mix": torch.cat([beta[:, 0:1], weights], dim=1),
        }

    def _augment(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], fill: Optional[List[float]]
    ) -> torch.Tensor:
        check_image(image, "AugMix", [1, 3])
        ops, magnitudes, mix = params["ops"], params["magnitudes"], params["mix"]
        shape = [mix.shape[0]] + [1] * (image.ndim - 1) if mix.ndim == 2 else [1] * image.ndim
        out = mix[..., 0].reshape(shape) * image
        native = not torch.jit.is_scripting() and self._native_applies(image)
        for chain in range(self.mixture_width):
            aug = image
            if native:
                first = chain * self._depth
                chain_ops = ops[..., first : first + self._depth]
                chain_magnitudes = magnitudes[..., first : first + self._depth]
                out = out + mix[..., chain + 1].reshape(shape) * self._native_steps(
                    image, chain_ops, chain_magnitudes, fill
                )
                continue
            for step in range(self._depth):
                k = chain * self._depth + step
                aug = self._step(aug, ops[..., k], magnitudes[..., k], fill)
            out = out + mix[..., chain + 1].reshape(shape) * aug
        return out.to(image.dtype)

    @torch.jit.unused
    def _augment_pil(self, image: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        if not isinstance(image, PIL.Image.Image):
            raise TypeError(f"AugMix: inputs of type {type(image).__name__} are not supported")
        tensor = F.pil_to_tensor(image)
        return F.to_pil_image(self._augment(tensor, params, fill_as_list(fill, "AugMix")))

    def extra_repr(self) -> str:
        return (
            f"severity={self.severity}, mixture_width={self.mixture_width}, chain_depth={self.chain_depth}, "
            f"alpha={self.alpha}, all_ops={self.all_ops}, " + super().extra_repr()
        )
