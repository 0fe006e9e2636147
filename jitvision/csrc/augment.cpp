// The float tail of a uint8 pipeline as one pass: to_float_u8(image, mean, std) reads uint8 [..., C, H, W] and
// writes float32 (v / 255 - mean) / std per channel (or v / 255 without mean/std), computed as the fused resize
// does (resize.cpp): f(v) = v * (1 / (255 std)) + (-mean / std), within a few float ulps of ToDtype(float32,
// scale=True) then Normalize. Compose runs it after a uint8 step that ended the fused native prefix (an
// augmentation policy between RandomResizedCrop/flip and ToDtype/Normalize): one read and one write of the image
// instead of ToDtype's and Normalize's passes.

#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdint>

namespace jitvision_native {
namespace {

at::Tensor to_float_u8(const at::Tensor& image, std::optional<at::ArrayRef<double>> mean,
                       std::optional<at::ArrayRef<double>> std) {
  TORCH_CHECK_VALUE(image.scalar_type() == at::kByte && image.device().is_cpu() && image.dim() >= 3,
                    "jitvision_native.to_float_u8: expected a uint8 CPU image [..., C, H, W], got ",
                    image.scalar_type(), " ", image.sizes());
  const int64_t C = image.size(-3);
  const bool has_norm = mean.has_value() || std.has_value();
  TORCH_CHECK_VALUE(!has_norm || (mean.has_value() && std.has_value() && static_cast<int64_t>(mean->size()) == C &&
                                  static_cast<int64_t>(std->size()) == C),
                    "jitvision_native.to_float_u8: mean and std must both be given with one value per channel (", C,
                    ")");
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(src.sizes(), src.options().dtype(at::kFloat));
  const int64_t plane = image.size(-2) * image.size(-1);
  const int64_t planes = plane == 0 ? 0 : src.numel() / plane;
  const uint8_t* in = src.data_ptr<uint8_t>();
  float* o = out.data_ptr<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t c = p % C;
    const double s = has_norm ? (*std)[c] : 1.0, m = has_norm ? (*mean)[c] : 0.0;
    const float a = static_cast<float>(1.0 / (255.0 * s)), b = static_cast<float>(-m / s);
    // Computed per pixel (a loop the compiler vectorises; a 256-entry table lookup measured ~4x slower).
    const uint8_t* ip = in + p * plane;
    float* op = o + p * plane;
    for (int64_t i = 0; i < plane; ++i) op[i] = static_cast<float>(ip[i]) * a + b;
  }
  return out;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("to_float_u8(Tensor image, float[]? mean=None, float[]? std=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("to_float_u8", &jitvision_native::to_float_u8);
}
