// Cheap geometric ops for the eager fast path of one plain tensor (Transform._eager_plain): a crop, a random crop
// with its draw inside, and a vertical flip, each one native call writing a contiguous output with row memcpys.
//
// Why: on a 512x512 uint8 photo these transforms cost a few microseconds of real work against ~10-20 us of
// per-call machinery (Python frames, tensor views, a separate `.contiguous()`), and torch's flip walks the image
// with a generic strided loop (~27 us for 3x512x512 uint8 where reversing whole rows with memcpy takes a third).
// - crop_copy(image, top, left, height, width): image[..., top:top+height, left:left+width] as a new contiguous
//   tensor (in-bounds windows only; the caller checks);
// - random_crop(image, size, generator): RandomCrop's eager draw (csrc of `_crop.py` RandomCrop._eager_plain):
//   two float64 uniforms drawn as torch.rand(2, dtype=float64, generator=...) draws them (torch.rand's serial CPU
//   kernel: the generator's lock, at::uniform_real_distribution<double>(0, 1) per element in order; the same numbers
//   for a seed, without creating the tensor: ~1.5 us of a ~10 us call), the offset min(floor(u * (room + 1)), room),
//   then the crop;
// - vertical_flip(image): image.flip(-2), contiguous;
// - random_flip(image, p, dim, generator): RandomHorizontalFlip/RandomVerticalFlip's eager draw and effect: the
//   coin is one float32 uniform on `generator` (color_draw.h: torch.rand's draw without the tensor) compared with p
//   rounded to float32 (what `torch.rand([]) < p` does
//   in RandomApplyTransform), then [the flipped image] (vertical_flip above, else at::flip), or [] when the coin
//   says no (the caller then returns its input: an op must not return an alias of it). Eager only: the list's
//   length depends on the draw, so it has no fake implementation; traced graphs use flip_if (resize.cpp).
// Any dtype, CPU, contiguous input; the Python callers check that and fall back to torch otherwise. Outputs never
// alias the input (a custom op's rule).

#include <cmath>
#include <cstring>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "color_draw.h"

namespace jitvision_native {
namespace {

// Two float64 uniforms as torch.rand(2, dtype=float64, generator=generator) draws them (see the header comment).
void uniform_doubles2(const std::optional<at::Generator>& generator, double* out) {
  at::CPUGeneratorImpl* gen =
      at::get_generator_or_default<at::CPUGeneratorImpl>(generator, at::detail::getDefaultCPUGenerator());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  at::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int i = 0; i < 2; ++i) {
    const double value = uniform(gen);
    out[i] = value == 1.0 ? 0.0 : value;
  }
}

void check_plain(const at::Tensor& image, const char* op) {
  TORCH_CHECK_VALUE(image.dim() >= 2, "jitvision_native.", op, ": expected a tensor [..., H, W], got ",
                    image.sizes());
  TORCH_CHECK_VALUE(image.device().is_cpu() && image.is_contiguous(), "jitvision_native.", op,
                    ": expected a contiguous CPU tensor");
}

// Rows [top, top + height) x columns [left, left + width) of every plane, copied into a new contiguous tensor.
at::Tensor copy_window(const at::Tensor& image, int64_t top, int64_t left, int64_t height, int64_t width) {
  const int64_t H = image.size(-2), W = image.size(-1);
  TORCH_CHECK_VALUE(top >= 0 && left >= 0 && height >= 0 && width >= 0 && height <= H - top && width <= W - left,
                    "jitvision_native.crop_copy: the crop [", top, ", ", left, "] + [", height, ", ", width,
                    "] leaves the image (", H, ", ", W, ")");
  auto sizes = image.sizes().vec();
  sizes[sizes.size() - 2] = height;
  sizes[sizes.size() - 1] = width;
  at::Tensor out = at::empty(sizes, image.options());
  if (out.numel() == 0) return out;
  const int64_t planes = image.numel() / (H * W);
  const auto item = static_cast<int64_t>(image.element_size());
  const auto* src = static_cast<const char*>(image.const_data_ptr());
  auto* dst = static_cast<char*>(out.data_ptr());
  const int64_t row_bytes = width * item;
  for (int64_t p = 0; p < planes; ++p) {
    const char* s = src + ((p * H + top) * W + left) * item;
    for (int64_t y = 0; y < height; ++y) {
      std::memcpy(dst, s, row_bytes);
      dst += row_bytes;
      s += W * item;
    }
  }
  return out;
}

at::Tensor crop_copy(const at::Tensor& image, int64_t top, int64_t left, int64_t height, int64_t width) {
  check_plain(image, "crop_copy");
  return copy_window(image, top, left, height, width);
}

at::Tensor random_crop(const at::Tensor& image, at::IntArrayRef size, std::optional<at::Generator> generator) {
  check_plain(image, "random_crop");
  TORCH_CHECK_VALUE(size.size() == 2 && size[0] >= 0 && size[1] >= 0,
                    "jitvision_native.random_crop: size must be [height, width], got ", size);
  const int64_t room_h = image.size(-2) - size[0], room_w = image.size(-1) - size[1];
  TORCH_CHECK_VALUE(room_h >= 0 && room_w >= 0, "jitvision_native.random_crop: the crop ", size,
                    " is larger than the input ", image.sizes());
  double v[2];
  uniform_doubles2(generator, v);
  const auto top = std::min(static_cast<int64_t>(std::floor(v[0] * static_cast<double>(room_h + 1))), room_h);
  const auto left = std::min(static_cast<int64_t>(std::floor(v[1] * static_cast<double>(room_w + 1))), room_w);
  return copy_window(image, top, left, size[0], size[1]);
}

at::Tensor vertical_flip(const at::Tensor& image) {
  check_plain(image, "vertical_flip");
  at::Tensor out = at::empty(image.sizes(), image.options());
  if (out.numel() == 0) return out;
  const int64_t H = image.size(-2), W = image.size(-1);
  const int64_t planes = image.numel() / (H * W);
  const int64_t row_bytes = W * static_cast<int64_t>(image.element_size());
  const auto* src = static_cast<const char*>(image.const_data_ptr());
  auto* dst = static_cast<char*>(out.data_ptr());
  for (int64_t p = 0; p < planes; ++p) {
    const char* s = src + (p * H + H - 1) * row_bytes;
    for (int64_t y = 0; y < H; ++y) {
      std::memcpy(dst, s, row_bytes);
      dst += row_bytes;
      s -= row_bytes;
    }
  }
  return out;
}

std::vector<at::Tensor> random_flip(const at::Tensor& image, double p, int64_t dim,
                                    std::optional<at::Generator> generator) {
  TORCH_CHECK_VALUE(image.dim() >= 2 && (dim == -1 || dim == -2),
                    "jitvision_native.random_flip: expected a tensor [..., H, W] and dim -1 or -2, got ",
                    image.sizes(), " and ", dim);
  float coin;
  uniform_floats(generator, &coin, 1);
  if (!(coin < static_cast<float>(p))) return {};
  if (dim == -2 && image.is_contiguous()) return {vertical_flip(image)};
  return {at::flip(image, {dim})};
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("crop_copy(Tensor image, int top, int left, int height, int width) -> Tensor");
  // Tagged so that no graph pass merges, drops or reorders two calls: each one advances the RNG.
  m.def("random_crop(Tensor image, int[] size, Generator? generator=None) -> Tensor",
        {at::Tag::nondeterministic_seeded});
  m.def("vertical_flip(Tensor image) -> Tensor");
  m.def("random_flip(Tensor image, float p, int dim, Generator? generator=None) -> Tensor[]",
        {at::Tag::nondeterministic_seeded});
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("crop_copy", &jitvision_native::crop_copy);
  m.impl("random_crop", &jitvision_native::random_crop);
  m.impl("vertical_flip", &jitvision_native::vertical_flip);
  m.impl("random_flip", &jitvision_native::random_flip);
}
