// random_erase(image, p, scale, ratio, fill, generator): RandomErasing's eager call on one plain contiguous CPU
// tensor with a single integer fill value, in one native call (transforms/_erasing.py RandomErasing._eager_plain).
//
// The draws are the Python path's, in its order, on the same generator, without building tensors: the coin (one
// float32 uniform, color_draw.h), 20 float64 uniforms (10 attempts of an area fraction and a log-aspect), 2
// float64 uniforms (the offsets), each as torch.rand(n, dtype=float64, generator=g) draws them (the serial CPU
// uniform kernel, see fastgeo.cpp). The box is _box_of's float64 arithmetic (Python's math.log/exp/sqrt are
// libm's, its round() is round-half-to-even, std::nearbyint here). Then, when the coin says apply and an attempt
// fits, the output is written in one pass: each row copied with memcpy, the erased span of the box's rows set with
// memset (torch's clone then fill_ of a strided window took two passes, the fill ~4x slower than numpy's).
// Returns [output], or [] when nothing is erased (the caller returns its input: an op may not return an alias).
// Eager only (the list length depends on the draws); traced graphs draw with tensors and call erase_box.
// Any dtype whose fill value the caller has checked is representable (the Python caller sends uint8 only);
// fill is written bytewise, so only 1-byte dtypes are accepted.

#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "color_draw.h"

namespace jitvision_native {
namespace {

// count float64 uniforms as torch.rand(count, dtype=float64, generator=generator) draws them.
void uniform_doubles(const std::optional<at::Generator>& generator, double* out, int count) {
  at::CPUGeneratorImpl* gen =
      at::get_generator_or_default<at::CPUGeneratorImpl>(generator, at::detail::getDefaultCPUGenerator());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  at::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int i = 0; i < count; ++i) {
    const double value = uniform(gen);
    out[i] = value == 1.0 ? 0.0 : value;
  }
}

std::vector<at::Tensor> random_erase(const at::Tensor& image, double p, at::ArrayRef<double> scale,
                                     at::ArrayRef<double> ratio, int64_t fill,
                                     const std::optional<at::Generator>& generator) {
  TORCH_CHECK_VALUE(image.dim() >= 3 && image.device().is_cpu() && image.is_contiguous() &&
                        image.element_size() == 1,
                    "jitvision_native.random_erase: expected a contiguous CPU tensor [..., C, H, W] of a 1-byte "
                    "dtype, got ", image.sizes(), " ", image.scalar_type());
  TORCH_CHECK_VALUE(scale.size() == 2 && ratio.size() == 2 && ratio[0] > 0 && ratio[1] > 0,
                    "jitvision_native.random_erase: scale and ratio must be (min, max) pairs, ratio positive");
  TORCH_CHECK_VALUE(fill >= 0 && fill <= 255, "jitvision_native.random_erase: fill must be in [0, 255], got ", fill);
  float coin;
  uniform_floats(generator, &coin, 1);
  double u[20], offsets[2];
  uniform_doubles(generator, u, 20);
  uniform_doubles(generator, offsets, 2);
  if (!(coin < static_cast<float>(p))) return {};
  const int64_t height = image.size(-2), width = image.size(-1);
  // _box_of, operation for operation.
  const double log_low = std::log(ratio[0]), log_high = std::log(ratio[1]);
  double h = 0.0, w = 0.0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double area = static_cast<double>(height * width) * (u[2 * attempt] * (scale[1] - scale[0]) + scale[0]);
    const double aspect = std::exp(u[2 * attempt + 1] * (log_high - log_low) + log_low);
    const double attempt_h = std::nearbyint(std::sqrt(area * aspect));
    const double attempt_w = std::nearbyint(std::sqrt(area / aspect));
    if (attempt_h < static_cast<double>(height) && attempt_w < static_cast<double>(width)) {
      h = attempt_h;
      w = attempt_w;
      break;
    }
  }
  if (h == 0.0) return {};
  const double room_h = static_cast<double>(height) - h, room_w = static_cast<double>(width) - w;
  const auto top = static_cast<int64_t>(std::min(std::floor(offsets[0] * (room_h + 1.0)), room_h));
  const auto left = static_cast<int64_t>(std::min(std::floor(offsets[1] * (room_w + 1.0)), room_w));
  const auto box_h = static_cast<int64_t>(h), box_w = static_cast<int64_t>(w);
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t planes = image.numel() / (height * width);
  const auto* src = static_cast<const uint8_t*>(image.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.data_ptr());
  const auto value = static_cast<int>(fill);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const int64_t base = plane * height * width;
    if (top > 0) std::memcpy(dst + base, src + base, static_cast<size_t>(top * width));
    for (int64_t y = top; y < top + box_h; ++y) {
      const int64_t row = base + y * width;
      if (left > 0) std::memcpy(dst + row, src + row, static_cast<size_t>(left));
      if (box_w > 0) std::memset(dst + row + left, value, static_cast<size_t>(box_w));
      const int64_t right = left + box_w;
      if (right < width) std::memcpy(dst + row + right, src + row + right, static_cast<size_t>(width - right));
    }
    const int64_t below = top + box_h;
    if (below < height) {
      std::memcpy(dst + base + below * width, src + base + below * width,
                  static_cast<size_t>((height - below) * width));
    }
  }
  return {out};
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("random_erase(Tensor image, float p, float[] scale, float[] ratio, int fill, Generator? generator=None) "
        "-> Tensor[]",
        {at::Tag::nondeterministic_seeded});
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("random_erase", &jitvision_native::random_erase);
}
