"""Resized crops with the region as a tensor, written as tap gathers: the form for devices other than the CPU.

On the CPU, ``resized_crop_at`` calls the native operator (``csrc/crop.cpp``), which reads the region's ints inside
and runs the native or torch resize. On a GPU that reading is a host sync per call and the resize a kernel launch
per row. Here the region stays on the device: each output row and column gets a fixed number of taps (the largest
filter support the static input size allows), their input indices and weights computed from the region by tensor
arithmetic, and the resize is two gathers with weighted sums. It never reads a value on the host, so a per-sample
batch draws and resizes with no sync, and under ``torch.compile`` inductor fuses it (Triton on CUDA).

The taps and weights follow torch's ``interpolate``: antialiased bilinear (the triangle filter widened to the scale
when downscaling, torch's window bounds and normalisation), plain bilinear (``align_corners=False``, two taps), and
nearest / nearest-exact (one tap). Regions that leave the image read zeros there, as ``resized_crop``'s padding
does. Integer images are resized in float32 and rounded back (within one level of the CPU's fixed-point uint8
kernel); floating images in float32 or float64.
"""

import math
from typing import List, Tuple

import torch

# Interpolation modes this form computes (InterpolationMode values); others take the per-row path.
TAP_MODES = ("bilinear", "nearest", "nearest-exact")


def _taps(
    start: torch.Tensor, length: torch.Tensor, out_size: int, in_size: int, mode: str, antialias: bool
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Input indices ``[R, out_size, K]`` (int64, clamped into the input) and weights ``[R, out_size, K]`` (zero
    for taps outside the region's window or outside the input) along one axis, for regions ``[start, start +
    length)`` given per row as float64 ``[R]`` tensors."""
    device = start.device
    scale = (length / out_size).unsqueeze(-1)  # [R, 1]
    position = torch.arange(out_size, device=device, dtype=torch.float64)
    if mode == "bilinear" and antialias:
        # torch's antialiased window: support = scale when downscaling (else 1), centre scale * (i + 0.5),
        # [trunc(centre - support + 0.5), trunc(centre + support + 0.5)) clipped to the region.
        widest = max(float(in_size) / out_size, 1.0)
        taps = int(math.ceil(widest)) * 2 + 1
        support = scale.clamp(min=1.0)
        inverse = torch.where(scale >= 1.0, 1.0 / scale, torch.ones_like(scale))
        center = scale * (position + 0.5)  # [R, O]
        first = torch.floor(center - support + 0.5).clamp(min=0.0)
        stop = torch.minimum(torch.floor(center + support + 0.5), length.unsqueeze(-1))
        offset = first.unsqueeze(-1) + torch.arange(taps, device=device, dtype=torch.float64)  # [R, O, K]
        weight = (1.0 - ((offset - center.unsqueeze(-1) + 0.5) * inverse.unsqueeze(-1)).abs()).clamp(min=0.0)
        weight = torch.where(offset < stop.unsqueeze(-1), weight, torch.zeros_like(weight))
        total = weight.sum(-1, keepdim=True)
        weight = weight / torch.where(total == 0, torch.ones_like(total), total)
    elif mode == "bilinear":
        source = (scale * (position + 0.5) - 0.5).clamp(min=0.0)
        low = torch.floor(source)
        high = torch.minimum(low + 1.0, length.unsqueeze(-1) - 1.0)
        fraction = source - low
        offset = torch.stack([low, high], -1)
        weight = torch.stack([1.0 - fraction, fraction], -1)
    else:
        # torch's nearest: floor(i * scale); nearest-exact: floor((i + 0.5) * scale); never past the region. In
        # float32 as torch computes it, so that ties fall on the same side.
        shift = 0.5 if mode == "nearest-exact" else 0.0
        scale32 = (length.to(torch.float32) / out_size).unsqueeze(-1)
        source = torch.floor(scale32 * (position.to(torch.float32) + shift)).to(torch.float64)
        offset = torch.minimum(source, length.unsqueeze(-1) - 1.0).unsqueeze(-1)
        weight = torch.ones_like(offset)
    index = start.reshape(-1, 1, 1) + offset
    inside = (index >= 0) & (index < in_size)
    weight = torch.where(inside, weight, torch.zeros_like(weight))
    return index.clamp(0, in_size - 1).to(torch.int64), weight


def _gather_sum(image: torch.Tensor, index: torch.Tensor, weight: torch.Tensor, dim: int) -> torch.Tensor:
    """``sum_k weight[r, o, k] * image.index_select(dim, index[r, o, k])`` per row r, along ``dim`` (-2 or -1)
    of ``image`` ``[R, C, H, W]``."""
    rows, channels, height, width = image.shape
    out_size, taps = index.shape[-2], index.shape[-1]
    total = torch.zeros(0, dtype=image.dtype, device=image.device)
    for k in range(taps):
        if dim == -2:
            idx = index[:, :, k].reshape(rows, 1, out_size, 1).expand(rows, channels, out_size, width)
            w = weight[:, :, k].reshape(rows, 1, out_size, 1)
        else:
            idx = index[:, :, k].reshape(rows, 1, 1, out_size).expand(rows, channels, height, out_size)
            w = weight[:, :, k].reshape(rows, 1, 1, out_size)
        w = w if taps == 1 else w.to(image.dtype)
        gathered = torch.gather(image, dim, idx)
        if taps == 1:  # nearest: a selection (exact for every dtype, bool and wide integers included)
            return torch.where(w > 0, gathered, torch.zeros_like(gathered))
        term = gathered * w
        total = term if k == 0 else total + term
    return total


def resized_crop_taps(
    image: torch.Tensor, box: torch.Tensor, size: List[int], mode: str, antialias: bool
) -> torch.Tensor:
    """``resized_crop`` of ``image`` ``[*lead, ..., H, W]`` at ``box``: ``[4]`` (one region for the whole input) or
    ``[*lead, 4]`` (one region per leading row), as gathers (see the module docstring). ``mode`` is one of
    ``TAP_MODES``; the output is ``[*lead, ..., size[0], size[1]]`` of the input's dtype."""
    height, width = image.shape[-2], image.shape[-1]
    lead = box.ndim - 1
    rows_shape = list(image.shape[:lead])
    rows = 1
    for extent in rows_shape:
        rows *= extent
    dense = image.reshape([rows, -1, height, width])
    regions = box.reshape(-1, 4).to(torch.float64)
    if regions.shape[0] != rows:
        regions = regions.expand(rows, 4)
    row_index, row_weight = _taps(regions[:, 0], regions[:, 2], size[0], height, mode, antialias)
    col_index, col_weight = _taps(regions[:, 1], regions[:, 3], size[1], width, mode, antialias)
    if mode != "bilinear":
        out = _gather_sum(_gather_sum(dense, row_index, row_weight, -2), col_index, col_weight, -1)
    else:
        compute = image.dtype if image.dtype in (torch.float32, torch.float64) else torch.float32
        out = _gather_sum(_gather_sum(dense.to(compute), row_index, row_weight, -2), col_index, col_weight, -1)
        if image.dtype.is_floating_point:
            out = out.to(image.dtype)
        else:
            info = torch.iinfo(image.dtype)
            out = out.round().clamp(info.min, info.max).to(image.dtype)
    return out.reshape(rows_shape + list(image.shape[lead:-2]) + [size[0], size[1]])
