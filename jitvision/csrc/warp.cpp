// warp_u8: torchvision's uint8 affine/rotate/perspective warp without the float image.
//
// torchvision converts the uint8 image to float32, runs grid_sample(padding_mode="zeros", align_corners=False)
// (plus a second sample of a constant-one plane when `fill` is given), then rounds back: three full-size float
// passes around the sampling. This kernel reads the uint8 planes directly and writes uint8, with the same float32
// arithmetic per output value: the source position ((g + 1) * size - 1) / 2 from the same grid tensor, bilinear
// weights (x1 - x)(y1 - y) ... with out-of-bounds taps contributing zero, the in-bounds weight sum as the fill
// mask, (v - fill) * mask + fill, round half to even, clamp. NEAREST picks nearbyint of the position.
// The weights and offsets of a row are computed once and reused for every channel plane.
// image: uint8 [..., H, W] read as [G, K, H, W] (G = coefficients.size(0)); channels: the fill period along K
// (the fill of plane k is fill[k % channels]); returns uint8 [G, K, OH, OW].
// Measured (3x480x640, 1 thread, loaded 2-core VM): ~2x faster than torchvision's float path for affine/rotate/
// perspective, but slower than torch's vectorised float grid_sample alone, so elastic (a given grid) keeps the
// float path; OpenCV's fixed-point SIMD warpAffine is ~3x faster than this scalar loop.

#include <cmath>
#include <cstdint>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

// Round half to even for |v| < 2^22 without libm (nearbyintf is a call on baseline x86-64): adding and removing
// 1.5 * 2^23 leaves the float rounded in the default rounding mode (no -ffast-math here, so the compiler keeps
// both operations). Inputs are clamped first.
inline float round_even(float v) {
  const float big = 12582912.0f;
  return (v + big) - big;
}

inline float clampf(float v, float lo, float hi) {
  // NaN goes to lo (an out-of-bounds position, or a zero value).
  return v >= lo ? (v <= hi ? v : hi) : lo;
}

inline uint8_t to_u8(float v) { return static_cast<uint8_t>(round_even(clampf(v, 0.f, 255.f))); }

inline int64_t floor_i(float v) {  // v already clamped to a small range
  const int64_t i = static_cast<int64_t>(v);
  return static_cast<float>(i) > v ? i - 1 : i;
}

// One output pixel of every plane (K planes, stride plane_stride) at source position (ix, iy) in pixel units.
// Interior positions (all four bilinear taps inside) take a branch-free path; the rest check each tap.
inline void sample_pixel(float ix, float iy, const uint8_t* in, int64_t plane_stride, uint8_t* out,
                         int64_t out_stride, int64_t K, int64_t H, int64_t W, int64_t mode, int64_t channels,
                         const float* fills) {
  const float fw = static_cast<float>(W), fh = static_cast<float>(H);
  ix = clampf(ix, -2.f, fw + 1.f);
  iy = clampf(iy, -2.f, fh + 1.f);
  if (mode == 0) {
    const int64_t xn = static_cast<int64_t>(round_even(ix)), yn = static_cast<int64_t>(round_even(iy));
    const bool inside = xn >= 0 && xn < W && yn >= 0 && yn < H;
    const int64_t offset = inside ? yn * W + xn : 0;
    for (int64_t k = 0; k < K; ++k) {
      float v = inside ? static_cast<float>(in[k * plane_stride + offset]) : 0.f;
      if (fills != nullptr && !inside) v = fills[k % channels];
      out[k * out_stride] = to_u8(v);
    }
    return;
  }
  const int64_t x0 = floor_i(ix), y0 = floor_i(iy);
  const float x0f = static_cast<float>(x0), y0f = static_cast<float>(y0);
  // grid_sample's weights: nw = (x1 - x)(y1 - y), ne = (x - x0)(y1 - y), sw = (x1 - x)(y - y0), se = (x - x0)(y - y0).
  const float wx0 = (x0f + 1.f) - ix, wx1 = ix - x0f, wy0 = (y0f + 1.f) - iy, wy1 = iy - y0f;
  float nw = wx0 * wy0, ne = wx1 * wy0, sw = wx0 * wy1, se = wx1 * wy1;
  if (x0 >= 0 && y0 >= 0 && x0 + 1 < W && y0 + 1 < H) {
    const int64_t base = y0 * W + x0;
    const float mask = nw + ne + sw + se;
    for (int64_t k = 0; k < K; ++k) {
      const uint8_t* p = in + k * plane_stride + base;
      float v = static_cast<float>(p[0]) * nw + static_cast<float>(p[1]) * ne + static_cast<float>(p[W]) * sw +
                static_cast<float>(p[W + 1]) * se;
      if (fills != nullptr) {
        const float f = fills[k % channels];
        v = (v - f) * mask + f;
      }
      out[k * out_stride] = to_u8(v);
    }
    return;
  }
  const bool x0_in = x0 >= 0 && x0 < W, x1_in = x0 + 1 >= 0 && x0 + 1 < W;
  const bool y0_in = y0 >= 0 && y0 < H, y1_in = y0 + 1 >= 0 && y0 + 1 < H;
  nw = (x0_in && y0_in) ? nw : 0.f;
  ne = (x1_in && y0_in) ? ne : 0.f;
  sw = (x0_in && y1_in) ? sw : 0.f;
  se = (x1_in && y1_in) ? se : 0.f;
  const int64_t o_nw = (x0_in && y0_in) ? y0 * W + x0 : 0, o_ne = (x1_in && y0_in) ? y0 * W + x0 + 1 : 0;
  const int64_t o_sw = (x0_in && y1_in) ? (y0 + 1) * W + x0 : 0, o_se = (x1_in && y1_in) ? (y0 + 1) * W + x0 + 1 : 0;
  const float mask = nw + ne + sw + se;
  for (int64_t k = 0; k < K; ++k) {
    const uint8_t* p = in + k * plane_stride;
    float v = static_cast<float>(p[o_nw]) * nw + static_cast<float>(p[o_ne]) * ne + static_cast<float>(p[o_sw]) * sw +
              static_cast<float>(p[o_se]) * se;
    if (fills != nullptr) {
      const float f = fills[k % channels];
      v = (v - f) * mask + f;
    }
    out[k * out_stride] = to_u8(v);
  }
}

std::vector<float> parse_fill(c10::optional<at::ArrayRef<double>> fill, int64_t channels) {
  std::vector<float> fills;
  if (fill.has_value()) {
    TORCH_CHECK(fill->size() == 1 || static_cast<int64_t>(fill->size()) == channels,
                "jitvision_native.warp: fill must hold 1 or `channels` values");
    for (int64_t c = 0; c < channels; ++c) fills.push_back(static_cast<float>((*fill)[fill->size() == 1 ? 0 : c]));
  }
  return fills;
}

void check_common(const at::Tensor& image, int64_t mode, int64_t channels) {
  TORCH_CHECK(image.scalar_type() == at::kByte && image.dim() >= 3, "jitvision_native.warp: expected uint8 [..., H, W]");
  TORCH_CHECK(mode == 0 || mode == 1, "jitvision_native.warp: mode must be 0 (nearest) or 1 (bilinear)");
  TORCH_CHECK(channels > 0, "jitvision_native.warp: channels must be positive");
}

inline float source(float g, float size) { return ((g + 1.f) * size - 1.f) / 2.f; }

// Sampling at grid positions computed in place from per-group coefficients [G, 8] (float32), as
// torchvision's grids compute them: affine (projective=false): X = ox - (OW - 1) / 2, Y = oy - (OH - 1) / 2,
// g = (X c0 + Y c1 + c2, X c3 + Y c4 + c5); projective: X = ox + 0.5, Y = oy + 0.5,
// g = ((X c0 + Y c1 + c2) / d - 1, (X c3 + Y c4 + c5) / d - 1) with d = X c6 + Y c7 + 1.
at::Tensor warp_u8(const at::Tensor& image, const at::Tensor& coefficients, int64_t out_h, int64_t out_w,
                   bool projective, int64_t mode, int64_t channels, c10::optional<at::ArrayRef<double>> fill) {
  check_common(image, mode, channels);
  TORCH_CHECK(coefficients.dim() == 2 && coefficients.size(1) == 8, "jitvision_native.warp_u8: coefficients [G, 8]");
  const at::Tensor src = image.reshape({coefficients.size(0), -1, image.size(-2), image.size(-1)}).contiguous();
  const at::Tensor c = coefficients.to(at::kFloat).contiguous();
  const int64_t G = src.size(0), K = src.size(1), H = src.size(2), W = src.size(3);
  const int64_t OH = out_h, OW = out_w;
  TORCH_CHECK(K % channels == 0, "jitvision_native.warp_u8: K must be a multiple of channels");
  const std::vector<float> fills = parse_fill(fill, channels);
  at::Tensor out = at::empty({G, K, OH, OW}, src.options());
  const float fw = static_cast<float>(W), fh = static_cast<float>(H);
  const uint8_t* in = src.data_ptr<uint8_t>();
  uint8_t* dst = out.data_ptr<uint8_t>();
  const float* fill_ptr = fills.empty() ? nullptr : fills.data();
  for (int64_t gi = 0; gi < G; ++gi) {
    const float* m = c.data_ptr<float>() + gi * 8;
    for (int64_t oy = 0; oy < OH; ++oy) {
      const float Y = projective ? static_cast<float>(oy) + 0.5f : static_cast<float>(oy) - (OH - 1) * 0.5f;
      for (int64_t ox = 0; ox < OW; ++ox) {
        const float X = projective ? static_cast<float>(ox) + 0.5f : static_cast<float>(ox) - (OW - 1) * 0.5f;
        float gx = X * m[0] + Y * m[1] + m[2];
        float gy = X * m[3] + Y * m[4] + m[5];
        if (projective) {
          const float d = X * m[6] + Y * m[7] + 1.f;
          gx = gx / d - 1.f;
          gy = gy / d - 1.f;
        }
        sample_pixel(source(gx, fw), source(gy, fh), in + gi * K * H * W, H * W, dst + (gi * K * OH + oy) * OW + ox,
                     OH * OW, K, H, W, mode, channels, fill_ptr);
      }
    }
  }
  return out;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def(
      "warp_u8(Tensor image, Tensor coefficients, SymInt out_h, SymInt out_w, bool projective, int mode, int channels, "
      "float[]? fill=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("warp_u8", &jitvision_native::warp_u8);
}
