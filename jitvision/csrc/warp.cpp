// warp_u8 / warp_grid_u8: torchvision's uint8 affine/rotate/perspective/elastic warp without the float image.
//
// torchvision converts the uint8 image to float32, runs grid_sample(padding_mode="zeros", align_corners=False)
// (plus a second sample of a constant-one plane when `fill` is given), then rounds back: three full-size float
// passes around the sampling. These kernels read the uint8 planes directly and write uint8. The source position
// ((g + 1) * size - 1) / 2 from the grid value g is torchvision's float32 arithmetic. Edge pixels (a tap outside
// the image) blend in float32 as torchvision does: bilinear weights (x1 - x)(y1 - y) ... with out-of-bounds taps
// contributing zero, the in-bounds weight sum as the fill mask, (v - fill) * mask + fill, round half to even, clamp.
// Interior pixels blend in fixed point (see fixed_blend: within one level of the float blend, off by one on a
// fraction of a percent of them). NEAREST picks nearbyint of the position (bit-exact).
//
// Layout of the work: one output row at a time. A row plan (positions, tap offset, the four weights and a class
// per pixel: interior / edge / outside) is computed once, 8 pixels a step with AVX2 when the CPU has it (the same
// float operations in the same order as the scalar version, so both give the same bits), and reused for every
// plane of the group (CHW planes share the coordinates). Per plane, runs of 8 interior pixels read their taps with
// two 32-bit gathers (the two bytes of a tap row at once) and blend in AVX2 integer arithmetic (pmaddwd); runs of 8
// outside pixels are a memset of the fill (or 0); other pixels go one by one (scalar: the same integer blend for
// interior ones, the float one for edges). Output rows are split across torch's intra-op threads.
//
// image: uint8 [..., H, W] read as [G, K, H, W] (G = coefficients.size(0) or grid.size(0)); channels: the fill
// period along K (the fill of plane k is fill[k % channels]); returns uint8 [G, K, OH, OW].

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define JV_X86 1
#define JV_AVX2 __attribute__((target("avx2,fma")))
#endif

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
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

inline float source(float g, float size) { return ((g + 1.f) * size - 1.f) * 0.5f; }

enum : uint8_t { kInterior = 0, kEdge = 1, kOutside = 2 };

// Where the positions of a row come from.
struct Positions {
  int kind;         // 0 affine, 1 projective, 2 grid
  const float* m;   // 8 coefficients (kinds 0 and 1)
  const float* g;   // the group's grid [OH, OW, 2] (kind 2)
  int64_t OH, OW;
};

// Per-row plan. Bilinear: off = y0 * W + x0 (interior and edge), x0/y0 for edge pixels, the four weights.
// Nearest: off = yn * W + xn or the class kOutside.
struct RowPlan {
  std::vector<int32_t> off, x0, y0;
  std::vector<int32_t> wxq, wyq;  // mode 2, interior pixels: fixed-point weights (1 - f) | f << 16, f in 1/16384
  bool fixed = false;             // mode 2: plan wxq / wyq
  std::vector<float> nw, ne, sw, se;
  std::vector<uint8_t> cls;
  std::vector<uint8_t> group_interior;  // per 8 pixels: all interior (bilinear) / all inside (nearest)
  std::vector<uint8_t> group_outside;   // per 8 pixels: all outside (bilinear, AVX2 plan): a constant run
  explicit RowPlan(int64_t n)
      : off(n), x0(n), y0(n), wxq(n), wyq(n), nw(n), ne(n), sw(n), se(n), cls(n), group_interior((n + 7) / 8 + 1),
        group_outside((n + 7) / 8 + 1) {}
};

inline void grid_value(const Positions& p, int64_t oy, int64_t ox, float& gx, float& gy) {
  if (p.kind == 2) {
    const float* q = p.g + (oy * p.OW + ox) * 2;
    gx = q[0];
    gy = q[1];
    return;
  }
  const float* m = p.m;
  if (p.kind == 0) {
    const float X = static_cast<float>(ox) - static_cast<float>(p.OW - 1) * 0.5f;
    const float Y = static_cast<float>(oy) - static_cast<float>(p.OH - 1) * 0.5f;
    gx = X * m[0] + Y * m[1] + m[2];
    gy = X * m[3] + Y * m[4] + m[5];
  } else {
    const float X = static_cast<float>(ox) + 0.5f, Y = static_cast<float>(oy) + 0.5f;
    const float d = X * m[6] + Y * m[7] + 1.f;
    gx = (X * m[0] + Y * m[1] + m[2]) / d - 1.f;
    gy = (X * m[3] + Y * m[4] + m[5]) / d - 1.f;
  }
}

// Interior pixels are blended in fixed point (OpenCV's approach, with finer steps): the fractional offset f of the
// position (exact in float) rounded to 1/16384, the row pair blended with 14-bit weights and rounded to 1/128 of a
// level, the two rows blended with 14-bit weights, rounded half to even. Against torchvision's float32 blend this
// is within one level, off by one on a fraction of a percent of the pixels (tests/test_native_warp.py measures it);
// edge pixels (a tap outside the image) keep the float arithmetic and match torchvision bit for bit.
constexpr int kFracBits = 14;
constexpr int32_t kOne = 1 << kFracBits;

// (1 - f) | f << 16 in 1/16384: f * 16384 is exact, + 0.5 rounds (f < 1: no rounding in the add), truncation floors.
inline int32_t fixed_pair(float f) {
  const int32_t q = static_cast<int32_t>(f * static_cast<float>(kOne) + 0.5f);
  return (kOne - q) | (q << 16);
}

// One interior value from the two tap rows (a = p00, p01; b = p10, p11) and the packed weights.
inline uint8_t fixed_blend(int32_t p00, int32_t p01, int32_t p10, int32_t p11, int32_t wx, int32_t wy) {
  const int32_t wx0 = wx & 0xffff, wx1 = wx >> 16, wy0 = wy & 0xffff, wy1 = wy >> 16;
  const int32_t h0 = (p00 * wx0 + p01 * wx1 + 64) >> 7, h1 = (p10 * wx0 + p11 * wx1 + 64) >> 7;  // <= 255 * 128
  const int32_t v = h0 * wy0 + h1 * wy1;                                                        // <= 255 << 21
  return static_cast<uint8_t>((v + (1 << 20) - 1 + ((v >> 21) & 1)) >> 21);                    // half to even
}

// The plan of one pixel from its clamped source position (scalar; the AVX2 version below matches it bit for bit).
inline void plan_pixel(RowPlan& r, int64_t i, float ix, float iy, int64_t H, int64_t W, bool nearest) {
  const float fw = static_cast<float>(W), fh = static_cast<float>(H);
  ix = clampf(ix, -2.f, fw + 1.f);
  iy = clampf(iy, -2.f, fh + 1.f);
  if (nearest) {
    const int64_t xn = static_cast<int64_t>(round_even(ix)), yn = static_cast<int64_t>(round_even(iy));
    const bool inside = xn >= 0 && xn < W && yn >= 0 && yn < H;
    r.cls[i] = inside ? kInterior : kOutside;
    r.off[i] = inside ? static_cast<int32_t>(yn * W + xn) : 0;
    return;
  }
  const float x0f = std::floor(ix), y0f = std::floor(iy);
  const int64_t x0 = static_cast<int64_t>(x0f), y0 = static_cast<int64_t>(y0f);
  const float wx0 = (x0f + 1.f) - ix, wx1 = ix - x0f, wy0 = (y0f + 1.f) - iy, wy1 = iy - y0f;
  if (r.fixed) {
    r.wxq[i] = fixed_pair(wx1);
    r.wyq[i] = fixed_pair(wy1);
  }
  r.nw[i] = wx0 * wy0;
  r.ne[i] = wx1 * wy0;
  r.sw[i] = wx0 * wy1;
  r.se[i] = wx1 * wy1;
  r.x0[i] = static_cast<int32_t>(x0);
  r.y0[i] = static_cast<int32_t>(y0);
  r.off[i] = static_cast<int32_t>(y0 * W + x0);
  const bool interior = x0 >= 0 && y0 >= 0 && x0 + 1 < W && y0 + 1 < H;
  // The gathers read 4 bytes from each tap row: not past the end of the plane on its last row.
  const bool gather_safe = y0 + 2 < H || x0 + 4 <= W;
  const bool outside = x0 < -1 || x0 >= W || y0 < -1 || y0 >= H;
  r.cls[i] = (interior && gather_safe) ? kInterior : (outside ? kOutside : kEdge);
}

void plan_row_scalar(RowPlan& r, const Positions& p, int64_t oy, int64_t from, int64_t H, int64_t W, bool nearest) {
  const float fw = static_cast<float>(W), fh = static_cast<float>(H);
  for (int64_t ox = from; ox < p.OW; ++ox) {
    float gx, gy;
    grid_value(p, oy, ox, gx, gy);
    plan_pixel(r, ox, source(gx, fw), source(gy, fh), H, W, nearest);
  }
}

#ifdef JV_X86
bool has_avx2() {
  static const bool value = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return value;
}

// 8 pixels a step; returns the first pixel it did not plan.
JV_AVX2 int64_t plan_row_avx2(RowPlan& r, const Positions& p, int64_t oy, int64_t H, int64_t W, bool nearest) {
  const int64_t OW = p.OW;
  const float fw = static_cast<float>(W), fh = static_cast<float>(H);
  const __m256 vfw = _mm256_set1_ps(fw), vfh = _mm256_set1_ps(fh);
  const __m256 one = _mm256_set1_ps(1.f), half = _mm256_set1_ps(0.5f), neg2 = _mm256_set1_ps(-2.f);
  const __m256 xhi = _mm256_set1_ps(fw + 1.f), yhi = _mm256_set1_ps(fh + 1.f);
  const __m256 lane = _mm256_setr_ps(0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f);
  const __m256i vW = _mm256_set1_epi32(static_cast<int32_t>(W)), vH = _mm256_set1_epi32(static_cast<int32_t>(H));
  const __m256i m1 = _mm256_set1_epi32(-1);
  const __m256i c1 = _mm256_set1_epi32(1), c2 = _mm256_set1_epi32(2), c4 = _mm256_set1_epi32(4);
  float Yv = 0.f, bx = 0.f;
  __m256 m0 = _mm256_setzero_ps(), m2 = m0, m3 = m0, m5 = m0, m6 = m0;
  float Ym1 = 0.f, Ym4 = 0.f, Ym7 = 0.f;
  if (p.kind != 2) {
    const float* m = p.m;
    Yv = p.kind == 0 ? static_cast<float>(oy) - static_cast<float>(p.OH - 1) * 0.5f : static_cast<float>(oy) + 0.5f;
    bx = p.kind == 0 ? static_cast<float>(p.OW - 1) * 0.5f : 0.f;
    m0 = _mm256_set1_ps(m[0]);
    m2 = _mm256_set1_ps(m[2]);
    m3 = _mm256_set1_ps(m[3]);
    m5 = _mm256_set1_ps(m[5]);
    m6 = _mm256_set1_ps(m[6]);
    Ym1 = Yv * m[1];
    Ym4 = Yv * m[4];
    Ym7 = Yv * m[7];
  }
  const __m256 vY1 = _mm256_set1_ps(Ym1), vY4 = _mm256_set1_ps(Ym4), vY7 = _mm256_set1_ps(Ym7);
  int64_t ox = 0;
  for (; ox + 8 <= OW; ox += 8) {
    __m256 gx, gy;
    if (p.kind == 2) {
      const float* q = p.g + (oy * OW + ox) * 2;
      const __m256 a = _mm256_loadu_ps(q), b = _mm256_loadu_ps(q + 8);  // x0 y0 x1 y1 ... (two halves of 4)
      const __m256 xs = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));  // lanes: 0 1 4 5 | 2 3 6 7
      const __m256 ys = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
      gx = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(xs), _MM_SHUFFLE(3, 1, 2, 0)));
      gy = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(ys), _MM_SHUFFLE(3, 1, 2, 0)));
    } else {
      const __m256 xo = _mm256_add_ps(_mm256_set1_ps(static_cast<float>(ox)), lane);  // exact
      const __m256 X = p.kind == 0 ? _mm256_sub_ps(xo, _mm256_set1_ps(bx)) : _mm256_add_ps(xo, half);
      gx = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(X, m0), vY1), m2);
      gy = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(X, m3), vY4), m5);
      if (p.kind == 1) {
        const __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(X, m6), vY7), one);
        gx = _mm256_sub_ps(_mm256_div_ps(gx, d), one);
        gy = _mm256_sub_ps(_mm256_div_ps(gy, d), one);
      }
    }
    __m256 ix = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_add_ps(gx, one), vfw), one), half);
    __m256 iy = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_add_ps(gy, one), vfh), one), half);
    // clampf: max_ps returns its second operand when the first is NaN, so NaN goes to the lower bound.
    ix = _mm256_min_ps(_mm256_max_ps(ix, neg2), xhi);
    iy = _mm256_min_ps(_mm256_max_ps(iy, neg2), yhi);
    if (nearest) {
      const __m256i xn = _mm256_cvtps_epi32(ix), yn = _mm256_cvtps_epi32(iy);  // round half to even
      const __m256i inside = _mm256_and_si256(
          _mm256_and_si256(_mm256_cmpgt_epi32(xn, m1), _mm256_cmpgt_epi32(vW, xn)),
          _mm256_and_si256(_mm256_cmpgt_epi32(yn, m1), _mm256_cmpgt_epi32(vH, yn)));
      const __m256i off = _mm256_and_si256(_mm256_add_epi32(_mm256_mullo_epi32(yn, vW), xn), inside);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.off.data() + ox), off);
      // The classes as 8 bytes (kInterior 0 inside, kOutside 2 outside), packed rather than set one by one.
      const __m256i cls = _mm256_andnot_si256(inside, c2);
      const __m128i cls16 = _mm_packus_epi32(_mm256_castsi256_si128(cls), _mm256_extracti128_si256(cls, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(r.cls.data() + ox), _mm_packus_epi16(cls16, cls16));
      r.group_interior[ox / 8] = _mm256_movemask_ps(_mm256_castsi256_ps(inside)) == 0xff;
      continue;
    }
    const __m256 x0f = _mm256_floor_ps(ix), y0f = _mm256_floor_ps(iy);
    const __m256i x0 = _mm256_cvttps_epi32(x0f), y0 = _mm256_cvttps_epi32(y0f);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.off.data() + ox),
                        _mm256_add_epi32(_mm256_mullo_epi32(y0, vW), x0));
    const __m256i x1 = _mm256_add_epi32(x0, c1), y1 = _mm256_add_epi32(y0, c1);
    const __m256i interior = _mm256_and_si256(
        _mm256_and_si256(_mm256_cmpgt_epi32(x0, m1), _mm256_cmpgt_epi32(vW, x1)),
        _mm256_and_si256(_mm256_cmpgt_epi32(y0, m1), _mm256_cmpgt_epi32(vH, y1)));
    // gather_safe: y0 + 2 < H || x0 + 4 <= W
    const __m256i safe = _mm256_or_si256(_mm256_cmpgt_epi32(vH, _mm256_add_epi32(y0, c2)),
                                         _mm256_cmpgt_epi32(_mm256_add_epi32(vW, c1), _mm256_add_epi32(x0, c4)));
    // outside: x0 < -1 || x0 >= W || y0 < -1 || y0 >= H
    const __m256i m2i = _mm256_set1_epi32(-2);
    const __m256i outside = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpgt_epi32(m2i, _mm256_sub_epi32(x0, c1)), _mm256_cmpgt_epi32(x1, vW)),
        _mm256_or_si256(_mm256_cmpgt_epi32(m2i, _mm256_sub_epi32(y0, c1)), _mm256_cmpgt_epi32(y1, vH)));
    const int bi = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(interior, safe)));
    const int bo = _mm256_movemask_ps(_mm256_castsi256_ps(outside));
    r.group_interior[ox / 8] = bi == 0xff;
    r.group_outside[ox / 8] = bo == 0xff;
    // What the AVX2 sampler (bilinear_row_avx2, the only reader of this plan) reads of a group: nothing of an
    // all-outside one (a run of the fill), the offsets and one set of weights of an all-interior one (the fixed-point
    // pairs, or the float products), everything of a mixed one (bilinear_pixel, pixel by pixel). Writing only that
    // took the plan of a 30-degree rotation of a 3x512x512 image from 320 to 288 us, the call from 816 to 775 us
    // (one thread, AMD EPYC).
    if (bo == 0xff) continue;
    const __m256 wx1 = _mm256_sub_ps(ix, x0f), wy1 = _mm256_sub_ps(iy, y0f);
    if (r.fixed) {  // fixed_pair, 8 pixels
      const __m256 vone = _mm256_set1_ps(static_cast<float>(kOne));
      const __m256i qx = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(wx1, vone), half));
      const __m256i qy = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(wy1, vone), half));
      const __m256i ione = _mm256_set1_epi32(kOne);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.wxq.data() + ox),
                          _mm256_or_si256(_mm256_sub_epi32(ione, qx), _mm256_slli_epi32(qx, 16)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.wyq.data() + ox),
                          _mm256_or_si256(_mm256_sub_epi32(ione, qy), _mm256_slli_epi32(qy, 16)));
      if (bi == 0xff) continue;
    }
    const __m256 wx0 = _mm256_sub_ps(_mm256_add_ps(x0f, one), ix), wy0 = _mm256_sub_ps(_mm256_add_ps(y0f, one), iy);
    _mm256_storeu_ps(r.nw.data() + ox, _mm256_mul_ps(wx0, wy0));
    _mm256_storeu_ps(r.ne.data() + ox, _mm256_mul_ps(wx1, wy0));
    _mm256_storeu_ps(r.sw.data() + ox, _mm256_mul_ps(wx0, wy1));
    _mm256_storeu_ps(r.se.data() + ox, _mm256_mul_ps(wx1, wy1));
    if (bi == 0xff) continue;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.x0.data() + ox), x0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r.y0.data() + ox), y0);
    for (int j = 0; j < 8; ++j) {
      r.cls[ox + j] = ((bi >> j) & 1) ? kInterior : (((bo >> j) & 1) ? kOutside : kEdge);
    }
  }
  return ox;
}
#endif

void plan_row(RowPlan& r, const Positions& p, int64_t oy, int64_t H, int64_t W, bool nearest) {
  int64_t from = 0;
#ifdef JV_X86
  if (has_avx2()) from = plan_row_avx2(r, p, oy, H, W, nearest);
#endif
  plan_row_scalar(r, p, oy, from, H, W, nearest);
  for (int64_t g = from / 8; g < (p.OW + 7) / 8; ++g) r.group_interior[g] = r.group_outside[g] = 0;
}

// One plane's output row from the plan (bilinear). fill: nullptr or the plane's fill value.
inline void bilinear_pixel(const RowPlan& r, int64_t i, const uint8_t* in, uint8_t* out, int64_t H, int64_t W,
                           const float* fill, uint8_t fill_u8, bool fixed) {
  const uint8_t c = r.cls[i];
  if (c == kOutside) {
    out[i] = fill != nullptr ? fill_u8 : 0;
    return;
  }
  float nw = r.nw[i], ne = r.ne[i], sw = r.sw[i], se = r.se[i];
  float v;
  if (c == kInterior && fixed) {
    const uint8_t* q = in + r.off[i];
    out[i] = fixed_blend(q[0], q[1], q[W], q[W + 1], r.wxq[i], r.wyq[i]);
    return;
  }
  if (c == kInterior) {
    const uint8_t* q = in + r.off[i];
    v = static_cast<float>(q[0]) * nw + static_cast<float>(q[1]) * ne + static_cast<float>(q[W]) * sw +
        static_cast<float>(q[W + 1]) * se;
  } else {
    const int64_t x0 = r.x0[i], y0 = r.y0[i];
    const bool x0_in = x0 >= 0 && x0 < W, x1_in = x0 + 1 >= 0 && x0 + 1 < W;
    const bool y0_in = y0 >= 0 && y0 < H, y1_in = y0 + 1 >= 0 && y0 + 1 < H;
    nw = (x0_in && y0_in) ? nw : 0.f;
    ne = (x1_in && y0_in) ? ne : 0.f;
    sw = (x0_in && y1_in) ? sw : 0.f;
    se = (x1_in && y1_in) ? se : 0.f;
    const float a = (x0_in && y0_in) ? in[y0 * W + x0] : 0.f, b = (x1_in && y0_in) ? in[y0 * W + x0 + 1] : 0.f;
    const float cc = (x0_in && y1_in) ? in[(y0 + 1) * W + x0] : 0.f;
    const float d = (x1_in && y1_in) ? in[(y0 + 1) * W + x0 + 1] : 0.f;
    v = a * nw + b * ne + cc * sw + d * se;
  }
  if (fill != nullptr) {
    const float mask = nw + ne + sw + se;
    v = (v - *fill) * mask + *fill;
  }
  out[i] = to_u8(v);
}

void bilinear_row_scalar(const RowPlan& r, int64_t from, int64_t OW, const uint8_t* in, uint8_t* out, int64_t H,
                         int64_t W, const float* fill, uint8_t fill_u8, bool fixed) {
  for (int64_t i = from; i < OW; ++i) bilinear_pixel(r, i, in, out, H, W, fill, fill_u8, fixed);
}

#ifdef JV_X86
// Up to kPlanes planes per pass over the row: the offsets and weights of 8 pixels are loaded once and the planes'
// gathers are independent (they overlap in the pipeline).
constexpr int kPlanes = 4;

struct PlaneSet {
  const uint8_t* in[kPlanes];
  uint8_t* out[kPlanes];
  const float* fill[kPlanes];  // nullptr: no fill
  uint8_t fill_u8[kPlanes];
  int n;
  bool fixed;  // mode 2: the fixed-point interior blend
};

// The two bytes at base + off[j] (a tap row's left and right neighbours), for 8 pixels, in the low 16 bits of each
// 32-bit lane. Scalar loads, not vpgatherdd: on this AMD EPYC (Zen 3) the gathers were ~45% of the blend's samples
// in perf, and 8 scalar 16-bit loads and inserts are cheaper (and read no byte past the pair).
JV_AVX2 inline __m256i load_pairs(const uint8_t* base, const int32_t* off) {
  uint16_t v[8];
  for (int j = 0; j < 8; ++j) std::memcpy(&v[j], base + off[j], 2);
  return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v)));
}

JV_AVX2 void bilinear_row_avx2(const RowPlan& r, int64_t OW, const PlaneSet& ps, int64_t H, int64_t W) {
  const bool has_fill = ps.fill[0] != nullptr, fixed = ps.fixed;
  const __m256i lo = _mm256_set1_epi32(0xff);
  const __m256 zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255.f);
  __m256 vf[kPlanes];
  for (int k = 0; k < ps.n; ++k) vf[k] = _mm256_set1_ps(has_fill ? *ps.fill[k] : 0.f);
  const __m256i widen = _mm256_setr_epi8(0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1,  //
                                         0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1);
  const __m256i r64 = _mm256_set1_epi32(64), rhalf = _mm256_set1_epi32((1 << 20) - 1), ione = _mm256_set1_epi32(1);
  int64_t i = 0;
  for (; i + 8 <= OW; i += 8) {
    if (r.group_outside[i / 8]) {  // 8 pixels of the constant outside the source (what bilinear_pixel writes)
      for (int k = 0; k < ps.n; ++k) std::memset(ps.out[k] + i, has_fill ? ps.fill_u8[k] : 0, 8);
      continue;
    }
    if (!r.group_interior[i / 8]) {
      for (int k = 0; k < ps.n; ++k) {
        for (int64_t j = i; j < i + 8; ++j) {
          bilinear_pixel(r, j, ps.in[k], ps.out[k], H, W, ps.fill[k], ps.fill_u8[k], fixed);
        }
      }
      continue;
    }
    if (!fixed) {  // torchvision's float32 blend
      const __m256 nw = _mm256_loadu_ps(r.nw.data() + i), ne = _mm256_loadu_ps(r.ne.data() + i);
      const __m256 sw = _mm256_loadu_ps(r.sw.data() + i), se = _mm256_loadu_ps(r.se.data() + i);
      const __m256 mask = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(nw, ne), sw), se);
      for (int k = 0; k < ps.n; ++k) {
        const __m256i a = load_pairs(ps.in[k], r.off.data() + i);
        const __m256i b = load_pairs(ps.in[k] + W, r.off.data() + i);
        const __m256 p00 = _mm256_cvtepi32_ps(_mm256_and_si256(a, lo));
        const __m256 p01 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(a, 8), lo));
        const __m256 p10 = _mm256_cvtepi32_ps(_mm256_and_si256(b, lo));
        const __m256 p11 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(b, 8), lo));
        __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p00, nw), _mm256_mul_ps(p01, ne)),
                                               _mm256_mul_ps(p10, sw)),
                                 _mm256_mul_ps(p11, se));
        if (has_fill) v = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v, vf[k]), mask), vf[k]);
        v = _mm256_min_ps(_mm256_max_ps(v, zero), top);  // NaN -> 0 (max_ps's second operand)
        const __m256i q = _mm256_cvtps_epi32(v);         // round half to even
        const __m128i w16 = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(ps.out[k] + i), _mm_packus_epi16(w16, w16));
      }
      continue;
    }
    // fixed_blend, 8 pixels: the two bytes of a tap row widened to 16-bit pairs, blended by pmaddwd.
    const __m256i wx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.wxq.data() + i));
    const __m256i wy = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.wyq.data() + i));
    for (int k = 0; k < ps.n; ++k) {
      const __m256i a = load_pairs(ps.in[k], r.off.data() + i);
      const __m256i b = load_pairs(ps.in[k] + W, r.off.data() + i);
      const __m256i ha = _mm256_madd_epi16(_mm256_shuffle_epi8(a, widen), wx);  // p00 (1 - fx) + p01 fx
      const __m256i hb = _mm256_madd_epi16(_mm256_shuffle_epi8(b, widen), wx);
      const __m256i h0 = _mm256_srli_epi32(_mm256_add_epi32(ha, r64), 7);  // rows rounded to 1/128 level
      const __m256i h1 = _mm256_srli_epi32(_mm256_add_epi32(hb, r64), 7);
      __m256i v = _mm256_madd_epi16(_mm256_or_si256(h0, _mm256_slli_epi32(h1, 16)), wy);
      v = _mm256_add_epi32(v, _mm256_add_epi32(rhalf, _mm256_and_si256(_mm256_srli_epi32(v, 21), ione)));
      const __m256i q = _mm256_srli_epi32(v, 21);
      const __m128i w16 = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(ps.out[k] + i), _mm_packus_epi16(w16, w16));
    }
  }
  for (int k = 0; k < ps.n; ++k) {
    bilinear_row_scalar(r, i, OW, ps.in[k], ps.out[k], H, W, ps.fill[k], ps.fill_u8[k], fixed);
  }
}
#endif

// Up to kNearestPlanes planes of one output row (NEAREST): each pixel's offset and class are read once for all the
// planes (CHW planes share the coordinates), and a group of 8 pixels that are all inside skips the class test.
// One plane at a time read the plan three times for an RGB image and spent its time in the per-pixel branch. Plain
// loads, not AVX2 gathers: a gather per plane and 8 pixels was 25% slower on an AMD EPYC (3x512x512, a 30 degree
// rotation: 565 against 450 us per call, tests/test_native_warp.py checks the output).
constexpr int kNearestPlanes = 4;

template <int N>
void nearest_rows_n(const RowPlan& r, int64_t OW, const uint8_t* const* in, uint8_t* const* out,
                    const uint8_t* outside_value) {
  const int32_t* off = r.off.data();
  int64_t i = 0;
  for (; i + 8 <= OW; i += 8) {
    if (r.group_interior[i / 8]) {
      for (int64_t x = i; x < i + 8; ++x) {
        const int32_t o = off[x];
        for (int k = 0; k < N; ++k) out[k][x] = in[k][o];
      }
      continue;
    }
    for (int64_t x = i; x < i + 8; ++x) {
      const bool inside = r.cls[x] == kInterior;
      const int32_t o = off[x];
      for (int k = 0; k < N; ++k) out[k][x] = inside ? in[k][o] : outside_value[k];
    }
  }
  for (; i < OW; ++i) {
    const bool inside = r.cls[i] == kInterior;
    const int32_t o = off[i];
    for (int k = 0; k < N; ++k) out[k][i] = inside ? in[k][o] : outside_value[k];
  }
}

void nearest_rows(const RowPlan& r, int64_t OW, const uint8_t* const* in, uint8_t* const* out,
                  const uint8_t* outside_value, int n) {
  switch (n) {
    case 1: return nearest_rows_n<1>(r, OW, in, out, outside_value);
    case 2: return nearest_rows_n<2>(r, OW, in, out, outside_value);
    case 3: return nearest_rows_n<3>(r, OW, in, out, outside_value);
    default: return nearest_rows_n<4>(r, OW, in, out, outside_value);
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
  TORCH_CHECK(image.device().is_cpu(), "jitvision_native.warp: expected a CPU tensor");
  TORCH_CHECK(mode == 0 || mode == 1 || mode == 2,
              "jitvision_native.warp: mode must be 0 (nearest), 1 (bilinear) or 2 (bilinear, fixed-point interior)");
  TORCH_CHECK(channels > 0, "jitvision_native.warp: channels must be positive");
}

// The shared driver: src [G, K, H, W] contiguous uint8; positions per group from `make_positions(gi)`.
template <typename MakePositions>
at::Tensor run_warp(const at::Tensor& src, int64_t OH, int64_t OW, int64_t mode, int64_t channels,
                    const std::vector<float>& fills, MakePositions make_positions) {
  const int64_t G = src.size(0), K = src.size(1), H = src.size(2), W = src.size(3);
  TORCH_CHECK(K % channels == 0, "jitvision_native.warp: K must be a multiple of channels");
  TORCH_CHECK(H * W < (int64_t{1} << 31) - 8, "jitvision_native.warp: planes over 2^31 pixels are not supported");
  at::Tensor out = at::empty({G, K, OH, OW}, src.options());
  if (out.numel() == 0) return out;
  const uint8_t* in = src.data_ptr<uint8_t>();
  uint8_t* dst = out.data_ptr<uint8_t>();
  const bool nearest = mode == 0, fixed = mode == 2;
  const bool has_fill = !fills.empty();
  std::vector<uint8_t> fill_u8(static_cast<size_t>(channels), 0);
  for (int64_t c = 0; c < channels && has_fill; ++c) fill_u8[c] = to_u8(fills[c]);
#ifdef JV_X86
  const bool avx2 = has_avx2();
#endif
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, OW * K));
  at::parallel_for(0, G * OH, grain, [&](int64_t begin, int64_t end) {
    RowPlan plan(OW);
    plan.fixed = fixed;
    for (int64_t row = begin; row < end; ++row) {
      const int64_t gi = row / OH, oy = row % OH;
      const Positions pos = make_positions(gi);
      plan_row(plan, pos, oy, H, W, nearest);
#ifdef JV_X86
      if (avx2 && !nearest) {
        for (int64_t k0 = 0; k0 < K; k0 += kPlanes) {
          PlaneSet ps;
          ps.n = static_cast<int>(std::min<int64_t>(kPlanes, K - k0));
          ps.fixed = fixed;
          for (int j = 0; j < ps.n; ++j) {
            const int64_t k = k0 + j, c = k % channels;
            ps.in[j] = in + (gi * K + k) * H * W;
            ps.out[j] = dst + ((gi * K + k) * OH + oy) * OW;
            ps.fill[j] = has_fill ? &fills[c] : nullptr;
            ps.fill_u8[j] = has_fill ? fill_u8[c] : 0;
          }
          bilinear_row_avx2(plan, OW, ps, H, W);
        }
        continue;
      }
#endif
      if (nearest) {
        for (int64_t k0 = 0; k0 < K; k0 += kNearestPlanes) {
          const int n = static_cast<int>(std::min<int64_t>(kNearestPlanes, K - k0));
          const uint8_t* planes[kNearestPlanes];
          uint8_t* orows[kNearestPlanes];
          uint8_t outside[kNearestPlanes];
          for (int j = 0; j < n; ++j) {
            const int64_t k = k0 + j;
            planes[j] = in + (gi * K + k) * H * W;
            orows[j] = dst + ((gi * K + k) * OH + oy) * OW;
            outside[j] = has_fill ? fill_u8[k % channels] : 0;
          }
          nearest_rows(plan, OW, planes, orows, outside, n);
        }
        continue;
      }
      for (int64_t k = 0; k < K; ++k) {
        const int64_t c = k % channels;
        const uint8_t* plane = in + (gi * K + k) * H * W;
        uint8_t* orow = dst + ((gi * K + k) * OH + oy) * OW;
        bilinear_row_scalar(plan, 0, OW, plane, orow, H, W, has_fill ? &fills[c] : nullptr, has_fill ? fill_u8[c] : 0,
                            fixed);
      }
    }
  });
  return out;
}

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
  const float* cp = c.data_ptr<float>();
  const int kind = projective ? 1 : 0;
  return run_warp(src, out_h, out_w, mode, channels, parse_fill(fill, channels), [&](int64_t gi) {
    return Positions{kind, cp + gi * 8, nullptr, out_h, out_w};
  });
}

// Sampling at a given grid [G, OH, OW, 2] (grid_sample's normalised units, align_corners=False).
at::Tensor warp_grid_u8(const at::Tensor& image, const at::Tensor& grid, int64_t mode, int64_t channels,
                        c10::optional<at::ArrayRef<double>> fill) {
  check_common(image, mode, channels);
  TORCH_CHECK(grid.dim() == 4 && grid.size(3) == 2, "jitvision_native.warp_grid_u8: grid [G, OH, OW, 2]");
  const at::Tensor src = image.reshape({grid.size(0), -1, image.size(-2), image.size(-1)}).contiguous();
  const at::Tensor g = grid.to(at::kFloat).contiguous();
  const int64_t OH = g.size(1), OW = g.size(2);
  const float* gp = g.data_ptr<float>();
  return run_warp(src, OH, OW, mode, channels, parse_fill(fill, channels), [&](int64_t gi) {
    return Positions{2, nullptr, gp + gi * OH * OW * 2, OH, OW};
  });
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def(
      "warp_u8(Tensor image, Tensor coefficients, SymInt out_h, SymInt out_w, bool projective, int mode, int channels, "
      "float[]? fill=None) -> Tensor");
  m.def("warp_grid_u8(Tensor image, Tensor grid, int mode, int channels, float[]? fill=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("warp_u8", &jitvision_native::warp_u8);
  m.impl("warp_grid_u8", &jitvision_native::warp_grid_u8);
}
