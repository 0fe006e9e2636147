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

#include <array>
#include <cmath>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include "decode.h"
#include "resize_kernel.h"

namespace jitvision_native {
namespace {

// ---- the ops --------------------------------------------------------------------------------------------------

// The largest extent (input, crop, output or window side) the kernel takes: the plan holds per-output vectors and
// the filter code computes in int/double, so larger values are refused rather than wrapped.
constexpr int64_t kMaxExtent = int64_t{1} << 31;

bool in_range(int64_t v) { return v >= 0 && v <= kMaxExtent; }

// `into`, when given, is the contiguous output to write (a row of a batch's output); else one is allocated.
at::Tensor run(const at::Tensor& image, int64_t crop_top, int64_t crop_left, int64_t crop_h, int64_t crop_w,
               int64_t out_h, int64_t out_w, int64_t win_top, int64_t win_left, int64_t win_h, int64_t win_w,
               bool flip, const std::optional<at::ArrayRef<double>>& mean,
               const std::optional<at::ArrayRef<double>>& std, bool to_float,
               const at::Tensor* into = nullptr) {
  TORCH_CHECK(image.device().is_cpu(), "jitvision_native: expected a CPU tensor, got ", image.device());
  TORCH_CHECK_TYPE(image.scalar_type() == at::kByte, "jitvision_native: expected a uint8 image, got ",
                   image.scalar_type());
  TORCH_CHECK_VALUE(image.dim() >= 3, "jitvision_native: expected an image of shape [..., C, H, W], got ",
                    image.sizes());
  const int64_t C = image.size(-3), H = image.size(-2), W = image.size(-1);
  // Every comparison is written so that no intermediate can overflow: the coordinates come from users (and
  // random draws) as arbitrary int64, and `top + height <= H` wraps around for a top near 2^63.
  TORCH_CHECK_VALUE(crop_h > 0 && crop_w > 0 && crop_top >= 0 && crop_left >= 0 && crop_h <= H - crop_top &&
                        crop_w <= W - crop_left,
                    "jitvision_native: crop box (top=", crop_top, ", left=", crop_left, ", height=", crop_h,
                    ", width=", crop_w, ") is outside the ", H, "x", W, " image");
  TORCH_CHECK_VALUE(out_h > 0 && out_w > 0 && win_h > 0 && win_w > 0,
                    "jitvision_native: output sizes must be positive, got ", out_h, "x", out_w, " (window ", win_h,
                    "x", win_w, ")");
  TORCH_CHECK_VALUE(in_range(H) && in_range(W) && in_range(out_h) && in_range(out_w) && in_range(win_h) &&
                        in_range(win_w) && std::abs(win_top) <= kMaxExtent && std::abs(win_left) <= kMaxExtent,
                    "jitvision_native: sizes above 2^31 are not supported (image ", H, "x", W, ", output ", out_h,
                    "x", out_w, ", window ", win_h, "x", win_w, " at ", win_top, ", ", win_left, ")");
  const bool has_norm = mean.has_value() || std.has_value();
  TORCH_CHECK_VALUE(!has_norm || (mean.has_value() && std.has_value() && static_cast<int64_t>(mean->size()) == C &&
                            static_cast<int64_t>(std->size()) == C),
              "jitvision_native: mean and std must both be given with one value per channel (", C, ")");
  TORCH_CHECK_VALUE(!has_norm || to_float, "jitvision_native: mean/std need to_float=True");

  auto sizes = image.sizes().vec();
  sizes[sizes.size() - 2] = win_h;
  sizes[sizes.size() - 1] = win_w;
  at::Tensor out = into != nullptr ? *into : at::empty(sizes, image.options().dtype(to_float ? at::kFloat : at::kByte));
  TORCH_CHECK(out.is_contiguous() && out.sizes() == at::IntArrayRef(sizes), "jitvision_native: bad output buffer");
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
  const int64_t sn = batch.stride(0), sc = batch.stride(1), sw = batch.stride(3);
  const int64_t plane_out = win_h * win_w;
  const int64_t nrows = plan.row_end - plan.row_begin, ncols = plan.col_end - plan.col_begin;
  for (int64_t n = 0; n < N; ++n) {
    // The window the plan reads, per channel: in place when rows are contiguous, else split out of the
    // channels-last layout once for all channels.
    int64_t sh = batch.stride(2), channel_step = sc;
    const uint8_t* window = base + n * sn + (crop_top + plan.row_begin) * sh + (crop_left + plan.col_begin) * sw;
    if (sw != 1) {
      buf.planes.resize(static_cast<size_t>(C * nrows * ncols));
      split_channels(window, sh, sw, sc, C, nrows, ncols, buf.planes.data());
      window = buf.planes.data();
      sh = ncols;
      channel_step = nrows * ncols;
    }
    for (int64_t c = 0; c < C; ++c) {
      const uint8_t* plane = window + c * channel_step;
      const int64_t o = (n * C + c) * plane_out;
      if (to_float) {
        // v / 255 then (x - mean) / std, as one affine map.
        const double s = has_norm ? (*std)[c] : 1.0, m = has_norm ? (*mean)[c] : 0.0;
        const float a = static_cast<float>(1.0 / (255.0 * s)), b = static_cast<float>(-m / s);
        run_plane(plan, plane, sh, win_h, win_w, buf, nullptr, out.data_ptr<float>() + o, a, b);
      } else {
        run_plane(plan, plane, sh, win_h, win_w, buf, out.data_ptr<uint8_t>() + o, nullptr, 0.f, 0.f);
      }
    }
  }
  return out;
}

bool read_flip(const std::optional<at::Tensor>& flip) {
  if (!flip.has_value()) return false;
  TORCH_CHECK_VALUE(flip->numel() == 1, "jitvision_native: flip must hold one value, got shape ", flip->sizes());
  return flip->to(at::kCPU).item<bool>();
}

// One box per row of a batch: `box` is [*lead, 4] and `flip` (if given) [*lead], where `lead` are the image's
// leading dimensions; each row is cropped, resized and flipped with its own values, written into one output.
at::Tensor resized_crop_rows(const at::Tensor& image, const at::Tensor& box, const std::optional<at::Tensor>& flip,
                             at::IntArrayRef size, std::optional<at::ArrayRef<double>> mean,
                             std::optional<at::ArrayRef<double>> std, bool to_float) {
  const int64_t lead = box.dim() - 1;
  TORCH_CHECK_VALUE(size[0] > 0 && size[1] > 0 && in_range(size[0]) && in_range(size[1]),
                    "jitvision_native.resized_crop: size must be positive (at most 2^31), got ", size);
  TORCH_CHECK_VALUE(box.size(-1) == 4 && image.dim() >= lead + 3 && image.sizes().slice(0, lead) == box.sizes().slice(0, lead),
              "jitvision_native.resized_crop: a box per row must have shape [*leading dims of the image, 4], got box ",
              box.sizes(), " for an image of shape ", image.sizes());
  const at::Tensor rows = image.flatten(0, lead - 1);
  const at::Tensor b = box.to(at::kCPU, at::kLong).reshape({-1, 4}).contiguous();
  at::Tensor f;
  if (flip.has_value()) {
    TORCH_CHECK_VALUE(flip->numel() == rows.size(0), "jitvision_native.resized_crop: flip must hold one value per row");
    f = flip->to(at::kCPU, at::kBool).reshape({-1}).contiguous();
  }
  auto sizes = rows.sizes().vec();
  sizes[sizes.size() - 2] = size[0];
  sizes[sizes.size() - 1] = size[1];
  at::Tensor out = at::empty(sizes, image.options().dtype(to_float ? at::kFloat : at::kByte));
  const int64_t* v = b.data_ptr<int64_t>();
  // Rows are independent (each writes its own slice; the plan and buffers are per thread): parallel over rows on
  // torch's intra-op pool, the same result for any thread count.
  at::parallel_for(0, rows.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const at::Tensor row_out = out.select(0, n);
      const bool flip_row = f.defined() && f.data_ptr<bool>()[n];
      run(rows.select(0, n), v[4 * n], v[4 * n + 1], v[4 * n + 2], v[4 * n + 3], size[0], size[1], 0, 0, size[0],
          size[1], flip_row, mean, std, to_float, &row_out);
    }
  });
  auto out_sizes = image.sizes().vec();
  out_sizes[out_sizes.size() - 2] = size[0];
  out_sizes[out_sizes.size() - 1] = size[1];
  return out.view(out_sizes);
}

at::Tensor resized_crop(const at::Tensor& image, const at::Tensor& box, const std::optional<at::Tensor>& flip,
                        at::IntArrayRef size, std::optional<at::ArrayRef<double>> mean,
                        std::optional<at::ArrayRef<double>> std, bool to_float) {
  TORCH_CHECK_VALUE(size.size() == 2, "jitvision_native.resized_crop: size must be [height, width], got ", size);
  if (box.dim() >= 2 && box.numel() != 4) return resized_crop_rows(image, box, flip, size, mean, std, to_float);
  TORCH_CHECK_VALUE(box.numel() == 4,
                    "jitvision_native.resized_crop: box must hold [top, left, height, width], got shape ", box.sizes());
  const at::Tensor b = box.to(at::kCPU, at::kLong).contiguous();
  const int64_t* v = b.data_ptr<int64_t>();
  return run(image, v[0], v[1], v[2], v[3], size[0], size[1], 0, 0, size[0], size[1], read_flip(flip), mean, std,
             to_float);
}

// ---- RandomResizedCrop [+ RandomHorizontalFlip] with the draw inside ----------------------------------------
//
// Why the draw is here too: drawn in Python, the crop costs ~40 us of small tensor ops and float math per eager
// call, and under torch.compile it becomes a random kernel, a box kernel and a graph of three nodes whose
// launch costs more than the draw. Inside the op, eager Compose is one call and the compiled graph one node.
// The draw is the transforms' own (RandomResizedCrop._uniforms / _draw_eager, RandomApplyTransform._draw): the
// same torch.rand calls on the same generator in the same order (3x10 float64 uniforms, then one float32 coin),
// and the same double arithmetic with the same libm exp/sqrt/log, so a seed gives the same crop and flip as the
// unfused transforms (tests/test_native.py checks that over thousands of draws). No FMA contraction can change
// it: this file is compiled for the baseline x86-64/aarch64 target, the AVX2 code lives in target-attributed
// kernels only.

std::array<int64_t, 4> draw_crop_box(int64_t H, int64_t W, at::ArrayRef<double> scale, at::ArrayRef<double> ratio,
                                     const std::optional<at::Generator>& generator) {
  const at::Tensor u = at::rand({3, 10}, generator, at::TensorOptions().dtype(at::kDouble));
  const double* v = u.data_ptr<double>();  // rows: area fractions, log-ratios, the position
  const double area = static_cast<double>(H) * static_cast<double>(W);
  const double log_lo = std::log(ratio[0]), log_hi = std::log(ratio[1]);
  for (int i = 0; i < 10; ++i) {
    const double target_area = (v[i] * (scale[1] - scale[0]) + scale[0]) * area;
    const double log_ratio = v[10 + i] * (log_hi - log_lo) + log_lo;
    // Compared as doubles before any cast: a NaN or huge candidate (extreme scale/ratio) simply does not fit.
    const double hd = std::nearbyint(std::sqrt(target_area * std::exp(-log_ratio)));
    const double wd = std::nearbyint(std::sqrt(target_area * std::exp(log_ratio)));
    if (0 < hd && hd <= static_cast<double>(H) && 0 < wd && wd <= static_cast<double>(W)) {
      const auto h = static_cast<int64_t>(hd), w = static_cast<int64_t>(wd);
      const auto top = std::min(static_cast<int64_t>(std::floor(v[20] * static_cast<double>(H - h + 1))), H - h);
      const auto left = std::min(static_cast<int64_t>(std::floor(v[21] * static_cast<double>(W - w + 1))), W - w);
      return {top, left, h, w};
    }
  }
  // torchvision's fallback: the whole image, its aspect ratio clamped into `ratio`, centred.
  const double in_ratio = static_cast<double>(W) / static_cast<double>(H);
  int64_t h = H, w = W;
  // in_ratio < ratio[0] makes W / ratio[0] < H, and in_ratio > ratio[1] makes H * ratio[1] < W: both casts are
  // in range (ratio is finite and positive, checked by the caller).
  if (in_ratio < ratio[0]) {
    h = static_cast<int64_t>(std::nearbyint(static_cast<double>(W) / ratio[0]));
  } else if (in_ratio > ratio[1]) {
    w = static_cast<int64_t>(std::nearbyint(static_cast<double>(H) * ratio[1]));
  }
  // At least one pixel: for an extreme ratio the rounding gives 0, which torchvision then fails to crop.
  h = std::max(h, int64_t{1});
  w = std::max(w, int64_t{1});
  return {(H - h) / 2, (W - w) / 2, h, w};
}

at::Tensor random_resized_crop(const at::Tensor& image, at::IntArrayRef size, at::ArrayRef<double> scale,
                               at::ArrayRef<double> ratio, std::optional<double> flip_p,
                               std::optional<at::ArrayRef<double>> mean, std::optional<at::ArrayRef<double>> std,
                               bool to_float, std::optional<at::Generator> crop_generator,
                               std::optional<at::Generator> flip_generator) {
  TORCH_CHECK_VALUE(image.dim() >= 3,
                    "jitvision_native.random_resized_crop: expected an image of shape [..., C, H, W], got ",
                    image.sizes());
  TORCH_CHECK_VALUE(image.size(-2) > 0 && image.size(-1) > 0,
                    "jitvision_native.random_resized_crop: the image is empty: ", image.sizes());
  TORCH_CHECK_VALUE(size.size() == 2, "jitvision_native.random_resized_crop: size must be [height, width], got ",
                    size);
  TORCH_CHECK_VALUE(scale.size() == 2 && ratio.size() == 2 && std::isfinite(scale[0]) && std::isfinite(scale[1]) &&
                        std::isfinite(ratio[0]) && std::isfinite(ratio[1]) && 0 <= scale[0] &&
                        scale[0] <= scale[1] && 0 < ratio[0] && ratio[0] <= ratio[1],
                    "jitvision_native.random_resized_crop: scale and ratio must be finite (min, max) pairs with "
                    "scale >= 0 and ratio > 0, got scale=", scale, ", ratio=", ratio);
  const auto box = draw_crop_box(image.size(-2), image.size(-1), scale, ratio, crop_generator);
  bool flip = false;
  if (flip_p.has_value()) {
    const at::Tensor coin = at::rand({}, flip_generator, at::TensorOptions().dtype(at::kFloat));
    flip = coin.item<float>() < static_cast<float>(*flip_p);  // float32 against float32, as `coin < p` in torch
  }
  return run(image, box[0], box[1], box[2], box[3], size[0], size[1], 0, 0, size[0], size[1], flip, mean, std,
             to_float);
}

// ---- a random flip under torch.compile ----------------------------------------------------------------------
//
// A compiled random flip needs the coin as a tensor. As torch.where(coin, x.flip(-1), x) inductor computes both
// branches with a scalar reversed-index loop: 170 us for 4x224x224 uint8 masks, 650 us fused with a normalize,
// where torch's own flip takes 9 us. This op reads the coin and calls torch's flip (or clones), on any device.
// On a batch, `apply` has the shape of the input's leading dimensions and each row is flipped or copied.
at::Tensor flip_if(const at::Tensor& input, const at::Tensor& apply, at::IntArrayRef dims) {
  if (apply.dim() == 0) return apply.item<bool>() ? at::flip(input, dims) : input.clone();
  TORCH_CHECK_VALUE(input.dim() > apply.dim() && input.sizes().slice(0, apply.dim()) == apply.sizes(),
              "jitvision_native.flip_if: apply must be a scalar or have the shape of the input's leading dimensions, "
              "got ", apply.sizes(), " for an input of shape ", input.sizes());
  const at::Tensor rows = input.flatten(0, apply.dim() - 1);
  const at::Tensor a = apply.to(at::kCPU, at::kBool).reshape({-1}).contiguous();
  at::Tensor out = at::empty_like(rows, at::MemoryFormat::Contiguous);
  for (int64_t n = 0; n < rows.size(0); ++n) {
    out.select(0, n).copy_(a.data_ptr<bool>()[n] ? at::flip(rows.select(0, n), dims) : rows.select(0, n));
  }
  return out.view(input.sizes());
}

// torchvision's resized output size for Resize(size, max_size).
std::pair<int64_t, int64_t> resized_size(int64_t h, int64_t w, at::IntArrayRef size, std::optional<int64_t> max_size) {
  TORCH_CHECK_VALUE(h > 0 && w > 0 && in_range(h) && in_range(w),
                    "jitvision_native.resize: expected a non-empty image of at most 2^31 per side, got ", h, "x", w);
  for (const int64_t s : size) {
    TORCH_CHECK_VALUE(s > 0 && in_range(s), "jitvision_native.resize: size must be positive (at most 2^31), got ",
                      size);
  }
  TORCH_CHECK_VALUE(!max_size.has_value() || (*max_size > 0 && in_range(*max_size)),
                    "jitvision_native.resize: max_size must be positive (at most 2^31)");
  const int64_t shorter = std::min(h, w), longer = std::max(h, w);
  int64_t new_short, new_long;
  if (size.empty()) {
    TORCH_CHECK_VALUE(max_size.has_value(), "jitvision_native.resize: max_size is needed when size is empty");
    new_short = static_cast<int64_t>(static_cast<double>(*max_size) * shorter / longer);
    new_long = *max_size;
  } else if (size.size() == 1) {
    new_short = size[0];
    const double scaled = static_cast<double>(size[0]) * static_cast<double>(longer) / static_cast<double>(shorter);
    TORCH_CHECK_VALUE(scaled <= static_cast<double>(kMaxExtent), "jitvision_native.resize: the longer side of ",
                      h, "x", w, " resized to ", size[0], " exceeds 2^31");
    new_long = static_cast<int64_t>(scaled);
    if (max_size.has_value()) {
      TORCH_CHECK_VALUE(*max_size > size[0], "jitvision_native.resize: max_size must be larger than size");
      if (new_long > *max_size) {
        new_short = static_cast<int64_t>(static_cast<double>(*max_size) * new_short / new_long);
        new_long = *max_size;
      }
    }
  } else {
    TORCH_CHECK_VALUE(size.size() == 2, "jitvision_native.resize: size must have 0, 1 or 2 values, got ", size);
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
  TORCH_CHECK_VALUE(image.dim() >= 3, "jitvision_native.resize: expected an image of shape [..., C, H, W], got ",
                    image.sizes());
  const int64_t H = image.size(-2), W = image.size(-1);
  const auto [rh, rw] = resized_size(H, W, size, max_size);
  int64_t ch = rh, cw = rw;
  if (crop_size.has_value()) {
    TORCH_CHECK_VALUE(crop_size->size() == 2, "jitvision_native.resize: crop_size must be [height, width]");
    ch = (*crop_size)[0];
    cw = (*crop_size)[1];
    TORCH_CHECK_VALUE(ch > 0 && cw > 0 && in_range(ch) && in_range(cw),
                      "jitvision_native.resize: crop_size must be positive (at most 2^31), got ", *crop_size);
  }
  return run(image, 0, 0, H, W, rh, rw, center_offset(rh, ch), center_offset(rw, cw), ch, cw, false, mean, std,
             to_float);
}

// The registered kernel takes the schema's SymInts: a boxed caller may pass a list of SymInts (inductor's
// cpp_wrapper does), which a kernel taking IntArrayRef cannot unbox ("Expected IntList but got GenericList").
at::Tensor resize_center_crop_symint(const at::Tensor& image, c10::SymIntArrayRef size,
                                     std::optional<c10::SymInt> max_size, c10::OptionalArrayRef<c10::SymInt> crop_size,
                                     std::optional<at::ArrayRef<double>> mean, std::optional<at::ArrayRef<double>> std,
                                     bool to_float) {
  std::optional<int64_t> max_int;
  if (max_size.has_value()) max_int = max_size->guard_int(__FILE__, __LINE__);
  at::OptionalIntArrayRef crop_int;
  if (crop_size.has_value()) crop_int = C10_AS_INTARRAYREF_SLOW(*crop_size);
  return resize_center_crop(image, C10_AS_INTARRAYREF_SLOW(size), max_int, crop_int, mean, std, to_float);
}

}  // namespace

void resized_crop_into(const at::Tensor& image, int64_t top, int64_t left, int64_t height, int64_t width,
                       int64_t out_h, int64_t out_w, int64_t win_top, int64_t win_left, bool flip,
                       const std::optional<at::ArrayRef<double>>& mean,
                       const std::optional<at::ArrayRef<double>>& std, bool to_float, const at::Tensor& into) {
  run(image, top, left, height, width, out_h, out_w, win_top, win_left, into.size(-2), into.size(-1), flip, mean, std,
      to_float, &into);
}

}  // namespace jitvision_native

TORCH_LIBRARY(jitvision_native, m) {
  m.def(
      "resized_crop(Tensor image, Tensor box, Tensor? flip, int[] size, float[]? mean=None, float[]? std=None, "
      "bool to_float=False) -> Tensor");
  m.def(
      "resize_center_crop(Tensor image, SymInt[] size, SymInt? max_size=None, SymInt[]? crop_size=None, float[]? mean=None, "
      "float[]? std=None, bool to_float=False) -> Tensor");
  // Tagged so that no graph pass merges, drops or reorders two calls: each one advances the RNG.
  m.def(
      "random_resized_crop(Tensor image, int[] size, float[] scale, float[] ratio, float? flip_p=None, "
      "float[]? mean=None, float[]? std=None, bool to_float=False, Generator? crop_generator=None, "
      "Generator? flip_generator=None) -> Tensor",
      {at::Tag::nondeterministic_seeded});
  m.def("flip_if(Tensor input, Tensor apply, int[] dims) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("flip_if", &jitvision_native::flip_if);
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("resized_crop", &jitvision_native::resized_crop);
  m.impl("resize_center_crop", &jitvision_native::resize_center_crop_symint);
  m.impl("random_resized_crop", &jitvision_native::random_resized_crop);
}
