"""resize: kernels per kind and the functional.

The output size is computed with integer arithmetic and ``torch.sym_min``/``sym_max`` instead of Python
branches on sizes, so ``resize`` (and ``Resize(256)``, "shorter side to 256") exports with dynamic height
and width. Image resampling runs on ``torch.nn.functional.interpolate``, natively on uint8 on CPU.

Deliberate differences from torchvision: sizes <= 0 and complex images raise a ValueError/TypeError naming
``resize`` (torchvision fails inside ``interpolate`` or silently drops the imaginary part).
"""

import warnings
from typing import Any, List, Optional, Tuple, Union

import PIL.Image
import torch
from torch.nn.functional import interpolate

from .... import _native
from ....tv_tensors import BoundingBoxes, BoundingBoxFormat, Image, KeyPoints, Mask, Video, box_format_from, wrap
from .._dispatch import call_custom_op, get_kernel, is_pure_tensor, is_tracing, register_kernel, unwrap
from .._meta import as_box_format, check_boxes, finish_rotated, get_canvas_size, is_rotated_format, rotated_corners
from ._interpolation import InterpolationMode, check_interpolation, pil_resample_code

# ---- output size ------------------------------------------------------------------------------------------


def _sym_min(a: int, b: int) -> int:
    if torch.jit.is_scripting():
        return min(a, b)
    return torch.sym_min(a, b)


def _sym_max(a: int, b: int) -> int:
    if torch.jit.is_scripting():
        return max(a, b)
    return torch.sym_max(a, b)


@torch.jit.unused
def _statically_equal(a: Any, b: Any) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return statically_known_true(a == b)


def _known_same_size(new_size: List[int], old_height: int, old_width: int) -> bool:
    """True when the output size equals the input size; with symbolic sizes only when provably so (no guard)."""
    if torch.jit.is_scripting() or not is_tracing():
        return new_size[0] == old_height and new_size[1] == old_width
    return _statically_equal(new_size[0], old_height) and _statically_equal(new_size[1], old_width)


@torch.jit.unused
def _size_as_list(size: Any, op: str) -> Optional[List[int]]:
    if size is None:
        return None
    if isinstance(size, int) and not isinstance(size, bool):
        return [size]
    if isinstance(size, (list, tuple)) and all(
        isinstance(v, (int, torch.SymInt)) and not isinstance(v, bool) for v in size
    ):  # SymInt: a drawn size under non-strict export (ScaleJitter, ...)
        return list(size)
    raise TypeError(f"{op}: size can be an integer, a sequence of one or two integers, or None, got {size!r}")


def _check_size(size: Optional[List[int]], max_size: Optional[int], op: str) -> None:
    if size is None:
        if max_size is None:
            raise ValueError(op + ": max_size must be an integer when size is None")
    else:
        if len(size) != 1 and len(size) != 2:
            raise ValueError(
                op + ": size can be an integer, a sequence of one or two integers, or None, got " + str(size)
            )
        for v in size:
            if v <= 0:
                raise ValueError(op + ": size must be positive, got " + str(size))
        if max_size is not None:
            if len(size) != 1:
                raise ValueError(
                    op + ": max_size should only be passed if size is None or specifies the shorter side (size should "
                    "be an int or a sequence of length 1), got size=" + str(size)
                )
            if max_size <= size[0]:
                raise ValueError(
                    op
                    + ": max_size = "
                    + str(max_size)
                    + " must be strictly greater than the requested size of the shorter side "
                    + str(size)
                )
    if max_size is not None and max_size <= 0:
        raise ValueError(op + ": max_size must be positive, got " + str(max_size))


def _compute_resized_output_size(
    canvas_size: List[int], size: Optional[List[int]], max_size: Optional[int] = None, op: str = "resize"
) -> List[int]:
    """[new_height, new_width] with torchvision's rules: [h, w] as given; [s] puts the shorter side at s and
    scales the longer one (rounded down), capped at max_size; None scales the longer side to max_size.

    ``int(a * b / c)`` for positive ints is ``a * b // c``; writing each side as ``s * side // shorter``
    needs no branch on which side is shorter, so symbolic sizes stay symbolic. In Python ``size`` may also be an
    int or a tuple (every kernel that resizes comes through here), as torchvision allows.
    """
    if not torch.jit.is_scripting():
        size = _size_as_list(size, op)
    _check_size(size, max_size, op)
    height, width = canvas_size[0], canvas_size[1]
    if (size is None or len(size) == 1) and (torch.jit.is_scripting() or not is_tracing()):
        if height <= 0 or width <= 0:  # no guard under dynamo: symbolic sizes stay unconstrained
            raise ValueError(
                op + ": cannot scale an empty image or canvas " + str([height, width]) + " by its sides' ratio"
            )
    if size is None:
        assert max_size is not None
        longer = _sym_max(height, width)
        return _nonempty([max_size * height // longer, max_size * width // longer], [height, width], op)
    if len(size) == 2:
        return [size[0], size[1]]
    shorter = _sym_min(height, width)
    new_height = size[0] * height // shorter
    new_width = size[0] * width // shorter
    if max_size is not None:
        # Above max_size, both sides scale by max_size / longer; below it the min keeps them as they are.
        new_longer = _sym_max(new_height, new_width)
        new_height = _sym_min(new_height, max_size * new_height // new_longer)
        new_width = _sym_min(new_width, max_size * new_width // new_longer)
    return _nonempty([new_height, new_width], [height, width], op)


def _nonempty(new_size: List[int], old_size: List[int], op: str) -> List[int]:
    """A computed output size that rounds to 0 (a 1x2 image with max_size=1) is refused, naming the op (torch's
    interpolate would fail with a RuntimeError); not checked under dynamo, where sizes may be symbolic."""
    if (torch.jit.is_scripting() or not is_tracing()) and (new_size[0] <= 0 or new_size[1] <= 0):
        raise ValueError(op + ": the output size " + str(new_size) + " of the " + str(old_size) + " input is empty")
    return new_size


# ---- image kernels ------------------------------------------------------------------------------------------


@torch.jit.unused
def _native_bilinear_u8(
    image: torch.Tensor, new_size: List[int], interpolation: InterpolationMode, antialias: bool
) -> Optional[torch.Tensor]:
    """torch's uint8 antialiased bilinear resize of a ``[N, C, H, W]`` CPU image, bit for bit, from the native
    kernel (``jitvision._native``), which reads CHW directly where torch's fast uint8 path wants channels-last,
    and splits channels-last input (PIL/numpy-sourced images) into planes faster than torch's channels-last
    kernel resizes it; None where it does not apply (then interpolate
    runs). Under dynamo the op is one graph node (its size argument is ``SymInt[]``, so dynamic sizes stay
    symbolic) instead of inductor's much slower gather code.

    Deliberate difference: the output is contiguous CHW also for channels-last input, where torchvision keeps
    channels-last. Restoring that layout costs more than the resize saves: the copy, and every later op of the
    pipeline on strided memory."""
    if not _native.AVAILABLE or image.dtype != torch.uint8 or image.device.type != "cpu":
        return None
    if interpolation != InterpolationMode.BILINEAR or not antialias:
        return None
    return call_custom_op(torch.ops.jitvision_native.resize_center_crop, image, [new_size[0], new_size[1]])


class UnsupportedInterpolationError(NotImplementedError, ValueError):
    """BOX/HAMMING on a tensor: a NotImplementedError as in torchvision, and a ValueError like our other bad-argument
    errors."""


def _hits_width_one_bug(image: torch.Tensor, new_size: List[int]) -> bool:
    """Whether torch's antialiased interpolate would return a wrong (constant) column: an output 1 pixel wide and
    taller than that, on a float image or a uint8 one with 5 or more channels (torch 2.14)."""
    if not torch.jit.is_scripting() and is_tracing():
        if not (_statically_equal(new_size[1], 1) and _statically_known_greater_than_one(new_size[0])):
            return False
    elif new_size[1] != 1 or new_size[0] <= 1:
        return False
    return image.is_floating_point() or image.shape[-3] >= 5


@torch.jit.unused
def _statically_known_greater_than_one(a: Any) -> bool:
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return statically_known_true(a > 1)


def _interpolate_image(
    image: torch.Tensor, new_size: List[int], interpolation: InterpolationMode, antialias: bool, op: str
) -> torch.Tensor:
    """``image`` ``[..., C, H, W]`` resampled to ``new_size`` on the fastest native path for its dtype."""
    if image.ndim < 3:
        raise ValueError(op + ": expected an image [..., C, H, W], got " + str(image.ndim) + " dimensions")
    if image.is_complex():
        raise TypeError(op + ": complex images are not supported, got " + str(image.dtype))
    align_corners: Optional[bool] = None
    pil_only = interpolation == InterpolationMode.BOX or interpolation == InterpolationMode.HAMMING
    if interpolation == InterpolationMode.NEAREST or interpolation == InterpolationMode.NEAREST_EXACT or pil_only:
        antialias = False
    else:  # bilinear, bicubic, lanczos
        align_corners = False
        if interpolation == InterpolationMode.LANCZOS and not antialias:
            raise ValueError(op + ": interpolation lanczos needs antialias=True on tensors")

    shape = image.shape
    num_channels, old_height, old_width = shape[-3], shape[-2], shape[-1]
    if _known_same_size(new_size, old_height, old_width):
        return image
    if pil_only:
        # NotImplementedError as in torchvision (torch has no such filter), and a ValueError like our other errors
        raise UnsupportedInterpolationError(
            op + ": interpolation " + interpolation.value + " is only supported for PIL images, not tensors"
        )
    if image.numel() == 0:
        return image.new_empty(list(shape[:-2]) + [new_size[0], new_size[1]])

    dtype = image.dtype
    integral = not image.is_floating_point() and dtype != torch.bool
    native = dtype == torch.float32 or dtype == torch.float64
    if dtype == torch.uint8:
        # uint8 runs natively for nearest everywhere, and for bilinear/bicubic on CPU.
        native = align_corners is None or image.device.type == "cpu"
        if align_corners is not None and num_channels == 3 and (torch.jit.is_scripting() or not is_tracing()):
            # torch 2.14's uint8 bilinear/bicubic/lanczos kernel fails an internal assert for a 3-channel 1x1 output
            # from a taller input (the output is then ambiguously channels-last): resample in float32 instead
            if new_size[0] == 1 and new_size[1] == 1 and old_height > 1:
                native = False
    image = image.reshape(-1, num_channels, old_height, old_width)
    if (torch.jit.is_scripting() or not is_tracing()) and image.shape[0] == 1:
        # A single channels-last image reshaped to 1CHW: restride the batch dimension so interpolate sees an
        # unambiguous channels-last tensor and keeps that layout (the fast uint8 path), without a copy.
        strides = image.stride()
        if image.is_contiguous(memory_format=torch.channels_last) and strides[0] != image.numel():
            image = image.as_strided(image.shape, [image.numel(), strides[1], strides[2], strides[3]])
    if not torch.jit.is_scripting():
        fast = _native_bilinear_u8(image, new_size, interpolation, antialias)
        if fast is not None:
            return fast.reshape(list(shape[:-2]) + [new_size[0], new_size[1]])
    if not native:
        image = image.to(torch.float32)
    if antialias and _hits_width_one_bug(image, new_size):
        # torch 2.14's antialiased kernels return one value for the whole column when the output is 1 pixel wide
        # and taller (float always, uint8 with 5+ channels); resampling the transposed image is right.
        out = interpolate(
            image.transpose(-1, -2),
            size=[new_size[1], new_size[0]],
            mode=interpolation.value,
            align_corners=align_corners,
            antialias=antialias,
        ).transpose(-1, -2)
    else:
        out = interpolate(
            image,
            size=[new_size[0], new_size[1]],
            mode=interpolation.value,
            align_corners=align_corners,
            antialias=antialias,
        )
    if not native:
        if dtype == torch.uint8 and interpolation != InterpolationMode.BILINEAR:  # bicubic/lanczos overshoot
            out = out.clamp_(min=0, max=255)
        if integral:
            out = out.round_()
        out = out.to(dtype)
    return out.reshape(list(shape[:-2]) + [new_size[0], new_size[1]])


def resize_image(
    image: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    """Resize ``[..., C, H, W]`` (float or uint8 natively; other dtypes through float32 and back)."""
    return _resize_image(image, size, interpolation, max_size, antialias, "resize")


def _resize_image(
    image: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    antialias: Optional[bool] = True,
    op: str = "resize",
) -> torch.Tensor:
    """Resize ``[..., C, H, W]`` (float or uint8 natively; other dtypes through float32 and back)."""
    mode = check_interpolation(interpolation, op)
    if image.ndim < 3:
        raise ValueError(op + ": expected an image [..., C, H, W], got " + str(image.ndim) + " dimensions")
    new_size = _compute_resized_output_size([image.shape[-2], image.shape[-1]], size, max_size, op)
    return _interpolate_image(image, new_size, mode, antialias is True, op)


def resize_video(
    video: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    return resize_image(video, size, interpolation, max_size, antialias)


def resize_mask(
    mask: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
) -> torch.Tensor:
    """Resize ``[..., H, W]`` masks; like torchvision, any mode other than NEAREST_EXACT means NEAREST."""
    return _resize_mask(mask, size, interpolation, max_size, "resize")


def _resize_mask(
    mask: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    op: str = "resize",
) -> torch.Tensor:
    """Resize ``[..., H, W]`` masks; like torchvision, any mode other than NEAREST_EXACT means NEAREST."""
    mode = check_interpolation(interpolation, op)
    if mode != InterpolationMode.NEAREST_EXACT:
        mode = InterpolationMode.NEAREST
    if mask.ndim < 2:
        raise ValueError(op + ": expected a mask [..., H, W], got " + str(mask.ndim) + " dimensions")
    squeeze = mask.ndim == 2
    if squeeze:
        mask = mask.unsqueeze(0)
    new_size = _compute_resized_output_size([mask.shape[-2], mask.shape[-1]], size, max_size, op)
    out = _interpolate_image(mask, new_size, mode, False, op)
    return out.squeeze(0) if squeeze else out


@torch.jit.unused
def resize_image_pil(
    image: PIL.Image.Image,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
) -> PIL.Image.Image:
    """Resize with Pillow itself (Pillow always antialiases)."""
    return _resize_image_pil(image, size, interpolation, max_size, "resize")


@torch.jit.unused
def _resize_image_pil(
    image: PIL.Image.Image,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    op: str = "resize",
) -> PIL.Image.Image:
    """Resize with Pillow itself (Pillow always antialiases)."""
    mode = check_interpolation(interpolation, op)
    new_height, new_width = _compute_resized_output_size([image.height, image.width], size, max_size, op)
    if (new_height, new_width) == (image.height, image.width):
        return image
    return image.resize((new_width, new_height), resample=pil_resample_code(mode))


# ---- coordinate kernels ----------------------------------------------------------------------------------


def _scale_factors(old_size: List[int], new_size: List[int], repeats: int, device: torch.device) -> torch.Tensor:
    if old_size[0] <= 0 or old_size[1] <= 0:
        raise ValueError("resize: cannot scale coordinates on an empty canvas " + str(old_size))
    # (x, y) ratios computed in double, applied in float32 like torchvision.
    ratios: List[float] = [new_size[1] / old_size[1], new_size[0] / old_size[0]] * repeats
    return torch.tensor(ratios, dtype=torch.float32, device=device)


def resize_bounding_boxes(
    bounding_boxes: torch.Tensor,
    canvas_size: List[int],
    size: Optional[List[int]],
    max_size: Optional[int] = None,
    format: BoundingBoxFormat = BoundingBoxFormat.XYXY,
    clamping_mode: Optional[str] = "soft",
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    """Scale boxes to the resized canvas; returns (boxes, new canvas_size). Axis-aligned boxes are not clamped
    (as in torchvision 0.29): scaling keeps boxes that were inside the canvas inside it. Rotated boxes are scaled
    by their corners, refitted to a rectangle and clamped per ``clamping_mode``, as torchvision does."""
    format = as_box_format(format, "resize")
    check_boxes(bounding_boxes, format, "resize")
    new_size = _compute_resized_output_size(canvas_size, size, max_size, "resize")
    new_canvas = (new_size[0], new_size[1])
    if _known_same_size(new_size, canvas_size[0], canvas_size[1]):
        return bounding_boxes, new_canvas
    if is_rotated_format(format):
        # Rotated boxes: the corners scaled, the rectangle refitted and clamped, as torchvision does.
        corners = rotated_corners(bounding_boxes, format) * _scale_factors(
            canvas_size, new_size, 4, bounding_boxes.device
        )
        return finish_rotated(corners, format, new_size, clamping_mode, bounding_boxes), new_canvas
    ratios = _scale_factors(canvas_size, new_size, 2, bounding_boxes.device)
    return bounding_boxes.mul(ratios).to(bounding_boxes.dtype), new_canvas


def resize_keypoints(
    keypoints: torch.Tensor,
    size: Optional[List[int]],
    canvas_size: List[int],
    max_size: Optional[int] = None,
) -> Tuple[torch.Tensor, Tuple[int, int]]:
    """Scale (x, y) keypoints to the resized canvas; returns (keypoints, new canvas_size)."""
    new_size = _compute_resized_output_size(canvas_size, size, max_size, "resize")
    new_canvas = (new_size[0], new_size[1])
    if _known_same_size(new_size, canvas_size[0], canvas_size[1]):
        return keypoints, new_canvas
    ratios = _scale_factors(canvas_size, new_size, 1, keypoints.device)
    return keypoints.mul(ratios).to(keypoints.dtype), new_canvas


# ---- functional ------------------------------------------------------------------------------------------


def resize(
    inpt: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    """Resize to ``size`` ([h, w]; [s] or an int: the shorter side becomes s; None: the longer side becomes
    ``max_size``). Plain tensors are treated as images."""
    if torch.jit.is_scripting():
        return resize_image(inpt, size, interpolation, max_size, antialias)
    size = _size_as_list(size, "resize")
    if is_pure_tensor(inpt):
        return resize_image(inpt, size, interpolation, max_size, antialias)
    return get_kernel(resize, type(inpt))(
        inpt, size=size, interpolation=interpolation, max_size=max_size, antialias=antialias
    )


for _kind in (Image, Video):
    register_kernel(resize, _kind)(resize_image)


@register_kernel(resize, Mask)
def _resize_mask_dispatch(
    mask: torch.Tensor,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    antialias: Optional[bool] = True,
) -> torch.Tensor:
    return resize_mask(mask, size, interpolation=interpolation, max_size=max_size)


@register_kernel(resize, PIL.Image.Image)
def _resize_image_pil_dispatch(
    image: PIL.Image.Image,
    size: Optional[List[int]],
    interpolation: Union[str, InterpolationMode, int] = InterpolationMode.BILINEAR,
    max_size: Optional[int] = None,
    antialias: Optional[bool] = True,
) -> PIL.Image.Image:
    if antialias is False:
        warnings.warn(  # torchvision's words, which code written for it matches on
            "resize: Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.",
            stacklevel=3,
        )
    return resize_image_pil(image, size, interpolation=interpolation, max_size=max_size)


@register_kernel(resize, BoundingBoxes, tv_tensor_wrapper=False)
def _resize_bounding_boxes_dispatch(
    inpt: torch.Tensor, size: Optional[List[int]], max_size: Optional[int] = None, **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = resize_bounding_boxes(
        unwrap(inpt),
        get_canvas_size(inpt),
        size,
        max_size=max_size,
        format=box_format_from(inpt.format),
        clamping_mode=inpt.clamping_mode,
    )
    return wrap(out, like=inpt, canvas_size=canvas_size)


@register_kernel(resize, KeyPoints, tv_tensor_wrapper=False)
def _resize_keypoints_dispatch(
    inpt: torch.Tensor, size: Optional[List[int]], max_size: Optional[int] = None, **kwargs: Any
) -> torch.Tensor:
    out, canvas_size = resize_keypoints(unwrap(inpt), size, get_canvas_size(inpt), max_size=max_size)
    return wrap(out, like=inpt, canvas_size=canvas_size)
