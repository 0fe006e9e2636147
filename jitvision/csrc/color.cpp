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
// Brightness and contrast's blend (once the mean is known) look every value up in a 256-entry table of the per-value
// results where the CPU has AVX-512 VBMI (64 look-ups per vpermi2b pair); with AVX2+FMA alone they compute each value
// directly, 32 a step, and use the table only for the last < 32 values and on CPUs without AVX2 (a scalar look-up
// is one byte a step: ~300 us for 3x512x512, the vectorised pass ~4x less). Equalize and autocontrast build a table and look every pixel up;
// invert, solarize and posterize are bit operations (color_point.cpp).
// The file is compiled with -ffp-contract=off (setup.py), so the compiler never fuses what torch rounds twice;
// fused steps are explicit fmaf calls (a vfmadd in the AVX2+FMA build of a loop, libm's exact fmaf without FMA).
//
// Shapes: an image is uint8 [..., C, H, W] read as R rows of C planes (R = numel / (C H W)); a factor tensor
// holds one value ([] or [1]) or one per row ([R]). Outputs are contiguous uint8 of the input's shape.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define JV_X86 1
#endif

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include "color_draw.h"

// Integer-only and separately-rounded float loops: one clone per ISA, picked at load time.
#ifdef JV_X86
#define JV_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define JV_CLONES
#endif
#define JV_INLINE inline __attribute__((always_inline))
// The float loops (luma, blends, hue) have an AVX2+FMA version (8 pixels a step, the same operations in the same
// order) used when the CPU has both, and a scalar version (libm's exact fmaf) for the rest of a plane and other CPUs.
#ifdef JV_X86
#define JV_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace jitvision_native {
namespace {

constexpr float kR = 0.2989f, kG = 0.587f, kB = 0.114f;


JV_INLINE float clamp255(float v) {  // NaN (never produced from finite inputs) goes to 0
  return v >= 0.f ? (v <= 255.f ? v : 255.f) : 0.f;
}

JV_INLINE uint8_t trunc_u8(float v) { return static_cast<uint8_t>(static_cast<int32_t>(clamp255(v))); }

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

// One double per row ([] / [1]: the same for every row). A contiguous float/double CPU factor is read in place: the
// .to(double) copy cost more than a small image's whole adjustment.
std::vector<double> factors_of(const at::Tensor& factor, int64_t rows, const char* op) {
  const int64_t count = factor.numel();
  TORCH_CHECK_VALUE(count == 1 || count == rows, "jitvision_native.", op, ": expected one factor or one per ",
                    "row (", rows, "), got ", count);
  std::vector<double> out(static_cast<size_t>(rows));
  const bool direct = factor.device().is_cpu() && factor.is_contiguous() &&
                      (factor.scalar_type() == at::kFloat || factor.scalar_type() == at::kDouble);
  const at::Tensor f = direct ? factor : factor.detach().to(at::kCPU, at::kDouble).contiguous();
  if (f.scalar_type() == at::kFloat) {
    const float* p = f.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r) out[r] = p[count == 1 ? 0 : r];
  } else {
    const double* p = f.data_ptr<double>();
    for (int64_t r = 0; r < rows; ++r) out[r] = p[count == 1 ? 0 : r];
  }
  return out;
}

// ---- tables ------------------------------------------------------------------------------------------------------

#ifdef JV_X86
bool has_avx512_vbmi() {
  static const bool value = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vbmi");
  return value;
}

// 64 values a step with AVX-512 VBMI: the table sits in four 64-byte registers; vpermi2b looks each byte up in 128
// of them by its low 7 bits, and bit 7 picks the lower or upper half (~0.05 cycles a value, against ~1 for the
// table reads below: on a 3x512x512 image ~10 us instead of ~300). The tail is a masked load and store.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void apply_lut_vbmi(const uint8_t* src, uint8_t* dst,
                                                                            int64_t n, const uint8_t* lut) {
  const __m512i t0 = _mm512_loadu_si512(lut), t1 = _mm512_loadu_si512(lut + 64);
  const __m512i t2 = _mm512_loadu_si512(lut + 128), t3 = _mm512_loadu_si512(lut + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i x = _mm512_loadu_si512(src + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, x, t1), high = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_storeu_si512(dst + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high));
  }
  if (i < n) {
    const __mmask64 m = (uint64_t{1} << (n - i)) - 1;  // n - i < 64
    const __m512i x = _mm512_maskz_loadu_epi8(m, src + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, x, t1), high = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_mask_storeu_epi8(dst + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high));
  }
}
#else
bool has_avx512_vbmi() { return false; }
void apply_lut_vbmi(const uint8_t*, uint8_t*, int64_t, const uint8_t*) {}
#endif

// 8 pixels a step: one 8-byte load and store around 8 table reads (a byte load and store per pixel was ~2x slower).
JV_CLONES void apply_lut_scalar(const uint8_t* src, uint8_t* dst, int64_t n, const uint8_t* lut) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, src + i, 8);
    const uint64_t o = static_cast<uint64_t>(lut[v & 0xff]) | static_cast<uint64_t>(lut[(v >> 8) & 0xff]) << 8 |
                       static_cast<uint64_t>(lut[(v >> 16) & 0xff]) << 16 |
                       static_cast<uint64_t>(lut[(v >> 24) & 0xff]) << 24 |
                       static_cast<uint64_t>(lut[(v >> 32) & 0xff]) << 32 |
                       static_cast<uint64_t>(lut[(v >> 40) & 0xff]) << 40 |
                       static_cast<uint64_t>(lut[(v >> 48) & 0xff]) << 48 | static_cast<uint64_t>(lut[v >> 56]) << 56;
    std::memcpy(dst + i, &o, 8);
  }
  for (; i < n; ++i) dst[i] = lut[src[i]];
}

// dst[i] = lut[src[i]] (src may equal dst).
void apply_lut(const uint8_t* src, uint8_t* dst, int64_t n, const uint8_t* lut) {
  if (n <= 0) return;
  if (has_avx512_vbmi()) {
    apply_lut_vbmi(src, dst, n, lut);
  } else {
    apply_lut_scalar(src, dst, n, lut);
  }
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
JV_INLINE float gray_floor(uint8_t r, uint8_t g, uint8_t b) {
  return std::floor(std::fmaf(static_cast<float>(b), kB, std::fmaf(static_cast<float>(g), kG, static_cast<float>(r) * kR)));
}

// The mean contrast blends with: of floor(luma) for 3 channels, of the values for 1 (exact sum, divided in double).
#ifdef JV_X86
// ---- AVX2 + FMA blocks of 8 pixels -----------------------------------------------------------------------------

JV_AVX2 JV_INLINE __m256 load8(const uint8_t* p) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

// Clamped to [0, 255] (min then max: v < 255 ? v : 255, then > 0 ? : 0, the scalar clamp for non-NaN v), truncated.
JV_AVX2 JV_INLINE void store8(uint8_t* p, __m256 v) {
  v = _mm256_max_ps(_mm256_min_ps(v, _mm256_set1_ps(255.f)), _mm256_setzero_ps());
  const __m256i i = _mm256_cvttps_epi32(v);
  const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(w, w));
}

JV_AVX2 JV_INLINE __m256 luma8(__m256 r, __m256 g, __m256 b) {
  return _mm256_fmadd_ps(b, _mm256_set1_ps(kB), _mm256_fmadd_ps(g, _mm256_set1_ps(kG), _mm256_mul_ps(r, _mm256_set1_ps(kR))));
}

// Sum of floor(luma) over the first multiple of 8 pixels; returns how many pixels it covered.
JV_AVX2 int64_t gray_floor_sum_avx2(const uint8_t* p, int64_t plane, int64_t* sum) {
  int64_t i = 0, total = 0;
  while (i + 8 <= plane) {
    __m256i acc = _mm256_setzero_si256();  // at most 2^20 steps of <= 255 per lane: no overflow
    for (int64_t steps = 0; steps < (int64_t{1} << 20) && i + 8 <= plane; ++steps, i += 8) {
      // floor(luma) is its truncation (luma >= 0): the conversion alone.
      acc = _mm256_add_epi32(acc, _mm256_cvttps_epi32(luma8(load8(p + i), load8(p + plane + i), load8(p + 2 * plane + i))));
    }
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
    for (int k = 0; k < 8; ++k) total += lanes[k];
  }
  *sum = total;
  return i;
}

JV_AVX2 int64_t saturation_avx2(const uint8_t* src, uint8_t* dst, int64_t plane, float ff, float alpha) {
  const __m256 f = _mm256_set1_ps(ff), a = _mm256_set1_ps(alpha);
  int64_t i = 0;
  for (; i + 8 <= plane; i += 8) {
    const __m256 r = load8(src + i), g = load8(src + plane + i), b = load8(src + 2 * plane + i);
    const __m256 gray = _mm256_floor_ps(luma8(r, g, b));
    store8(dst + i, _mm256_fmadd_ps(gray, a, _mm256_mul_ps(r, f)));
    store8(dst + plane + i, _mm256_fmadd_ps(gray, a, _mm256_mul_ps(g, f)));
    store8(dst + 2 * plane + i, _mm256_fmadd_ps(gray, a, _mm256_mul_ps(b, f)));
  }
  return i;
}

// Four blocks of 8 values (pixels i .. i + 31 in order) clamped to at most 255, truncated and stored as 32 bytes.
// Below 0 the packs saturate to 0 (the scalar clamp's result); two packs and one lane permute for 32 pixels (store8's
// packs and extract per 8 pixels made the shuffle port the bottleneck of a brightness pass).
JV_AVX2 JV_INLINE void store32(uint8_t* p, __m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 top = _mm256_set1_ps(255.f);
  const __m256i ab = _mm256_packus_epi32(_mm256_cvttps_epi32(_mm256_min_ps(a, top)),
                                         _mm256_cvttps_epi32(_mm256_min_ps(b, top)));
  const __m256i cd = _mm256_packus_epi32(_mm256_cvttps_epi32(_mm256_min_ps(c, top)),
                                         _mm256_cvttps_epi32(_mm256_min_ps(d, top)));
  // In-lane packs leave 4-pixel groups in the order 0, 2, 4, 6, 1, 3, 5, 7.
  const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), bytes);
}

// x * f (brightness), or fma(other, alpha, x * f) (contrast's blend with the mean), 32 values a step: the table's
// values computed directly (a table look-up is one value per step).
JV_AVX2 int64_t scale_avx2(const uint8_t* src, uint8_t* dst, int64_t n, float ff, bool blend, float other,
                           float alpha) {
  const __m256 f = _mm256_set1_ps(ff), o = _mm256_set1_ps(other), a = _mm256_set1_ps(alpha);
  int64_t i = 0;
  if (blend) {
    for (; i + 32 <= n; i += 32)
      store32(dst + i, _mm256_fmadd_ps(o, a, _mm256_mul_ps(load8(src + i), f)),
              _mm256_fmadd_ps(o, a, _mm256_mul_ps(load8(src + i + 8), f)),
              _mm256_fmadd_ps(o, a, _mm256_mul_ps(load8(src + i + 16), f)),
              _mm256_fmadd_ps(o, a, _mm256_mul_ps(load8(src + i + 24), f)));
  } else {
    for (; i + 32 <= n; i += 32)
      store32(dst + i, _mm256_mul_ps(load8(src + i), f), _mm256_mul_ps(load8(src + i + 8), f),
              _mm256_mul_ps(load8(src + i + 16), f), _mm256_mul_ps(load8(src + i + 24), f));
  }
  return i;
}

JV_AVX2 int64_t gray_avx2(const uint8_t* src, uint8_t* dst, int64_t plane) {
  int64_t i = 0;
  for (; i + 8 <= plane; i += 8)
    store8(dst + i, luma8(load8(src + i), load8(src + plane + i), load8(src + 2 * plane + i)));
  return i;
}

// hue_channel (below) on 8 pixels: blends for the selects, the same operations in the same order.
JV_AVX2 JV_INLINE __m256 hue_channel8(__m256 sixths, float n, __m256 maxc, __m256 chroma) {
  const __m256 six = _mm256_set1_ps(6.f), zero = _mm256_setzero_ps();
  const __m256 s = _mm256_add_ps(sixths, _mm256_set1_ps(n));
  const __m256 ge6 = _mm256_cmp_ps(s, six, _CMP_GE_OQ), ge12 = _mm256_cmp_ps(s, _mm256_set1_ps(12.f), _CMP_GE_OQ);
  __m256 k = _mm256_blendv_ps(s, _mm256_blendv_ps(_mm256_sub_ps(s, six), _mm256_sub_ps(s, _mm256_set1_ps(12.f)), ge12), ge6);
  k = _mm256_blendv_ps(k, _mm256_add_ps(k, six), _mm256_cmp_ps(k, zero, _CMP_LT_OQ));
  __m256 w = _mm256_min_ps(_mm256_sub_ps(_mm256_set1_ps(4.f), k), k);  // std::min(k, 4 - k)
  w = _mm256_max_ps(_mm256_min_ps(w, _mm256_set1_ps(1.f)), zero);
  return _mm256_sub_ps(maxc, _mm256_mul_ps(chroma, w));
}

JV_AVX2 int64_t hue_avx2(const uint8_t* src, uint8_t* dst, int64_t plane, float shift, float scale) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.f), sc = _mm256_set1_ps(scale);
  const __m256 sh = _mm256_set1_ps(shift);
  int64_t i = 0;
  for (; i + 8 <= plane; i += 8) {
    const __m256 r = load8(src + i), g = load8(src + plane + i), b = load8(src + 2 * plane + i);
    const __m256 maxc = _mm256_max_ps(_mm256_max_ps(r, g), b), minc = _mm256_min_ps(_mm256_min_ps(r, g), b);
    const __m256 chroma = _mm256_sub_ps(maxc, minc);
    const __m256 is_r = _mm256_cmp_ps(maxc, r, _CMP_EQ_OQ), is_g = _mm256_cmp_ps(maxc, g, _CMP_EQ_OQ);
    const __m256 numerator =
        _mm256_blendv_ps(_mm256_blendv_ps(_mm256_sub_ps(r, g), _mm256_sub_ps(b, r), is_g), _mm256_sub_ps(g, b), is_r);
    const __m256 offset = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_set1_ps(4.f), _mm256_set1_ps(2.f), is_g), zero, is_r);
    const __m256 den = _mm256_blendv_ps(chroma, one, _mm256_cmp_ps(chroma, zero, _CMP_EQ_OQ));
    __m256 sixths = _mm256_add_ps(_mm256_div_ps(numerator, den), offset);
    sixths = _mm256_add_ps(sixths, sh);
    store8(dst + i, _mm256_mul_ps(hue_channel8(sixths, 5.f, maxc, chroma), sc));
    store8(dst + plane + i, _mm256_mul_ps(hue_channel8(sixths, 3.f, maxc, chroma), sc));
    store8(dst + 2 * plane + i, _mm256_mul_ps(hue_channel8(sixths, 1.f, maxc, chroma), sc));
  }
  return i;
}

// 16 bytes widened to 16-bit lanes.
JV_AVX2 JV_INLINE __m256i load16(const uint8_t* p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// One interior row of sharpness_plane (below) from column 1, 16 columns a step; returns the columns covered. The
// smoothed value round((3x3 box sum + 4 center) / 13) is an integer function of the integer sum s <= 3315: 13 is
// odd, so s / 13 is never a half and the float division's rounding cannot cross one, and it equals
// floor((s + 6) / 13) = ((s + 6) * 5042) >> 16 (exact for s + 6 <= 3321), in 16-bit lanes. The blend with the
// center stays torchvision's float fma. The float version (9 converted loads and a division per 8 columns) took
// 432 us on 3x512x512 where this takes 327 (one thread, AMD EPYC).
JV_AVX2 int64_t sharpness_avx2(const uint8_t* a, const uint8_t* m, const uint8_t* c, uint8_t* o, int64_t W,
                               float alpha) {
  const __m256 al = _mm256_set1_ps(alpha);
  const __m256i six = _mm256_set1_epi16(6), magic = _mm256_set1_epi16(5042);
  int64_t x = 1;
  for (; x + 16 < W; x += 16) {  // columns x .. x + 15 read x - 1 .. x + 16 <= W - 1
    const __m256i center = load16(m + x);
    __m256i sum = _mm256_add_epi16(_mm256_add_epi16(load16(a + x - 1), load16(a + x)), load16(a + x + 1));
    sum = _mm256_add_epi16(sum, _mm256_add_epi16(_mm256_add_epi16(load16(m + x - 1), center), load16(m + x + 1)));
    sum = _mm256_add_epi16(sum, _mm256_add_epi16(_mm256_add_epi16(load16(c + x - 1), load16(c + x)), load16(c + x + 1)));
    sum = _mm256_add_epi16(sum, _mm256_slli_epi16(center, 2));
    const __m256i smooth = _mm256_mulhi_epu16(_mm256_add_epi16(sum, six), magic);
    const __m256i diff = _mm256_sub_epi16(smooth, center);  // in [-255, 255]
    for (int half = 0; half < 2; ++half) {
      const __m128i d16 = half == 0 ? _mm256_castsi256_si128(diff) : _mm256_extracti128_si256(diff, 1);
      const __m128i c16 = half == 0 ? _mm256_castsi256_si128(center) : _mm256_extracti128_si256(center, 1);
      const __m256 d = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(d16));
      const __m256 cf = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(c16));
      store8(o + x + 8 * half, _mm256_fmadd_ps(d, al, cf));
    }
  }
  return x - 1;
}

bool has_avx2_fma() {
  static const bool value = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return value;
}
#else  // no x86: the scalar loops only
bool has_avx2_fma() { return false; }
int64_t gray_floor_sum_avx2(const uint8_t*, int64_t, int64_t*) { return 0; }
int64_t saturation_avx2(const uint8_t*, uint8_t*, int64_t, float, float) { return 0; }
int64_t gray_avx2(const uint8_t*, uint8_t*, int64_t) { return 0; }
int64_t scale_avx2(const uint8_t*, uint8_t*, int64_t, float, bool, float, float) { return 0; }
int64_t hue_avx2(const uint8_t*, uint8_t*, int64_t, float, float) { return 0; }
int64_t sharpness_avx2(const uint8_t*, const uint8_t*, const uint8_t*, uint8_t*, int64_t, float) { return 0; }
#endif

float contrast_mean(const uint8_t* p, int64_t channels, int64_t plane) {
  int64_t sum = 0;
  if (channels == 3) {
    const int64_t begin = has_avx2_fma() ? gray_floor_sum_avx2(p, plane, &sum) : 0;
    for (int64_t i = begin; i < plane; ++i) sum += static_cast<int64_t>(gray_floor(p[i], p[plane + i], p[2 * plane + i]));
  } else {
    for (int64_t i = 0; i < plane * channels; ++i) sum += p[i];
  }
  return static_cast<float>(static_cast<double>(sum) / static_cast<double>(plane * (channels == 3 ? 1 : channels)));
}

// ---- per-row steps (src may equal dst) -------------------------------------------------------------------------

// Brightness and contrast's blend: where the table look-up is vectorised (AVX-512 VBMI) the table does all the values
// (it holds exactly the per-value results); else the AVX2 arithmetic does the bulk and the table the rest.
void brightness_row(const uint8_t* src, uint8_t* dst, int64_t n, double f) {
  const bool compute = has_avx2_fma() && !has_avx512_vbmi();
  const int64_t done = compute ? scale_avx2(src, dst, n, static_cast<float>(f), false, 0.f, 0.f) : 0;
  uint8_t lut[256];
  brightness_lut(f, lut);
  apply_lut(src + done, dst + done, n - done, lut);
}

void contrast_row(const uint8_t* src, uint8_t* dst, int64_t channels, int64_t plane, double f) {
  const float mean = contrast_mean(src, channels, plane);
  const int64_t n = channels * plane;
  const int64_t done = has_avx2_fma() && !has_avx512_vbmi()
                           ? scale_avx2(src, dst, n, static_cast<float>(f), true, mean, static_cast<float>(1.0 - f))
                           : 0;
  uint8_t lut[256];
  blend_lut(mean, f, lut);
  apply_lut(src + done, dst + done, n - done, lut);
}

void saturation_row(const uint8_t* src, uint8_t* dst, int64_t plane, double f) {
  const float ff = static_cast<float>(f), alpha = static_cast<float>(1.0 - f);
  const uint8_t *r = src, *g = src + plane, *b = src + 2 * plane;
  uint8_t *dr = dst, *dg = dst + plane, *db = dst + 2 * plane;
  const int64_t begin = has_avx2_fma() ? saturation_avx2(src, dst, plane, ff, alpha) : 0;
  for (int64_t i = begin; i < plane; ++i) {
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
JV_INLINE float hue_channel(float sixths, float n, float maxc, float chroma) {
  const float s = sixths + n;  // in [-4, 14): fmod by 6 is an exact subtraction of 0, 6 or 12
  float k = s >= 6.f ? (s >= 12.f ? s - 12.f : s - 6.f) : s;
  if (k < 0.f) k = k + 6.f;
  float w = std::min(k, 4.f - k);
  w = w >= 0.f ? (w <= 1.f ? w : 1.f) : 0.f;
  return maxc - chroma * w;
}

void hue_row(const uint8_t* src, uint8_t* dst, int64_t plane, float shift) {
  const float scale = static_cast<float>((255.0 + 1.0 - 1e-3) / 255.0);
  const uint8_t *pr = src, *pg = src + plane, *pb = src + 2 * plane;
  uint8_t *dr = dst, *dg = dst + plane, *db = dst + 2 * plane;
  const int64_t begin = has_avx2_fma() ? hue_avx2(src, dst, plane, shift, scale) : 0;
  for (int64_t i = begin; i < plane; ++i) {
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
  // Rows are independent: parallel over them (the same result for any thread count).
  at::parallel_for(0, s.rows, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      adjust_row(src.data_ptr<uint8_t>() + r * n, out.data_ptr<uint8_t>() + r * n, s, op, f[r], f_double);
  });
  return out;
}

// ColorJitter on one row: the present adjustments (bit op of `present`) in `order`, each truncated to uint8 before
// the next, as the unfused kernels do.
void jitter_row(const uint8_t* in, uint8_t* dst, const Rows& s, const int64_t* order, const double* f,
                int64_t present, bool f_double) {
  for (int pos = 0; pos < 4; ++pos) {
    const int64_t op = order[pos];
    TORCH_CHECK_VALUE(op >= 0 && op <= 3, "jitvision_native.color_jitter_u8: order holds ", op);
    if (((present >> op) & 1) == 0) continue;
    adjust_row(in, dst, s, op, f[op], f_double);
    in = dst;
  }
  if (in != dst) std::memcpy(dst, in, static_cast<size_t>(s.channels * s.plane));
}

Rows jitter_rows(const at::Tensor& image, const char* op) {
  const Rows s = rows_of(image, op, true);
  TORCH_CHECK_VALUE(s.channels == 1 || s.channels == 3, "jitvision_native.", op, ": expected 1 or 3 channels, got ",
                    s.channels);
  return s;
}

// A CPU tensor of `dtype` as it is when it already is one (contiguous), else converted: small parameter tensors.
at::Tensor as_cpu(const at::Tensor& t, at::ScalarType dtype) {
  if (t.device().is_cpu() && t.scalar_type() == dtype && t.is_contiguous()) return t;
  return t.detach().to(at::kCPU, dtype).contiguous();
}

// ColorJitter: per row, jitter_row with the row's order (order [4] or [R, 4] int64, factors [4] or [R, 4]).
at::Tensor color_jitter_u8(const at::Tensor& image, const at::Tensor& order, const at::Tensor& factors,
                           int64_t present) {
  const Rows s = jitter_rows(image, "color_jitter_u8");
  const at::Tensor ord = as_cpu(order, at::kLong);
  const bool f_double = factors.scalar_type() == at::kDouble;
  const at::Tensor fac = as_cpu(factors, at::kDouble);
  const int64_t sets = ord.numel() / 4;
  TORCH_CHECK_VALUE(ord.numel() % 4 == 0 && fac.numel() == ord.numel() && (sets == 1 || sets == s.rows),
                    "jitvision_native.color_jitter_u8: expected one order and factor set, or one per row (", s.rows,
                    "), got ", ord.sizes(), " and ", fac.sizes());
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t n = s.channels * s.plane;
  at::parallel_for(0, s.rows, 1, [&](int64_t begin, int64_t end) {  // rows are independent
    for (int64_t r = begin; r < end; ++r) {
      const int64_t q = sets == 1 ? 0 : r;
      jitter_row(src.data_ptr<uint8_t>() + r * n, out.data_ptr<uint8_t>() + r * n, s,
                 ord.data_ptr<int64_t>() + q * 4, fac.data_ptr<double>() + q * 4, present, f_double);
    }
  });
  return out;
}

// ColorJitter's eager draw and effect in one call: the draw of ColorJitter._draw_batch(1, ...) (torch.rand([1, 4])
// argsorted for the order, then torch.rand([1, 4]) mapped to low + (high - low) * u in float32) on the same generator,
// so a seed gives the same result as the Python path; then color_jitter_u8 with one set for every row.
at::Tensor color_jitter_random_u8(const at::Tensor& image, at::ArrayRef<double> low, at::ArrayRef<double> high,
                                  int64_t present, const std::optional<at::Generator>& generator) {
  const Rows s = jitter_rows(image, "color_jitter_random_u8");
  TORCH_CHECK_VALUE(low.size() == 4 && high.size() == 4, "jitvision_native.color_jitter_random_u8: expected 4 ranges");
  float k[4], u[4];
  uniform_floats(generator, k, 4);
  uniform_floats(generator, u, 4);
  int64_t order[4] = {0, 1, 2, 3};
  std::stable_sort(order, order + 4, [k](int64_t a, int64_t b) { return k[a] < k[b]; });
  double f[4];
  for (int i = 0; i < 4; ++i) {
    const float lo = static_cast<float>(low[i]), hi = static_cast<float>(high[i]);
    const float span = hi - lo;  // three float32 roundings, as the three tensor ops
    const float scaled = span * u[i];
    f[i] = static_cast<double>(lo + scaled);
  }
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t n = s.channels * s.plane;
  for (int64_t r = 0; r < s.rows; ++r)
    jitter_row(src.data_ptr<uint8_t>() + r * n, out.data_ptr<uint8_t>() + r * n, s, order, f, present, false);
  return out;
}

// Grayscale: the luma truncated to uint8, [..., 1, H, W].
void gray_row(const uint8_t* src, uint8_t* dst, int64_t plane) {
  const int64_t begin = has_avx2_fma() ? gray_avx2(src, dst, plane) : 0;
  for (int64_t i = begin; i < plane; ++i) {
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
void sharpness_plane(const uint8_t* in, uint8_t* out, int64_t H, int64_t W, float alpha) {
  std::memcpy(out, in, static_cast<size_t>(W));
  std::memcpy(out + (H - 1) * W, in + (H - 1) * W, static_cast<size_t>(W));
  for (int64_t y = 1; y + 1 < H; ++y) {
    const uint8_t *a = in + (y - 1) * W, *m = in + y * W, *c = in + (y + 1) * W;
    uint8_t* o = out + y * W;
    o[0] = m[0];
    o[W - 1] = m[W - 1];
    const int64_t begin = has_avx2_fma() ? 1 + sharpness_avx2(a, m, c, o, W, alpha) : 1;
    for (int64_t x = begin; x + 1 < W; ++x) {
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
  m.def("color_jitter_random_u8(Tensor image, float[] low, float[] high, int present, Generator? generator=None) -> Tensor",
        {at::Tag::nondeterministic_seeded});
  m.def("grayscale_u8(Tensor image) -> Tensor");
  m.def("equalize_u8(Tensor image) -> Tensor");
  m.def("autocontrast_u8(Tensor image) -> Tensor");
  m.def("sharpness_u8(Tensor image, Tensor factor) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("lut_u8", &jitvision_native::lut_u8);
  m.impl("adjust_u8", &jitvision_native::adjust_u8);
  m.impl("color_jitter_u8", &jitvision_native::color_jitter_u8);
  m.impl("color_jitter_random_u8", &jitvision_native::color_jitter_random_u8);
  m.impl("grayscale_u8", &jitvision_native::grayscale_u8);
  m.impl("equalize_u8", &jitvision_native::equalize_u8);
  m.impl("autocontrast_u8", &jitvision_native::autocontrast_u8);
  m.impl("sharpness_u8", &jitvision_native::sharpness_u8);
}
