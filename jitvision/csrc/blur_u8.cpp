// The uint8 Gaussian blur in fixed point (called by gaussian_blur in filters.cpp for uint8 images).
//
// Why: the float32 filter (filters.cpp) ran at ~0.8x of OpenCV's 16-bit fixed-point cv2.GaussianBlur; OpenCV's
// weights have 8 fractional bits, which puts it a level off torchvision on 1-2.5% of pixels. This filter keeps
// 16-bit lanes where they are cheap and exact arithmetic where precision matters:
//
// - vertical pass (first), 16 pixels per instruction: source rows are stored once each as int16 p << 6 in a ring
//   of ky rows; per output row, the mirrored pairs are summed (<= 32640) and multiplied by their weight with
//   vpmulhrsw (round(a * b / 2^15)): pair weights in Q16, the centre row as the pair (c, c) with half its weight,
//   so each product is the term in Q7 (1/128 level), rounded. The row of Q7 sums (<= 32640) is the intermediate.
// - horizontal pass (second), exact: vpmaddwd of the Q7 row with Q15 weights, two taps per instruction taken
//   from adjacent memory (8 even outputs from one load, 8 odd outputs from the load one element further), int32
//   sums, then (sum + 2^21) >> 22 (round half up) and saturated to [0, 255].
//
// The quantised weights sum to exactly 1 in each pass (the centre takes the residual), so a constant image stays
// constant. Error against torchvision's float32 convolution: the Q7 intermediate and the rounded vertical
// products, a few thousandths of a level; a level off on ~0.1-0.3% of pixels (tests/test_native_filters.py
// measures it on photographs and random images, kernel sizes 3..31). The scalar loops compute the same integers,
// so results do not depend on the CPU or on which loop computed a column.
//
// No Python here: the library may be loaded into a C++ process (libtorch) on its own.

#include "blur_u8.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define JV_BU8_X86 1
#define JV_BU8_AVX2 __attribute__((target("avx2")))
#endif

#include <ATen/Parallel.h>

namespace jitvision_native {
namespace {

// Symmetric normalised weights in double: softmax(-(x / sigma)^2), x evenly spaced in [-lim, lim].
std::vector<double> weights_f64(int64_t k, double sigma) {
  const double lim = static_cast<double>(k - 1) / (2.0 * std::sqrt(2.0));
  const double step = k > 1 ? 2.0 * lim / static_cast<double>(k - 1) : 0.0;
  std::vector<double> w(static_cast<size_t>(k));
  double total = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    const double x = static_cast<double>(i - k / 2) * step / sigma;
    w[i] = std::exp(-(x * x));
    total += w[i];
  }
  for (double& v : w) v /= total;
  return w;
}

struct FixedWeights {
  std::vector<int16_t> vertical;    // [cy + 1]: pair weights in Q16 for j < cy, then the centre's in Q15
  std::vector<int32_t> horizontal;  // [kx + 1]: Q(shift - 7) taps, a zero after the last (the odd tap's partner)
  bool vertical_identity = false;   // every pair weight rounds to 0: the Q7 row is p << 7 (no product)
  int shift = 22;                   // the horizontal sums are in Q(shift): Q7 row x Q15 taps, or Q14 taps
};

FixedWeights fixed_weights(int64_t kx, double sx, int64_t ky, double sy) {
  FixedWeights f;
  const std::vector<double> wy = weights_f64(ky, sy), wx = weights_f64(kx, sx);
  const int64_t cy = ky / 2, cx = kx / 2;
  int64_t sum = 0;
  for (int64_t j = 0; j < cy; ++j) {  // a pair weight is below 1/3 (the centre is the largest): < 2^15 in Q16
    const int64_t q = std::llround(wy[j] * 65536.0);
    f.vertical.push_back(static_cast<int16_t>(q));
    sum += q;
  }
  // 2 * sum / 2^16 + centre / 2^15 == 1; a centre of exactly 1 (ky == 1, or a tiny sigma) does not fit in Q15
  // and is taken exactly instead (vertical_identity)
  f.vertical_identity = sum == 0;
  f.vertical.push_back(static_cast<int16_t>(std::min<int64_t>(32768 - sum, 32767)));
  f.horizontal.assign(static_cast<size_t>(kx + 1), 0);
  sum = 0;
  for (int64_t i = 0; i < cx; ++i) {
    const int64_t q = std::llround(wx[i] * 32768.0);
    f.horizontal[i] = f.horizontal[kx - 1 - i] = static_cast<int32_t>(q);
    sum += 2 * q;
  }
  if (sum == 0) {  // a centre of exactly 1 does not fit vpmaddwd's int16 taps in Q15: Q14 (exact)
    f.horizontal[cx] = 16384;
    f.shift = 21;
  } else {
    f.horizontal[cx] = static_cast<int32_t>(32768 - sum);
  }
  return f;
}

inline int64_t reflect(int64_t i, int64_t n) {  // torch's "reflect" (no edge repeat); |overhang| < n
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

inline int32_t mulhrs(int32_t a, int32_t b) { return (a * b + (1 << 14)) >> 15; }  // vpmulhrsw, one lane

// ---- scalar loops (the tails of rows, and CPUs without AVX2) ----

void widen_scalar(const uint8_t* src, int16_t* dst, int64_t x0, int64_t W) {
  for (int64_t x = x0; x < W; ++x) dst[x] = static_cast<int16_t>(src[x] << 6);
}

void vpass_scalar(const int16_t* const* rows, const int16_t* wy, int64_t ky, int64_t x0, int64_t W, int16_t* dst) {
  const int64_t c = ky / 2;
  for (int64_t x = x0; x < W; ++x) {
    int32_t acc = mulhrs(2 * rows[c][x], wy[c]);
    for (int64_t j = 0; j < c; ++j) acc += mulhrs(rows[j][x] + rows[ky - 1 - j][x], wy[j]);
    dst[x] = static_cast<int16_t>(acc);
  }
}

void hpass_scalar(const int16_t* src, const int32_t* wx, int64_t kx, int shift, int64_t x0, int64_t W,
                  uint8_t* dst) {
  for (int64_t x = x0; x < W; ++x) {
    int32_t acc = 1 << (shift - 1);
    for (int64_t i = 0; i < kx; ++i) acc += wx[i] * src[x + i];
    dst[x] = static_cast<uint8_t>(std::clamp(acc >> shift, 0, 255));
  }
}

#ifdef JV_BU8_X86
// The vector loops below finish a row of at least one vector with a last step ending at W, overlapping the step
// before it: it recomputes a few values, equal to the first computation (integer arithmetic, no state), instead of
// leaving up to 31 columns to the scalar loop.
JV_BU8_AVX2 int64_t widen_avx2(const uint8_t* src, int16_t* dst, int64_t W) {
  if (W < 16) return 0;
  for (int64_t x = 0;; x += 16) {
    x = std::min(x, W - 16);
    const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + x)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + x), _mm256_slli_epi16(v, 6));
    if (x == W - 16) return W;
  }
}

JV_BU8_AVX2 int64_t vpass_avx2(const int16_t* const* rows, const int16_t* wy, int64_t ky, int64_t W,
                               int16_t* dst) {
  const int64_t c = ky / 2;
  if (W < 32) return 0;
  for (int64_t x = 0;; x += 32) {  // two vectors a step: two independent chains
    x = std::min(x, W - 32);
    const __m256i wc = _mm256_set1_epi16(wy[c]);
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[c] + x));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[c] + x + 16));
    a = _mm256_mulhrs_epi16(_mm256_add_epi16(a, a), wc);
    b = _mm256_mulhrs_epi16(_mm256_add_epi16(b, b), wc);
    for (int64_t j = 0; j < c; ++j) {
      const __m256i w = _mm256_set1_epi16(wy[j]);
      const int16_t* top = rows[j] + x;
      const int16_t* bottom = rows[ky - 1 - j] + x;
      const __m256i sa = _mm256_add_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(top)),
                                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bottom)));
      const __m256i sb = _mm256_add_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(top + 16)),
                                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bottom + 16)));
      a = _mm256_add_epi16(a, _mm256_mulhrs_epi16(sa, w));
      b = _mm256_add_epi16(b, _mm256_mulhrs_epi16(sb, w));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + x), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + x + 16), b);
    if (x == W - 32) return W;
  }
}

// 16 outputs from the padded Q7 row src (reads up to src[x + kx + 15]: the buffer carries 16 spare zeros).
JV_BU8_AVX2 inline __m256i hpass16(const int16_t* src, const __m256i* pairs, int64_t npairs, int shift, int64_t x) {
  __m256i even = _mm256_set1_epi32(1 << (shift - 1)), odd = even;  // the rounding half, added first
  for (int64_t p = 0; p < npairs; ++p) {
    const int16_t* s = src + x + 2 * p;
    even = _mm256_add_epi32(even, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)),
                                                    pairs[p]));
    odd = _mm256_add_epi32(odd, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 1)),
                                                  pairs[p]));
  }
  // lane m of even: output x + 2m in its low word (0..255: the sums are positive and at most 255.5 * 2^shift);
  // odd >> (shift - 16) puts output x + 2m + 1 in the high word: one blend gives the outputs x .. x + 15 in order
  return _mm256_blend_epi16(_mm256_srai_epi32(even, shift), _mm256_srli_epi32(odd, shift - 16), 0xAA);
}

JV_BU8_AVX2 int64_t hpass_avx2(const int16_t* src, const int32_t* wx, int64_t kx, int shift, int64_t W,
                               uint8_t* dst) {
  const int64_t npairs = (kx + 1) / 2;
  __m256i pairs[64];  // kx <= 127 here (the caller takes the scalar loop beyond)
  for (int64_t p = 0; p < npairs; ++p) {
    const uint32_t lo = static_cast<uint16_t>(wx[2 * p]), hi = static_cast<uint16_t>(wx[2 * p + 1]);
    pairs[p] = _mm256_set1_epi32(static_cast<int32_t>(lo | (hi << 16)));
  }
  if (W < 32) return 0;
  for (int64_t x = 0;; x += 32) {
    x = std::min(x, W - 32);
    const __m256i a = hpass16(src, pairs, npairs, shift, x), b = hpass16(src, pairs, npairs, shift, x + 16);
    // packus saturates each int16 to [0, 255]: bytes a0-7 b0-7 a8-15 b8-15, then the qwords put in order
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + x), bytes);
    if (x == W - 32) return W;
  }
}

bool has_avx2() {
  static const bool value = __builtin_cpu_supports("avx2");
  return value;
}
#else
bool has_avx2() { return false; }
int64_t widen_avx2(const uint8_t*, int16_t*, int64_t) { return 0; }
int64_t vpass_avx2(const int16_t* const*, const int16_t*, int64_t, int64_t, int16_t*) { return 0; }
int64_t hpass_avx2(const int16_t*, const int32_t*, int64_t, int, int64_t, uint8_t*) { return 0; }
#endif

// Rows [begin, end) of the planes stacked as [planes * H, W]. Each source row is widened once into a ring of ky
// int16 rows tagged with the row they hold (one output row's window spans at most ky consecutive source rows).
void blur_rows_u8(const uint8_t* src, uint8_t* dst, int64_t H, int64_t W, const FixedWeights& f, int64_t kx,
                  int64_t ky, int64_t begin, int64_t end, bool simd) {
  const int64_t px = kx / 2, py = ky / 2;
  std::vector<int16_t> buffer(static_cast<size_t>(W + 2 * px + 16), 0);
  std::vector<int16_t> ring(static_cast<size_t>(ky * W));
  std::vector<int64_t> tag(static_cast<size_t>(ky), -1);
  std::vector<const int16_t*> rows(static_cast<size_t>(ky));
  int16_t* mid = buffer.data() + px;
  int64_t ring_plane = -1;
  const bool hsimd = simd && kx <= 127;
  for (int64_t index = begin; index < end; ++index) {
    const int64_t plane = index / H, y = index % H;
    const uint8_t* base = src + plane * H * W;
    if (plane != ring_plane) {
      std::fill(tag.begin(), tag.end(), -1);
      ring_plane = plane;
    }
    for (int64_t j = 0; j < ky; ++j) {
      const int64_t r = reflect(y - py + j, H);
      const int64_t slot = r % ky;
      int16_t* row = ring.data() + slot * W;
      if (tag[slot] != r) {
        widen_scalar(base + r * W, row, simd ? widen_avx2(base + r * W, row, W) : 0, W);
        tag[slot] = r;
      }
      rows[j] = row;
    }
    if (f.vertical_identity) {
      for (int64_t x = 0; x < W; ++x) mid[x] = static_cast<int16_t>(2 * rows[py][x]);  // p << 7
    } else {
      vpass_scalar(rows.data(), f.vertical.data(), ky,
                   simd ? vpass_avx2(rows.data(), f.vertical.data(), ky, W, mid) : 0, W, mid);
    }
    for (int64_t i = 1; i <= px; ++i) {
      mid[-i] = mid[i];
      mid[W - 1 + i] = mid[W - 1 - i];
    }
    uint8_t* out = dst + index * W;
    const int64_t hx = hsimd ? hpass_avx2(buffer.data(), f.horizontal.data(), kx, f.shift, W, out) : 0;
    hpass_scalar(buffer.data(), f.horizontal.data(), kx, f.shift, hx, W, out);
  }
}

}  // namespace

void blur_planes_u8(const uint8_t* src, uint8_t* dst, int64_t R, int64_t P, int64_t H, int64_t W, int64_t kx,
                    int64_t ky, const double* sx, const double* sy) {
  const bool simd = has_avx2();
  for (int64_t r = 0; r < R; ++r) {
    const FixedWeights f = fixed_weights(kx, sx[r], ky, sy[r]);
    const uint8_t* from = src + r * P * H * W;
    uint8_t* to = dst + r * P * H * W;
    // about 64k multiply-adds a task, so small images stay on one thread
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(W * (kx + ky), 1));
    at::parallel_for(0, P * H, grain, [&](int64_t begin, int64_t end) {
      blur_rows_u8(from, to, H, W, f, kx, ky, begin, end, simd);
    });
  }
}

}  // namespace jitvision_native
