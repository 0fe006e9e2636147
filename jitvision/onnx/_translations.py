"""ONNX translations (onnxscript, opset 18) of the ops a jitvision pipeline leaves in an exported graph.

Each function here is called by ``torch.onnx.export(dynamo=True)`` with the op's arguments: tensors as symbolic
ONNX values, the other arguments (sizes, mean/std, flags) as the Python values recorded in the graph. They build
ONNX nodes; Python branches on those constant arguments choose the nodes.

- The antialiased bilinear resize is ONNX ``Resize(mode="linear", antialias=1, coordinate_transformation_mode=
  "half_pixel", exclude_outside=1)`` on the image cast to float32, rounded and clamped to uint8 levels once. torch's
  uint8 kernel rounds after each pass with fixed-point weights; one rounding of the exact float result differs from
  it by less than one level before rounding, so by at most 1 level after. onnxruntime's own uint8 ``Resize``
  rounds after each pass too, with other fixed-point weights: 2 levels apart when upscaling, and slower than the
  float path. Without ``exclude_outside`` the filter taps outside the
  image get weight and the borders differ by up to 15 levels.
- Random draws use ONNX ``RandomUniform`` (a fresh draw on every run in onnxruntime): the same distribution and
  arithmetic as the transforms' tensor draw (``RandomResizedCrop._boxes``: 10 candidates at once, the first that
  fits, else the clamped-ratio center crop), not the same numbers as torch's generator.
- A flip is a ``Slice`` with step -1 selected by ``Where`` (ONNX has no flip).

What has no translation raises ``UnsupportedOp`` with the op's name (``jitvision.onnx.export`` shows it).
"""

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import onnx_ir as ir
from onnxscript import opset18 as op

INT64_MIN = -(2**63)
UINT8, INT64, FLOAT, DOUBLE, BOOL = 2, 7, 1, 11, 9  # ONNX TensorProto data types


class UnsupportedOp(ValueError):
    """An op, or an argument of it, that jitvision cannot translate to ONNX."""


def _const(values: Sequence[Any], dtype: Any) -> Any:
    return op.Constant(value=ir.tensor(np.asarray(values, dtype=dtype)))


def _ints(*values: int) -> Any:
    return op.Constant(value_ints=list(values))


def _size_value(values: Sequence[Any]) -> Any:
    """int64 ``[n]`` from a list of ints and/or symbolic scalars (sizes computed from a dynamic input shape)."""
    if all(isinstance(v, int) for v in values):
        return _ints(*values)
    return op.Concat(
        *[_ints(v) if isinstance(v, int) else op.Reshape(op.Cast(v, to=INT64), _ints(1)) for v in values], axis=0
    )


def _static(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int) for v in values)


def _row(x: Any, i: int) -> Any:
    return op.Gather(x, op.Constant(value_int=i), axis=0)


def _flip_last(x: Any) -> Any:
    return op.Slice(x, _ints(-1), _ints(INT64_MIN), _ints(-1), _ints(-1))


def _resize_u8(image: Any, out_hw: Any, name: str) -> Any:
    """Antialiased bilinear resize of a uint8 ``[..., C, H, W]`` to ``out_hw`` (an int64 ``[2]`` value): float32
    holding the rounded uint8 levels (``_finish`` casts or scales them)."""
    if image.dtype is not None and image.dtype != ir.DataType.UINT8:
        raise UnsupportedOp(f"{name}: the ONNX translation takes a uint8 image, got {image.dtype}")
    sizes = op.Concat(op.Shape(image, end=-2), out_hw, axis=0)
    resized = op.Resize(
        op.Cast(image, to=FLOAT),
        None,
        None,
        sizes,
        mode="linear",
        antialias=1,
        coordinate_transformation_mode="half_pixel",
        exclude_outside=1,
    )
    return op.Clip(op.Round(resized), op.Constant(value_float=0.0), op.Constant(value_float=255.0))


def _finish(levels: Any, mean: Optional[Sequence[float]], std: Optional[Sequence[float]], to_float: bool) -> Any:
    """uint8, or float32 ``v / 255`` [normalised], from float uint8 levels, as the native ops write it."""
    if not to_float:
        return op.Cast(levels, to=UINT8)
    out = op.Mul(levels, op.Constant(value_float=1.0 / 255.0))
    if mean is not None and std is not None:
        mean_value = _const(np.reshape(mean, (-1, 1, 1)), np.float32)
        out = op.Div(op.Sub(out, mean_value), _const(np.reshape(std, (-1, 1, 1)), np.float32))
    return out


def _crop(image: Any, box: Any) -> Any:
    """``image[..., top:top + height, left:left + width]`` for an int64 ``box = [top, left, height, width]``."""
    box = op.Reshape(box, _ints(4))
    top_left = op.Slice(box, _ints(0), _ints(2))
    return op.Slice(image, top_left, op.Add(top_left, op.Slice(box, _ints(2), _ints(4))), _ints(-2, -1))


def _single_box(box: Any, name: str) -> None:
    if box.shape is not None and box.shape.is_static() and int(np.prod(list(box.shape))) != 4:
        raise UnsupportedOp(
            f"{name}: one box per sample (a batch, box shape {list(box.shape)}) has no ONNX translation; export the "
            "single-sample pipeline"
        )


# ---- jitvision_native::resized_crop and jitvision::resized_crop_box ------------------------------------------


def resized_crop(
    image: Any,
    box: Any,
    flip: Any,
    size: List[int],
    mean: Optional[Sequence[float]] = None,
    std: Optional[Sequence[float]] = None,
    to_float: bool = False,
) -> Any:
    _single_box(box, "jitvision_native::resized_crop")
    out = _resize_u8(_crop(image, box), _ints(*size), "jitvision_native::resized_crop")
    if flip is not None:
        out = op.Where(op.Cast(flip, to=BOOL), _flip_last(out), out)
    return _finish(out, mean, std, to_float)


def crop_at(image: Any, top_left: Any, height: int, width: int) -> Any:
    """``jitvision_native::crop_at`` (RandomCrop's drawn offset): a slice. The native op zero-pads a window reaching
    outside the image; RandomCrop's offsets never do (it pads first), so the slice is the same crop."""
    if top_left.shape is not None and top_left.shape.is_static() and int(np.prod(list(top_left.shape))) != 2:
        raise UnsupportedOp(
            f"jitvision_native::crop_at: one offset per sample (a batch, offsets of shape {list(top_left.shape)}) has "
            "no ONNX translation; export the single-sample pipeline"
        )
    return _crop(image, op.Concat(op.Reshape(top_left, _ints(2)), _ints(height, width), axis=0))


def resized_crop_box(image: Any, box: Any, size: List[int], interpolation: str, antialias: bool) -> Any:
    name = "resized_crop_box"
    _single_box(box, name)
    crop = _crop(image, box)
    if interpolation == "nearest":  # torch's nearest: source index floor(i * in / out)
        sizes = op.Concat(op.Shape(crop, end=-2), _ints(*size), axis=0)
        return op.Resize(
            crop, None, None, sizes, mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"
        )
    if interpolation == "bilinear" and antialias:
        return op.Cast(_resize_u8(crop, _ints(*size), name), to=UINT8)
    raise UnsupportedOp(
        f"{name}: interpolation {interpolation!r} with antialias={antialias} has no ONNX translation (supported: "
        "bilinear with antialias=True, nearest)"
    )


# ---- jitvision_native::random_resized_crop: the draw with ONNX RandomUniform ------------------------------------


def _draw_box(image: Any, scale: Sequence[float], ratio: Sequence[float]) -> Any:
    """int64 ``[top, left, height, width]``: RandomResizedCrop's tensor draw (``_boxes``), in ONNX."""
    hw = op.Cast(op.Shape(image, start=-2), to=DOUBLE)  # [H, W]
    height, width = op.Slice(hw, _ints(0), _ints(1)), op.Slice(hw, _ints(1), _ints(2))
    u = op.RandomUniform(dtype=DOUBLE, shape=[3, 10])
    log_ratio = [float(np.log(ratio[0])), float(np.log(ratio[1]))]
    area = op.Mul(height, width)
    fraction = op.Add(op.Mul(_row(u, 0), _const(scale[1] - scale[0], np.float64)), _const(scale[0], np.float64))
    target_area = op.Unsqueeze(op.Mul(fraction, area), _ints(0))  # [1, 10]
    lr = op.Add(op.Mul(_row(u, 1), _const(log_ratio[1] - log_ratio[0], np.float64)), _const(log_ratio[0], np.float64))
    signed = op.Concat(op.Unsqueeze(op.Neg(lr), _ints(0)), op.Unsqueeze(lr, _ints(0)), axis=0)  # [2, 10]
    cand = op.Round(op.Sqrt(op.Mul(target_area, op.Exp(signed))))  # [2, 10]: (h, w), rounded half to even
    limits = op.Unsqueeze(hw, _ints(1))  # [2, 1]
    zero = _const(0.0, np.float64)
    fits_hw = op.And(op.Greater(cand, zero), op.LessOrEqual(cand, limits))
    fits = op.Cast(op.ReduceMin(op.Cast(fits_hw, to=INT64), _ints(0), keepdims=0), to=INT64)  # [10] 0/1
    first = op.And(op.Cast(fits, to=BOOL), op.Equal(op.CumSum(fits, _ints(0)), _const(1, np.int64)))
    found = op.Greater(op.ReduceMax(fits, _ints(0), keepdims=1), _const(0, np.int64))  # [1]
    chosen = op.ReduceSum(op.Where(op.Unsqueeze(first, _ints(0)), cand, op.Mul(cand, zero)), _ints(1), keepdims=0)
    # The fallback: the whole image, its ratio clamped into ``ratio``, at least one pixel.
    in_ratio = op.Div(width, height)
    one = _const(1.0, np.float64)
    narrow = op.Concat(op.Max(op.Round(op.Div(width, _const(ratio[0], np.float64))), one), width, axis=0)
    wide = op.Concat(height, op.Max(op.Round(op.Mul(height, _const(ratio[1], np.float64))), one), axis=0)
    fallback = op.Where(
        op.Less(in_ratio, _const(ratio[0], np.float64)),
        narrow,
        op.Where(op.Greater(in_ratio, _const(ratio[1], np.float64)), wide, hw),
    )
    # ``chosen`` is 0 where nothing fits: a NaN/inf candidate never reaches it (Where, not a product with 0).
    crop_hw = op.Where(found, chosen, fallback)
    room = op.Sub(hw, crop_hw)
    position = op.Slice(_row(u, 2), _ints(0), _ints(2))
    top_left = op.Floor(op.Where(found, op.Mul(position, op.Add(room, one)), op.Div(room, _const(2.0, np.float64))))
    top_left = op.Min(top_left, room)
    return op.Cast(op.Concat(top_left, crop_hw, axis=0), to=INT64)


def random_resized_crop(
    image: Any,
    size: List[int],
    scale: Sequence[float],
    ratio: Sequence[float],
    flip_p: Optional[float] = None,
    mean: Optional[Sequence[float]] = None,
    std: Optional[Sequence[float]] = None,
    to_float: bool = False,
    crop_generator: Any = None,
    flip_generator: Any = None,
) -> Any:
    out = _resize_u8(
        _crop(image, _draw_box(image, scale, ratio)), _ints(*size), "jitvision_native::random_resized_crop"
    )
    if flip_p is not None:
        coin = op.Less(op.RandomUniform(dtype=FLOAT, shape=[1]), op.Constant(value_float=float(flip_p)))
        out = op.Where(coin, _flip_last(out), out)
    return _finish(out, mean, std, to_float)


# ---- jitvision_native::flip_if --------------------------------------------------------------------------------


def flip_if(input: Any, apply: Any, dims: List[int]) -> Any:
    flipped = input
    if dims:
        n = len(dims)
        flipped = op.Slice(input, _ints(*([-1] * n)), _ints(*([INT64_MIN] * n)), _ints(*dims), _ints(*([-1] * n)))
    return op.Where(op.Cast(apply, to=BOOL), flipped, input)


# ---- jitvision_native::resize_center_crop: sizes from the (dynamic) input shape ------------------------------


def _floor_int(x: Any) -> Any:
    return op.Cast(op.Floor(x), to=INT64)


def _resized_hw(hw: Any, size: List[int], max_size: Optional[int]) -> Any:
    """int64 [out_h, out_w] of ``Resize(size, max_size)`` for an int64 [H, W] (Python's int(a * b / c) in
    float64, as torchvision computes it)."""
    if len(size) == 2:
        return _size_value(size)
    hw_d = op.Cast(hw, to=DOUBLE)
    short, long = op.ReduceMin(hw_d, keepdims=1), op.ReduceMax(hw_d, keepdims=1)  # [1] each
    if len(size) == 0:
        if max_size is None:
            raise UnsupportedOp("jitvision_native::resize_center_crop: size [] needs max_size")
        new_short = _floor_int(op.Div(op.Mul(_const([float(max_size)], np.float64), short), long))
        new_long = _ints(max_size)
    else:
        new_short = _ints(size[0])
        new_long = _floor_int(op.Div(op.Mul(_const([float(size[0])], np.float64), long), short))
        if max_size is not None:
            over = op.Greater(new_long, _ints(max_size))
            shrunk = _floor_int(
                op.Div(
                    op.Mul(_const([float(max_size)], np.float64), op.Cast(new_short, to=DOUBLE)),
                    op.Cast(new_long, to=DOUBLE),
                )
            )
            new_short = op.Where(over, shrunk, new_short)
            new_long = op.Where(over, _ints(max_size), new_long)
    portrait = op.LessOrEqual(op.Slice(hw, _ints(1), _ints(2)), op.Slice(hw, _ints(0), _ints(1)))  # W <= H
    return op.Where(portrait, op.Concat(new_long, new_short, axis=0), op.Concat(new_short, new_long, axis=0))


def _center_top_left(out_hw: Any, crop: List[int]) -> Any:
    """torchvision's center-crop offsets: round((extent - crop) / 2) (half to even) when the crop fits, else
    -((crop - extent) // 2) (then negative: the crop is padded)."""
    diff = op.Sub(out_hw, _ints(*crop))
    half = op.Div(op.Cast(diff, to=DOUBLE), _const([2.0], np.float64))
    return op.Cast(op.Where(op.GreaterOrEqual(diff, _ints(0)), op.Round(half), op.Ceil(half)), to=INT64)


def resize_center_crop(
    image: Any,
    size: List[int],
    max_size: Optional[int] = None,
    crop_size: Optional[List[int]] = None,
    mean: Optional[Sequence[float]] = None,
    std: Optional[Sequence[float]] = None,
    to_float: bool = False,
) -> Any:
    out_hw = _resized_hw(op.Shape(image, start=-2), list(size), max_size)
    values = _resize_u8(image, out_hw, "jitvision_native::resize_center_crop")
    if crop_size is not None:
        crop = [int(v) for v in crop_size]
        top_left = _center_top_left(out_hw, crop)
        # Padding is needed only where the crop can be larger than the resized image.
        always_fits = len(size) == 1 and max_size is None and size[0] >= max(crop)
        if len(size) == 2:
            always_fits = _static(size) and size[0] >= crop[0] and size[1] >= crop[1]
        if not always_fits:
            before = op.Max(op.Neg(top_left), _ints(0, 0))
            after = op.Max(op.Sub(op.Add(top_left, _ints(*crop)), out_hw), _ints(0, 0))
            values = op.Pad(values, op.Concat(before, after, axis=0), op.Constant(value_float=0.0), _ints(-2, -1))
            top_left = op.Add(top_left, before)
        values = op.Slice(values, top_left, op.Add(top_left, _ints(*crop)), _ints(-2, -1))
    return _finish(values, mean, std, to_float)


# ---- the table ---------------------------------------------------------------------------------------------------


def _unsupported(name: str, why: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedOp(f"{name} has no ONNX translation: {why}")

    return refuse


def table() -> Dict[Any, Callable[..., Any]]:
    """{OpOverload: translation} for every jitvision op registered in this process that can reach a graph."""
    import torch

    from .. import _native  # noqa: F401  (loads the native ops when built)
    from ..transforms import functional  # noqa: F401  (registers the Python custom ops)

    entries = {
        ("jitvision_native", "resized_crop"): resized_crop,
        ("jitvision_native", "random_resized_crop"): random_resized_crop,
        ("jitvision_native", "flip_if"): flip_if,
        ("jitvision_native", "resize_center_crop"): resize_center_crop,
        ("jitvision_native", "warp_u8"): _unsupported(
            "jitvision_native::warp_u8 (the uint8 affine/rotate/perspective warp)",
            "torch's uint8 warp (grid_sample in float32 with its rounding and fill mask) is not translated",
        ),
        ("jitvision_native", "warp_grid_u8"): _unsupported(
            "jitvision_native::warp_grid_u8 (the uint8 elastic warp at a given grid)",
            "torch's uint8 warp (grid_sample in float32 with its rounding and fill mask) is not translated",
        ),
        ("jitvision_native", "resized_crop_box"): resized_crop_box,
        ("jitvision_native", "crop_at"): crop_at,
        ("jitvision", "resized_crop_box"): resized_crop_box,  # the Python op, where the native library is not built
    }
    out: Dict[Any, Callable[..., Any]] = {}
    for (namespace, name), fn in entries.items():
        try:
            packet = getattr(getattr(torch.ops, namespace), name)
        except (AttributeError, RuntimeError):
            continue  # not built / not registered here
        out[packet.default] = fn
    return out
