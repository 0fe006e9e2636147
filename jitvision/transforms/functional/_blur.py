"""gaussian_blur: kernels per kind and the functional.

torchvision's semantics: ``kernel_size`` is ``[kx, ky]`` (width first), odd and positive; ``sigma`` ``[sx, sy]``
(default ``0.15 * k + 0.35``), positive; the 1D weights are ``softmax(-(x / sigma)^2)`` over ``x`` evenly spaced
in ``[-(k - 1) / (2 sqrt 2), (k - 1) / (2 sqrt 2)]``; reflect padding keeps the size; integer images are blurred
in float32 and rounded.

How it runs: the blur is separable, so it is two 1D passes (k multiply-adds per pass instead of torchvision's
``kx * ky``-tap depthwise convolution). On CPU, uint8 and float32 images go through the native op
``jitvision_native::gaussian_blur`` in eager mode, under torch.compile (one graph node) and in exported programs
alike, with reflect borders. uint8: a fixed-point separable filter (csrc/blur_u8.cpp: 16-bit vertical pass into a
Q7 row, exact int32 horizontal pass; AVX2 with a scalar fallback giving the same integers), a level off torchvision
on ~0.1-0.7% of pixels (the parity rule allows 1%; tests/test_native_filters.py holds it there). float32: a SIMD
separable float32 filter (csrc/filters.cpp, AVX2+FMA with a scalar fallback giving the same bits), within ~1e-6
of torchvision. float64 images go through the same op's ATen formulation. GaussianBlur hands the op its drawn sigma
tensor (one per sample on batches). Without the native library: OpenCV's ``sepFilter2D`` per plane (float
weights) in eager mode and as the Python operator ``jitvision::gaussian_blur_opencv`` under torch.compile when
``cv2`` imports, else the passes as tensor code, which is also what TorchScript runs: for uint8 that is
``blur_u8_fixed_point``, the native filter's integer arithmetic in int64 tensor ops (scripted == eager, bit for bit).
"""

import math
from typing import Any, List, Optional

import PIL.Image
import torch
import torch.nn.functional as nnf

from ... import _native
from ...tv_tensors import Image, Video, wrap
from ._dispatch import (
    call_custom_op,
    get_kernel,
    is_exporting,
    is_pure_tensor,
    is_tracing,
    register_kernel,
    unwrap,
)
from ._type_conversion import pil_to_tensor, to_pil_image

try:  # an optional accelerator for the eager CPU path (see the module docstring)
    import cv2 as _cv2
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the environment
    _cv2 = None


def _check_kernel_size(kernel_size: List[int], op: str) -> None:
    if len(kernel_size) != 2:
        raise ValueError(f"{op}: kernel_size is a sequence its length should be 2 ([kx, ky]), got {kernel_size}")
    for k in kernel_size:
        if k <= 0 or k % 2 == 0:
            raise ValueError(f"{op}: kernel_size should have odd and positive integers, got {kernel_size}")


def _sigma_pair(kernel_size: List[int], sigma: Optional[List[float]], op: str) -> List[float]:
    if sigma is None:
        return [kernel_size[0] * 0.15 + 0.35, kernel_size[1] * 0.15 + 0.35]
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"{op}: sigma is a sequence, its length should be 2 (or 1), got {sigma}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"{op}: sigma should have positive values, got {sigma}")
    return [float(sigma[0]), float(sigma[1])]


def gaussian_weights(kernel_size: int, sigma: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The 1D Gaussian weights ``[*sigma.shape, kernel_size]`` (summing to 1) for a tensor ``sigma``."""
    lim = (kernel_size - 1) / (2.0 * math.sqrt(2.0))
    x = torch.linspace(-lim, lim, steps=kernel_size, dtype=dtype, device=sigma.device)
    return torch.softmax(-(x / sigma.to(dtype).unsqueeze(-1)).pow(2), dim=-1)


def _tap(weights: torch.Tensor, i: int, like: torch.Tensor) -> torch.Tensor:
    """Tap ``i`` of ``weights`` (``[k]`` or ``[R, k]``), shaped to broadcast against ``like`` (``[R, ...]``)."""
    w = weights[..., i]
    if w.ndim == 0:
        return w
    return w.reshape([w.shape[0]] + [1] * (like.ndim - 1))


def blur_separable(image: torch.Tensor, kernel_size: List[int], weights_x: torch.Tensor,
                   weights_y: torch.Tensor) -> torch.Tensor:
    """``image`` ``[..., H, W]`` blurred with 1D weights ``[kx]``/``[ky]``, or ``[R, kx]``/``[R, ky]`` per row of
    ``image``'s leading dimension; reflect padding; integer images in float32, rounded back."""
    fp = image.is_floating_point()
    work = image if fp else image.to(torch.float32)
    shape = work.shape
    height, width = shape[-2], shape[-1]
    kx, ky = kernel_size[0], kernel_size[1]
    padded = nnf.pad(work.reshape(-1, height, width), [kx // 2, kx // 2, ky // 2, ky // 2], mode="reflect")
    padded = padded.reshape(list(shape[:-2]) + [height + ky - 1, width + kx - 1])
    weights_x, weights_y = weights_x.to(work.dtype), weights_y.to(work.dtype)
    if not torch.jit.is_scripting():
        # Python-float taps are faster on the CPU; elsewhere reading the weights would synchronise with the device
        if weights_x.ndim == 1 and weights_y.ndim == 1 and not is_tracing() and weights_x.device.type == "cpu":
            out = _blur_separable_eager(padded, height, width, weights_x.tolist(), weights_y.tolist())
            return out if fp else out.round_().to(image.dtype)
    rows = padded[..., 0:width] * _tap(weights_x, 0, padded)
    for i in range(1, kx):
        rows = rows + padded[..., i : i + width] * _tap(weights_x, i, padded)
    out = rows[..., 0:height, :] * _tap(weights_y, 0, rows)
    for j in range(1, ky):
        out = out + rows[..., j : j + height, :] * _tap(weights_y, j, rows)
    if fp:
        return out
    return out.round_().to(image.dtype)


@torch.jit.unused
def _blur_separable_eager(
    padded: torch.Tensor, height: int, width: int, weights_x: List[float], weights_y: List[float]
) -> torch.Tensor:
    """The two passes with Python-float weights, accumulating in place (no temporary per tap)."""
    rows = torch.mul(padded[..., 0:width], weights_x[0])
    for i in range(1, len(weights_x)):
        rows.add_(padded[..., i : i + width], alpha=weights_x[i])
    out = torch.mul(rows[..., 0:height, :], weights_y[0])
    for j in range(1, len(weights_y)):
        out.add_(rows[..., j : j + height, :], alpha=weights_y[j])
    return out


@torch.jit.unused
def _native_applies(image: torch.Tensor) -> bool:
    return _native.FILTERS and image.is_cpu and image.dtype in _NATIVE_DTYPES and not image.requires_grad


_NATIVE_DTYPES = (torch.uint8, torch.float32, torch.float64)


@torch.jit.unused
def native_blur_takes(inpt: Any) -> bool:
    """Whether the C++ blur takes ``inpt`` as it is (an image or video tensor): GaussianBlur then hands it the drawn
    sigma tensor directly, in eager mode too."""
    return (
        isinstance(inpt, torch.Tensor)
        and (is_pure_tensor(inpt) or isinstance(inpt, (Image, Video)))
        and _native_applies(inpt)
    )


@torch.jit.unused
def _opencv_applies(image: torch.Tensor, kernel_size: List[int]) -> bool:
    return not is_tracing() and _opencv_takes(image, kernel_size)


@torch.jit.unused
def _opencv_takes(image: torch.Tensor, kernel_size: List[int]) -> bool:
    return (
        _cv2 is not None
        and image.device.type == "cpu"
        and (image.dtype == torch.uint8 or image.dtype == torch.float32)
        and not image.requires_grad
        and image.ndim >= 2
        and image.numel() > 0
        and kernel_size[0] // 2 < image.shape[-1]  # otherwise torch's reflect pad raises, as in torchvision
        and kernel_size[1] // 2 < image.shape[-2]
    )


@torch.jit.unused
def _blur_opencv(image: torch.Tensor, weights_x: torch.Tensor, weights_y: torch.Tensor) -> torch.Tensor:
    """OpenCV's separable filter on each ``[H, W]`` plane; weights ``[k]`` or ``[R, k]`` (one per leading row)."""
    src = image.contiguous()
    out = torch.empty_like(src)
    height, width = src.shape[-2], src.shape[-1]
    rows = src.shape[0] if weights_x.ndim == 2 else 1
    planes_in = src.numpy().reshape(rows, -1, height, width)
    planes_out = out.numpy().reshape(rows, -1, height, width)
    wx = weights_x.to(torch.float32).reshape(rows, -1).numpy()
    wy = weights_y.to(torch.float32).reshape(rows, -1).numpy()
    for r in range(rows):
        kx, ky = _np.ascontiguousarray(wx[r]), _np.ascontiguousarray(wy[r])
        for p in range(planes_in.shape[1]):
            _cv2.sepFilter2D(planes_in[r, p], -1, kx, ky, dst=planes_out[r, p], borderType=_cv2.BORDER_REFLECT_101)
    return out


@torch.jit.unused
def _python_weights(kernel_size: int, sigma: float) -> Any:
    """``gaussian_weights`` on Python floats (float64, then float32): equal to the tensor weights within a float32
    ulp, without the ~10 tiny tensor ops (a few hundred us per call)."""
    lim = (kernel_size - 1) / (2.0 * math.sqrt(2.0))
    step = 2.0 * lim / (kernel_size - 1) if kernel_size > 1 else 0.0
    exponents = [-(((-lim + i * step) / sigma) ** 2) for i in range(kernel_size)]
    top = max(exponents)
    weights = [math.exp(e - top) for e in exponents]
    total = sum(weights)
    return _np.array([w / total for w in weights], dtype=_np.float32)


@torch.jit.unused
def _blur_opencv_floats(image: torch.Tensor, kernel_size: List[int], sigmas: List[float]) -> torch.Tensor:
    weights_x = _python_weights(kernel_size[0], sigmas[0])
    same = kernel_size[1] == kernel_size[0] and sigmas[1] == sigmas[0]
    weights_y = weights_x if same else _python_weights(kernel_size[1], sigmas[1])
    src = image.contiguous()
    out = torch.empty_like(src)
    planes_in = src.numpy().reshape(-1, src.shape[-2], src.shape[-1])
    planes_out = out.numpy().reshape(-1, src.shape[-2], src.shape[-1])
    for p in range(planes_in.shape[0]):
        _cv2.sepFilter2D(planes_in[p], -1, weights_x, weights_y, dst=planes_out[p], borderType=_cv2.BORDER_REFLECT_101)
    return out


def _reflect_index(n: int, pad: int, device: torch.device) -> torch.Tensor:
    index = torch.arange(-pad, n + pad, device=device).abs()
    return torch.where(index >= n, 2 * (n - 1) - index, index)


def blur_u8_fixed_point(image: torch.Tensor, kernel_size: List[int], sigma_x: torch.Tensor,
                        sigma_y: torch.Tensor) -> torch.Tensor:
    """The native uint8 filter's fixed-point arithmetic (csrc/blur_u8.cpp) as int64 tensor code, so TorchScript
    and other devices give eager's integers: double weights quantised per pass (vertical mirrored pairs in Q16,
    the centre the residual in Q15; horizontal taps in Q15, the centre the residual); vertical pass on ``p << 6``
    with ``vpmulhrsw``'s rounding per pair into a Q7 row; exact horizontal sums, ``(sum + 2^21) >> 22``."""
    kx, ky = kernel_size[0], kernel_size[1]
    cx, cy = kx // 2, ky // 2
    height, width = image.shape[-2], image.shape[-1]
    step = 1.0 / math.sqrt(2.0)
    wx = torch.exp(-((torch.arange(kx, dtype=torch.float64, device=image.device) - cx) * step
                     / sigma_x.to(torch.float64).unsqueeze(-1)).pow(2))
    wy = torch.exp(-((torch.arange(ky, dtype=torch.float64, device=image.device) - cy) * step
                     / sigma_y.to(torch.float64).unsqueeze(-1)).pow(2))
    wx = wx / wx.sum(-1, keepdim=True)
    wy = wy / wy.sum(-1, keepdim=True)
    pair_y = torch.round(wy[..., :cy] * 65536.0).long()
    centre_y = 32768 - pair_y.sum(-1)
    taps_x = torch.round(wx * 32768.0).long()
    taps_x[..., cx] = 32768 - 2 * taps_x[..., :cx].sum(-1)
    rows = (image.long() << 6).index_select(-2, _reflect_index(height, cy, image.device))
    # mulhrs(a, b) = (a * b + 2^14) >> 15; a centre weight of 2^15 (an identity axis) is exact here as in C++
    mid = (2 * rows[..., cy : cy + height, :] * _tap(centre_y.unsqueeze(-1), 0, rows) + 16384) >> 15
    for j in range(cy):
        pair = rows[..., j : j + height, :] + rows[..., ky - 1 - j : ky - 1 - j + height, :]
        mid = mid + ((pair * _tap(pair_y, j, rows) + 16384) >> 15)
    mid = mid.index_select(-1, _reflect_index(width, cx, image.device))
    total = mid[..., 0:width] * _tap(taps_x, 0, mid)
    for i in range(1, kx):
        total = total + mid[..., i : i + width] * _tap(taps_x, i, mid)
    return ((total + (1 << 21)) >> 22).clamp_(0, 255).to(torch.uint8)


def blur_with_sigma(image: torch.Tensor, kernel_size: List[int], sigma_x: torch.Tensor,
                    sigma_y: torch.Tensor) -> torch.Tensor:
    """The blur with tensor sigmas: ``[]``, or ``[R]`` for one sigma per row of ``image``'s leading dimension."""
    if image.numel() == 0:
        return image
    weight_dtype = image.dtype if image.is_floating_point() else torch.float32
    if not torch.jit.is_scripting():
        if _native_applies(image):  # eager, compiled and exported: one C++ node (csrc/filters.cpp)
            op = torch.ops.jitvision_native.gaussian_blur.default
            if is_tracing():
                return call_custom_op(op, image, kernel_size, sigma_x, sigma_y)
            return op(image, kernel_size, sigma_x, sigma_y)
        if _opencv_applies(image, kernel_size):  # eager without the native library
            weights_x = gaussian_weights(kernel_size[0], sigma_x, weight_dtype)
            same = kernel_size[1] == kernel_size[0] and sigma_y is sigma_x
            weights_y = weights_x if same else gaussian_weights(kernel_size[1], sigma_y, weight_dtype)
            return _blur_opencv(image, weights_x, weights_y)
        if is_tracing() and not is_exporting() and _opencv_takes(image, kernel_size):
            # torch.compile without the native library: OpenCV's filter as one node (jitvision::gaussian_blur_opencv),
            # eager's own computation, so compiled and eager agree
            op = torch.ops.jitvision.gaussian_blur_opencv.default
            return call_custom_op(op, image, kernel_size, sigma_x, sigma_y)
    if image.dtype == torch.uint8:  # TorchScript, other devices: the native filter's integers
        return blur_u8_fixed_point(image, kernel_size, sigma_x, sigma_y)
    weights_x = gaussian_weights(kernel_size[0], sigma_x, weight_dtype)
    if kernel_size[1] == kernel_size[0] and sigma_y is sigma_x:
        weights_y = weights_x
    else:
        weights_y = gaussian_weights(kernel_size[1], sigma_y, weight_dtype)
    return blur_separable(image, kernel_size, weights_x, weights_y)


# OpenCV's blur as an operator, for torch.compile (a Python implementation: exported programs, which may run where
# there is no Python, get the C++ op jitvision_native::gaussian_blur instead). It is called through call_custom_op:
# the images carry one extra leading unit dimension, dropped here.
_LIBRARY = torch.library.Library("jitvision", "FRAGMENT")
_LIBRARY.define("gaussian_blur_opencv(Tensor image, int[] kernel_size, Tensor sigma_x, Tensor sigma_y) -> Tensor")


def _gaussian_blur_opencv_impl(
    image: torch.Tensor, kernel_size: List[int], sigma_x: torch.Tensor, sigma_y: torch.Tensor
) -> torch.Tensor:
    weight_dtype = image.dtype if image.is_floating_point() else torch.float32
    weights_x = gaussian_weights(kernel_size[0], sigma_x, weight_dtype)
    same = kernel_size[1] == kernel_size[0] and torch.equal(sigma_y, sigma_x)
    weights_y = weights_x if same else gaussian_weights(kernel_size[1], sigma_y, weight_dtype)
    return _blur_opencv(image[0], weights_x, weights_y).unsqueeze(0)


_LIBRARY.impl("gaussian_blur_opencv", _gaussian_blur_opencv_impl, "CPU")


@torch.library.register_fake("jitvision::gaussian_blur_opencv")
def _gaussian_blur_opencv_fake(
    image: torch.Tensor, kernel_size: List[int], sigma_x: torch.Tensor, sigma_y: torch.Tensor
) -> torch.Tensor:
    return torch.empty_like(image, memory_format=torch.contiguous_format)


def gaussian_blur_image(
    image: torch.Tensor, kernel_size: List[int], sigma: Optional[List[float]] = None
) -> torch.Tensor:
    if not torch.jit.is_scripting():
        kernel_size, sigma = _eager_arguments(kernel_size, sigma)
    _check_kernel_size(kernel_size, "gaussian_blur")
    sigmas = _sigma_pair(kernel_size, sigma, "gaussian_blur")
    if image.ndim < 2:
        raise ValueError(f"gaussian_blur: expected an image [..., H, W], got {image.ndim} dimensions")
    if kernel_size[0] // 2 >= image.shape[-1] or kernel_size[1] // 2 >= image.shape[-2]:
        raise ValueError(
            f"gaussian_blur: kernel_size {kernel_size} needs an image larger than half of it (reflect padding), "
            f"got {list(image.shape[-2:])}"
        )
    if not torch.jit.is_scripting():
        if not _native_applies(image) and _opencv_applies(image, kernel_size):  # eager without the native library
            return _blur_opencv_floats(image, kernel_size, sigmas)
    sigma_x = torch.tensor(sigmas[0], dtype=torch.float64, device=image.device)
    sigma_y = sigma_x if sigmas[1] == sigmas[0] else torch.tensor(sigmas[1], dtype=torch.float64, device=image.device)
    return blur_with_sigma(image, kernel_size, sigma_x, sigma_y)


def gaussian_blur_video(
    video: torch.Tensor, kernel_size: List[int], sigma: Optional[List[float]] = None
) -> torch.Tensor:
    return gaussian_blur_image(video, kernel_size, sigma)


@torch.jit.unused
def gaussian_blur_image_pil(
    image: PIL.Image.Image, kernel_size: List[int], sigma: Optional[List[float]] = None
) -> PIL.Image.Image:
    return to_pil_image(gaussian_blur_image(pil_to_tensor(image), kernel_size, sigma), mode=image.mode)


@torch.jit.unused
def _eager_arguments(kernel_size: Any, sigma: Any) -> Any:
    """torchvision's eager conveniences: an int kernel size, a number or a tuple for sigma."""
    if isinstance(kernel_size, int) and not isinstance(kernel_size, bool):
        kernel_size = [kernel_size, kernel_size]
    if not isinstance(kernel_size, (list, tuple)) or not all(isinstance(k, int) for k in kernel_size):
        raise TypeError(f"gaussian_blur: kernel_size should be an int or a sequence of ints, got {kernel_size!r}")
    if isinstance(sigma, (int, float)) and not isinstance(sigma, bool):
        sigma = [float(sigma)]
    elif sigma is not None and not isinstance(sigma, (list, tuple)):
        raise TypeError(f"gaussian_blur: sigma should be either float or sequence of floats, got {sigma!r}")
    return list(kernel_size), (None if sigma is None else [float(s) for s in sigma])


def gaussian_blur(inpt: torch.Tensor, kernel_size: List[int], sigma: Optional[List[float]] = None) -> torch.Tensor:
    """Blur images and videos with a Gaussian kernel (see the module docstring); masks, boxes and keypoints pass
    through transforms untouched. Plain tensors are treated as images."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return gaussian_blur_image(inpt, kernel_size, sigma)
    return get_kernel(gaussian_blur, type(inpt))(inpt, kernel_size, sigma)


def gaussian_blur_with_tensor_sigma(inpt: torch.Tensor, kernel_size: List[int], sigma: torch.Tensor) -> torch.Tensor:
    """What ``GaussianBlur`` runs: one sigma for both axes, a tensor (``[]``, or ``[R]`` per leading row)."""
    if torch.jit.is_scripting() or is_pure_tensor(inpt):
        return blur_with_sigma(inpt, kernel_size, sigma, sigma)
    return wrap(blur_with_sigma(unwrap(inpt), kernel_size, sigma, sigma), like=inpt)


for _kind in (Image, Video):
    register_kernel(gaussian_blur, _kind)(gaussian_blur_image)
register_kernel(gaussian_blur, PIL.Image.Image)(gaussian_blur_image_pil)
