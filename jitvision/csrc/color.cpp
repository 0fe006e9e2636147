// uint8 photometric kernels: torchvision's uint8 arithmetic (convert to float32, compute, clamp, truncate back)
// without the float image.
//
// torchvision computes every colour adjustment of a uint8 image in float32 on a converted copy: 3-6 full-size
// float passes per adjustment (~2-6 ms on a 3x512x512 image here). These kernels read and write uint8 and keep
// torchvision's float32 arithmetic per value, with the same rounding steps:
// - a blend `image.mul(f).add_(other, alpha=1 - f)` is ATen's vectorised fused multiply-add:
//   fma(other, (float)(1 - f), x * (float)f) (1 - f in double, as Python computes it);
// - the luma `r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114)` is fma(b, .114, fma(g, .587, r * .2989));
// - float -> uint8 truncates (values are clamped to [0, 255] first).
// Ops that are a function of one uint8 value per plane (brightness, contrast once the mean is known, equalize,
// autocontrast, solarize, any table) build a 256-entry table and look every pixel up.
// The file is compiled with -ffp-contract=off (setup.py), so the compiler never fuses what torch rounds twice;
// fused steps are explicit fmaf calls (a vfmadd in the haswell clone, libm's exact fmaf in the default one).
//
// Shapes: an image is uint8 [..., C, H, W] read as R rows of C planes (R = numel / (C H W)); a factor tensor
// holds one value ([] or [1]) or one per row ([R]). Outputs are contiguous uint8 of the input's shape.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#define JV_CLONES __attribute__((target_clones("arch=haswell", "default")))

namespace jitvision_native {
namespace {

constexpr float kR = 0.2989f, kG = 0.587f, kB = 0.114f;

inline float clamp255(float v) {  // NaN (never produced from finite inputs) goes to 0
  return v >= 0.f ? (v <= 255.f ? v : 255.f) : 0.f;
}

inline uint8_t trunc_u8(float v) { return static_cast<uint8_t>(static_cast<int32_t>(clamp255(v))); }

struct Rows {
  int64_t rows, channels, plane;  // plane = H * W
};

Rows rows_of(const at::Tensor& image, const char* op, bool need_channels) {
  TORCH_CHECK(image.scalar_type() == at::kByte, "jitvision_native.", op, ": expected a uint8 image, got ",
              image.scalar_type());
  TORCH_CHECK(image.device().is_cpu(), "jitvision_native.", op, ": expected a CPU tensor");
  TORCH_CHECK_VALUE(image.dim() >= (need_channels ? 3 : 2), "jitvision_native.", op,
                    ": expected an image [..., C, H, W], got shape ", image.sizes());
  const int64_t plane = image.size(-1) * image.size(-2);
  const int64_t channels = need_channels ? image.size(-3) : 1;
  const int64_t rows = plane * channels == 0 ? 0 : image.numel() / (plane * channels);
  return {rows, channels, plane};
}

// One double per row ([] / [1]: the same for every row).
std::vector<double> factors_of(const at::Tensor& factor, int64_t rows, const char* op) {
  const at::Tensor f = factor.detach().to(at::kCPU, at::kDouble).contiguous().reshape(-1);
  TORCH_CHECK_VALUE(f.numel() == 1 || f.numel() == rows, "jitvision_native.", op, ": expected one factor or one per ",
                    "row (", rows, "), got ", f.numel());
  std::vector<double> out(static_cast<size_t>(rows));
  const double* p = f.data_ptr<double>();
  for (int64_t r = 0; r < rows; ++r) out[r] = p[f.numel() == 1 ? 0 : r];
  return out;
}

// ---- tables ------------------------------------------------------------------------------------------------------

JV_CLONES void apply_lut(const uint8_t* src, uint8_t* dst, int64_t n, const uint8_t* lut) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint8_t a = lut[src[i]], b = lut[src[i + 1]], c = lut[src[i + 2]], d = lut[src[i + 3]];
    dst[i] = a;
    dst[i + 1] = b;
    dst[i + 2] = c;
    dst[i + 3] = d;
  }
  for (; i < n; ++i) dst[i] = lut[src[i]];
}

void brightness_lut(double f, uint8_t* lut) {  // image.to(float32).mul_(f).clamp_(0, 255), truncated
  const float ff = static_cast<float>(f);
  for (int v = 0; v < 256; ++v) lut[v] = trunc_u8(static_cast<float>(v) * ff);
}

void blend_lut(float other, double f, uint8_t* lut) {  // image.mul(f).add_(other, alpha=1 - f), clamped, truncated
  const float ff = static_cast<float>(f), alpha = static_cast<float>(1.0 - f);
  for (int v = 0; v < 256; ++v) lut[v] = trunc_u8(std::fmaf(other, alpha, static_cast<float>(v) * ff));
}

// floor(luma) of one pixel, as torchvision's uint8 contrast and saturation compute it (a float holding an integer).
inline float gray_floor(uint8_t r, uint8_t g, uint8_t b) {
  return std::floor(std::fmaf(static_cast<float>(b), kB, std::fmaf(static_cast<float>(g), kG, static_cast<float>(r) * kR)));
}

// The mean contrast blends with: of floor(luma) for 3 channels, of the values for 1 (exact sum, divided in double).
JV_CLONES float contrast_mean(const uint8_t* p, int64_t channels, int64_t plane) {
  int64_t sum = 0;
  if (channels == 3) {
    for (int64_t i = 0; i < plane; ++i) sum += static_cast<int64_t>(gray_floor(p[i], p[plane + i], p[2 * plane + i]));
  } else {
    for (int64_t i = 0; i < plane * channels; ++i) sum += p[i];
  }
  return static_cast<float>(static_cast<double>(sum) / static_cast<double>(plane * (channels == 3 ? 1 : channels)));
}

// ---- per-row steps (src may equal dst) -------------------------------------------------------------------------

void brightness_row(const uint8_t* src, uint8_t* dst, int64_t n, double f) {
  uint8_t lut[256];
  brightness_lut(f, lut);
  apply_lut(src, dst, n, lut);
}

void contrast_row(const uint8_t* src, uint8_t* dst, int64_t channels, int64_t plane, double f) {
  uint8_t lut[256];
  blend_lut(contrast_mean(src, channels, plane), f, lut);
  apply_lut(src, dst, channels * plane, lut);
}

JV_CLONES void saturation_row(const uint8_t* src, uint8_t* dst, int64_t plane, double f) {
  const float ff = static_cast<float>(f), alpha = static_cast<float>(1.0 - f);
  const uint8_t *r = src, *g = src + plane, *b = src + 2 * plane;
  uint8_t *dr = dst, *dg = dst + plane, *db = dst + 2 * plane;
  for (int64_t i = 0; i < plane; ++i) {
    const float gray = gray_floor(r[i], g[i], b[i]);
    const float rv = static_cast<float>(r[i]) * ff, gv = static_cast<float>(g[i]) * ff,
                bv = static_cast<float>(b[i]) * ff;
    dr[i] = trunc_u8(std::fmaf(gray, alpha, rv));
    dg[i] = trunc_u8(std::fmaf(gray, alpha, gv));
    db[i] = trunc_u8(std::fmaf(gray, alpha, bv));
  }
}

// jitvision's closed-form hue rotation (functional/_color/_hue.py) in float32, per pixel: with the max v, min m,
// chroma c = v - m and the hue in sixths h, channel n (5 red, 3 green, 1 blue) is v - c * clamp(min(k, 4 - k), 0,
// 1) with k = (h + n) mod 6 (torch.remainder: fmod, plus 6 when negative), scaled by (256 - 1e-3) / 255 and
// truncated like to_dtype.
inline float hue_channel(float sixths, float n, float maxc, float chroma) {
  const float s = sixths + n;  // in [-4, 14): fmod by 6 is an exact subtraction of 0, 6 or 12
  float k = s >= 6.f ? (s >= 12.f ? s - 12.f : s - 6.f) : s;
  if (k < 0.f) k = k + 6.f;
  float w = std::min(k, 4.f - k);
  w = w >= 0.f ? (w <= 1.f ? w : 1.f) : 0.f;
  return maxc - chroma * w;
}

JV_CLONES void hue_row(const uint8_t* src, uint8_t* dst, int64_t plane, float shift) {
  const float scale = static_cast<float>((255.0 + 1.0 - 1e-3) / 255.0);
  const uint8_t *pr = src, *pg = src + plane, *pb = src + 2 * plane;
  uint8_t *dr = dst, *dg = dst + plane, *db = dst + 2 * plane;
  for (int64_t i = 0; i < plane; ++i) {
    const float r = pr[i], g = pg[i], b = pb[i];
    const float maxc = std::max(std::max(r, g), b), minc = std::min(std::min(r, g), b);
    const float chroma = maxc - minc;
    const bool is_r = maxc == r, is_g = maxc == g;
    const float numerator = is_r ? g - b : (is_g ? b - r : r - g);
    const float offset = is_r ? 0.f : (is_g ? 2.f : 4.f);
    float sixths = numerator / (chroma == 0.f ? 1.f : chroma) + offset;
    sixths = sixths + shift;
    dr[i] = trunc_u8(hue_channel(sixths, 5.f, maxc, chroma) * scale);
    dg[i] = trunc_u8(hue_channel(sixths, 3.f, maxc, chroma) * scale);
    db[i] = trunc_u8(hue_channel(sixths, 1.f, maxc, chroma) * scale);
  }
}

// The hue shift in sixths as the PyTorch kernel computes it: (factor * 6.0).to(float32), in the factor's dtype.
float hue_shift(double factor, bool factor_is_double) {
  return factor_is_double ? static_cast<float>(factor * 6.0) : static_cast<float>(factor) * 6.f;
}

// ---- ops ---------------------------------------------------------------------------------------------------------

at::Tensor lut_u8(const at::Tensor& image, const at::Tensor& lut) {
  const Rows s = rows_of(image, "lut_u8", false);
  TORCH_CHECK_VALUE(lut.scalar_type() == at::kByte && lut.dim() == 2 && lut.size(1) == 256,
                    "jitvision_native.lut_u8: expected a uint8 table [L, 256], got ", lut.scalar_type(), " ",
                    lut.sizes());
  const int64_t L = lut.size(0);
  TORCH_CHECK_VALUE(L > 0 && s.rows % L == 0, "jitvision_native.lut_u8: ", s.rows, " planes are not a multiple of ",
                    L, " tables");
  const at::Tensor src = image.contiguous();
  const at::Tensor table = lut.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const uint8_t* in = src.data_ptr<uint8_t>();
  const uint8_t* t = table.data_ptr<uint8_t>();
  uint8_t* o = out.data_ptr<uint8_t>();
  for (int64_t p = 0; p < s.rows; ++p) apply_lut(in + p * s.plane, o + p * s.plane, s.plane, t + (p % L) * 256);
  return out;
}

enum Adjust : int64_t { kBrightness = 0, kContrast = 1, kSaturation = 2, kHue = 3 };

void adjust_row(const uint8_t* src, uint8_t* dst, const Rows& s, int64_t op, double f, bool f_double) {
  switch (op) {
    case kBrightness:
      brightness_row(src, dst, s.channels * s.plane, f);
      return;
    case kContrast:
      contrast_row(src, dst, s.channels, s.plane, f);
      return;
    case kSaturation:
      if (s.channels == 3) {
        saturation_row(src, dst, s.plane, f);
      } else if (src != dst) {
        std::memcpy(dst, src, static_cast<size_t>(s.channels * s.plane));
      }
      return;
    default:
      if (s.channels == 3) {
        hue_row(src, dst, s.plane, hue_shift(f, f_double));
      } else if (src != dst) {
        std::memcpy(dst, src, static_cast<size_t>(s.channels * s.plane));
      }
  }
}

// adjust_u8(image, factor, op): op 0 brightness, 1 contrast, 2 saturation, 3 hue; one factor or one per row.
at::Tensor adjust_u8(const at::Tensor& image, const at::Tensor& factor, int64_t op) {
  const Rows s = rows_of(image, "adjust_u8", true);
  TORCH_CHECK_VALUE(op >= 0 && op <= 3, "jitvision_native.adjust_u8: op must be 0-3, got ", op);
  TORCH_CHECK_VALUE(op == kBrightness || s.channels == 1 || s.channels == 3,
                    "jitvision_native.adjust_u8: expected 1 or 3 channels, got ", s.channels);
  const std::vector<double> f = factors_of(factor, s.rows, "adjust_u8");
  const bool f_double = factor.scalar_type() == at::kDouble;
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t n = s.channels * s.plane;
  for (int64_t r = 0; r < s.rows; ++r)
    adjust_row(src.data_ptr<uint8_t>() + r * n, out.data_ptr<uint8_t>() + r * n, s, op, f[r], f_double);
  return out;
}

// ColorJitter: per row, the present adjustments (bit op of `present`) in the row's order (order [4] or [R, 4]
// int64, factors [4] or [R, 4]), each truncated to uint8 before the next, as the unfused kernels do.
at::Tensor color_jitter_u8(const at::Tensor& image, const at::Tensor& order, const at::Tensor& factors,
                           int64_t present) {
  const Rows s = rows_of(image, "color_jitter_u8", true);
  TORCH_CHECK_VALUE(s.channels == 1 || s.channels == 3, "jitvision_native.color_jitter_u8: expected 1 or 3 channels, "
                    "got ", s.channels);
  const at::Tensor ord = order.detach().to(at::kCPU, at::kLong).contiguous().reshape({-1, 4});
  const at::Tensor fac = factors.detach().to(at::kCPU, at::kDouble).contiguous().reshape({-1, 4});
  const bool f_double = factors.scalar_type() == at::kDouble;
  TORCH_CHECK_VALUE((ord.size(0) == 1 || ord.size(0) == s.rows) && fac.size(0) == ord.size(0),
                    "jitvision_native.color_jitter_u8: expected one order and factor set, or one per row (", s.rows,
                    "), got ", ord.size(0), " and ", fac.size(0));
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t n = s.channels * s.plane;
  for (int64_t r = 0; r < s.rows; ++r) {
    const int64_t q = ord.size(0) == 1 ? 0 : r;
    const int64_t* o = ord.data_ptr<int64_t>() + q * 4;
    const double* f = fac.data_ptr<double>() + q * 4;
    const uint8_t* in = src.data_ptr<uint8_t>() + r * n;
    uint8_t* dst = out.data_ptr<uint8_t>() + r * n;
    for (int pos = 0; pos < 4; ++pos) {
      const int64_t op = o[pos];
      TORCH_CHECK_VALUE(op >= 0 && op <= 3, "jitvision_native.color_jitter_u8: order holds ", op);
      if (((present >> op) & 1) == 0) continue;
      adjust_row(in, dst, s, op, f[op], f_double);
      in = dst;
    }
    if (in != dst) std::memcpy(dst, in, static_cast<size_t>(n));
  }
  return out;
}

// Grayscale: the luma truncated to uint8, [..., 1, H, W].
JV_CLONES void gray_row(const uint8_t* src, uint8_t* dst, int64_t plane) {
  for (int64_t i = 0; i < plane; ++i) {
    const float l = std::fmaf(static_cast<float>(src[2 * plane + i]), kB,
                              std::fmaf(static_cast<float>(src[plane + i]), kG, static_cast<float>(src[i]) * kR));
    dst[i] = trunc_u8(l);
  }
}

at::Tensor grayscale_u8(const at::Tensor& image) {
  const Rows s = rows_of(image, "grayscale_u8", true);
  TORCH_CHECK_VALUE(s.channels == 3, "jitvision_native.grayscale_u8: expected 3 channels, got ", s.channels);
  std::vector<int64_t> shape(image.sizes().begin(), image.sizes().end());
  shape[shape.size() - 3] = 1;
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(shape, image.options());
  for (int64_t r = 0; r < s.rows; ++r)
    gray_row(src.data_ptr<uint8_t>() + r * 3 * s.plane, out.data_ptr<uint8_t>() + r * s.plane, s.plane);
  return out;
}

// Equalize (PIL's rule, as functional/_color/_equalize.py): per plane, the step (pixels - count of the highest
// level present) // 255; level v maps to min(255, (pixels below v + step // 2) // step); a step of 0 keeps the plane.
JV_CLONES void histogram(const uint8_t* p, int64_t n, int64_t* hist) {
  uint32_t h[4][256];
  std::memset(h, 0, sizeof(h));
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++h[0][p[i]];
    ++h[1][p[i + 1]];
    ++h[2][p[i + 2]];
    ++h[3][p[i + 3]];
  }
  for (; i < n; ++i) ++h[0][p[i]];
  for (int v = 0; v < 256; ++v) hist[v] = static_cast<int64_t>(h[0][v]) + h[1][v] + h[2][v] + h[3][v];
}

at::Tensor equalize_u8(const at::Tensor& image) {
  const Rows s = rows_of(image, "equalize_u8", false);
  TORCH_CHECK_VALUE(s.plane < (int64_t{1} << 32), "jitvision_native.equalize_u8: planes of at most 2^32 pixels");
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  for (int64_t p = 0; p < s.rows; ++p) {
    const uint8_t* in = src.data_ptr<uint8_t>() + p * s.plane;
    uint8_t* dst = out.data_ptr<uint8_t>() + p * s.plane;
    int64_t hist[256];
    histogram(in, s.plane, hist);
    int top = 255;
    while (top > 0 && hist[top] == 0) --top;
    const int64_t step = (s.plane - hist[top]) / 255;
    uint8_t lut[256];
    int64_t below = 0;
    for (int v = 0; v < 256; ++v) {
      lut[v] = step > 0 ? static_cast<uint8_t>(std::min<int64_t>(255, (below + step / 2) / step))
                        : static_cast<uint8_t>(v);
      below += hist[v];
    }
    apply_lut(in, dst, s.plane, lut);
  }
  return out;
}

// Autocontrast (torchvision's float32 formula): (x - min) / ((max - min) * (1 / 255)), clamped and truncated; a
// flat plane is left as it is.
JV_CLONES void min_max(const uint8_t* p, int64_t n, uint8_t* lo, uint8_t* hi) {
  uint8_t a = 255, b = 0;
  for (int64_t i = 0; i < n; ++i) {
    a = p[i] < a ? p[i] : a;
    b = p[i] > b ? p[i] : b;
  }
  *lo = a;
  *hi = b;
}

at::Tensor autocontrast_u8(const at::Tensor& image) {
  const Rows s = rows_of(image, "autocontrast_u8", false);
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const float inv255 = static_cast<float>(1.0 / 255.0);
  for (int64_t p = 0; p < s.rows; ++p) {
    const uint8_t* in = src.data_ptr<uint8_t>() + p * s.plane;
    uint8_t* dst = out.data_ptr<uint8_t>() + p * s.plane;
    uint8_t lo, hi;
    min_max(in, s.plane, &lo, &hi);
    const bool flat = lo == hi;
    const float minimum = flat ? 0.f : static_cast<float>(lo);
    const float inverse_scale = flat ? 1.f : static_cast<float>(hi - lo) * inv255;
    uint8_t lut[256];
    for (int v = 0; v < 256; ++v) lut[v] = trunc_u8((static_cast<float>(v) - minimum) / inverse_scale);
    apply_lut(in, dst, s.plane, lut);
  }
  return out;
}

// Sharpness (functional/_color/_adjust.py): the interior moves towards round((3x3 box sum + 4 center) / 13) by
// 1 - factor: fma(smooth - x, (float)(1 - f), x), clamped and truncated; the one-pixel border is kept.
JV_CLONES void sharpness_plane(const uint8_t* in, uint8_t* out, int64_t H, int64_t W, float alpha) {
  std::memcpy(out, in, static_cast<size_t>(W));
  std::memcpy(out + (H - 1) * W, in + (H - 1) * W, static_cast<size_t>(W));
  for (int64_t y = 1; y + 1 < H; ++y) {
    const uint8_t *a = in + (y - 1) * W, *m = in + y * W, *c = in + (y + 1) * W;
    uint8_t* o = out + y * W;
    o[0] = m[0];
    o[W - 1] = m[W - 1];
    for (int64_t x = 1; x + 1 < W; ++x) {
      const int box = a[x - 1] + a[x] + a[x + 1] + m[x - 1] + m[x] + m[x + 1] + c[x - 1] + c[x] + c[x + 1];
      const float center = static_cast<float>(m[x]);
      const float smooth = std::nearbyint(static_cast<float>(box + 4 * m[x]) / 13.f);
      o[x] = trunc_u8(std::fmaf(smooth - center, alpha, center));
    }
  }
}

at::Tensor sharpness_u8(const at::Tensor& image, const at::Tensor& factor) {
  const Rows s = rows_of(image, "sharpness_u8", true);
  const int64_t H = image.size(-2), W = image.size(-1);
  const at::Tensor src = image.contiguous();
  if (H <= 2 || W <= 2 || image.numel() == 0) return src.clone();
  const std::vector<double> f = factors_of(factor, s.rows, "sharpness_u8");
  at::Tensor out = at::empty(image.sizes(), image.options());
  for (int64_t r = 0; r < s.rows; ++r) {
    const float alpha = static_cast<float>(1.0 - f[r]);
    for (int64_t c = 0; c < s.channels; ++c) {
      const int64_t offset = (r * s.channels + c) * s.plane;
      sharpness_plane(src.data_ptr<uint8_t>() + offset, out.data_ptr<uint8_t>() + offset, H, W, alpha);
    }
  }
  return out;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("lut_u8(Tensor image, Tensor lut) -> Tensor");
  m.def("adjust_u8(Tensor image, Tensor factor, int op) -> Tensor");
  m.def("color_jitter_u8(Tensor image, Tensor order, Tensor factors, int present) -> Tensor");
  m.def("grayscale_u8(Tensor image) -> Tensor");
  m.def("equalize_u8(Tensor image) -> Tensor");
  m.def("autocontrast_u8(Tensor image) -> Tensor");
  m.def("sharpness_u8(Tensor image, Tensor factor) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("lut_u8", &jitvision_native::lut_u8);
  m.impl("adjust_u8", &jitvision_native::adjust_u8);
  m.impl("color_jitter_u8", &jitvision_native::color_jitter_u8);
  m.impl("grayscale_u8", &jitvision_native::grayscale_u8);
  m.impl("equalize_u8", &jitvision_native::equalize_u8);
  m.impl("autocontrast_u8", &jitvision_native::autocontrast_u8);
  m.impl("sharpness_u8", &jitvision_native::sharpness_u8);
}
