// uint8 point operations that are bit operations or a compare and select: invert, solarize, posterize.
//
// point_u8(image, op, arg): op 0 invert (~x), 1 solarize (x >= arg ? ~x : x, arg = ceil(threshold) in [0, 256]),
// 2 posterize (x & arg). Each is a loop the compiler vectorises (32 bytes a step in the AVX2 clone, a max, a compare
// and an xor for solarize): memory speed, where a 256-entry table look-up (lut_u8) is one byte a step and ATen's
// int16 formula for solarize was several passes.
//
// random_point_u8(image, p, op, arg, generator): RandomInvert/RandomSolarize/RandomPosterize's eager call in one op:
// the coin as RandomApplyTransform draws it (torch.rand([]) in float32 on the same generator, applied when u < p
// in float32; drawn as torch.rand's CPU kernel draws, without the tensor: see color_draw.h), then point_u8. It returns [] when the coin says no (the caller keeps its input: an op may not return
// an alias of its input) and [output] when it says yes. Eager only (the list length depends on the draw).

#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "color_draw.h"

#if defined(__x86_64__)
#define JV_POINT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define JV_POINT_CLONES
#endif

namespace jitvision_native {
namespace {

enum Point : int64_t { kInvert = 0, kSolarize = 1, kPosterize = 2 };

JV_POINT_CLONES void invert_loop(const uint8_t* __restrict src, uint8_t* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(~src[i]);
}

// cut in [1, 255] (0 inverts everything, 256 nothing: handled by the caller).
JV_POINT_CLONES void solarize_loop(const uint8_t* __restrict src, uint8_t* __restrict dst, int64_t n, uint8_t cut) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t v = src[i];
    dst[i] = static_cast<uint8_t>(v >= cut ? ~v : v);
  }
}

JV_POINT_CLONES void and_loop(const uint8_t* __restrict src, uint8_t* __restrict dst, int64_t n, uint8_t mask) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(src[i] & mask);
}

void check_point(const at::Tensor& image, int64_t op, int64_t arg, const char* name) {
  TORCH_CHECK(image.scalar_type() == at::kByte, "jitvision_native.", name, ": expected a uint8 image, got ",
              image.scalar_type());
  TORCH_CHECK(image.device().is_cpu(), "jitvision_native.", name, ": expected a CPU tensor");
  TORCH_CHECK_VALUE(op >= 0 && op <= 2, "jitvision_native.", name, ": op must be 0-2, got ", op);
  TORCH_CHECK_VALUE(op != kSolarize || (arg >= 0 && arg <= 256), "jitvision_native.", name,
                    ": the solarize cut must be in [0, 256], got ", arg);
  TORCH_CHECK_VALUE(op != kPosterize || (arg >= 0 && arg <= 255), "jitvision_native.", name,
                    ": the posterize mask must be in [0, 255], got ", arg);
}

at::Tensor point_u8(const at::Tensor& image, int64_t op, int64_t arg) {
  check_point(image, op, arg, "point_u8");
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t n = src.numel();
  const uint8_t* in = src.data_ptr<uint8_t>();
  uint8_t* o = out.data_ptr<uint8_t>();
  if (op == kInvert || (op == kSolarize && arg == 0)) {
    invert_loop(in, o, n);
  } else if (op == kSolarize && arg == 256) {
    out.copy_(src);
  } else if (op == kSolarize) {
    solarize_loop(in, o, n, static_cast<uint8_t>(arg));
  } else {
    and_loop(in, o, n, static_cast<uint8_t>(arg));
  }
  return out;
}

std::vector<at::Tensor> random_point_u8(const at::Tensor& image, double p, int64_t op, int64_t arg,
                                        const std::optional<at::Generator>& generator) {
  check_point(image, op, arg, "random_point_u8");
  float u;
  uniform_floats(generator, &u, 1);
  if (!(u < static_cast<float>(p))) return {};
  return {point_u8(image, op, arg)};
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("point_u8(Tensor image, int op, int arg) -> Tensor");
  m.def("random_point_u8(Tensor image, float p, int op, int arg, Generator? generator=None) -> Tensor[]",
        {at::Tag::nondeterministic_seeded});
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("point_u8", &jitvision_native::point_u8);
  m.impl("random_point_u8", &jitvision_native::random_point_u8);
}
