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

// The AVX2 passes below are compiled with a per-function target attribute and chosen at run time
// (__builtin_cpu_supports), so the binary still runs on any x86-64; elsewhere the portable loops run.
#if defined(__x86_64__) && defined(__GNUC__)
#define JV_AVX2_PATH 1
#include <immintrin.h>
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

// K > 0: a tap count known at compile time (the loops unroll); K == 0: `taps` taps, read at run time.
template <int K>
JV_INLINE void hstrip_taps(const float* strip, const int64_t* start, const float* w, int taps, int64_t n_out,
                           int shift, uint8_t* out) {
  constexpr int V = kStrip / 8;
  const int n_taps = K > 0 ? K : taps;
  const float bias = static_cast<float>(1 << (shift - 1)), inv = 1.0f / static_cast<float>(1 << shift);
  for (int64_t j = 0; j < n_out; ++j) {
    const v8f_u* src = reinterpret_cast<const v8f_u*>(strip + start[j] * kStrip);
    v8f acc[V];
    for (int v = 0; v < V; ++v) acc[v] = v8f{} + bias;
    for (int k = 0; k < n_taps; ++k) {
      const float wk = w[j * n_taps + k];
      for (int v = 0; v < V; ++v) acc[v] += wk * src[V * k + v];
    }
    for (int v = 0; v < V; ++v) *reinterpret_cast<v8u8_u*>(out + j * kStrip + 8 * v) = round_shift_u8(acc[v], inv);
  }
}

JV_CLONES void hstrip(const float* strip, const int64_t* start, const float* w, int K, int64_t n_out, int shift,
                      uint8_t* out) {
  switch (K) {
    case 1: return hstrip_taps<1>(strip, start, w, K, n_out, shift, out);
    case 2: return hstrip_taps<2>(strip, start, w, K, n_out, shift, out);
    case 3: return hstrip_taps<3>(strip, start, w, K, n_out, shift, out);
    case 4: return hstrip_taps<4>(strip, start, w, K, n_out, shift, out);
    case 5: return hstrip_taps<5>(strip, start, w, K, n_out, shift, out);
    case 6: return hstrip_taps<6>(strip, start, w, K, n_out, shift, out);
    case 7: return hstrip_taps<7>(strip, start, w, K, n_out, shift, out);
    default: return hstrip_taps<0>(strip, start, w, K, n_out, shift, out);
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

// ---- channels-last input ------------------------------------------------------------------------------------
#ifdef JV_AVX2_PATH
bool have_ssse3() {
  static const bool yes = __builtin_cpu_supports("ssse3");
  return yes;
}

// 16 RGB pixels (48 bytes) at a time into three planes: each 16-byte output gathers its bytes from the three
// loads with one byte shuffle each (-1 selects zero) and two ORs. Returns the columns done.
__attribute__((target("ssse3"))) int64_t split_rgb_ssse3(const uint8_t* row, int64_t ncols, uint8_t* dst,
                                                       int64_t plane) {
  static const int8_t m[3][3][16] = {
      {{0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
       {-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1},
       {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13}},
      {{1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
       {-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1},
       {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14}},
      {{2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
       {-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1},
       {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15}}};
  __m128i mask[3][3];
  for (int ch = 0; ch < 3; ++ch)
    for (int k = 0; k < 3; ++k) mask[ch][k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m[ch][k]));
  int64_t c = 0;
  for (; c + 16 <= ncols; c += 16) {
    const __m128i* in = reinterpret_cast<const __m128i*>(row + 3 * c);
    const __m128i v0 = _mm_loadu_si128(in), v1 = _mm_loadu_si128(in + 1), v2 = _mm_loadu_si128(in + 2);
    for (int ch = 0; ch < 3; ++ch) {
      const __m128i from01 = _mm_or_si128(_mm_shuffle_epi8(v0, mask[ch][0]), _mm_shuffle_epi8(v1, mask[ch][1]));
      const __m128i out = _mm_or_si128(from01, _mm_shuffle_epi8(v2, mask[ch][2]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + ch * plane + c), out);
    }
  }
  return c;
}

// 16 pixels of 4 bytes (RGBX: what Pillow stores for RGB, and RGBA) into C = 3 or 4 planes: for each channel, one
// byte shuffle per 16-byte load gathers its 4 bytes into that load's quarter of the output. Stops one pixel short
// of the row's end, so that the 4th byte of the last pixel (not part of a 3-channel view) is never read. Returns
// the columns done.
__attribute__((target("ssse3"))) int64_t split_rgbx_ssse3(const uint8_t* row, int64_t ncols, int64_t C, uint8_t* dst,
                                                        int64_t plane) {
  __m128i mask[4][4];
  for (int ch = 0; ch < 4; ++ch)
    for (int k = 0; k < 4; ++k) {
      alignas(16) int8_t m[16];
      for (int j = 0; j < 16; ++j) m[j] = (j / 4 == k) ? static_cast<int8_t>(ch + 4 * (j % 4)) : int8_t{-1};
      mask[ch][k] = _mm_load_si128(reinterpret_cast<const __m128i*>(m));
    }
  int64_t c = 0;
  for (; c + 16 < ncols; c += 16) {
    const __m128i* in = reinterpret_cast<const __m128i*>(row + 4 * c);
    const __m128i v0 = _mm_loadu_si128(in), v1 = _mm_loadu_si128(in + 1), v2 = _mm_loadu_si128(in + 2),
                  v3 = _mm_loadu_si128(in + 3);
    for (int ch = 0; ch < C; ++ch) {
      const __m128i lo = _mm_or_si128(_mm_shuffle_epi8(v0, mask[ch][0]), _mm_shuffle_epi8(v1, mask[ch][1]));
      const __m128i hi = _mm_or_si128(_mm_shuffle_epi8(v2, mask[ch][2]), _mm_shuffle_epi8(v3, mask[ch][3]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + ch * plane + c), _mm_or_si128(lo, hi));
    }
  }
  return c;
}
#endif

//
// Images from PIL or numpy arrive as a [C, H, W] view of [H, W, C] memory (what pil_to_tensor and ToImage
// give), or of Pillow's own 4-bytes-per-pixel memory (Compose's PIL path). Both passes want unit stride along W,
// so the rows the plan reads are first split into C contiguous planes, in one pass that reads the memory in
// order. Three separate strided gathers, one per channel, cost ~5x more (1.7 ms for the inference preset on 480x640, slower than torchvision's interpolate).

// planes[ch * nrows * ncols + r * ncols + c] = src[r * sh + c * sw + ch * sc], for ch < C, r < nrows, c < ncols.
void split_channels(const uint8_t* src, int64_t sh, int64_t sw, int64_t sc, int64_t C, int64_t nrows, int64_t ncols,
                    uint8_t* planes) {
  const int64_t plane = nrows * ncols;
  for (int64_t r = 0; r < nrows; ++r) {
    const uint8_t* row = src + r * sh;
    int64_t c = 0;
#if defined(__SSE2__) && defined(JV_AVX2_PATH)
    if (C == 3 && sc == 1 && sw == 3 && have_ssse3()) c = split_rgb_ssse3(row, ncols, planes + r * ncols, plane);
    if ((C == 3 || C == 4) && sc == 1 && sw == 4 && have_ssse3())
      c = split_rgbx_ssse3(row, ncols, C, planes + r * ncols, plane);
#endif
    for (; c < ncols; ++c)
      for (int64_t ch = 0; ch < C; ++ch) planes[ch * plane + r * ncols + c] = row[c * sw + ch * sc];
  }
}

// ---- AVX2 passes: int16 x int16 -> int32 multiply-adds (vpmaddwd), 16 products per instruction -------------
//
// Exact: the pixels (0..255) and weights (< 2^15, non-negative for the triangle filter) are int16, each pair sum
// and the total stay far below 2^31, and rounding is the same bias + arithmetic shift + clamp as `taps`.
// Both loops are written to keep byte shuffles (one execution port on Intel, the bottleneck of a first version
// that used vpunpck + vphaddd) to about one per 8 outputs per tap pair.

// Horizontal pass without transposes. A "unit" is 8 outputs, 4 per 128-bit lane: one 16-byte load per lane covers
// the taps of its 4 outputs (when their windows span <= 16 bytes: K <= 6 and downscales up to ~2.5-4x); per tap
// pair, one vpshufb picks (tap 2p, tap 2p+1) of each output as zero-extended int16 and one vpmaddwd weighs them,
// so the sums land in output order with no horizontal add. Units are interleaved so that a block of 32 outputs
// packs to bytes with lane-wise packs only: unit u of block B covers outputs 32B + 4u .. +3 (lane 0) and
// 32B + 16 + 4u .. +3 (lane 1).
struct HPlan {
  int pairs = 0;                 // tap pairs per output (1..3); 0: the AVX2 pass does not apply
  int64_t n_pad = 0;             // outputs rounded up to 32 (one loop step); the padding has zero weights
  std::vector<int32_t> base;     // [unit][lane] first input column of the lane's 16-byte load
  std::vector<uint8_t> mask;     // [unit][pair][32] vpshufb control (0x80: zero byte)
  std::vector<int16_t> weights;  // [unit][pair][16] (w[2p], w[2p+1]) per output
};

// start: first input column of each output, relative to the first column the pass reads; ncols readable columns.
HPlan make_hplan(const Axis& x, const std::vector<int64_t>& start, int64_t ncols) {
  HPlan hp;
  const int64_t n = static_cast<int64_t>(start.size());
  const int pairs = (x.K + 1) / 2;
  if (pairs > 3 || ncols < 16) return hp;
  hp.n_pad = (n + 31) / 32 * 32;
  const int64_t units = hp.n_pad / 8;
  hp.base.assign(units * 2, 0);
  hp.mask.assign(units * pairs * 32, 0x80);
  hp.weights.assign(units * pairs * 16, 0);
  for (int64_t u = 0; u < units; ++u) {
    for (int lane = 0; lane < 2; ++lane) {
      const int64_t j0 = (u / 4) * 32 + lane * 16 + (u % 4) * 4;  // first output of this lane
      const int64_t j1 = std::min(j0 + 4, n);
      int64_t lo = ncols, hi = 0;
      for (int64_t j = j0; j < j1; ++j) {
        lo = std::min(lo, start[j]);
        hi = std::max(hi, start[j] + x.K);
      }
      if (lo >= hi) continue;  // all padding: base 0, zero bytes, zero weights
      const int64_t base = std::min(lo, ncols - 16);  // the 16-byte load stays inside the row
      if (hi - base > 16) return HPlan{};
      hp.base[u * 2 + lane] = static_cast<int32_t>(base);
      for (int64_t j = j0; j < j1; ++j) {
        const int64_t q = j - j0;
        for (int t = 0; t < x.K; ++t) {
          const int pair = t / 2, half = t % 2;
          hp.mask[(u * pairs + pair) * 32 + lane * 16 + q * 4 + half * 2] = static_cast<uint8_t>(start[j] + t - base);
          hp.weights[(u * pairs + pair) * 16 + lane * 8 + q * 2 + half] = x.weights[j * x.K + t];
        }
      }
    }
  }
  hp.pairs = pairs;
  return hp;
}

#ifdef JV_AVX2_PATH
bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// tmp[r][0 .. n_pad) = horizontal pass of row r of src (row stride sh), uint8.
template <int P>
__attribute__((target("avx2"))) void hpass_avx2_p(const uint8_t* src, int64_t sh, int64_t nrows, const HPlan& hp,
                                                   int shift, uint8_t* tmp) {
  const __m256i bias = _mm256_set1_epi32(1 << (shift - 1));
  const __m128i count = _mm_cvtsi32_si128(shift);
  for (int64_t r = 0; r < nrows; ++r) {
    const uint8_t* row = src + r * sh;
    const int32_t* base = hp.base.data();
    const __m256i* mask = reinterpret_cast<const __m256i*>(hp.mask.data());
    const __m256i* w = reinterpret_cast<const __m256i*>(hp.weights.data());
    uint8_t* out = tmp + r * hp.n_pad;
    for (int64_t blk = 0; blk < hp.n_pad / 32; ++blk) {
      __m256i acc[4];
      for (int u = 0; u < 4; ++u, base += 2, mask += P, w += P) {
        const __m256i v = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + base[0]))),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + base[1])), 1);
        acc[u] = bias;
        for (int p = 0; p < P; ++p)
          acc[u] = _mm256_add_epi32(acc[u], _mm256_madd_epi16(_mm256_shuffle_epi8(v, mask[p]), w[p]));
        acc[u] = _mm256_sra_epi32(acc[u], count);
      }
      // Lane-wise packs (saturation to uint8 is the clamp to 0..255) leave outputs 0-15 | 16-31 in order.
      const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(acc[0], acc[1]), _mm256_packs_epi32(acc[2], acc[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * blk), bytes);
    }
  }
}

void hpass_avx2(const uint8_t* src, int64_t sh, int64_t nrows, const HPlan& hp, int shift, uint8_t* tmp) {
  switch (hp.pairs) {
    case 1: return hpass_avx2_p<1>(src, sh, nrows, hp, shift, tmp);
    case 2: return hpass_avx2_p<2>(src, sh, nrows, hp, shift, tmp);
    default: return hpass_avx2_p<3>(src, sh, nrows, hp, shift, tmp);
  }
}

// The vertical pass for one output row: out[i] = clamp((bias + sum_k w[k] * rows[k][i]) >> shift), 32 outputs per
// step, taps in pairs: two rows interleaved bytewise and zero-extended (in-lane unpacks) give (x, y) int16 pairs
// for one vpmaddwd each. Lane 0 holds outputs 0-15, lane 1 outputs 16-31, so acc[m] is outputs 4m..4m+3 |
// 16+4m..16+4m+3 and lane-wise packs restore the order. n >= 32: the last step overlaps the one before.
__attribute__((target("avx2"))) void vtaps_avx2(const uint8_t* const* rows, const int16_t* w, int K, int64_t n,
                                                int shift, uint8_t* out_u8, float* out_f32, float a, float b) {
  constexpr int kMaxPairs = 8;
  const int pairs = (K + 1) / 2;
  const uint8_t* r0[kMaxPairs];
  const uint8_t* r1[kMaxPairs];
  __m256i wp[kMaxPairs];
  for (int q = 0; q < pairs; ++q) {
    const bool odd = 2 * q + 1 == K;  // odd K: the last pair repeats a row with weight 0
    r0[q] = rows[2 * q];
    r1[q] = odd ? rows[2 * q] : rows[2 * q + 1];
    const uint16_t w0 = static_cast<uint16_t>(w[2 * q]), w1 = odd ? 0 : static_cast<uint16_t>(w[2 * q + 1]);
    wp[q] = _mm256_set1_epi32(static_cast<int32_t>(w0 | (static_cast<uint32_t>(w1) << 16)));
  }
  const __m256i bias = _mm256_set1_epi32(1 << (shift - 1)), zero = _mm256_setzero_si256();
  const __m128i count = _mm_cvtsi32_si128(shift);
  for (int64_t i0 = 0; i0 < n; i0 += 32) {
    const int64_t i = std::min(i0, n - 32);
    __m256i acc[4] = {bias, bias, bias, bias};
    for (int q = 0; q < pairs; ++q) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r0[q] + i));
      const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r1[q] + i));
      const __m256i lo = _mm256_unpacklo_epi8(x, y), hi = _mm256_unpackhi_epi8(x, y);  // 0-7 | 16-23, 8-15 | 24-31
      acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), wp[q]));
      acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), wp[q]));
      acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), wp[q]));
      acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), wp[q]));
    }
    for (int m = 0; m < 4; ++m) acc[m] = _mm256_sra_epi32(acc[m], count);
    if (out_f32 != nullptr) {
      // Clamp, then v * a + b with the multiply and add rounded separately, like the portable loop.
      const __m256i hi255 = _mm256_set1_epi32(255);
      const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
      for (int m = 0; m < 4; ++m) {
        const __m256i v = _mm256_min_epi32(_mm256_max_epi32(acc[m], zero), hi255);
        const __m256 f = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(v), va), vb);
        _mm_storeu_ps(out_f32 + i + 4 * m, _mm256_castps256_ps128(f));
        _mm_storeu_ps(out_f32 + i + 16 + 4 * m, _mm256_extractf128_ps(f, 1));
      }
    } else {
      const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(acc[0], acc[1]), _mm256_packs_epi32(acc[2], acc[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_u8 + i), bytes);
    }
  }
}
#endif

// ---- one plane ----------------------------------------------------------------------------------------------

struct Plan {
  Axis x, y;
  HPlan hx;  // the AVX2 horizontal pass's tables (hx.pairs == 0 when its conditions do not hold)
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
#ifdef JV_AVX2_PATH
  if (have_avx2()) {
    std::vector<int64_t> local(p.x.start);
    for (auto& v : local) v -= p.col_begin;
    p.hx = make_hplan(p.x, local, p.col_end - p.col_begin);
  }
#endif
  return p;
}

struct Buffers {
  std::vector<uint8_t> in_t, tmp_t, tmp, planes;
  std::vector<float> in_tf;
  std::vector<int64_t> local_start;
  std::vector<const uint8_t*> rows;
};

// The portable horizontal pass into buf.tmp[row][col] (row stride win_w), strip by strip of kStrip rows: transpose
// the strip (floats, in L1), one output column per row of the transposed strip, transpose the result back.
void hpass_portable(const Plan& p, const uint8_t* src, int64_t sh, int64_t nrows, int64_t ncols, int64_t win_w,
                    Buffers& buf) {
  const bool use_float = p.x.float_exact;
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
}

// src: the uint8 input at (p.row_begin, p.col_begin) of the crop, rows sh apart, unit stride along W (see
// split_channels). Writes win_h x win_w values to out (uint8 or float).
// With AVX2 both passes are vpmaddwd loops on the rows as they are; otherwise the horizontal pass reads rows of a
// transposed copy, so every tap is a contiguous, auto-vectorized multiply-add.
void run_plane(const Plan& p, const uint8_t* src, int64_t sh, int64_t win_h, int64_t win_w, Buffers& buf,
               uint8_t* out_u8, float* out_f32, float a, float b) {
  const int64_t nrows = p.row_end - p.row_begin, ncols = p.col_end - p.col_begin;
  buf.rows.resize(std::max(p.x.K, p.y.K));
  buf.tmp_t.resize(static_cast<size_t>(win_w * std::max(nrows, kStrip)));
  // Horizontal pass into tmp[row][col] (uint8, rounded as torch does, row stride tmp_stride).
  int64_t tmp_stride = win_w;
#ifdef JV_AVX2_PATH
  const bool avx2 = have_avx2();
  if (avx2 && p.hx.pairs > 0) {
    tmp_stride = p.hx.n_pad;
    buf.tmp.resize(static_cast<size_t>(nrows * tmp_stride));
    hpass_avx2(src, sh, nrows, p.hx, p.x.precision, buf.tmp.data());
  }
#else
  const bool avx2 = false;
#endif
  if (!(avx2 && p.hx.pairs > 0)) hpass_portable(p, src, sh, nrows, ncols, win_w, buf);
  // Vertical pass, one output row at a time over the window's columns (uint8 rows, integer taps).
  for (int64_t i = 0; i < win_h; ++i) {
    for (int k = 0; k < p.y.K; ++k) buf.rows[k] = buf.tmp.data() + (p.y.start[i] - p.row_begin + k) * tmp_stride;
    uint8_t* o8 = out_u8 == nullptr ? nullptr : out_u8 + i * win_w;
    float* of = out_f32 == nullptr ? nullptr : out_f32 + i * win_w;
#ifdef JV_AVX2_PATH
    if (avx2 && win_w >= 32 && p.y.K <= 16) {
      vtaps_avx2(buf.rows.data(), &p.y.weights[i * p.y.K], p.y.K, win_w, p.y.precision, o8, of, a, b);
      continue;
    }
#endif
    taps(buf.rows.data(), &p.y.weights[i * p.y.K], p.y.K, win_w, p.y.precision, o8, of, a, b);
  }
}

}  // namespace
}  // namespace jitvision_native
