// gaussian_blur, gaussian_noise, erase_box: the blur/noise/erase effects as single graph nodes.
//
// Why: inductor's CPU code for these ops was 5-30x slower than eager on 3x480x640 images (its uint8 loads and
// stores go 8 bytes at a time through partial vectors, its randn is a per-element Philox call, and a where() over
// a box mask touches every pixel), so under torch.compile each effect is this one op, and eager calls the same op,
// so both give the same values.
//
// gaussian_blur(image [..., H, W] uint8/float32/float64, kernel_size [kx, ky], sigma_x, sigma_y):
//   torchvision's Gaussian (weights softmax(-(x / sigma)^2) over x evenly spaced in [-(k-1)/(2 sqrt 2), ...],
//   in float32, or float64 for float64 images), reflect borders, separable: the
//   eager Python formulation's ATen calls (see blur_rows). uint8 is rounded half to even (torch.round).
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
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

// The 1D weights as the Python formulation computes them (functional._blur.gaussian_weights), with the same ATen
// calls in the accumulation dtype: linspace, divide by sigma, square, negate, softmax. The same weights give the
// same result as the tensor path, whose uint8 rounding matches the eager OpenCV path on the audit's images.
std::vector<double> gaussian_weights(int64_t k, double sigma, at::ScalarType acc) {
  const double lim = static_cast<double>(k - 1) / (2.0 * std::sqrt(2.0));
  const at::Tensor x = at::linspace(-lim, lim, k, at::TensorOptions().dtype(acc));
  const at::Tensor s = at::scalar_tensor(sigma, at::TensorOptions().dtype(at::kDouble)).to(acc);
  const at::Tensor w = at::softmax(-(x / s).pow(2), -1).to(at::kDouble).contiguous();
  return std::vector<double>(w.data_ptr<double>(), w.data_ptr<double>() + k);
}

// The two passes with ATen's vectorised kernels, the same calls as the eager Python formulation
// (functional._blur._blur_separable_eager): one multiply by the first tap, then add_(slice, alpha=tap) per tap,
// on the reflect-padded image in acc dtype (float32 for uint8). Hand-written loops here were ~3x slower than these
// on this machine (unvectorised conversions), so the op is an ordering of ATen calls, one graph node.
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
  const at::ScalarType acc = dtype == at::kDouble ? at::kDouble : at::kFloat;
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
  if (dtype == at::kByte) out = out.round_().to(at::kByte);
  return out.view(image.sizes());
}

at::Tensor gaussian_noise(const at::Tensor& image, double mean, double sigma, bool clip) {
  TORCH_CHECK_VALUE(sigma >= 0, "gaussian_noise: sigma must not be negative, got ", sigma);
  if (at::isFloatingType(image.scalar_type())) {
    at::Tensor noise = at::randn_like(image);
    at::Tensor out = image + noise.mul_(sigma).add_(mean);
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
