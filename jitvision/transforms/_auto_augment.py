"""AutoAugment, RandAugment, TrivialAugmentWide and AugMix: random operations with random magnitudes, in one graph.

Every policy is a chain of steps; a draw gives each step an operation (a global op id, see ``_augment_ops``) and a
signed magnitude (float64), ``params = {"ops": [K], "magnitudes": [K]}`` for one sample, ``[B, K]`` for a batch
(AugMix adds its mixing weights). Steps that are not applied (AutoAugment's probabilities, AugMix chains shorter
than the longest) are the Identity operation. Each step is one ``_random.switch`` on the drawn op: a Python branch
in eager code, a balanced tree of ``torch.cond`` under torch.compile/export (only the drawn operation runs, the
choice and the magnitude stay live), rows grouped by operation on an eager batch, and a per-row select on a traced
batch. TorchScript runs the same operations through ``_script_step``. See docs/design/policies.md ("Random choices in
one graph").

A uint8 CPU image (native library built) skips the per-step formulations: all of a sample's steps (or one AugMix
chain) are one ``jitvision_native::augment_step_u8`` call with the drawn ops and magnitudes as tensor inputs, in eager,
under torch.compile and under torch.export (a C++ node: AOTInductor and C++ programs run it). Calling AutoAugment,
RandAugment or TrivialAugmentWide on one plain uint8 CPU tensor (or ``forward_batch`` on a plain batch) goes further:
``jitvision_native::augment_random_u8`` draws inside (``_draw_rows``' draw, bit for bit, on the same generator) and
applies the steps, so eager code makes one native call and a compiled call is that one graph node (no inductor random
kernel; ``Transform._traced_plain``). ``_draw``/``transform`` (tv_tensors, samples, custom ``make_params``) keep the
Python draw.

As torchvision: images and videos only (bounding boxes, masks and keypoints in the sample raise a TypeError), one
image or video per sample, uint8 or float, 1 or 3 channels, PIL images through torchvision's PIL kernels.
"""

from typing import Any, Dict, List, Optional, Union

import PIL.Image
import torch

from .. import _native
from ..tv_tensors import BoundingBoxes, KeyPoints, Mask, kind_of, wrap
from ._augment_ops import (
    OP_INDEX,
    OP_NAMES,
    SIGNED,
    apply_op,
    apply_op_pil,
    apply_step,
    augment_step_op,
    magnitude_row,
)
from ._geometry._pad import fill_for, scripted_fill, setup_fill
from ._random import as_drawn, row_count, switch
from ._transform import Transform
from ._utils import is_image_like
from .functional._color._utils import check_image
from .functional._dispatch import (
    call_custom_op,
    device_constant,
    device_copy,
    is_exporting,
    is_pure_tensor,
    is_tracing,
    unwrap,
)
from .functional._geometry._interpolation import InterpolationMode, check_interpolation
from .functional._geometry._warp import fill_as_list, grid_mode


class _AutoAugmentBase(Transform):
    """What the four policies share: the op space, the magnitude bins, ``fill``/``interpolation`` and the steps."""

    __jit_ignored_attributes__ = Transform.__jit_ignored_attributes__ + [
        "fill",
        "_fills",
        "interpolation",
        "_table_rows",
        "_translate_rows",
        "_native_spec",
    ]
    _script_fill: Optional[List[float]]
    _traced_plain = True  # _eager_plain's native op is also the traced graph's node (see Transform)

    def __init__(
        self,
        space: List[str],
        kind: str,
        num_bins: int,
        interpolation: Union[str, InterpolationMode, int],
        fill: Any,
        generator: Optional[torch.Generator],
    ) -> None:
        super().__init__(generator=generator)
        owner = type(self).__name__
        self._name: str = owner
        self.interpolation = check_interpolation(interpolation, owner)
        self._mode_value: str = self.interpolation.value
        try:  # the tensor kernels' mode, once (an unsupported mode raises at call time, as torchvision's)
            self._grid: str = grid_mode(self._mode_value, owner)
        except ValueError:
            self._grid = ""
        self.fill = fill
        self._fills = setup_fill(fill, owner)
        self._script_fill = scripted_fill(self._fills)
        if isinstance(num_bins, bool) or not isinstance(num_bins, int) or num_bins < 2:
            raise ValueError(f"{owner}: num_magnitude_bins must be an integer >= 2, got {num_bins!r}")
        self._space: List[int] = [OP_INDEX[name] for name in space]
        self._candidates: List[int] = sorted(set([0] + self._space))  # Identity: a step not applied
        self._num_bins: int = num_bins
        # Size-independent magnitudes per global op id (float32, as torchvision's bins); translations depend on the
        # size and are computed per draw unless they are absolute (TrivialAugmentWide).
        self._table = torch.stack([magnitude_row(name, kind, num_bins, 0, 0) for name in OP_NAMES])
        self._translate_relative: bool = kind != "wide"
        self._translate_mul: float = 150.0 / 331.0 if kind == "auto" else 1.0
        self._translate_div: float = 1.0 if kind == "auto" else 3.0
        self._signed = torch.tensor([op in SIGNED for op in range(len(OP_NAMES))])
        # The eager draw's Python copies: the bins per op id, and the relative translations' bins per image size.
        self._table_rows: List[List[float]] = self._table.tolist()
        self._translate_rows: Dict[Any, Any] = {}
        # The policy for jitvision_native::augment_random_u8 (subclasses set it with _set_native_spec), or None.
        self._native_spec: Optional[Any] = None

    @torch.jit.unused
    def _set_native_spec(self, kind: int, num_ops: int, magnitude: int, space: List[int], probs: List[float]) -> None:
        """The arguments of ``jitvision_native::augment_random_u8`` after the image that describe this policy's draw
        (kind, num_ops, magnitude, space, table, translate, probs; see csrc/augment.cpp)."""
        if not _native.AUGMENT_RANDOM:
            return
        translate = [self._translate_mul, self._translate_div] if self._translate_relative else []
        space_t = torch.tensor(space, dtype=torch.int64)
        probs_t = torch.tensor(probs, dtype=torch.float32)
        self._native_spec = (kind, num_ops, magnitude, space_t, self._table, translate, probs_t)

    # ---- draws -------------------------------------------------------------------------------------------------

    def _space_on(self, device: torch.device) -> torch.Tensor:
        """The policy's op ids as an int64 tensor on ``device`` (kept per device on a GPU: no copy per draw)."""
        return device_constant([float(op) for op in self._space], torch.int64, device)

    def _magnitudes(
        self, ops: torch.Tensor, bins: torch.Tensor, sign_u: torch.Tensor, height: int, width: int
    ) -> torch.Tensor:
        """The signed float64 magnitudes of ``ops`` at ``bins`` (any equal shapes); negative where ``sign_u <= 0.5``
        for the signed operations."""
        device = ops.device
        magnitude = device_copy(self._table, device)[ops, bins]
        if self._translate_relative:
            high_x = self._translate_mul * width / self._translate_div
            high_y = self._translate_mul * height / self._translate_div
            tx = torch.linspace(0.0, high_x, self._num_bins, device=device)[bins]
            ty = torch.linspace(0.0, high_y, self._num_bins, device=device)[bins]
            magnitude = torch.where(ops == 3, tx, torch.where(ops == 4, ty, magnitude))
        magnitude = magnitude.to(torch.float64)
        negative = (sign_u <= 0.5) & device_copy(self._signed, device)[ops]
        return torch.where(negative, -magnitude, magnitude)

    def _draw(
        self, batch_shape: List[int], height: int, width: int, device: torch.device
    ) -> Dict[str, torch.Tensor]:
        if len(batch_shape) == 0 and not torch.jit.is_scripting() and device.type == "cpu" and not is_tracing():
            params = self._draw_eager(height, width)
            if params is not None:
                return params
        return as_drawn(batch_shape, self._draw_rows(row_count(batch_shape), height, width, device))

    def _draw_rows(self, batch_size: int, height: int, width: int, device: torch.device) -> Dict[str, torch.Tensor]:
        """The policy's draw for ``batch_size`` samples, one row each (each policy implements it)."""
        raise NotImplementedError(type(self).__name__)

    # The eager draw of one sample: the same uniforms as ``_draw_rows`` (one torch.rand on the same generator),
    # read on the host and turned into ops and magnitudes with Python numbers (float32 products emulated), so the
    # parameters are identical, without ~20 small tensor ops (table lookups, wheres) per call.

    @torch.jit.unused
    def _draw_eager(self, height: int, width: int) -> Optional[Dict[str, torch.Tensor]]:
        choices = self._eager_choices(height, width)
        if choices is None:
            return None
        ops, bins, signs = choices
        magnitudes = []
        for op, level, sign in zip(ops, bins, signs):
            value = self._bin_value(op, level, height, width)
            magnitudes.append(-value if sign <= 0.5 and op in SIGNED else value)
        return {
            "ops": torch.tensor(ops, dtype=torch.int64),
            "magnitudes": torch.tensor(magnitudes, dtype=torch.float64),
        }

    @torch.jit.unused
    def _eager_choices(self, height: int, width: int) -> Optional[Any]:
        """``(ops, bins, sign uniforms)`` as Python lists for one sample, or None (use ``_draw_rows``)."""
        return None

    @torch.jit.unused
    def _bin_value(self, op: int, level: int, height: int, width: int) -> float:
        if self._translate_relative and (op == 3 or op == 4):
            rows = self._translate_rows.get((height, width))
            if rows is None:
                high_x = self._translate_mul * width / self._translate_div
                high_y = self._translate_mul * height / self._translate_div
                rows = (
                    torch.linspace(0.0, high_x, self._num_bins).tolist(),
                    torch.linspace(0.0, high_y, self._num_bins).tolist(),
                )
                if len(self._translate_rows) > 64:
                    self._translate_rows.clear()
                self._translate_rows[(height, width)] = rows
            return rows[op - 3][level]
        return self._table_rows[op][level]

    # ---- applying ----------------------------------------------------------------------------------------------

    def transform(self, inpt: torch.Tensor, params: Dict[str, torch.Tensor]) -> torch.Tensor:
        if torch.jit.is_scripting() or is_pure_tensor(inpt):
            return self._augment(inpt, params, self._script_fill)
        return self._augment_leaf(inpt, params)

    def _augment(
        self, image: torch.Tensor, params: Dict[str, torch.Tensor], fill: Optional[List[float]]
    ) -> torch.Tensor:
        check_image(image, self._name, [1, 3])
        ops, magnitudes = params["ops"], params["magnitudes"]
        if not torch.jit.is_scripting() and self._native_applies(image):
            return self._native_steps(image, ops, magnitudes, fill)
        for k in range(ops.shape[-1]):
            image = self._step(image, ops[..., k], magnitudes[..., k], fill)
        return image

    def _step(
        self, image: torch.Tensor, op: torch.Tensor, magnitude: torch.Tensor, fill: Optional[List[float]]
    ) -> torch.Tensor:
        mode = self._grid if self._grid != "" else grid_mode(self._mode_value, self._name)
        if torch.jit.is_scripting():
            return apply_step(image, op, magnitude, mode, fill)
        return self._switch_step(image, op, magnitude, mode, fill)

    @torch.jit.unused
    def _native_applies(self, image: torch.Tensor) -> bool:
        """Whether all steps run as one ``jitvision_native::augment_step_u8`` call (uint8 CPU, library built)."""
        return _native.AUGMENT and image.dtype == torch.uint8 and image.device.type == "cpu" and self._grid != ""

    @torch.jit.unused
    def _eager_plain(self, image: torch.Tensor) -> Optional[torch.Tensor]:
        # A uint8 CPU image: the draw and all the steps in one native call (the draw of _draw_rows, bit for bit, on
        # the same generator), in eager code and, through _traced_plain, as the one node of a compiled/exported
        # graph (no inductor random kernel, the draw live in the op).
        if self._native_spec is None or not self._native_applies(image):
            return None
        check_image(image, self._name, [1, 3])
        return self._random_native(image, False)

    @torch.jit.export
    def forward_batch(self, images: torch.Tensor) -> torch.Tensor:
        """``Transform.forward_batch`` (per-sample draws on a plain ``[B, ...]`` batch); on a uint8 CPU batch, one
        ``augment_random_u8`` call drawing each row's own operations (as ``_draw_rows``) in eager and traced code."""
        if not torch.jit.is_scripting():
            if self._native_spec is not None and images.ndim >= 4 and self._native_applies(images):
                check_image(images, self._name, [1, 3])
                return self._random_native(images, True)
        if images.ndim < 4:
            raise ValueError(
                "forward_batch: expected a batch [B, C, H, W] or [B, T, C, H, W], got " + str(images.ndim) + " dims"
            )
        params = self._draw([images.shape[0]], images.shape[-2], images.shape[-1], images.device)
        return self.transform_batch(images, params)

    @torch.jit.unused
    def _random_native(self, image: torch.Tensor, rows: bool) -> torch.Tensor:
        """``jitvision_native::augment_random_u8`` on ``image``: one draw (``rows``: one per leading row)."""
        mode = 0 if self._grid == "nearest" else 1
        return torch.ops.jitvision_native.augment_random_u8.default(
            image, *self._native_spec, mode, self._script_fill, rows, self._rng()
        )[0]

    @torch.jit.unused
    def _native_steps(
        self, image: torch.Tensor, ops: torch.Tensor, magnitudes: torch.Tensor, fill: Optional[List[float]]
    ) -> torch.Tensor:
        """The steps ``ops``/``magnitudes`` (``[K]``, or ``[B, K]`` for a batch's rows) in one C++ call: eager, and
        one graph node under torch.compile/export with the drawn ops and magnitudes as its inputs."""
        mode = 0 if self._grid == "nearest" else 1
        return call_custom_op(torch.ops.jitvision_native.augment_step_u8, image, ops, magnitudes, mode, fill)

    @torch.jit.unused
    def _switch_step(
        self, image: torch.Tensor, op: torch.Tensor, magnitude: torch.Tensor, mode: str, fill: Optional[List[float]]
    ) -> torch.Tensor:
        if is_tracing() and not is_exporting() and image.device.type == "cpu":
            # torch.compile: one node running the eager kernels (see the module docstring for why not torch.cond).
            return call_custom_op(augment_step_op, image, op, magnitude, mode, fill)

        def branch(key: int, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
            return apply_op(x, key, m, mode, fill)

        return switch(op, self._candidates, branch, (image, magnitude))

    @torch.jit.unused
    def _augment_leaf(self, inpt: Any, params: Dict[str, torch.Tensor]) -> Any:
        fill = fill_for(self._fills, inpt)
        if isinstance(inpt, torch.Tensor):
            return wrap(self._augment(unwrap(inpt), params, fill_as_list(fill, self._name)), like=inpt)
        try:
            return self._augment_pil(inpt, params, fill)
        except (TypeError, ValueError) as error:  # a PIL kernel's refusal (a mode it does not take), named after us
            raise type(error)(f"{self._name}: {error}") from error

    @torch.jit.unused
    def _augment_pil(self, image: Any, params: Dict[str, torch.Tensor], fill: Any) -> Any:
        for op, magnitude in zip(params["ops"].tolist(), params["magnitudes"].tolist()):
            image = apply_op_pil(image, op, magnitude, self.interpolation, fill)
        return image

    @torch.jit.unused
    def _apply_image_or_video_transform(
        self,
        image: Any,
        transform_id: str,
        magnitude: float,
        interpolation: Union[str, InterpolationMode, int],
        fill: Any,
    ) -> Any:
        """torchvision's hook for one named operation (``"ShearX"``, ``"Posterize"``, ...) with a signed ``magnitude``
        on an image, video or PIL image, which custom policies subclassing the base call. ``fill`` is a value or a
        dict from input type to value (``_setup_fill_arg``'s form)."""
        owner = type(self).__name__
        if transform_id not in OP_INDEX:
            raise ValueError(f"{owner}: no transform named {transform_id!r}; one of {list(OP_NAMES)}")
        op = OP_INDEX[transform_id]
        if isinstance(fill, dict):
            fill = fill[type(image)] if type(image) in fill else fill_for(fill, image)
        if isinstance(image, PIL.Image.Image):
            return apply_op_pil(image, op, float(magnitude), check_interpolation(interpolation, owner), fill)
        mode = grid_mode(interpolation, owner)
        signed = torch.tensor(float(magnitude), dtype=torch.float64)
        out = apply_op(unwrap(image), op, signed, mode, fill_as_list(fill, owner))
        return out if is_pure_tensor(image) else wrap(out, like=image)

    # ---- the sample ---------------------------------------------------------------------------------------------

    @torch.jit.unused
    def check_inputs(self, flat_inputs: List[Any]) -> None:
        owner = type(self).__name__
        images = 0
        for inpt in flat_inputs:
            if isinstance(inpt, torch.Tensor) and kind_of(type(inpt)) in (BoundingBoxes, Mask, KeyPoints):
                raise TypeError(f"{owner}: inputs of type {type(inpt).__name__} are not supported")
            if is_image_like(inpt):
                images += 1
        if images == 0 and not any(is_pure_tensor(inpt) for inpt in flat_inputs):
            raise TypeError(f"{owner}: found no image or video in the sample")
        if images > 1:
            raise TypeError(f"{owner}: defined for a single image or video per sample, found {images}")

    def extra_repr(self) -> str:
        return f"interpolation={self.interpolation}, fill={self.fill}"
