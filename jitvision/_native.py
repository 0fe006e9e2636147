"""The native library (``jitvision/lib/libjitvision_native.so``, built from ``jitvision/csrc``) and its
pure-PyTorch reference.

The library is a plain shared library (no Python in it, linked against libtorch only) that registers torch ops in
the ``jitvision_native`` namespace with ``TORCH_LIBRARY``. Python loads it here with ``torch.ops.load_library``;
a C++ program loads it with ``dlopen(path, RTLD_NOW | RTLD_GLOBAL)`` (or links it with ``-Wl,--no-as-needed``)
*before* it loads a scripted module or an AOTInductor package that calls these ops: neither records that it needs
the library, and without it loading fails with ``Could not find schema for jitvision_native::...`` (AOTI) or
``Unknown builtin op: jitvision_native::...`` (TorchScript). ``native_library_path()`` says where it is
(``examples/deploy`` shows the C++ side). Each op is one graph node for dynamo/export (fake impls below give the
static output shape) and callable from TorchScript as ``torch.ops.jitvision_native.*``:

- ``resized_crop(image, box, flip, size, mean=None, std=None, to_float=False)``: uint8 ``[..., C, H, W]``, crop
  ``box = [top, left, height, width]`` (an int64 tensor, read inside, so a random draw stays live under
  compile), antialiased bilinear resize to ``size``, mirror left-right if ``flip`` (a bool tensor or None), then
  either uint8 or float32 ``(v / 255 - mean) / std``;
- ``random_resized_crop(image, size, scale, ratio, flip_p=None, mean=None, std=None, to_float=False,
  crop_generator=None, flip_generator=None)``: ``RandomResizedCrop(size, scale, ratio)`` [+
  ``RandomHorizontalFlip(flip_p)``] with the draw inside (the transforms' draw, same generator calls, same
  result for a seed), then ``resized_crop``; tagged ``nondeterministic_seeded``, so graph passes keep every call;
- ``warp_u8(image, coefficients, out_h, out_w, projective, mode, channels, fill=None)``: torchvision's uint8
  affine/rotate/perspective warp (grid_sample of the float image with zero padding and align_corners=False, the
  fill mask, rounding back) read and written as uint8 with the float32 arithmetic per value kept, the grid
  positions computed per pixel from [G, 8] affine or projective grid coefficients (``csrc/warp.cpp``);
- ``warp_grid_u8(image, grid, mode, channels, fill=None)``: the same warp at a given grid ``[G, OH, OW, 2]``
  (elastic; ``WARP_GRID`` says whether the library has it);
- ``flip_if(input, apply, dims)``: ``input.flip(dims)`` if the one-element tensor ``apply`` is true, else a copy,
  any dtype and device (a compiled random flip: inductor's generated flip is an element-wise gather, torch's
  copies whole rows);
- ``gaussian_blur(image, kernel_size, sigma_x, sigma_y)``, ``gaussian_noise(image, mean, sigma, clip)`` and
  ``erase_box(image, box, value)``: GaussianBlur/GaussianNoise/RandomErasing's effects in eager and as one node
  under compile (``csrc/filters.cpp``; ``FILTERS`` says whether the extension has them);
- ``resize_center_crop(image, size, max_size=None, crop_size=None, mean=None, std=None, to_float=False)``:
  torchvision's ``Resize(size, max_size)`` (bilinear, antialias) followed by ``CenterCrop(crop_size)`` (zero
  padding where the crop is larger), computing only the cropped window;
- ``crop_at(image, top_left, height, width)``: a crop at an int64 tensor offset ``[top, left]`` (or one per row,
  ``[*lead, 2]``), any dtype and device (``csrc/crop.cpp``);
- ``resized_crop_box(image, box, size, interpolation, antialias)``: ``resized_crop`` with the region an int64
  tensor ``[top, left, height, width]`` (or one per row), any dtype, device and tensor interpolation mode, zero
  padding outside the image (``csrc/crop.cpp``). These two are what random crops put into a traced graph.
- ``to_float_u8(image, mean=None, std=None)``: uint8 ``[..., C, H, W]`` to float32 ``v / 255`` [then ``(x - mean) /
  std``] in one pass, the float tail's arithmetic above (``csrc/augment.cpp``; Compose runs it after an
  augmentation policy, see ``transforms._fusion``).
- ``augment_step_u8(image, ops, magnitudes, mode, fill=None)``: the steps of an automatic augmentation policy
  (AutoAugment, RandAugment, TrivialAugmentWide, AugMix; op ids of ``transforms._augment_ops``) on a uint8 CPU
  image, ``ops``/``magnitudes`` ``[K]`` for one sample or ``[R, K]`` for rows, read inside (``csrc/augment.cpp``;
  ``AUGMENT`` says whether the library has it).
- ``augment_random_u8(image, kind, num_ops, magnitude, space, table, translate, probs, mode, fill=None,
  rows=False, generator=None)``: AutoAugment's, RandAugment's or TrivialAugmentWide's draw inside (the Python
  ``_draw``'s uniforms and arithmetic, bit for bit, on ``generator`` or the global RNG; one draw, or one per
  leading row with ``rows``), then ``augment_step_u8``; returns ``(output, ops, magnitudes)``. Tagged
  ``nondeterministic_seeded``: a compiled policy call is this one node (``AUGMENT_RANDOM``).
- ``crop_copy(image, top, left, height, width)``, ``random_crop(image, size, generator=None)`` (RandomCrop's
  draw inside: ``torch.rand(2, dtype=float64)`` on the generator, then the crop) and ``vertical_flip(image)``:
  contiguous outputs written with row copies, for contiguous CPU tensors of any dtype, and ``random_flip(image,
  p, dim, generator=None)`` (a random flip's coin drawn inside, ``[flipped]`` or ``[]``; eager only, no fake):
  the eager fast path of one plain tensor (``csrc/fastgeo.cpp``; ``GEOMETRY`` says whether the library has them).

The uint8 result is bit-identical to torch's uint8 antialiased ``interpolate`` (the path torchvision takes on CPUs
with AVX2/AVX512), so the float result is that uint8 value scaled and normalised, within float rounding (~1e-6) of
torchvision's ``to_dtype`` + ``normalize``. ``AVAILABLE`` says whether the library loaded (else
``UNAVAILABLE_REASON`` says why, and the import warned once); without it the callers take their pure-PyTorch paths
(the fusion of ``transforms._fusion`` and the native resize stay off). ``*_reference`` below is the same arithmetic
in PyTorch, slow, that the tests hold the kernel to.
"""

import math
import os
import warnings
from typing import List, Optional, Sequence, Tuple

import torch

LIBRARY_NAME = "libjitvision_native.so"
_LIBRARY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")


def native_library_path() -> str:
    """The path of the native library inside the installed package (whether or not it was built: see
    ``AVAILABLE`` and ``UNAVAILABLE_REASON``). Load it in a C++ program before a scripted module or an
    AOTInductor package that uses ``jitvision_native::*`` ops."""
    return os.path.join(_LIBRARY_DIR, LIBRARY_NAME)


def _built_for(path: str) -> Optional[str]:
    """The torch version recorded next to the library by setup.py, or None if there is no record."""
    try:
        with open(path[: -len(".so")] + ".torch_version") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _load(path: str) -> Optional[str]:
    """Load the library at ``path``; the reason it is not usable, or None when it loaded."""
    if not os.path.exists(path):
        return (
            f"{path} was not built (the build had no torch or no C++ compiler: install with "
            "`pip install --no-build-isolation .` next to the torch you run, or run "
            "`python setup.py build_ext --inplace`)"
        )
    built_for = _built_for(path)
    if built_for != torch.__version__:
        # A C++ library compiled against one torch is not usable with another (the C++ API and ABI change between
        # releases): the user either runs the torch it was built for or builds jitvision against theirs.
        wanted = f"install torch=={built_for} (the torch this jitvision was built for), or " if built_for else ""
        return (
            f"{path} was built for torch {built_for or '(unknown)'}, this is torch {torch.__version__}: {wanted}"
            f"build jitvision against torch {torch.__version__} (`pip install --no-build-isolation <jitvision "
            "source>` or, in a checkout, `python setup.py build_ext --inplace`)"
        )
    try:
        torch.ops.load_library(path)
    except (OSError, RuntimeError) as error:
        return f"{path} failed to load: {error}"
    return None


UNAVAILABLE_REASON = _load(native_library_path())
AVAILABLE = UNAVAILABLE_REASON is None
if not AVAILABLE:  # once per process: the module runs once
    warnings.warn(
        f"jitvision: the native library is not loaded, the slower pure-PyTorch paths run: {UNAVAILABLE_REASON}",
        RuntimeWarning,
        stacklevel=2,
    )

# The filter ops of csrc/filters.cpp (gaussian_blur, gaussian_noise, erase_box): absent from a library built
# before they existed, in which case their callers keep the pure-PyTorch paths.
FILTERS = AVAILABLE and hasattr(torch.ops.jitvision_native, "gaussian_blur")
# warp_grid_u8 (csrc/warp.cpp, the uint8 warp at a given grid: elastic): absent from an older library, in which
# case elastic keeps grid_sample on the float image.
WARP_GRID = AVAILABLE and hasattr(torch.ops.jitvision_native, "warp_grid_u8")
# The eager ops of csrc/fastgeo.cpp (crop_copy, random_crop, vertical_flip, random_flip), likewise optional.
GEOMETRY = AVAILABLE and hasattr(torch.ops.jitvision_native, "random_flip")
# The decoders of jitvision.io (csrc/decode_jpeg.cpp with libjpeg, csrc/decode_png.cpp with libpng): each is left out
# of a library built without its codec, and jitvision.io then decodes that format with Pillow.
DECODE_JPEG = AVAILABLE and hasattr(torch.ops.jitvision_native, "decode_jpeg")
DECODE_PNG = AVAILABLE and hasattr(torch.ops.jitvision_native, "decode_png")
# A batch of encoded images decoded in parallel in one call (csrc/decode_batch.cpp, built with the JPEG decoder).
DECODE_BATCH = AVAILABLE and hasattr(torch.ops.jitvision_native, "decode_batch_into")

__all__ = [
    "AVAILABLE",
    "UNAVAILABLE_REASON",
    "FILTERS",
    "WARP_GRID",
    "GEOMETRY",
    "DECODE_JPEG",
    "DECODE_PNG",
    "DECODE_BATCH",
    "native_library_path",
    "resized_crop_reference",
    "resize_center_crop_reference",
]


# ---- the reference: torch's uint8 antialiased bilinear arithmetic, in PyTorch ----------------------------------


def _axis_weights(in_size: int, out_size: int) -> Tuple[torch.Tensor, int]:
    """Dense [out_size, in_size] int weights (as float64) and the fixed-point precision of torch's uint8
    antialiased bilinear resize along one axis."""
    scale = in_size / out_size
    support = scale if scale >= 1.0 else 1.0
    max_taps = math.ceil(support) * 2 + 1
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    rows = []
    wt_max = 0.0
    for i in range(out_size):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        size = min(max(min(int(center + support + 0.5), in_size) - lo, 0), max_taps)
        w = [max(0.0, 1.0 - abs((j + lo - center + 0.5) * invscale)) for j in range(size)]
        total = sum(w)
        if total != 0.0:
            w = [v / total for v in w]
            wt_max = max([wt_max, *w])
        rows.append((lo, w))
    precision = 0
    while precision < 22 and int(0.5 + wt_max * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    dense = torch.zeros(out_size, in_size, dtype=torch.float64)
    for i, (lo, w) in enumerate(rows):
        for j, v in enumerate(w):
            v *= 1 << precision
            dense[i, lo + j] = float(int(-0.5 + v) if v < 0 else int(0.5 + v))
    return dense, precision


def _round_shift(acc: torch.Tensor, precision: int) -> torch.Tensor:
    return torch.floor((acc + float(1 << (precision - 1))) / float(1 << precision)).clamp_(0, 255)


def _resize_u8_reference(crop: torch.Tensor, out_h: int, out_w: int) -> torch.Tensor:
    """[N, C, h, w] uint8 -> [N, C, out_h, out_w] as float64 holding uint8 values (horizontal pass, rounded,
    then vertical pass, rounded: torch's order)."""
    wx, px = _axis_weights(crop.shape[-1], out_w)
    wy, py = _axis_weights(crop.shape[-2], out_h)
    tmp = _round_shift(crop.double() @ wx.T, px)  # exact: integers far below 2^53
    return _round_shift(wy @ tmp, py)


def _finish(values: torch.Tensor, mean: Optional[Sequence[float]], std: Optional[Sequence[float]], to_float: bool):
    if not to_float:
        return values.to(torch.uint8)
    out = values.float().mul_(1.0 / 255.0)
    if mean is not None and std is not None:
        m = torch.tensor(mean, dtype=torch.float32).view(-1, 1, 1)
        s = torch.tensor(std, dtype=torch.float32).view(-1, 1, 1)
        out = out.sub_(m).div_(s)
    return out


def resized_crop_reference(
    image: torch.Tensor,
    box: torch.Tensor,
    flip: Optional[torch.Tensor],
    size: List[int],
    mean: Optional[Sequence[float]] = None,
    std: Optional[Sequence[float]] = None,
    to_float: bool = False,
) -> torch.Tensor:
    """Pure-PyTorch ``jitvision_native::resized_crop`` (same arithmetic, much slower)."""
    top, left, height, width = (int(v) for v in box.reshape(-1).tolist())
    lead = image.shape[:-3]
    batch = image.reshape(-1, *image.shape[-3:])[..., top : top + height, left : left + width]
    values = _resize_u8_reference(batch, size[0], size[1])
    if flip is not None and bool(flip):
        values = values.flip(-1)
    return _finish(values, mean, std, to_float).reshape(*lead, image.shape[-3], size[0], size[1])


def _resized_size(height: int, width: int, size: List[int], max_size: Optional[int]) -> Tuple[int, int]:
    """torchvision's output size of Resize(size, max_size)."""
    if len(size) == 2:
        return size[0], size[1]
    short, long = min(height, width), max(height, width)
    if len(size) == 0:
        assert max_size is not None
        new_short, new_long = int(max_size * short / long), max_size
    else:
        new_short, new_long = size[0], int(size[0] * long / short)
        if max_size is not None and new_long > max_size:
            new_short, new_long = int(max_size * new_short / new_long), max_size
    return (new_long, new_short) if width <= height else (new_short, new_long)


def _center_offset(extent: int, crop: int) -> int:
    return -((crop - extent) // 2) if crop > extent else int(round((extent - crop) / 2.0))


def resize_center_crop_reference(
    image: torch.Tensor,
    size: List[int],
    max_size: Optional[int] = None,
    crop_size: Optional[List[int]] = None,
    mean: Optional[Sequence[float]] = None,
    std: Optional[Sequence[float]] = None,
    to_float: bool = False,
) -> torch.Tensor:
    """Pure-PyTorch ``jitvision_native::resize_center_crop``."""
    height, width = image.shape[-2], image.shape[-1]
    out_h, out_w = _resized_size(height, width, list(size), max_size)
    crop_h, crop_w = (out_h, out_w) if crop_size is None else crop_size
    lead = image.shape[:-3]
    values = _resize_u8_reference(image.reshape(-1, *image.shape[-3:]), out_h, out_w)
    top, left = _center_offset(out_h, crop_h), _center_offset(out_w, crop_w)
    window = values.new_zeros(values.shape[0], values.shape[1], crop_h, crop_w)
    ys, xs = slice(max(top, 0), min(top + crop_h, out_h)), slice(max(left, 0), min(left + crop_w, out_w))
    window[..., ys.start - top : ys.stop - top, xs.start - left : xs.stop - left] = values[..., ys, xs]
    return _finish(window, mean, std, to_float).reshape(*lead, image.shape[-3], crop_h, crop_w)


# ---- fake impls: the static output shape, so dynamo/export keep each op as one node --------------------------

if AVAILABLE:

    @torch.library.register_fake("jitvision_native::resized_crop")
    def _resized_crop_fake(image, box, flip, size, mean=None, std=None, to_float=False):
        dtype = torch.float32 if to_float else torch.uint8
        return image.new_empty((*image.shape[:-2], size[0], size[1]), dtype=dtype)

    @torch.library.register_fake("jitvision_native::random_resized_crop")
    def _random_resized_crop_fake(image, size, scale, ratio, flip_p=None, mean=None, std=None, to_float=False,
                                  crop_generator=None, flip_generator=None):
        dtype = torch.float32 if to_float else torch.uint8
        return image.new_empty((*image.shape[:-2], size[0], size[1]), dtype=dtype)

    if hasattr(torch.ops.jitvision_native, "to_float_u8"):  # absent from a library built before it

        @torch.library.register_fake("jitvision_native::to_float_u8")
        def _to_float_u8_fake(image, mean=None, std=None):
            return torch.empty_like(image, dtype=torch.float32, memory_format=torch.contiguous_format)

    @torch.library.register_fake("jitvision_native::warp_u8")
    def _warp_u8_fake(image, coefficients, out_h, out_w, projective, mode, channels, fill=None):
        groups = coefficients.shape[0]
        planes = image.numel() // (groups * image.shape[-2] * image.shape[-1])
        return image.new_empty((groups, planes, out_h, out_w))

    if WARP_GRID:

        @torch.library.register_fake("jitvision_native::warp_grid_u8")
        def _warp_grid_u8_fake(image, grid, mode, channels, fill=None):
            groups = grid.shape[0]
            planes = image.numel() // (groups * image.shape[-2] * image.shape[-1])
            return image.new_empty((groups, planes, grid.shape[1], grid.shape[2]))

    @torch.library.register_fake("jitvision_native::flip_if")
    def _flip_if_fake(input, apply, dims):
        return torch.empty_like(input)

    @torch.library.register_fake("jitvision_native::resize_center_crop")
    def _resize_center_crop_fake(image, size, max_size=None, crop_size=None, mean=None, std=None, to_float=False):
        dtype = torch.float32 if to_float else torch.uint8
        if crop_size is None:  # the whole resized image: its size follows the input's (symbolic under export)
            crop_size = _resized_size(image.shape[-2], image.shape[-1], list(size), max_size)
        return image.new_empty((*image.shape[:-2], crop_size[0], crop_size[1]), dtype=dtype)

    @torch.library.register_fake("jitvision_native::crop_at")
    def _crop_at_fake(image, top_left, height, width):
        return image.new_empty((*image.shape[:-2], height, width))

    @torch.library.register_fake("jitvision_native::resized_crop_box")
    def _resized_crop_box_fake(image, box, size, interpolation, antialias):
        return image.new_empty((*image.shape[:-2], size[0], size[1]))

    # csrc/color.cpp: uint8 photometric ops, the input's shape (grayscale: one channel).
    def _same_u8(image, *args):
        return torch.empty_like(image, memory_format=torch.contiguous_format)

    # csrc/color_point.cpp: point_u8 likewise (random_point_u8 and color_jitter_random_u8 are eager-only: the first
    # returns a list whose length depends on the draw, and compiled code draws with tensor parameters instead).
    _SAME_U8 = ("lut_u8", "adjust_u8", "color_jitter_u8", "equalize_u8", "autocontrast_u8", "sharpness_u8", "point_u8")
    for _name in _SAME_U8:
        torch.library.register_fake(f"jitvision_native::{_name}")(_same_u8)

    @torch.library.register_fake("jitvision_native::grayscale_u8")
    def _grayscale_u8_fake(image):
        return image.new_empty((*image.shape[:-3], 1, image.shape[-2], image.shape[-1]))

    @torch.library.register_fake("jitvision_native::constant_pad")
    def _constant_pad_fake(input, pad, value):
        shape = list(input.shape)
        for i in range(len(pad) // 2):
            shape[-1 - i] = shape[-1 - i] + pad[2 * i] + pad[2 * i + 1]
        return input.new_empty(shape)

    @torch.library.register_fake("jitvision_native::select_rows")
    def _select_rows_fake(apply, a, b):
        return torch.empty_like(a, memory_format=torch.contiguous_format)


if FILTERS:

    @torch.library.register_fake("jitvision_native::gaussian_blur")
    def _gaussian_blur_fake(image, kernel_size, sigma_x, sigma_y):
        return torch.empty_like(image, memory_format=torch.contiguous_format)

    @torch.library.register_fake("jitvision_native::gaussian_noise")
    def _gaussian_noise_fake(image, mean, sigma, clip):
        return torch.empty_like(image, memory_format=torch.contiguous_format)

    @torch.library.register_fake("jitvision_native::erase_box")
    def _erase_box_fake(image, box, value):
        return torch.empty_like(image, memory_format=torch.contiguous_format)


if GEOMETRY:

    @torch.library.register_fake("jitvision_native::crop_copy")
    def _crop_copy_fake(image, top, left, height, width):
        return image.new_empty((*image.shape[:-2], height, width))

    @torch.library.register_fake("jitvision_native::random_crop")
    def _random_crop_fake(image, size, generator=None):
        return image.new_empty((*image.shape[:-2], size[0], size[1]))

    @torch.library.register_fake("jitvision_native::vertical_flip")
    def _vertical_flip_fake(image):
        return torch.empty_like(image, memory_format=torch.contiguous_format)


# ---- JPEG (csrc/jpeg.cpp, built only where setup.py found libjpeg) -----------------------------------------------
# jpeg_u8(images, quality): uint8 [..., 1 or 3, H, W] JPEG-encoded and decoded with libjpeg at torchvision's
# settings; quality an integer tensor of one value or one per block of consecutive images of the flattened batch.
# False when the library was built without libjpeg: `jpeg` then keeps OpenCV/Pillow and its Python operator.
JPEG = AVAILABLE and hasattr(torch.ops.jitvision_native, "jpeg_u8")
__all__ += ["JPEG"]

if JPEG:

    @torch.library.register_fake("jitvision_native::jpeg_u8")
    def _jpeg_u8_fake(images, quality):
        return torch.empty_like(images, memory_format=torch.contiguous_format)

# ---- augment_step_u8 (csrc/augment.cpp): the automatic augmentation policies' steps on a uint8 CPU image --------
# (absent from a library built before it: the policies then keep their Python steps)
AUGMENT = AVAILABLE and hasattr(torch.ops.jitvision_native, "augment_step_u8")

if AUGMENT:

    @torch.library.register_fake("jitvision_native::augment_step_u8")
    def _augment_step_u8_fake(image, ops, magnitudes, mode, fill=None):
        return torch.empty_like(image, memory_format=torch.contiguous_format)

# ---- augment_random_u8 (csrc/augment.cpp): a policy's draw and steps in one call ---------------------------------
# (AutoAugment, RandAugment, TrivialAugmentWide on a uint8 CPU image; absent from an older library, in which case
# the policies draw in Python and call augment_step_u8)
AUGMENT_RANDOM = AUGMENT and hasattr(torch.ops.jitvision_native, "augment_random_u8")

if AUGMENT_RANDOM:

    @torch.library.register_fake("jitvision_native::augment_random_u8")
    def _augment_random_u8_fake(image, kind, num_ops, magnitude, space, table, translate, probs, mode, fill=None,
                                rows=False, generator=None):
        steps = 2 if kind == 0 else (num_ops if kind == 1 else 1)
        shape = (image.shape[0], steps) if rows else (steps,)
        out = torch.empty_like(image, memory_format=torch.contiguous_format)
        return out, image.new_empty(shape, dtype=torch.int64), image.new_empty(shape, dtype=torch.float64)

# ---- permute_channels (csrc/channels.cpp): RandomChannelPermutation's channel reorder -----------------------------
# One plane copy per channel on the CPU (index_select/gather elsewhere); one graph node under compile, where
# inductor would emit an element-wise uint8 gather instead of plane copies. A library built without it:
# index_select/gather then.
CHANNELS = AVAILABLE and hasattr(torch.ops.jitvision_native, "permute_channels")
__all__ += ["CHANNELS"]

if CHANNELS:

    @torch.library.register_fake("jitvision_native::permute_channels")
    def _permute_channels_fake(image, permutation):
        return torch.empty_like(image, memory_format=torch.contiguous_format)

# ---- drawn_sizes (csrc/drawn.cpp): the carrier of drawn output sizes in traced graphs ----------------------------
# The C++ form of jitvision::drawn_sizes (transforms/_drawn.py), so that an exported RandomResize/RandomShortestSize/
# ScaleJitter/RandomZoomOut/RandomIoUCrop has no Python operator. Absent from an older library: the Python one.
DRAWN = AVAILABLE and hasattr(torch.ops.jitvision_native, "drawn_sizes")
__all__ += ["DRAWN"]


def drawn_sizes_fake(values):
    """The fake of both drawn_sizes operators (this one and the Python fallback): one new unbacked size per value,
    so the graph reads the drawn sizes from the carrier's shape."""
    ctx = torch.library.get_ctx()
    sizes = [ctx.new_dynamic_size() for _ in range(values.shape[0])]
    return values.new_empty_strided(sizes, [0] * len(sizes), dtype=torch.uint8)


if DRAWN:
    torch.library.register_fake("jitvision_native::drawn_sizes")(drawn_sizes_fake)
