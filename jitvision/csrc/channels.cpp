// permute_channels(image, permutation): image's channels reordered, out[..., c, :, :] = image[..., perm[c], :, :],
// for RandomChannelPermutation in eager and as one graph node under torch.compile/export.
//
// Why: inductor lowers index_select/gather on a uint8 image to a loop that moves 8 bytes per iteration through
// partial vector loads (its tiling is the float32 lane count whatever the dtype): the compiled RandomChannelPermutation
// took ~0.9-1.6 ms on a 3x512x512 photo against ~0.12 ms eager, and ATen's own index_select of a few channels walks
// the image element by element (~110 us). A channel of a contiguous [..., C, H, W] tensor is one contiguous plane, so
// the permutation is one memcpy per output plane (~20 us).
//
// permutation: int64 [C] (the same order for every image), or [R, C] with R dividing the number of [C, H, W] images,
// rows outermost (one order per leading row: [R, C] for an image batch [R, C, H, W] or a video batch
// [R, T, C, H, W]); values in [0, C). CPU tensors use the plane copies (any dtype, the output contiguous); other
// devices compute the same with index_select / gather (contiguous output, as the fake implementation in
// jitvision/_native.py says). Registered as CompositeExplicitAutograd: no autograd formula, so callers use it only
// on tensors that do not require grad.

#include <cstring>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

at::Tensor permute_channels(const at::Tensor& image, const at::Tensor& permutation) {
  TORCH_CHECK_VALUE(image.dim() >= 3, "jitvision_native.permute_channels: expected an image [..., C, H, W], got ",
                    image.sizes());
  TORCH_CHECK_VALUE(permutation.dim() == 1 || permutation.dim() == 2,
                    "jitvision_native.permute_channels: the permutation must be [C] or [R, C], got ",
                    permutation.sizes());
  TORCH_CHECK_VALUE(permutation.scalar_type() == at::kLong,
                    "jitvision_native.permute_channels: the permutation must be int64, got ",
                    permutation.scalar_type());
  const int64_t C = image.size(-3);
  TORCH_CHECK_VALUE(permutation.size(-1) == C, "jitvision_native.permute_channels: the permutation has ",
                    permutation.size(-1), " entries per row, the image ", C, " channels");
  const int64_t plane = image.size(-2) * image.size(-1);
  const int64_t images = C * plane == 0 ? 0 : image.numel() / (C * plane);
  const int64_t rows = permutation.dim() == 2 ? permutation.size(0) : 1;
  TORCH_CHECK_VALUE(rows > 0 && (images == 0 || images % rows == 0),
                    "jitvision_native.permute_channels: ", rows, " permutation rows for ", images, " images");
  if (!image.device().is_cpu()) {
    at::Tensor index = permutation;
    if (permutation.dim() == 1) return image.index_select(-3, index).contiguous();
    std::vector<int64_t> shape(static_cast<size_t>(image.dim()), 1);
    shape[0] = rows;
    shape[shape.size() - 3] = C;
    return at::gather(image, image.dim() - 3, index.reshape(shape).expand(image.sizes())).contiguous();
  }
  const at::Tensor perm = permutation.contiguous();
  const int64_t* order = perm.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < rows * C; ++i) {
    TORCH_CHECK_INDEX(order[i] >= 0 && order[i] < C, "jitvision_native.permute_channels: channel index ", order[i],
                      " out of range for ", C, " channels");
  }
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  if (out.numel() == 0) return out;
  const auto plane_bytes = static_cast<size_t>(plane * static_cast<int64_t>(image.element_size()));
  const auto* in = static_cast<const char*>(src.const_data_ptr());
  auto* o = static_cast<char*>(out.data_ptr());
  const int64_t per_row = images / rows;
  for (int64_t n = 0; n < images; ++n) {
    const int64_t* row_order = order + (n / per_row) * C;
    const char* image_in = in + static_cast<size_t>(n * C) * plane_bytes;
    char* image_out = o + static_cast<size_t>(n * C) * plane_bytes;
    for (int64_t c = 0; c < C; ++c) {
      std::memcpy(image_out + static_cast<size_t>(c) * plane_bytes,
                  image_in + static_cast<size_t>(row_order[c]) * plane_bytes, plane_bytes);
    }
  }
  return out;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("permute_channels(Tensor image, Tensor permutation) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("permute_channels", &jitvision_native::permute_channels);
}
