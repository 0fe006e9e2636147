// JPEG's colour conversion and 4:2:0 chroma resampling on planes (see jpeg_ycc.h), in the fixed-point arithmetic
// libjpeg-turbo uses (16 fraction bits; its SIMD code computes the same integers as its C code), so the raw-data
// path of jpeg.cpp gives libjpeg's own pixels (the tests compare with torchvision's decode_jpeg(encode_jpeg(x))).
//
// Each loop is written once (an always_inline body) and compiled twice: for AVX2 (chosen at run time where the CPU
// has it; the library itself stays plain x86-64) and for the baseline. The loops are plain int32 arithmetic on
// uint8 rows, which the compiler vectorizes; integer results do not depend on the instruction set.

#include "jpeg_ycc.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace jitvision_native {
namespace jpeg_ycc {
namespace {

constexpr int kShift = 16;
constexpr int32_t kHalf = 1 << (kShift - 1);
constexpr int32_t fix(double x) { return static_cast<int32_t>(x * (1 << kShift) + 0.5); }

// RGB -> YCbCr (JFIF, full range). Cb and Cr round with 0.5 - epsilon so that they never reach 256.
constexpr int32_t kRY = fix(0.29900), kGY = fix(0.58700), kBY = fix(0.11400);
constexpr int32_t kRCb = fix(0.16874), kGCb = fix(0.33126), kHalfCoef = fix(0.50000);
constexpr int32_t kGCr = fix(0.41869), kBCr = fix(0.08131);
constexpr int32_t kChromaBias = (128 << kShift) + kHalf - 1;

// YCbCr -> RGB.
constexpr int32_t kCrR = fix(1.40200), kCbB = fix(1.77200), kCbG = fix(0.34414), kCrG = fix(0.71414);

#define JV_ALWAYS_INLINE inline __attribute__((always_inline))

JV_ALWAYS_INLINE int32_t luma_of(int32_t r, int32_t g, int32_t b) {
  return (kRY * r + kGY * g + kBY * b + kHalf) >> kShift;
}
JV_ALWAYS_INLINE int32_t cb_of(int32_t r, int32_t g, int32_t b) {
  return (kHalfCoef * b - kRCb * r - kGCb * g + kChromaBias) >> kShift;
}
JV_ALWAYS_INLINE int32_t cr_of(int32_t r, int32_t g, int32_t b) {
  return (kHalfCoef * r - kGCr * g - kBCr * b + kChromaBias) >> kShift;
}

// Two source rows from column `start` (even) on: Y of both (2 * chroma_stride samples, the columns past `width`
// repeating the last pixel) and the 2x2 averages of Cb and Cr (chroma_stride samples).
JV_ALWAYS_INLINE void rgb_to_ycc_h2v2_body(const Rows2& in, int width, int chroma_stride, int start, uint8_t* y0,
                                           uint8_t* y1, uint8_t* cb, uint8_t* cr) {
  const int inside = width / 2 < chroma_stride ? width / 2 : chroma_stride;  // pairs with both pixels in the row
  for (int cx = start / 2; cx < inside; ++cx) {  // no edge clamp: a loop the compiler vectorizes
    const int x = 2 * cx;
    const int32_t cb_sum = cb_of(in.r0[x], in.g0[x], in.b0[x]) + cb_of(in.r0[x + 1], in.g0[x + 1], in.b0[x + 1]) +
                           cb_of(in.r1[x], in.g1[x], in.b1[x]) + cb_of(in.r1[x + 1], in.g1[x + 1], in.b1[x + 1]);
    const int32_t cr_sum = cr_of(in.r0[x], in.g0[x], in.b0[x]) + cr_of(in.r0[x + 1], in.g0[x + 1], in.b0[x + 1]) +
                           cr_of(in.r1[x], in.g1[x], in.b1[x]) + cr_of(in.r1[x + 1], in.g1[x + 1], in.b1[x + 1]);
    cb[cx] = static_cast<uint8_t>((cb_sum + 1 + (cx & 1)) >> 2);
    cr[cx] = static_cast<uint8_t>((cr_sum + 1 + (cx & 1)) >> 2);
  }
  for (int x = start; x < 2 * inside; ++x) {
    y0[x] = static_cast<uint8_t>(luma_of(in.r0[x], in.g0[x], in.b0[x]));
    y1[x] = static_cast<uint8_t>(luma_of(in.r1[x], in.g1[x], in.b1[x]));
  }
  for (int cx = inside > start / 2 ? inside : start / 2; cx < chroma_stride; ++cx) {  // the right edge
    int32_t cb_sum = 0, cr_sum = 0;
    for (int k = 0; k < 2; ++k) {
      const int x = 2 * cx + k < width ? 2 * cx + k : width - 1;
      const int32_t r0 = in.r0[x], g0 = in.g0[x], b0 = in.b0[x], r1 = in.r1[x], g1 = in.g1[x], b1 = in.b1[x];
      y0[2 * cx + k] = static_cast<uint8_t>(luma_of(r0, g0, b0));
      y1[2 * cx + k] = static_cast<uint8_t>(luma_of(r1, g1, b1));
      cb_sum += cb_of(r0, g0, b0) + cb_of(r1, g1, b1);
      cr_sum += cr_of(r0, g0, b0) + cr_of(r1, g1, b1);
    }
    cb[cx] = static_cast<uint8_t>((cb_sum + 1 + (cx & 1)) >> 2);  // bias 1 on even outputs, 2 on odd ones
    cr[cx] = static_cast<uint8_t>((cr_sum + 1 + (cx & 1)) >> 2);
  }
}

JV_ALWAYS_INLINE uint8_t clamp_u8(int32_t v) { return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v)); }

JV_ALWAYS_INLINE void ycc_pixel(int32_t yv, int32_t cb, int32_t cr, uint8_t* r, uint8_t* g, uint8_t* b) {
  const int32_t cbv = cb - 128, crv = cr - 128;
  *r = clamp_u8(yv + ((kCrR * crv + kHalf) >> kShift));
  *g = clamp_u8(yv + ((kHalf - kCbG * cbv - kCrG * crv) >> kShift));
  *b = clamp_u8(yv + ((kCbB * cbv + kHalf) >> kShift));
}

// The fancy filter's vertical step: sums[1 + i] = 3 * nearest[i] + other[i] for i in [0, in_width), with the edge
// columns repeated (sums[0] = sums[1], sums[in_width + 1] = sums[in_width]).
JV_ALWAYS_INLINE void column_sums(const uint8_t* __restrict__ nearest, const uint8_t* __restrict__ other,
                                  int in_width, int16_t* __restrict__ sums) {
  for (int i = 0; i < in_width; ++i) sums[1 + i] = static_cast<int16_t>(3 * nearest[i] + other[i]);
  sums[0] = sums[1];
  sums[in_width + 1] = sums[in_width];
}

// Its horizontal step at output column x: 3 parts of the column sum it falls in, 1 of the next one towards x
// (rounding 8 on even columns, 7 on odd ones), / 16.
JV_ALWAYS_INLINE int32_t fancy_at(const int16_t* sums, int x) {
  const int i = x >> 1;
  const int32_t here = 3 * sums[1 + i];
  return (x & 1) ? (here + sums[2 + i] + 7) >> 4 : (here + sums[i] + 8) >> 4;
}

JV_ALWAYS_INLINE void fancy_rgb_body(const uint8_t* y, const int16_t* cb_sums, const int16_t* cr_sums, int start,
                                     int width, uint8_t* r, uint8_t* g, uint8_t* b) {
  for (int x = start; x < width; ++x) {
    ycc_pixel(y[x], fancy_at(cb_sums, x), fancy_at(cr_sums, x), r + x, g + x, b + x);
  }
}

JV_ALWAYS_INLINE void ycc_to_rgb_body(const uint8_t* __restrict__ y, const uint8_t* __restrict__ cb,
                                      const uint8_t* __restrict__ cr, int width, uint8_t* __restrict__ r,
                                      uint8_t* __restrict__ g, uint8_t* __restrict__ b) {
  for (int x = 0; x < width; ++x) ycc_pixel(y[x], cb[x], cr[x], r + x, g + x, b + x);
}

#if defined(__x86_64__)
#define JV_YCC_AVX2 __attribute__((target("avx2")))

// The AVX2 loops below take 16 pixels a step in 16-bit lanes and form the products with _mm256_madd_epi16 (pairs of
// int16 products summed in int32) or _mm256_mulhi_epi16; coefficients above 32767 are split (0.587 = 0.337 + 0.25
// on G, 1.402 = 1 + 0.402, 1.772 = 2 - 0.228, -0.71414 = 0.28586 - 1) so that every sum is the same integer as the
// scalar formula's before the shift. unpacklo/unpackhi then packs restore the pixel order within 128-bit lanes.

// (a, b) in every pair of int16 lanes: the coefficients of a _mm256_madd_epi16.
JV_YCC_AVX2 JV_ALWAYS_INLINE __m256i pair16(int16_t a, int16_t b) {
  const uint32_t bits = static_cast<uint32_t>(static_cast<uint16_t>(a)) | (uint32_t{static_cast<uint16_t>(b)} << 16);
  return _mm256_set1_epi32(static_cast<int32_t>(bits));
}

// 16 uint8 -> 16 int16 (zero-extended).
JV_YCC_AVX2 JV_ALWAYS_INLINE __m256i load16(const uint8_t* p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// 16 int16 (0..255 after saturation) -> 16 uint8 stored at p.
JV_YCC_AVX2 JV_ALWAYS_INLINE void store16(uint8_t* p, __m256i v) {
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(v, v), 0xD8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}

// (lo, hi) int32 sums (pixel order of unpacklo/unpackhi) >> 16, back to 16 int16 in pixel order.
JV_YCC_AVX2 JV_ALWAYS_INLINE __m256i shift_pack(__m256i lo, __m256i hi) {
  return _mm256_packs_epi32(_mm256_srai_epi32(lo, kShift), _mm256_srai_epi32(hi, kShift));
}

// Y, Cb, Cr of 16 pixels as int32 sums >> 16 in unpacklo/unpackhi order (lo, hi); Y stored at y.
struct YccSums {
  __m256i cb_lo, cb_hi, cr_lo, cr_hi;
};

JV_YCC_AVX2 JV_ALWAYS_INLINE YccSums ycc16(const uint8_t* r, const uint8_t* g, const uint8_t* b, uint8_t* y) {
  const __m256i y_rg = pair16(kRY, kGY - (1 << 14)), y_bg = pair16(kBY, 1 << 14);
  const __m256i cb_rg = pair16(-kRCb, -kGCb), cr_gb = pair16(-kGCr, -kBCr);
  const __m256i half = _mm256_set1_epi32(kHalf), chroma_bias = _mm256_set1_epi32(kChromaBias);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i rv = load16(r), gv = load16(g), bv = load16(b);
  const __m256i rg_lo = _mm256_unpacklo_epi16(rv, gv), rg_hi = _mm256_unpackhi_epi16(rv, gv);
  const __m256i bg_lo = _mm256_unpacklo_epi16(bv, gv), bg_hi = _mm256_unpackhi_epi16(bv, gv);
  const __m256i gb_lo = _mm256_unpacklo_epi16(gv, bv), gb_hi = _mm256_unpackhi_epi16(gv, bv);
  // 0.5 * v: v << 15 in the pixel's int32 lane (v in the high half, shifted right once)
  const __m256i b15_lo = _mm256_srli_epi32(_mm256_unpacklo_epi16(zero, bv), 1);
  const __m256i b15_hi = _mm256_srli_epi32(_mm256_unpackhi_epi16(zero, bv), 1);
  const __m256i r15_lo = _mm256_srli_epi32(_mm256_unpacklo_epi16(zero, rv), 1);
  const __m256i r15_hi = _mm256_srli_epi32(_mm256_unpackhi_epi16(zero, rv), 1);
  const __m256i ylo = _mm256_add_epi32(_mm256_madd_epi16(rg_lo, y_rg), _mm256_madd_epi16(bg_lo, y_bg));
  const __m256i yhi = _mm256_add_epi32(_mm256_madd_epi16(rg_hi, y_rg), _mm256_madd_epi16(bg_hi, y_bg));
  store16(y, shift_pack(_mm256_add_epi32(ylo, half), _mm256_add_epi32(yhi, half)));
  YccSums out;
  out.cb_lo = _mm256_add_epi32(_mm256_madd_epi16(rg_lo, cb_rg), _mm256_add_epi32(b15_lo, chroma_bias));
  out.cb_hi = _mm256_add_epi32(_mm256_madd_epi16(rg_hi, cb_rg), _mm256_add_epi32(b15_hi, chroma_bias));
  out.cr_lo = _mm256_add_epi32(_mm256_madd_epi16(gb_lo, cr_gb), _mm256_add_epi32(r15_lo, chroma_bias));
  out.cr_hi = _mm256_add_epi32(_mm256_madd_epi16(gb_hi, cr_gb), _mm256_add_epi32(r15_hi, chroma_bias));
  out.cb_lo = _mm256_srai_epi32(out.cb_lo, kShift);
  out.cb_hi = _mm256_srai_epi32(out.cb_hi, kShift);
  out.cr_lo = _mm256_srai_epi32(out.cr_lo, kShift);
  out.cr_hi = _mm256_srai_epi32(out.cr_hi, kShift);
  return out;
}

JV_YCC_AVX2 void rgb_to_ycc_h2v2_avx2(const Rows2& in, int width, int chroma_stride, uint8_t* y0, uint8_t* y1,
                                      uint8_t* cb, uint8_t* cr) {
  const __m256i bias = _mm256_setr_epi32(1, 2, 1, 2, 1, 2, 1, 2);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int x = 0;
  for (; x + 16 <= width; x += 16) {
    const YccSums a = ycc16(in.r0 + x, in.g0 + x, in.b0 + x, y0 + x);
    const YccSums b = ycc16(in.r1 + x, in.g1 + x, in.b1 + x, y1 + x);
    // the two rows summed, then the horizontal pairs: hadd of the (lo, hi) halves gives the 8 pairs in order
    __m256i cbs = _mm256_hadd_epi32(_mm256_add_epi32(a.cb_lo, b.cb_lo), _mm256_add_epi32(a.cb_hi, b.cb_hi));
    __m256i crs = _mm256_hadd_epi32(_mm256_add_epi32(a.cr_lo, b.cr_lo), _mm256_add_epi32(a.cr_hi, b.cr_hi));
    cbs = _mm256_srli_epi32(_mm256_add_epi32(cbs, bias), 2);
    crs = _mm256_srli_epi32(_mm256_add_epi32(crs, bias), 2);
    // int16 [cb0-3 cr0-3 | cb4-7 cr4-7] -> bytes, then dwords (0, 4, 1, 5): cb0-7 in bytes 0-7, cr0-7 in 8-15
    const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(cbs, crs), _mm256_setzero_si256());
    const __m128i packed = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, order));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(cb + x / 2), packed);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(cr + x / 2), _mm_srli_si128(packed, 8));
  }
  rgb_to_ycc_h2v2_body(in, width, chroma_stride, x, y0, y1, cb, cr);
}

// RGB of 16 pixels from Y (0..255) and centred Cb, Cr (-128..127) in int16 lanes, stored to r, g, b.
JV_YCC_AVX2 JV_ALWAYS_INLINE void rgb16(__m256i yv, __m256i cbv, __m256i crv, uint8_t* r, uint8_t* g, uint8_t* b) {
  const __m256i one = _mm256_set1_epi16(1);
  const __m256i f_r = _mm256_set1_epi16(static_cast<int16_t>(kCrR - (1 << kShift)));  // 0.402
  const __m256i f_b = _mm256_set1_epi16(static_cast<int16_t>(kCbB - (2 << kShift)));  // -0.228
  const __m256i g_pair = pair16(static_cast<int16_t>(-kCbG), static_cast<int16_t>((1 << kShift) - kCrG));
  const __m256i half = _mm256_set1_epi32(kHalf);
  // ((2v * f) >> 16) + 1, >> 1 == (v * f + 2^15) >> 16 (floor), then the integer part of the coefficient
  const __m256i cr2 = _mm256_add_epi16(crv, crv), cb2 = _mm256_add_epi16(cbv, cbv);
  __m256i rterm = _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(cr2, f_r), one), 1);
  rterm = _mm256_add_epi16(rterm, crv);
  __m256i bterm = _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(cb2, f_b), one), 1);
  bterm = _mm256_add_epi16(bterm, cb2);
  const __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(cbv, crv), g_pair), half);
  const __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(cbv, crv), g_pair), half);
  const __m256i gterm = _mm256_sub_epi16(shift_pack(lo, hi), crv);
  store16(r, _mm256_add_epi16(yv, rterm));  // packus: the clamp to 0..255
  store16(g, _mm256_add_epi16(yv, gterm));
  store16(b, _mm256_add_epi16(yv, bterm));
}

JV_YCC_AVX2 void ycc_to_rgb_avx2(const uint8_t* y, const uint8_t* cb, const uint8_t* cr, int width, uint8_t* r,
                                 uint8_t* g, uint8_t* b) {
  const __m256i center = _mm256_set1_epi16(128);
  int x = 0;
  for (; x + 16 <= width; x += 16) {
    rgb16(load16(y + x), _mm256_sub_epi16(load16(cb + x), center), _mm256_sub_epi16(load16(cr + x), center), r + x,
          g + x, b + x);
  }
  ycc_to_rgb_body(y + x, cb + x, cr + x, width - x, r + x, g + x, b + x);
}

// The fancy filter's 16 outputs from column x = 2i on, centred (- 128), in int16 lanes.
JV_YCC_AVX2 JV_ALWAYS_INLINE __m256i fancy16(const int16_t* sums, int i) {
  const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sums + 1 + i));
  const __m128i left = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sums + i));
  const __m128i right = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sums + 2 + i));
  const __m128i here3 = _mm_add_epi16(_mm_add_epi16(here, here), here);
  const __m128i even = _mm_srai_epi16(_mm_add_epi16(_mm_add_epi16(here3, left), _mm_set1_epi16(8)), 4);
  const __m128i odd = _mm_srai_epi16(_mm_add_epi16(_mm_add_epi16(here3, right), _mm_set1_epi16(7)), 4);
  const __m256i up = _mm256_set_m128i(_mm_unpackhi_epi16(even, odd), _mm_unpacklo_epi16(even, odd));
  return _mm256_sub_epi16(up, _mm256_set1_epi16(128));
}

JV_YCC_AVX2 void fancy_rgb_avx2(const uint8_t* y, const int16_t* cb_sums, const int16_t* cr_sums, int width,
                                uint8_t* r, uint8_t* g, uint8_t* b) {
  int x = 0;
  for (; x + 16 <= width; x += 16) {
    rgb16(load16(y + x), fancy16(cb_sums, x / 2), fancy16(cr_sums, x / 2), r + x, g + x, b + x);
  }
  fancy_rgb_body(y, cb_sums, cr_sums, x, width, r, g, b);
}

JV_YCC_AVX2 void column_sums_avx2(const uint8_t* nearest, const uint8_t* other, int in_width, int16_t* sums) {
  column_sums(nearest, other, in_width, sums);
}

bool has_avx2() {
  static const bool value = __builtin_cpu_supports("avx2");
  return value;
}
#endif

}  // namespace

void rgb_to_ycc_h2v2(const Rows2& in, int width, int chroma_stride, uint8_t* y0, uint8_t* y1, uint8_t* cb,
                     uint8_t* cr) {
#if defined(__x86_64__)
  if (has_avx2()) return rgb_to_ycc_h2v2_avx2(in, width, chroma_stride, y0, y1, cb, cr);
#endif
  rgb_to_ycc_h2v2_body(in, width, chroma_stride, 0, y0, y1, cb, cr);
}

void ycc_to_rgb_fancy_row(const uint8_t* y, const uint8_t* cb_nearest, const uint8_t* cb_other,
                          const uint8_t* cr_nearest, const uint8_t* cr_other, int in_width, int width, uint8_t* r,
                          uint8_t* g, uint8_t* b, int16_t* scratch) {
  int16_t* cb_sums = scratch;
  int16_t* cr_sums = scratch + in_width + 2;
#if defined(__x86_64__)
  if (has_avx2()) {
    column_sums_avx2(cb_nearest, cb_other, in_width, cb_sums);
    column_sums_avx2(cr_nearest, cr_other, in_width, cr_sums);
    return fancy_rgb_avx2(y, cb_sums, cr_sums, width, r, g, b);
  }
#endif
  column_sums(cb_nearest, cb_other, in_width, cb_sums);
  column_sums(cr_nearest, cr_other, in_width, cr_sums);
  fancy_rgb_body(y, cb_sums, cr_sums, 0, width, r, g, b);
}

bool planes_path_is_fast() {
#if defined(__x86_64__)
  return has_avx2();
#else
  return false;
#endif
}

void ycc_to_rgb_row(const uint8_t* y, const uint8_t* cb, const uint8_t* cr, int width, uint8_t* r, uint8_t* g,
                    uint8_t* b) {
#if defined(__x86_64__)
  if (has_avx2()) return ycc_to_rgb_avx2(y, cb, cr, width, r, g, b);
#endif
  ycc_to_rgb_body(y, cb, cr, width, r, g, b);
}

}  // namespace jpeg_ycc
}  // namespace jitvision_native
