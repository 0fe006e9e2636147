// The pieces of the decoders and the resize that the batch decode (decode_batch.cpp) calls directly, outside the
// dispatcher: each is the function behind a registered op.
#pragma once

#include <optional>

#include <ATen/ATen.h>

namespace jitvision_native {

// jitvision_native::decode_jpeg (decode_jpeg.cpp): uint8 [C, H, W] (a view of an [H, W, C] buffer).
at::Tensor decode_jpeg_bytes(const at::Tensor& data, int64_t mode, at::IntArrayRef region, int64_t scale_denom);

// jitvision_native::resized_crop's kernel (resize.cpp) for one image: the box [top, left, height, width] of `image`
// (uint8 [C, H, W], any strides) resized to out_h x out_w, of which the window at (win_top, win_left) of `into`'s
// last two sizes is computed (zeros outside the resized image: resize_center_crop's padding), flipped if asked,
// written into `into` (a contiguous [C, h, w] uint8 tensor, or float32 with to_float).
void resized_crop_into(const at::Tensor& image, int64_t top, int64_t left, int64_t height, int64_t width,
                       int64_t out_h, int64_t out_w, int64_t win_top, int64_t win_left, bool flip,
                       const std::optional<at::ArrayRef<double>>& mean,
                       const std::optional<at::ArrayRef<double>>& std, bool to_float, const at::Tensor& into);

}  // namespace jitvision_native
