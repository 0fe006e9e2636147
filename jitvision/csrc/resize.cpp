// jitvision's native fast path: crop box -> separable antialiased bilinear resize -> optional horizontal flip
// -> optional (uint8 / 255 - mean) / std, reading uint8 [..., C, H, W] and writing [..., C, OH, OW] directly.
//
// Parity: the result is bit-identical to torch's uint8 `interpolate(mode="bilinear", antialias=True,
// align_corners=False)` on the cropped region (the AVX2/AVX512 path torchvision uses on CPU): the same
// double-precision filter weights, the same int16 fixed-point rounding and precision choice per axis, the same
// order (horizontal pass rounded to uint8, then vertical pass rounded to uint8). torchvision's pipeline resizes
// uint8 and only then converts to float, so the float output is exactly f(v) = v * (1/255 / std) - mean / std of
// that uint8 value (within a few float ulps of torchvision's (v * (1/255) - mean) / std).
//
// Why this shape: torch's fastest uint8 kernel wants channels-last and converting CHW -> HWC costs more than the
// whole resize; a per-pixel horizontal gather on CHW is scalar. On CPUs with AVX2 (checked at run time) both
// passes work on the plane as it is with int16 multiply-adds (vpmaddwd): the horizontal pass gathers each group
// of 4 outputs' taps from one 16-byte load with a precomputed byte shuffle, the vertical pass interleaves row
// pairs (~50 us per 480x640 -> 256x341 plane). Elsewhere both passes are contiguous, auto-vectorized
// multiply-adds: the horizontal pass runs on a transposed copy of the needed input rows (16x16 SSE2 byte
// transposes), so every tap is a contiguous row of the transposed plane.
// No -ffast-math: the arithmetic is integer until the final affine map.

#include <Python.h>

#include <array>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "resize_kernel.h"

namespace jitvision_native {
namespace {

// ---- the ops --------------------------------------------------------------------------------------------------

at::Tensor run(const at::Tensor& image, int64_t crop_top, int64_t crop_left, int64_t crop_h, int64_t crop_w,
               int64_t out_h, int64_t out_w, int64_t win_top, int64_t win_left, int64_t win_h, int64_t win_w,
               bool flip, const std::optional<at::ArrayRef<double>>& mean,
               const std::optional<at::ArrayRef<double>>& std, bool to_float) {
  TORCH_CHECK(image.device().is_cpu(), "jitvision_native: expected a CPU tensor, got ", image.device());
  TORCH_CHECK(image.scalar_type() == at::kByte, "jitvision_native: expected a uint8 image, got ",
              image.scalar_type());
  TORCH_CHECK(image.dim() >= 3, "jitvision_native: expected an image of shape [..., C, H, W], got ", image.sizes());
  const int64_t C = image.size(-3), H = image.size(-2), W = image.size(-1);
  TORCH_CHECK(crop_h > 0 && crop_w > 0 && crop_top >= 0 && crop_left >= 0 && crop_top + crop_h <= H &&
                  crop_left + crop_w <= W,
              "jitvision_native: crop box (top=", crop_top, ", left=", crop_left, ", height=", crop_h,
              ", width=", crop_w, ") is outside the ", H, "x", W, " image");
  TORCH_CHECK(out_h > 0 && out_w > 0 && win_h > 0 && win_w > 0, "jitvision_native: sizes must be positive");
  const bool has_norm = mean.has_value() || std.has_value();
  TORCH_CHECK(!has_norm || (mean.has_value() && std.has_value() && static_cast<int64_t>(mean->size()) == C &&
                            static_cast<int64_t>(std->size()) == C),
              "jitvision_native: mean and std must both be given with one value per channel (", C, ")");
  TORCH_CHECK(!has_norm || to_float, "jitvision_native: mean/std need to_float=True");

  auto sizes = image.sizes().vec();
  sizes[sizes.size() - 2] = win_h;
  sizes[sizes.size() - 1] = win_w;
  at::Tensor out = at::empty(sizes, image.options().dtype(to_float ? at::kFloat : at::kByte));
  if (out.numel() == 0) return out;
  const at::Tensor batch = image.reshape({-1, C, H, W});
  const int64_t N = batch.size(0);
  // The plan depends only on the geometry, which consecutive calls often repeat (fixed-size frames, a loop over
  // same-sized images), and building it costs ~20 us (double-precision filter weights, the AVX2 shuffle tables):
  // keep the last one per thread.
  thread_local std::array<int64_t, 9> plan_key{-1};
  thread_local Plan plan;
  const std::array<int64_t, 9> key{crop_h, crop_w, out_h, out_w, win_top, win_left, win_h, win_w, flip};
  if (key != plan_key) {
    plan = make_plan(crop_h, crop_w, out_h, out_w, win_top, win_left, win_h, win_w, flip);
    plan_key = key;
  }
  thread_local Buffers buf;  // reused across calls: fresh large buffers would page-fault every call
  const uint8_t* base = batch.data_ptr<uint8_t>();
  const int64_t sn = batch.stride(0), sc = batch.stride(1), sh = batch.stride(2), sw = batch.stride(3);
  const int64_t plane_out = win_h * win_w;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const uint8_t* plane = base + n * sn + c * sc + crop_top * sh + crop_left * sw;
      const int64_t o = (n * C + c) * plane_out;
      if (to_float) {
        // v / 255 then (x - mean) / std, as one affine map.
        const double s = has_norm ? (*std)[c] : 1.0, m = has_norm ? (*mean)[c] : 0.0;
        const float a = static_cast<float>(1.0 / (255.0 * s)), b = static_cast<float>(-m / s);
        run_plane(plan, plane, sh, sw, win_h, win_w, buf, nullptr, out.data_ptr<float>() + o, a, b);
      } else {
        run_plane(plan, plane, sh, sw, win_h, win_w, buf, out.data_ptr<uint8_t>() + o, nullptr, 0.f, 0.f);
      }
    }
  }
  return out;
}

bool read_flip(const std::optional<at::Tensor>& flip) {
  if (!flip.has_value()) return false;
  TORCH_CHECK(flip->numel() == 1, "jitvision_native: flip must hold one value, got shape ", flip->sizes());
  return flip->to(at::kCPU).item<bool>();
}

at::Tensor resized_crop(const at::Tensor& image, const at::Tensor& box, const std::optional<at::Tensor>& flip,
                        at::IntArrayRef size, std::optional<at::ArrayRef<double>> mean,
                        std::optional<at::ArrayRef<double>> std, bool to_float) {
  TORCH_CHECK(box.numel() == 4, "jitvision_native.resized_crop: box must hold [top, left, height, width], got shape ",
              box.sizes());
  TORCH_CHECK(size.size() == 2, "jitvision_native.resized_crop: size must be [height, width], got ", size);
  const at::Tensor b = box.to(at::kCPU, at::kLong).contiguous();
  const int64_t* v = b.data_ptr<int64_t>();
  return run(image, v[0], v[1], v[2], v[3], size[0], size[1], 0, 0, size[0], size[1], read_flip(flip), mean, std,
             to_float);
}

// torchvision's resized output size for Resize(size, max_size).
std::pair<int64_t, int64_t> resized_size(int64_t h, int64_t w, at::IntArrayRef size, std::optional<int64_t> max_size) {
  const int64_t shorter = std::min(h, w), longer = std::max(h, w);
  int64_t new_short, new_long;
  if (size.empty()) {
    TORCH_CHECK(max_size.has_value(), "jitvision_native.resize: max_size is needed when size is empty");
    new_short = static_cast<int64_t>(static_cast<double>(*max_size) * shorter / longer);
    new_long = *max_size;
  } else if (size.size() == 1) {
    new_short = size[0];
    new_long = static_cast<int64_t>(static_cast<double>(size[0]) * longer / shorter);
    if (max_size.has_value()) {
      TORCH_CHECK(*max_size > size[0], "jitvision_native.resize: max_size must be larger than size");
      if (new_long > *max_size) {
        new_short = static_cast<int64_t>(static_cast<double>(*max_size) * new_short / new_long);
        new_long = *max_size;
      }
    }
  } else {
    TORCH_CHECK(size.size() == 2, "jitvision_native.resize: size must have 0, 1 or 2 values, got ", size);
    return {size[0], size[1]};
  }
  return w <= h ? std::make_pair(new_long, new_short) : std::make_pair(new_short, new_long);
}

// torchvision's center_crop offset along one axis (negative where the crop pads).
int64_t center_offset(int64_t extent, int64_t crop) {
  if (crop > extent) return -((crop - extent) / 2);
  return static_cast<int64_t>(std::nearbyint((extent - crop) / 2.0));  // round half to even, like Python
}

at::Tensor resize_center_crop(const at::Tensor& image, at::IntArrayRef size, std::optional<int64_t> max_size,
                              at::OptionalIntArrayRef crop_size, std::optional<at::ArrayRef<double>> mean,
                              std::optional<at::ArrayRef<double>> std, bool to_float) {
  TORCH_CHECK(image.dim() >= 3, "jitvision_native.resize: expected an image of shape [..., C, H, W], got ",
              image.sizes());
  const int64_t H = image.size(-2), W = image.size(-1);
  const auto [rh, rw] = resized_size(H, W, size, max_size);
  int64_t ch = rh, cw = rw;
  if (crop_size.has_value()) {
    TORCH_CHECK(crop_size->size() == 2, "jitvision_native.resize: crop_size must be [height, width]");
    ch = (*crop_size)[0];
    cw = (*crop_size)[1];
  }
  return run(image, 0, 0, H, W, rh, rw, center_offset(rh, ch), center_offset(rw, cw), ch, cw, false, mean, std,
             to_float);
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY(jitvision_native, m) {
  m.def(
      "resized_crop(Tensor image, Tensor box, Tensor? flip, int[] size, float[]? mean=None, float[]? std=None, "
      "bool to_float=False) -> Tensor");
  m.def(
      "resize_center_crop(Tensor image, SymInt[] size, SymInt? max_size=None, SymInt[]? crop_size=None, float[]? mean=None, "
      "float[]? std=None, bool to_float=False) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("resized_crop", &jitvision_native::resized_crop);
  m.impl("resize_center_crop", &jitvision_native::resize_center_crop);
}

// A Python module whose import registers the ops above.
static PyModuleDef jitvision_native_module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&jitvision_native_module); }
