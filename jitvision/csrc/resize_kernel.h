// The torch-free core of jitvision's native resize (see resize.cpp): filter weights, tap loops, transposes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define JV_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define JV_CLONES
#endif
// The tap loops are inlined into each clone so they are compiled for its instruction set.
#define JV_INLINE inline __attribute__((always_inline))

namespace jitvision_native {
namespace {

// ---- filter weights (torch's antialiased bilinear, int16 fixed point) ----------------------------------------

struct Axis {
  int K = 0;                    // taps per output (padded with zero weights)
  int precision = 0;            // fixed-point bits
  std::vector<int64_t> start;   // first input index of each output
  std::vector<int16_t> weights; // [n_out][K]
  std::vector<float> fweights;  // the same integers as floats
  bool float_exact = true;      // every partial sum of 255 * weights stays an integer below 2^24
};

// Weights of torch's uint8 antialiased bilinear resize of `in` samples to `out` samples, for the outputs
// out_begin .. out_begin + n - 1 (indices outside [0, out) are padding: zero weights). The fixed-point precision
// is chosen from the largest weight over *all* `out` outputs, as torch does.
Axis compute_axis(int64_t in, int64_t out, int64_t out_begin, int64_t n, bool reverse) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double support = scale >= 1.0 ? scale : 1.0;
  const int max_taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  std::vector<double> w(static_cast<size_t>(out) * max_taps, 0.0);
  std::vector<int64_t> xmin(out), xsize(out);
  double wt_max = 0.0;
  for (int64_t i = 0; i < out; ++i) {
    const double center = scale * (i + 0.5);
    const int64_t lo = std::max(static_cast<int64_t>(center - support + 0.5), static_cast<int64_t>(0));
    int64_t size = std::min(static_cast<int64_t>(center + support + 0.5), in) - lo;
    size = std::clamp(size, static_cast<int64_t>(0), static_cast<int64_t>(max_taps));
    double total = 0.0;
    double* wi = &w[i * max_taps];
    for (int64_t j = 0; j < size; ++j) {
      const double x = std::abs((j + lo - center + 0.5) * invscale);
      wi[j] = x < 1.0 ? 1.0 - x : 0.0;
      total += wi[j];
    }
    if (total != 0.0) {
      for (int64_t j = 0; j < size; ++j) {
        wi[j] /= total;
        wt_max = std::max(wt_max, wi[j]);
      }
    }
    xmin[i] = lo;
    xsize[i] = size;
  }
  Axis axis;
  for (axis.precision = 0; axis.precision < 22; ++axis.precision) {
    const int next = static_cast<int>(0.5 + wt_max * (1 << (axis.precision + 1)));
    if (next >= (1 << 15)) break;
  }
  int K = 1;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t i = out_begin + j;
    if (i >= 0 && i < out) K = std::max(K, static_cast<int>(xsize[i]));
  }
  axis.K = K;
  axis.start.assign(n, 0);
  axis.weights.assign(static_cast<size_t>(n) * K, 0);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t i = out_begin + (reverse ? n - 1 - j : j);
    if (i < 0 || i >= out) continue;  // padding: zero weights read sample 0
    // Shift the window left where the padded taps would run past the input (their weights stay zero).
    const int64_t first = std::max(static_cast<int64_t>(0), std::min(xmin[i], in - K));
    axis.start[j] = first;
    for (int64_t k = 0; k < xsize[i]; ++k) {
      const double v = w[i * max_taps + k] * (1 << axis.precision);
      axis.weights[j * K + (xmin[i] - first) + k] = static_cast<int16_t>(v < 0 ? int(-0.5 + v) : int(0.5 + v));
    }
  }
  axis.fweights.assign(axis.weights.begin(), axis.weights.end());
  for (int64_t j = 0; j < n; ++j) {
    int64_t total = int64_t{1} << axis.precision;  // bias, with margin
    for (int k = 0; k < K; ++k) total += 255 * std::abs(static_cast<int64_t>(axis.weights[j * K + k]));
    axis.float_exact = axis.float_exact && total < (int64_t{1} << 24);
  }
  return axis;
}

// ---- hot loops ------------------------------------------------------------------------------------------------

JV_INLINE int32_t clamp_u8(int32_t v) { return std::min(std::max(v, 0), 255); }

// out[i] = clamp((2^(shift-1) + sum_k w[k] * rows[k][i]) >> shift), stored as uint8 or mapped to float
// (u8 * a + b). K is a compile-time constant so the tap loop unrolls and the i loop vectorizes in one pass.
template <int K>
JV_INLINE void taps_fixed(const uint8_t* const* rows, const int16_t* w, int64_t n, int shift, uint8_t* out_u8,
                       float* out_f32, float a, float b) {
  const int32_t bias = 1 << (shift - 1);
  const uint8_t* r[K];
  int32_t wk[K];
  for (int k = 0; k < K; ++k) {
    r[k] = rows[k];
    wk[k] = w[k];
  }
  if (out_f32 != nullptr) {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      int32_t acc = bias;
      for (int k = 0; k < K; ++k) acc += wk[k] * r[k][i];
      out_f32[i] = static_cast<float>(clamp_u8(acc >> shift)) * a + b;
    }
  } else {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      int32_t acc = bias;
      for (int k = 0; k < K; ++k) acc += wk[k] * r[k][i];
      out_u8[i] = static_cast<uint8_t>(clamp_u8(acc >> shift));
    }
  }
}

// Any number of taps: accumulate block by block.
JV_INLINE void taps_any(const uint8_t* const* rows, const int16_t* w, int K, int64_t n, int shift, uint8_t* out_u8,
                     float* out_f32, float a, float b) {
  const int32_t bias = 1 << (shift - 1);
  constexpr int64_t B = 256;
  int32_t acc[B];
  for (int64_t i0 = 0; i0 < n; i0 += B) {
    const int64_t m = std::min(B, n - i0);
    for (int64_t i = 0; i < m; ++i) acc[i] = bias;
    for (int k = 0; k < K; ++k) {
      const uint8_t* __restrict rk = rows[k] + i0;
      const int32_t wk = w[k];
      for (int64_t i = 0; i < m; ++i) acc[i] += wk * rk[i];
    }
    if (out_f32 != nullptr) {
      for (int64_t i = 0; i < m; ++i) out_f32[i0 + i] = static_cast<float>(clamp_u8(acc[i] >> shift)) * a + b;
    } else {
      for (int64_t i = 0; i < m; ++i) out_u8[i0 + i] = static_cast<uint8_t>(clamp_u8(acc[i] >> shift));
    }
  }
}

JV_CLONES void taps(const uint8_t* const* rows, const int16_t* w, int K, int64_t n, int shift, uint8_t* out_u8,
                    float* out_f32, float a, float b) {
  switch (K) {
    case 1: return taps_fixed<1>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 2: return taps_fixed<2>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 3: return taps_fixed<3>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 4: return taps_fixed<4>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 5: return taps_fixed<5>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 6: return taps_fixed<6>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 7: return taps_fixed<7>(rows, w, n, shift, out_u8, out_f32, a, b);
    default: return taps_any(rows, w, K, n, shift, out_u8, out_f32, a, b);
  }
}

// The float form of `taps` on rows already converted to float. Exact (bit-identical to the integer form) when
// Axis::float_exact holds: every product and partial sum is an integer below 2^24, and multiplying by 2^-shift
// then truncating is the arithmetic shift of a non-negative integer. One FMA per tap instead of widen+mul+add.
template <int K>
JV_INLINE void ftaps_fixed(const float* const* rows, const float* w, int64_t n, int shift, uint8_t* out_u8,
                           float* out_f32, float a, float b) {
  const float bias = static_cast<float>(1 << (shift - 1)), inv = 1.0f / static_cast<float>(1 << shift);
  const float* r[K];
  float wk[K];
  for (int k = 0; k < K; ++k) {
    r[k] = rows[k];
    wk[k] = w[k];
  }
  if (out_f32 != nullptr) {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      float acc = bias;
      for (int k = 0; k < K; ++k) acc += wk[k] * r[k][i];
      out_f32[i] = static_cast<float>(clamp_u8(static_cast<int32_t>(acc * inv))) * a + b;
    }
  } else {
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
      float acc = bias;
      for (int k = 0; k < K; ++k) acc += wk[k] * r[k][i];
      out_u8[i] = static_cast<uint8_t>(clamp_u8(static_cast<int32_t>(acc * inv)));
    }
  }
}

JV_INLINE void ftaps_any(const float* const* rows, const float* w, int K, int64_t n, int shift, uint8_t* out_u8,
                         float* out_f32, float a, float b) {
  const float bias = static_cast<float>(1 << (shift - 1)), inv = 1.0f / static_cast<float>(1 << shift);
  constexpr int64_t B = 256;
  float acc[B];
  for (int64_t i0 = 0; i0 < n; i0 += B) {
    const int64_t m = std::min(B, n - i0);
    for (int64_t i = 0; i < m; ++i) acc[i] = bias;
    for (int k = 0; k < K; ++k) {
      const float* __restrict rk = rows[k] + i0;
      const float wk = w[k];
      for (int64_t i = 0; i < m; ++i) acc[i] += wk * rk[i];
    }
    for (int64_t i = 0; i < m; ++i) {
      const int32_t v = clamp_u8(static_cast<int32_t>(acc[i] * inv));
      if (out_f32 != nullptr) {
        out_f32[i0 + i] = static_cast<float>(v) * a + b;
      } else {
        out_u8[i0 + i] = static_cast<uint8_t>(v);
      }
    }
  }
}

JV_CLONES void ftaps(const float* const* rows, const float* w, int K, int64_t n, int shift, uint8_t* out_u8,
                     float* out_f32, float a, float b) {
  switch (K) {
    case 1: return ftaps_fixed<1>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 2: return ftaps_fixed<2>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 3: return ftaps_fixed<3>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 4: return ftaps_fixed<4>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 5: return ftaps_fixed<5>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 6: return ftaps_fixed<6>(rows, w, n, shift, out_u8, out_f32, a, b);
    case 7: return ftaps_fixed<7>(rows, w, n, shift, out_u8, out_f32, a, b);
    default: return ftaps_any(rows, w, K, n, shift, out_u8, out_f32, a, b);
  }
}

// Horizontal pass over one strip of kStrip rows, stored transposed (strip[col][kStrip], floats): for each output
// column j, out[j][0..kStrip) = the kStrip rows' values. The strip stays in L1; the 16 lanes of a column are two
// AVX2 registers.
constexpr int64_t kStrip = 16;

// GCC/clang vector extensions: lowered to SSE2 in the default clone and to AVX2 in the avx2 clone.
typedef float v8f __attribute__((vector_size(32)));
typedef float v8f_u __attribute__((vector_size(32), aligned(4)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint8_t v8u8 __attribute__((vector_size(8)));
typedef uint8_t v8u8_u __attribute__((vector_size(8), aligned(1)));
typedef uint8_t v32u8 __attribute__((vector_size(32)));

// floor(acc * inv) clamped to 255 (acc >= 0), as bytes: the low byte of each int32 lane (a byte shuffle, where a
// narrowing conversion would be scalarised).
JV_INLINE v8u8 round_shift_u8(v8f acc, float inv) {
  v8i v = __builtin_convertvector(acc * inv, v8i);
  v = v > 255 ? 255 : v;
  const v32u8 bytes = reinterpret_cast<v32u8>(v);
  return __builtin_shufflevector(bytes, bytes, 0, 4, 8, 12, 16, 20, 24, 28);
}

template <int K>
JV_INLINE void hstrip_fixed(const float* strip, const int64_t* start, const float* w, int64_t n_out, int shift,
                            uint8_t* out) {
  constexpr int V = kStrip / 8;
  const float bias = static_cast<float>(1 << (shift - 1)), inv = 1.0f / static_cast<float>(1 << shift);
  for (int64_t j = 0; j < n_out; ++j) {
    const v8f_u* src = reinterpret_cast<const v8f_u*>(strip + start[j] * kStrip);
    v8f acc[V];
    for (int v = 0; v < V; ++v) acc[v] = v8f{} + bias;
    for (int k = 0; k < K; ++k) {
      const float wk = w[j * K + k];
      for (int v = 0; v < V; ++v) acc[v] += wk * src[V * k + v];
    }
    for (int v = 0; v < V; ++v) *reinterpret_cast<v8u8_u*>(out + j * kStrip + 8 * v) = round_shift_u8(acc[v], inv);
  }
}

JV_INLINE void hstrip_any(const float* strip, const int64_t* start, const float* w, int K, int64_t n_out, int shift,
                          uint8_t* out) {
  constexpr int V = kStrip / 8;
  const float bias = static_cast<float>(1 << (shift - 1)), inv = 1.0f / static_cast<float>(1 << shift);
  for (int64_t j = 0; j < n_out; ++j) {
    const v8f_u* src = reinterpret_cast<const v8f_u*>(strip + start[j] * kStrip);
    v8f acc[V];
    for (int v = 0; v < V; ++v) acc[v] = v8f{} + bias;
    for (int k = 0; k < K; ++k) {
      const float wk = w[j * K + k];
      for (int v = 0; v < V; ++v) acc[v] += wk * src[V * k + v];
    }
    for (int v = 0; v < V; ++v) *reinterpret_cast<v8u8_u*>(out + j * kStrip + 8 * v) = round_shift_u8(acc[v], inv);
  }
}

JV_CLONES void hstrip(const float* strip, const int64_t* start, const float* w, int K, int64_t n_out, int shift,
                      uint8_t* out) {
  switch (K) {
    case 1: return hstrip_fixed<1>(strip, start, w, n_out, shift, out);
    case 2: return hstrip_fixed<2>(strip, start, w, n_out, shift, out);
    case 3: return hstrip_fixed<3>(strip, start, w, n_out, shift, out);
    case 4: return hstrip_fixed<4>(strip, start, w, n_out, shift, out);
    case 5: return hstrip_fixed<5>(strip, start, w, n_out, shift, out);
    case 6: return hstrip_fixed<6>(strip, start, w, n_out, shift, out);
    case 7: return hstrip_fixed<7>(strip, start, w, n_out, shift, out);
    default: return hstrip_any(strip, start, w, K, n_out, shift, out);
  }
}

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols; T is uint8_t or float.
template <typename T>
void transpose_u8(const uint8_t* src, int64_t src_stride, T* dst, int64_t dst_stride, int64_t rows, int64_t cols) {
  int64_t r0 = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; r0 + 16 <= rows; r0 += 16) {
    int64_t c0 = 0;
    for (; c0 + 16 <= cols; c0 += 16) {
      __m128i a[16], b[16];
      for (int i = 0; i < 16; ++i)
        a[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + (r0 + i) * src_stride + c0));
      for (int i = 0; i < 8; ++i) {  // rows (2i, 2i+1) interleaved bytewise: lo = cols 0-7, hi = cols 8-15
        b[i] = _mm_unpacklo_epi8(a[2 * i], a[2 * i + 1]);
        b[i + 8] = _mm_unpackhi_epi8(a[2 * i], a[2 * i + 1]);
      }
      for (int h = 0; h < 2; ++h) {  // 4 rows x 4 cols per register
        for (int i = 0; i < 4; ++i) {
          a[h * 8 + i] = _mm_unpacklo_epi16(b[h * 8 + 2 * i], b[h * 8 + 2 * i + 1]);
          a[h * 8 + i + 4] = _mm_unpackhi_epi16(b[h * 8 + 2 * i], b[h * 8 + 2 * i + 1]);
        }
      }
      // a[h*8 + q*4 + g]: rows 4g..4g+3 of cols (8h + 4q) .. +3; now 8 rows x 2 cols per register
      for (int hq = 0; hq < 4; ++hq) {
        for (int g = 0; g < 2; ++g) {
          b[hq * 4 + g * 2] = _mm_unpacklo_epi32(a[hq * 4 + 2 * g], a[hq * 4 + 2 * g + 1]);
          b[hq * 4 + g * 2 + 1] = _mm_unpackhi_epi32(a[hq * 4 + 2 * g], a[hq * 4 + 2 * g + 1]);
        }
      }
      // b[hq*4 + g*2 + s]: rows 8g..8g+7 of cols (4hq + 2s), (4hq + 2s + 1)
      for (int hq = 0; hq < 4; ++hq) {
        for (int s = 0; s < 2; ++s) {
          const __m128i top = b[hq * 4 + s], bottom = b[hq * 4 + 2 + s];
          const int64_t c = c0 + 4 * hq + 2 * s;
          const __m128i col[2] = {_mm_unpacklo_epi64(top, bottom), _mm_unpackhi_epi64(top, bottom)};
          for (int e = 0; e < 2; ++e) {
            T* d = dst + (c + e) * dst_stride + r0;
            if constexpr (sizeof(T) == 1) {
              _mm_storeu_si128(reinterpret_cast<__m128i*>(d), col[e]);
            } else {
              const __m128i lo = _mm_unpacklo_epi8(col[e], zero), hi = _mm_unpackhi_epi8(col[e], zero);
              _mm_storeu_ps(d, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
              _mm_storeu_ps(d + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
              _mm_storeu_ps(d + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
              _mm_storeu_ps(d + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
            }
          }
        }
      }
    }
    for (; c0 < cols; ++c0)
      for (int64_t r = r0; r < r0 + 16; ++r) dst[c0 * dst_stride + r] = static_cast<T>(src[r * src_stride + c0]);
  }
#endif
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = r0; r < rows; ++r) dst[c * dst_stride + r] = static_cast<T>(src[r * src_stride + c]);
}

// ---- one plane ----------------------------------------------------------------------------------------------

struct Plan {
  Axis x, y;
  int64_t row_begin = 0, row_end = 0;  // input rows (crop coordinates) the vertical pass reads
  int64_t col_begin = 0, col_end = 0;  // input columns the horizontal pass reads
};

Plan make_plan(int64_t crop_h, int64_t crop_w, int64_t out_h, int64_t out_w, int64_t top, int64_t left,
               int64_t win_h, int64_t win_w, bool flip) {
  Plan p;
  p.x = compute_axis(crop_w, out_w, left, win_w, flip);
  p.y = compute_axis(crop_h, out_h, top, win_h, false);
  p.row_begin = crop_h;
  for (int64_t j = 0; j < win_h; ++j) {
    p.row_begin = std::min(p.row_begin, p.y.start[j]);
    p.row_end = std::max(p.row_end, p.y.start[j] + p.y.K);
  }
  p.col_begin = crop_w;
  for (int64_t j = 0; j < win_w; ++j) {
    p.col_begin = std::min(p.col_begin, p.x.start[j]);
    p.col_end = std::max(p.col_end, p.x.start[j] + p.x.K);
  }
  return p;
}

struct Buffers {
  std::vector<uint8_t> in_t, tmp_t, tmp, gathered;
  std::vector<float> in_tf;
  std::vector<int64_t> local_start;
  std::vector<const uint8_t*> rows;
};

// plane: uint8 crop origin with strides (sh, sw). Writes win_h x win_w values to out (uint8 or float).
// Both passes read rows of a transposed copy, so every tap is a contiguous, vectorized multiply-add.
void run_plane(const Plan& p, const uint8_t* plane, int64_t sh, int64_t sw, int64_t win_h, int64_t win_w,
               Buffers& buf, uint8_t* out_u8, float* out_f32, float a, float b) {
  const int64_t nrows = p.row_end - p.row_begin, ncols = p.col_end - p.col_begin;
  const uint8_t* src = plane + p.row_begin * sh + p.col_begin * sw;
  const bool use_float = p.x.float_exact;
  buf.rows.resize(std::max(p.x.K, p.y.K));
  buf.tmp_t.resize(static_cast<size_t>(win_w * std::max(nrows, kStrip)));
  if (sw != 1) {  // rare (a transposed view): gather the crop into a contiguous copy first
    buf.gathered.resize(static_cast<size_t>(nrows * ncols));
    for (int64_t r = 0; r < nrows; ++r)
      for (int64_t c = 0; c < ncols; ++c) buf.gathered[r * ncols + c] = src[r * sh + c * sw];
    src = buf.gathered.data();
    sh = ncols;
  }
  // Horizontal pass into tmp[row][col] (uint8, rounded as torch does), strip by strip of kStrip rows: transpose
  // the strip (floats, in L1), one output column per row of the transposed strip, transpose the result back.
  buf.tmp.resize(static_cast<size_t>(nrows * win_w));
  if (use_float) {
    buf.in_tf.assign(static_cast<size_t>(ncols * kStrip), 0.f);
    buf.local_start.resize(win_w);
    for (int64_t j = 0; j < win_w; ++j) buf.local_start[j] = p.x.start[j] - p.col_begin;
    for (int64_t r0 = 0; r0 < nrows; r0 += kStrip) {
      const int64_t s = std::min(kStrip, nrows - r0);
      transpose_u8(src + r0 * sh, sh, buf.in_tf.data(), kStrip, s, ncols);
      hstrip(buf.in_tf.data(), buf.local_start.data(), p.x.fweights.data(), p.x.K, win_w, p.x.precision,
             buf.tmp_t.data());
      transpose_u8(buf.tmp_t.data(), kStrip, buf.tmp.data() + r0 * win_w, win_w, win_w, s);
    }
  } else {
    buf.in_t.resize(static_cast<size_t>(ncols * nrows));
    transpose_u8(src, sh, buf.in_t.data(), nrows, nrows, ncols);
    for (int64_t j = 0; j < win_w; ++j) {
      for (int k = 0; k < p.x.K; ++k) buf.rows[k] = buf.in_t.data() + (p.x.start[j] - p.col_begin + k) * nrows;
      taps(buf.rows.data(), &p.x.weights[j * p.x.K], p.x.K, nrows, p.x.precision, buf.tmp_t.data() + j * nrows,
           nullptr, 0.f, 0.f);
    }
    transpose_u8(buf.tmp_t.data(), nrows, buf.tmp.data(), win_w, win_w, nrows);
  }
  // Vertical pass, one output row at a time over the window's columns (uint8 rows, integer taps).
  for (int64_t i = 0; i < win_h; ++i) {
    for (int k = 0; k < p.y.K; ++k) buf.rows[k] = buf.tmp.data() + (p.y.start[i] - p.row_begin + k) * win_w;
    taps(buf.rows.data(), &p.y.weights[i * p.y.K], p.y.K, win_w, p.y.precision,
         out_u8 == nullptr ? nullptr : out_u8 + i * win_w, out_f32 == nullptr ? nullptr : out_f32 + i * win_w, a, b);
  }
}

}  // namespace
}  // namespace jitvision_native
