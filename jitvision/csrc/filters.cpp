// gaussian_blur, gaussian_noise, erase_box: the blur/noise/erase effects as single graph nodes.
//
// Why: inductor's CPU code for these ops was 5-30x slower than eager on 3x480x640 images (its uint8 loads and
// stores go 8 bytes at a time through partial vectors, its randn is a per-element Philox call, and a where() over
// a box mask touches every pixel), so under torch.compile each effect is this one op, and eager calls the same op,
// so both give the same values.
//
// gaussian_blur(image [..., H, W] uint8/float32/float64, kernel_size [kx, ky], sigma_x, sigma_y):
//   torchvision's Gaussian (weights softmax(-(x / sigma)^2) over x evenly spaced in [-(k-1)/(2 sqrt 2), ...],
//   in float32, or float64 for float64 images), reflect borders, separable: uint8 through the fixed-point filter
//   of blur_u8.cpp (a level off torchvision on ~0.1-0.7% of pixels), float32 through the SIMD filter below
//   (blur_planes), float64 through the eager Python formulation's ATen calls (see blur_rows).
//   sigma_x/sigma_y: [] (one blur) or [R] (one per row of the leading dimension, a batch).
// gaussian_noise(image, mean, sigma, clip): the eager kernel's ATen calls (randn_like on the default generator,
//   scale, add, clamp; uint8 in int16 units of 255 with truncation), returned contiguous; tagged
//   nondeterministic_seeded so graph passes keep every call and its place in the RNG stream.
// erase_box(image [..., H, W], box int64 [4] or [R, 4] (i, j, h, w), value broadcastable to image): a copy of
//   image with each box set to value (cast to image's dtype); row r of a [R, 4] box applies to image[r]. Boxes
//   are clipped to the image.
//
// No Python here: the library may be loaded into a C++ process (libtorch) on its own.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define JV_X86 1
// The AVX2+FMA loops are compiled with a per-function target attribute and picked at run time
// (__builtin_cpu_supports), so the library still runs on any x86-64; the scalar loops do the same operations in
// the same order (std::fma, exactly rounded), so the tail of a row and other CPUs agree with the vector body.
#define JV_AVX2 __attribute__((target("avx2,fma")))
#endif
#define JV_INLINE inline __attribute__((always_inline))

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include "blur_u8.h"

namespace jitvision_native {
namespace {

// ---- The separable float32 blur of float32 planes (uint8 planes: blur_u8.cpp) --------------------------------
//
// Per output row: a vertical pass over the ky source rows (reflected at the top and bottom), vectorised over the
// width, into a float row buffer whose kx/2 border columns on each side are then filled by reflection; then the
// horizontal pass over that buffer. The weights are symmetric (w[i] == w[k-1-i] exactly, see
// gaussian_weights_f32), so each pass sums mirrored pairs first and computes acc = w[c] * x[c], then
// acc = fma(w[i], x[i] + x[k-1-i], acc) for i = 0 .. c-1 in float32: the AVX2+FMA body and the scalar tail (libm's
// exact fmaf) give the same bits. torchvision convolves with the kx * ky outer-product kernel in float32: the sums
// differ in the last bits (~1e-7). (Until the fixed-point filter, uint8 took this path too, converted to float
// once per row: ~0.8x of OpenCV's cv2.GaussianBlur.)

JV_INLINE int64_t reflect_index(int64_t i, int64_t n) {  // torch's "reflect" (no edge repeat); |overhang| < n
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

JV_INLINE float pair_sum(float a, float b) { return a + b; }
JV_INLINE float to_float(float v) { return v; }
JV_INLINE void store_scalar(float v, float* dst) { *dst = v; }

template <typename T>
void vpass_scalar(const T* const* rows, const float* wy, int64_t ky, int64_t x0, int64_t W, float* dst) {
  const int64_t c = ky / 2;
  for (int64_t x = x0; x < W; ++x) {
    float acc = wy[c] * to_float(rows[c][x]);
    for (int64_t j = 0; j < c; ++j) acc = std::fma(wy[j], pair_sum(rows[j][x], rows[ky - 1 - j][x]), acc);
    dst[x] = acc;
  }
}

template <typename T>
void hpass_scalar(const float* src, const float* wx, int64_t kx, int64_t x0, int64_t W, T* dst) {
  const int64_t c = kx / 2;
  for (int64_t x = x0; x < W; ++x) {
    float acc = wx[c] * src[x + c];
    for (int64_t i = 0; i < c; ++i) acc = std::fma(wx[i], src[x + i] + src[x + kx - 1 - i], acc);
    store_scalar(acc, dst + x);
  }
}

#ifdef JV_X86
JV_AVX2 JV_INLINE void store16(__m256 a, __m256 b, float* dst) {
  _mm256_storeu_ps(dst, a);
  _mm256_storeu_ps(dst + 8, b);
}

// Vertical pass over float rows, 16 pixels a step; returns the first x not done (the scalar loop finishes the row).
JV_AVX2 int64_t vpass_avx2(const float* const* rows, const float* wy, int64_t ky, int64_t W, float* dst) {
  const int64_t c = ky / 2;
  int64_t x = 0;
  for (; x + 16 <= W; x += 16) {
    const __m256 wc = _mm256_set1_ps(wy[c]);
    __m256 a = _mm256_mul_ps(wc, _mm256_loadu_ps(rows[c] + x));
    __m256 b = _mm256_mul_ps(wc, _mm256_loadu_ps(rows[c] + x + 8));
    for (int64_t j = 0; j < c; ++j) {
      const __m256 w = _mm256_set1_ps(wy[j]);
      const float* top = rows[j] + x;
      const float* bottom = rows[ky - 1 - j] + x;
      a = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(top), _mm256_loadu_ps(bottom)), a);
      b = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(top + 8), _mm256_loadu_ps(bottom + 8)), b);
    }
    _mm256_storeu_ps(dst + x, a);
    _mm256_storeu_ps(dst + x + 8, b);
  }
  return x;
}

// Horizontal pass over the padded float row src (W + kx - 1 values), 16 outputs a step.
template <typename T>
JV_AVX2 int64_t hpass_avx2(const float* src, const float* wx, int64_t kx, int64_t W, T* dst) {
  const int64_t c = kx / 2;
  int64_t x = 0;
  for (; x + 16 <= W; x += 16) {
    const __m256 wc = _mm256_set1_ps(wx[c]);
    __m256 a = _mm256_mul_ps(wc, _mm256_loadu_ps(src + x + c));
    __m256 b = _mm256_mul_ps(wc, _mm256_loadu_ps(src + x + c + 8));
    for (int64_t i = 0; i < c; ++i) {
      const __m256 w = _mm256_set1_ps(wx[i]);
      const float* left = src + x + i;
      const float* right = src + x + kx - 1 - i;
      a = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(left), _mm256_loadu_ps(right)), a);
      b = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(left + 8), _mm256_loadu_ps(right + 8)), b);
    }
    store16(a, b, dst + x);
  }
  return x;
}

bool has_avx2_fma() {
  static const bool value = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return value;
}
#else
bool has_avx2_fma() { return false; }
int64_t vpass_avx2(const float* const*, const float*, int64_t, int64_t, float*) { return 0; }
template <typename T>
int64_t hpass_avx2(const float*, const float*, int64_t, int64_t, T*) { return 0; }
#endif

// Rows [begin, end) of the planes stacked as [planes * H, W] (src and dst contiguous), read in place.
template <typename T>
void blur_plane_rows(const T* src, T* dst, int64_t H, int64_t W, const std::vector<float>& wx,
                     const std::vector<float>& wy, int64_t begin, int64_t end) {
  const int64_t kx = static_cast<int64_t>(wx.size()), ky = static_cast<int64_t>(wy.size());
  const int64_t px = kx / 2, py = ky / 2;
  std::vector<float> buffer(static_cast<size_t>(W + 2 * px));
  std::vector<const float*> rows(static_cast<size_t>(ky));
  float* mid = buffer.data() + px;
  const bool avx2 = has_avx2_fma();
  for (int64_t index = begin; index < end; ++index) {
    const int64_t plane = index / H, y = index % H;
    const T* base = src + plane * H * W;
    for (int64_t j = 0; j < ky; ++j) rows[j] = base + reflect_index(y - py + j, H) * W;
    const int64_t vx = avx2 ? vpass_avx2(rows.data(), wy.data(), ky, W, mid) : 0;
    vpass_scalar<float>(rows.data(), wy.data(), ky, vx, W, mid);
    for (int64_t i = 1; i <= px; ++i) {
      mid[-i] = mid[i];
      mid[W - 1 + i] = mid[W - 1 - i];
    }
    T* out = dst + index * W;
    const int64_t hx = avx2 ? hpass_avx2<T>(buffer.data(), wx.data(), kx, W, out) : 0;
    hpass_scalar<T>(buffer.data(), wx.data(), kx, hx, W, out);
  }
}

// The 1D weights in double, rounded to float32: x evenly spaced in [-lim, lim] (lim = (k - 1) / (2 sqrt 2)),
// softmax(-(x / sigma)^2). x is computed as (i - k / 2) * step, so the weights are exactly symmetric (the passes
// rely on it). Within a float32 ulp of the tensor formulation (functional._blur.gaussian_weights).
std::vector<float> gaussian_weights_f32(int64_t k, double sigma) {
  const double lim = static_cast<double>(k - 1) / (2.0 * std::sqrt(2.0));
  const double step = k > 1 ? 2.0 * lim / static_cast<double>(k - 1) : 0.0;
  std::vector<double> e(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    const double x = static_cast<double>(i - k / 2) * step / sigma;
    e[i] = -(x * x);  // at most 0, and 0 at the centre: the softmax's maximum
  }
  double total = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    e[i] = std::exp(e[i]);
    total += e[i];
  }
  std::vector<float> w(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) w[i] = static_cast<float>(e[i] / total);
  return w;
}

// image: contiguous [R, P, H, W] float32; sigmas: R pairs. Returns a new contiguous tensor.
template <typename T>
at::Tensor blur_planes(const at::Tensor& image, int64_t kx, int64_t ky, const double* sx, const double* sy) {
  at::Tensor out = at::empty(image.sizes(), image.options());
  const int64_t R = image.size(0), P = image.size(1), H = image.size(2), W = image.size(3);
  for (int64_t r = 0; r < R; ++r) {
    const std::vector<float> wx = gaussian_weights_f32(kx, sx[r]);
    const std::vector<float> wy = (ky == kx && sy[r] == sx[r]) ? wx : gaussian_weights_f32(ky, sy[r]);
    const T* src = image.data_ptr<T>() + r * P * H * W;
    T* dst = out.data_ptr<T>() + r * P * H * W;
    // about 64k multiply-adds a task, so small images stay on one thread
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(W * (kx + ky), 1));
    at::parallel_for(0, P * H, grain, [&](int64_t begin, int64_t end) {
      blur_plane_rows<T>(src, dst, H, W, wx, wy, begin, end);
    });
  }
  return out;
}

// The 1D weights as the Python formulation computes them (functional._blur.gaussian_weights), with the same ATen
// calls in the accumulation dtype: linspace, divide by sigma, square, negate, softmax (the float64 path).
std::vector<double> gaussian_weights(int64_t k, double sigma, at::ScalarType acc) {
  const double lim = static_cast<double>(k - 1) / (2.0 * std::sqrt(2.0));
  const at::Tensor x = at::linspace(-lim, lim, k, at::TensorOptions().dtype(acc));
  const at::Tensor s = at::scalar_tensor(sigma, at::TensorOptions().dtype(at::kDouble)).to(acc);
  const at::Tensor w = at::softmax(-(x / s).pow(2), -1).to(at::kDouble).contiguous();
  return std::vector<double>(w.data_ptr<double>(), w.data_ptr<double>() + k);
}

// The two passes with ATen's vectorised kernels, the same calls as the eager Python formulation
// (functional._blur._blur_separable_eager): one multiply by the first tap, then add_(slice, alpha=tap) per tap,
// on the reflect-padded image (float64 images only: uint8 and float32 take blur_planes).
at::Tensor blur_rows(const at::Tensor& work, int64_t H, int64_t W, const std::vector<double>& wx,
                     const std::vector<double>& wy, at::ScalarType acc) {
  const int64_t kx = static_cast<int64_t>(wx.size()), ky = static_cast<int64_t>(wy.size());
  const at::Tensor padded = at::reflection_pad2d(work, {kx / 2, kx / 2, ky / 2, ky / 2});
  // The weights are values of the accumulation type (see gaussian_weights), passed as alpha like .tolist() floats.
  auto tap = [](double w) { return w; };
  at::Tensor rows = at::mul(padded.narrow(-1, 0, W), tap(wx[0]));
  for (int64_t i = 1; i < kx; ++i) rows.add_(padded.narrow(-1, i, W), tap(wx[i]));
  at::Tensor out = at::mul(rows.narrow(-2, 0, H), tap(wy[0]));
  for (int64_t j = 1; j < ky; ++j) out.add_(rows.narrow(-2, j, H), tap(wy[j]));
  return out;
}

at::Tensor gaussian_blur(const at::Tensor& image, at::IntArrayRef kernel_size, const at::Tensor& sigma_x,
                         const at::Tensor& sigma_y) {
  TORCH_CHECK_VALUE(kernel_size.size() == 2, "gaussian_blur: kernel_size must be [kx, ky], got ", kernel_size);
  const int64_t kx = kernel_size[0], ky = kernel_size[1];
  TORCH_CHECK_VALUE(kx > 0 && ky > 0 && kx % 2 == 1 && ky % 2 == 1,
                    "gaussian_blur: kernel_size must hold odd positive integers, got ", kernel_size);
  TORCH_CHECK_VALUE(image.dim() >= 2, "gaussian_blur: expected an image [..., H, W], got ", image.dim(),
                    " dimensions");
  const int64_t H = image.size(-2), W = image.size(-1);
  TORCH_CHECK_VALUE(kx / 2 < W && ky / 2 < H, "gaussian_blur: kernel_size ", kernel_size,
                    " needs an image larger than half of it (reflect padding), got ", H, "x", W);
  const auto dtype = image.scalar_type();
  TORCH_CHECK_TYPE(dtype == at::kByte || dtype == at::kFloat || dtype == at::kDouble,
                   "gaussian_blur: the native blur takes uint8, float32 or float64 images, got ", dtype);
  const at::Tensor sx = sigma_x.to(at::kCPU, at::kDouble).reshape({-1}).contiguous();
  const at::Tensor sy = sigma_y.to(at::kCPU, at::kDouble).reshape({-1}).contiguous();
  const int64_t sigmas = sx.numel();
  TORCH_CHECK_VALUE(sigmas >= 1 && sy.numel() == sigmas, "gaussian_blur: sigma_x and sigma_y must have one value or "
                    "one per row, got ", sx.numel(), " and ", sy.numel());
  // Row r of a batch is the r-th of `sigmas` equal blocks of planes (the leading dimensions may carry extra unit
  // dimensions in front: the callers add one, see functional._dispatch.call_custom_op).
  TORCH_CHECK_VALUE(sigmas == 1 || (image.numel() / std::max<int64_t>(H * W, 1)) % sigmas == 0, "gaussian_blur: ",
                    sigmas, " sigmas for an image of shape ", image.sizes(), " (one per row of a batch)");
  for (int64_t r = 0; r < sigmas; ++r) {
    TORCH_CHECK_VALUE(sx.data_ptr<double>()[r] > 0 && sy.data_ptr<double>()[r] > 0,
                      "gaussian_blur: sigma must be positive");
  }
  if (image.numel() == 0) return at::empty(image.sizes(), image.options());
  if (dtype == at::kByte) {  // the fixed-point filter (blur_u8.cpp)
    const at::Tensor planes = image.contiguous();
    at::Tensor out = at::empty(image.sizes(), image.options());
    blur_planes_u8(planes.data_ptr<uint8_t>(), out.data_ptr<uint8_t>(), sigmas,
                   image.numel() / (sigmas * H * W), H, W, kx, ky, sx.data_ptr<double>(), sy.data_ptr<double>());
    return out;
  }
  if (dtype == at::kFloat) {  // the SIMD float32 filter
    const at::Tensor planes = image.contiguous().view({sigmas, -1, H, W});
    return blur_planes<float>(planes, kx, ky, sx.data_ptr<double>(), sy.data_ptr<double>()).view(image.sizes());
  }
  const at::ScalarType acc = at::kDouble;  // float64 images
  const at::Tensor planes = image.to(acc).reshape({sigmas, -1, H, W});
  const double* px = sx.data_ptr<double>();
  const double* py = sy.data_ptr<double>();
  at::Tensor out;
  if (sigmas == 1) {
    out = blur_rows(planes.select(0, 0), H, W, gaussian_weights(kx, px[0], acc), gaussian_weights(ky, py[0], acc), acc);
  } else {
    out = at::empty({sigmas, planes.size(1), H, W}, image.options().dtype(acc));
    for (int64_t r = 0; r < sigmas; ++r) {
      out.select(0, r).copy_(
          blur_rows(planes.select(0, r), H, W, gaussian_weights(kx, px[r], acc), gaussian_weights(ky, py[r], acc), acc));
    }
  }
  return out.view(image.sizes());
}

// A Python number as an operand: a wrapped-number tensor, which the op reads in its compute type (float for
// float16/bfloat16). The in-place Scalar overloads (mul_.Scalar) cast the number to the tensor's dtype first, so a
// float16 image with sigma = 1e6 got an infinite sigma and every draw became inf (torchvision keeps the draws that
// fit in float16).
static at::Tensor python_number(double value) {
  at::Tensor number = at::scalar_tensor(value, at::kDouble);
  number.unsafeGetTensorImpl()->set_wrapped_number(true);
  return number;
}

at::Tensor gaussian_noise(const at::Tensor& image, double mean, double sigma, bool clip) {
  TORCH_CHECK_VALUE(sigma >= 0, "gaussian_noise: sigma must not be negative, got ", sigma);
  if (at::isFloatingType(image.scalar_type())) {
    at::Tensor noise = at::randn_like(image);
    at::Tensor out = image + noise.mul_(python_number(sigma)).add_(python_number(mean));
    return (clip ? out.clamp_(0.0, 1.0) : out).contiguous();
  }
  TORCH_CHECK_VALUE(image.scalar_type() == at::kByte, "gaussian_noise: expected a float or uint8 image, got ",
                    image.scalar_type());
  at::Tensor noise = at::randn_like(image, image.options().dtype(at::kFloat));
  at::Tensor out = image.to(at::kShort).add_(noise.mul_(sigma * 255.0).add_(mean * 255.0).to(at::kShort));
  if (clip) out.clamp_(0, 255);
  return out.to(at::kByte).contiguous();
}

at::Tensor erase_box(const at::Tensor& image, const at::Tensor& box, const at::Tensor& value) {
  TORCH_CHECK_VALUE(image.dim() >= 2, "erase: expected an image [..., H, W], got ", image.dim(), " dimensions");
  TORCH_CHECK_VALUE((box.dim() == 1 || box.dim() == 2) && box.size(-1) == 4,
                    "erase: box must be [4] or [R, 4] (i, j, h, w), got ", box.sizes());
  const int64_t H = image.size(-2), W = image.size(-1);
  const int64_t rows = box.dim() == 1 ? 1 : box.size(0);
  const int64_t planes = image.numel() / std::max<int64_t>(H * W, 1);
  TORCH_CHECK_VALUE(rows >= 1 && planes % rows == 0, "erase: ", rows, " boxes for an image of shape ",
                    image.sizes(), " (one per row of a batch)");
  at::Tensor out = image.clone(at::MemoryFormat::Contiguous);
  if (image.numel() == 0) return out;
  // Row r of a batch is the r-th of `rows` equal blocks of planes (the leading dimensions may carry extra unit
  // dimensions in front: the callers add one, see functional._dispatch.call_custom_op).
  const at::Tensor out_rows = out.view({rows, -1, H, W});
  const at::Tensor fill = value.to(image.scalar_type()).expand(image.sizes()).reshape({rows, -1, H, W});
  const at::Tensor b = box.to(at::kCPU, at::kLong).reshape({-1, 4}).contiguous();
  const int64_t* p = b.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = std::clamp<int64_t>(p[4 * r], 0, H), j = std::clamp<int64_t>(p[4 * r + 1], 0, W);
    const int64_t h = std::clamp<int64_t>(p[4 * r + 2], 0, H - i), w = std::clamp<int64_t>(p[4 * r + 3], 0, W - j);
    if (h == 0 || w == 0) continue;
    at::Tensor target = out_rows.select(0, r);
    const at::Tensor source = fill.select(0, r);
    target.narrow(-2, i, h).narrow(-1, j, w).copy_(source.narrow(-2, i, h).narrow(-1, j, w));
  }
  return out;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("gaussian_blur(Tensor image, int[] kernel_size, Tensor sigma_x, Tensor sigma_y) -> Tensor");
  // Tagged so that no graph pass merges, drops or reorders two calls: each one advances the RNG.
  m.def("gaussian_noise(Tensor image, float mean, float sigma, bool clip) -> Tensor",
        {at::Tag::nondeterministic_seeded});
  m.def("erase_box(Tensor image, Tensor box, Tensor value) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("gaussian_blur", &jitvision_native::gaussian_blur);
}

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("gaussian_noise", &jitvision_native::gaussian_noise);
  m.impl("erase_box", &jitvision_native::erase_box);
}
