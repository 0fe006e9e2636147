// The float tail of a uint8 pipeline as one pass: to_float_u8(image, mean, std) reads uint8 [..., C, H, W] and
// writes float32 (v / 255 - mean) / std per channel (or v / 255 without mean/std), computed as the fused resize
// does (resize.cpp): f(v) = v * (1 / (255 std)) + (-mean / std), within a few float ulps of ToDtype(float32,
// scale=True) then Normalize. Compose runs it after a uint8 step that ended the fused native prefix (an
// augmentation policy between RandomResizedCrop/flip and ToDtype/Normalize): one read and one write of the image
// instead of ToDtype's and Normalize's passes.
//
// augment_step_u8(image, ops, magnitudes, mode, fill): the steps of an automatic augmentation policy (AutoAugment,
// RandAugment, TrivialAugmentWide, AugMix; transforms/_augment_ops.py numbers the operations) on a uint8 CPU image,
// one op call for all of a sample's steps: ops int64 [K] with magnitudes float64 [K] (one sample, applied in order)
// or [R, K] (the R leading rows of `image` each get their own). Each operation is what apply_op does on a uint8 CPU
// image in eager Python: the affine matrix of shears/rotations in double as affine_matrix computes it, then
// jitvision_native::warp_u8; translations as whole-pixel copies; the photometric ones through adjust_u8,
// sharpness_u8, point_u8, equalize_u8 and autocontrast_u8, called through the dispatcher (their schemas only).
// The drawn ops and magnitudes are read inside, so under torch.compile/export the draw stays live and the graph
// holds one C++ node per call (no Python op: AOTInductor and C++ programs can run it).
//
// augment_random_u8(image, kind, num_ops, magnitude, space, table, translate, probs, mode, fill, rows, generator):
// AutoAugment's, RandAugment's or TrivialAugmentWide's draw (on `generator`, else torch's default CPU generator)
// and then augment_step_u8's steps, in one call; returns (output, ops, magnitudes) with the drawn parameters. One
// draw for the image, or one per leading row with `rows`. Tagged nondeterministic_seeded: a compiled policy call
// is this one node, with no inductor random kernel, and draws afresh each call (see draw_policy below).

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>

#include "color_draw.h"

namespace jitvision_native {
namespace {

at::Tensor to_float_u8(const at::Tensor& image, std::optional<at::ArrayRef<double>> mean,
                       std::optional<at::ArrayRef<double>> std) {
  TORCH_CHECK_VALUE(image.scalar_type() == at::kByte && image.device().is_cpu() && image.dim() >= 3,
                    "jitvision_native.to_float_u8: expected a uint8 CPU image [..., C, H, W], got ",
                    image.scalar_type(), " ", image.sizes());
  const int64_t C = image.size(-3);
  const bool has_norm = mean.has_value() || std.has_value();
  TORCH_CHECK_VALUE(!has_norm || (mean.has_value() && std.has_value() && static_cast<int64_t>(mean->size()) == C &&
                                  static_cast<int64_t>(std->size()) == C),
                    "jitvision_native.to_float_u8: mean and std must both be given with one value per channel (", C,
                    ")");
  const at::Tensor src = image.contiguous();
  at::Tensor out = at::empty(src.sizes(), src.options().dtype(at::kFloat));
  const int64_t plane = image.size(-2) * image.size(-1);
  const int64_t planes = plane == 0 ? 0 : src.numel() / plane;
  const uint8_t* in = src.data_ptr<uint8_t>();
  float* o = out.data_ptr<float>();
  // Planes are independent: parallel over them (rows of a batch), the same result for any thread count.
  at::parallel_for(0, planes, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % C;
      const double s = has_norm ? (*std)[c] : 1.0, m = has_norm ? (*mean)[c] : 0.0;
      const float a = static_cast<float>(1.0 / (255.0 * s)), b = static_cast<float>(-m / s);
      // Computed per pixel (a loop the compiler vectorises; a 256-entry table lookup measured ~4x slower).
      const uint8_t* ip = in + p * plane;
      float* op = o + p * plane;
      for (int64_t i = 0; i < plane; ++i) op[i] = static_cast<float>(ip[i]) * a + b;
    }
  });
  return out;
}


// ---- augment_step_u8 ---------------------------------------------------------------------------------------

using Fill = std::optional<at::ArrayRef<double>>;

at::Tensor call_warp(const at::Tensor& image, const at::Tensor& coefficients, int64_t mode, int64_t period,
                     Fill fill) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("jitvision_native::warp_u8", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, c10::SymInt, c10::SymInt, bool,
                                               int64_t, int64_t, std::optional<at::ArrayRef<double>>)>();
  // warp_u8 returns [G, planes, H, W]: back to the image's shape, so that a following step sees its channels.
  return op.call(image, coefficients, c10::SymInt(image.size(-2)), c10::SymInt(image.size(-1)), false, mode, period,
                 fill)
      .view(image.sizes());
}

at::Tensor call_sharpness(const at::Tensor& image, double factor) {
  static const auto sharpness = c10::Dispatcher::singleton()
                                    .findSchemaOrThrow("jitvision_native::sharpness_u8", "")
                                    .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  return sharpness.call(image, at::scalar_tensor(factor, at::kDouble));
}

at::Tensor call_adjust(const at::Tensor& image, double factor, int64_t op) {
  static const auto adjust = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow("jitvision_native::adjust_u8", "")
                                 .typed<at::Tensor(const at::Tensor&, const at::Tensor&, int64_t)>();
  return adjust.call(image, at::scalar_tensor(factor, at::kDouble), op);
}

at::Tensor call_point(const at::Tensor& image, int64_t op, int64_t arg) {
  static const auto point = c10::Dispatcher::singleton()
                                .findSchemaOrThrow("jitvision_native::point_u8", "")
                                .typed<at::Tensor(const at::Tensor&, int64_t, int64_t)>();
  return point.call(image, op, arg);
}

at::Tensor call_equalize(const at::Tensor& image) {
  static const auto equalize = c10::Dispatcher::singleton()
                                   .findSchemaOrThrow("jitvision_native::equalize_u8", "")
                                   .typed<at::Tensor(const at::Tensor&)>();
  return equalize.call(image);
}

at::Tensor call_autocontrast(const at::Tensor& image) {
  static const auto autocontrast = c10::Dispatcher::singleton()
                                       .findSchemaOrThrow("jitvision_native::autocontrast_u8", "")
                                       .typed<at::Tensor(const at::Tensor&)>();
  return autocontrast.call(image);
}

constexpr double kRadToDeg = 57.295779513082320876798154814105170332405472466564;  // ATen's rad2deg
constexpr double kDegToRad = 0.017453292519943295769236907684886127134428718885417;  // ATen's deg2rad

// affine_matrix(angle, translate, 1, shear, center, inverted=True) of _warp.py, in double, then the float32
// coefficients of affine_coefficients: the x row divided by half the width, the y row by half the height.
at::Tensor affine_coefficients(double angle, double tx, double ty, double shear_x_deg, double shear_y_deg, double cx,
                               double cy, int64_t height, int64_t width) {
  const double rot = angle * kDegToRad, shx = shear_x_deg * kDegToRad, shy = shear_y_deg * kDegToRad;
  const double a = std::cos(rot - shy) / std::cos(shy);
  const double b = -(a * std::tan(shx) + std::sin(rot));
  const double c = std::sin(rot - shy) / std::cos(shy);
  const double d = std::cos(rot) - c * std::tan(shx);
  const double m00 = d, m01 = -b, m10 = -c, m11 = a;
  const double m02 = cx - m00 * (cx + tx) - m01 * (cy + ty);
  const double m12 = cy - m10 * (cx + tx) - m11 * (cy + ty);
  const float hw = static_cast<float>(0.5 * static_cast<double>(width));
  const float hh = static_cast<float>(0.5 * static_cast<double>(height));
  at::Tensor out = at::zeros({1, 8}, at::kFloat);
  float* o = out.data_ptr<float>();
  o[0] = static_cast<float>(m00) / hw;
  o[1] = static_cast<float>(m01) / hw;
  o[2] = static_cast<float>(m02) / hw;
  o[3] = static_cast<float>(m10) / hh;
  o[4] = static_cast<float>(m11) / hh;
  o[5] = static_cast<float>(m12) / hh;
  return out;
}

// The uint8 fill values per channel (_shifted: rounded half to even, clamped to [0, 255]; 0 without a fill).
std::vector<uint8_t> shift_fill(Fill fill, int64_t channels) {
  std::vector<uint8_t> values(channels, 0);
  if (!fill.has_value()) return values;
  for (int64_t c = 0; c < channels; ++c) {
    const double v = std::nearbyint((*fill)[fill->size() == 1 ? 0 : c]);
    values[c] = static_cast<uint8_t>(std::min(std::max(v, 0.0), 255.0));
  }
  return values;
}

// `image` [..., C, H, W] moved by dx columns and dy rows, the uncovered pixels set to the fill.
at::Tensor shifted(const at::Tensor& image, int64_t dx, int64_t dy, Fill fill) {
  const at::Tensor src = image.contiguous();
  const int64_t C = image.size(-3), H = image.size(-2), W = image.size(-1);
  const int64_t plane = H * W, planes = plane == 0 ? 0 : src.numel() / plane;
  const std::vector<uint8_t> values = shift_fill(fill, C);
  at::Tensor out = at::empty(src.sizes(), src.options());
  const uint8_t* in = src.data_ptr<uint8_t>();
  uint8_t* o = out.data_ptr<uint8_t>();
  const bool empty = std::abs(dx) >= W || std::abs(dy) >= H;
  const int64_t x0 = std::max<int64_t>(dx, 0), x1 = W + std::min<int64_t>(dx, 0);
  for (int64_t p = 0; p < planes; ++p) {
    uint8_t* op = o + p * plane;
    const uint8_t* ip = in + p * plane;
    std::memset(op, values[p % C], static_cast<size_t>(plane));
    if (empty) continue;
    for (int64_t y = std::max<int64_t>(dy, 0); y < H + std::min<int64_t>(dy, 0); ++y) {
      std::memcpy(op + y * W + x0, ip + (y - dy) * W + (x0 - dx), static_cast<size_t>(x1 - x0));
    }
  }
  return out;
}

// Operation `op` of _augment_ops.apply_op with magnitude `m` on uint8 `image` [..., C, H, W]; always a new tensor.
at::Tensor apply_op_u8(const at::Tensor& image, int64_t op, double m, int64_t mode, Fill fill) {
  const int64_t C = image.size(-3), H = image.size(-2), W = image.size(-1);
  const int64_t period = fill.has_value() && fill->size() > 1 ? C : 1;
  // As torchvision: a fill is checked where a geometric operation uses it.
  TORCH_CHECK_VALUE(op < 1 || op > 5 || !fill.has_value() || fill->size() == 1 || static_cast<int64_t>(fill->size()) == C,
                    "AutoAugment: fill has ", fill.has_value() ? fill->size() : 0, " values but the image has ", C,
                    " channels");
  switch (op) {
    case 0:
      return image.clone(at::MemoryFormat::Contiguous);
    case 1:
    case 2: {  // shears by atan(m) about the top-left corner
      const double degrees = std::atan(m) * kRadToDeg;
      const double sx = op == 1 ? degrees : 0.0, sy = op == 1 ? 0.0 : degrees;
      const at::Tensor coefficients = affine_coefficients(0.0, 0.0, 0.0, sx, sy, -0.5 * static_cast<double>(W),
                                                          -0.5 * static_cast<double>(H), H, W);
      return call_warp(image, coefficients, mode, period, fill);
    }
    case 3:
    case 4: {  // whole-pixel translations: int(m) (toward zero)
      const double t = std::trunc(m);
      TORCH_CHECK_VALUE(std::abs(t) < 9.0e18, "AutoAugment: translation magnitude out of range: ", m);
      const int64_t shift = static_cast<int64_t>(t);
      return shifted(image, op == 3 ? shift : 0, op == 4 ? shift : 0, fill);
    }
    case 5: {
      if (std::fmod(m, 90.0) == 0.0) {  // rotate's exact special cases (rotate_image)
        double angle = std::fmod(m, 360.0);
        if (angle < 0.0) angle += 360.0;
        if (angle == 0.0) return image.clone(at::MemoryFormat::Contiguous);
        if (angle == 180.0) return at::rot90(image, 2, {-2, -1}).contiguous();
        if (H == W && angle == 90.0) return at::rot90(image, 1, {-2, -1}).contiguous();
        if (H == W && angle == 270.0) return at::rot90(image, 3, {-2, -1}).contiguous();
        return call_warp(image, affine_coefficients(-angle, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, H, W), mode, period, fill);
      }
      return call_warp(image, affine_coefficients(-m, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, H, W), mode, period, fill);
    }
    case 6:
      return call_adjust(image, 1.0 + m, 0);
    case 7:
      if (C == 1) return image.clone(at::MemoryFormat::Contiguous);
      return call_adjust(image, 1.0 + m, 2);
    case 8:
      return call_adjust(image, 1.0 + m, 1);
    case 9:
      if (image.numel() == 0 || H <= 2 || W <= 2) return image.clone(at::MemoryFormat::Contiguous);
      return call_sharpness(image, 1.0 + m);
    case 10: {  // posterize int(m) bits
      const double t = std::trunc(m);
      TORCH_CHECK_VALUE(t >= 0.0 && t <= 8.0, "AutoAugment: posterize bits must be in [0, 8], got ", m);
      const int64_t bits = static_cast<int64_t>(t);
      if (bits >= 8) return image.clone(at::MemoryFormat::Contiguous);
      return call_point(image, 2, 255 ^ ((int64_t{1} << (8 - bits)) - 1));
    }
    case 11: {  // solarize at m of the range: the first level inverted is ceil(255 m), at least 0
      const double cut = std::max(0.0, std::ceil(255.0 * m));
      TORCH_CHECK_VALUE(cut <= 256.0, "AutoAugment: solarize threshold above the range: ", m);
      return call_point(image, 1, static_cast<int64_t>(cut));
    }
    case 12:
      if (image.numel() == 0) return image.clone(at::MemoryFormat::Contiguous);
      return call_autocontrast(image);
    case 13:
      if (image.numel() == 0) return image.clone(at::MemoryFormat::Contiguous);
      return call_equalize(image);
    case 14:
      return call_point(image, 0, 0);
    default:
      TORCH_CHECK_VALUE(false, "AutoAugment: unknown operation ", op, " (0-14)");
  }
}

void check_steps_input(const at::Tensor& image, int64_t mode) {
  TORCH_CHECK_TYPE(image.scalar_type() == at::kByte && image.device().is_cpu(),
                   "AutoAugment: augment_step_u8 takes uint8 CPU images, got ", image.scalar_type(), " on ",
                   image.device());
  TORCH_CHECK_VALUE(image.dim() >= 3, "AutoAugment: expected an image [..., C, H, W], got ", image.dim(),
                    " dimensions");
  TORCH_CHECK_VALUE(mode == 0 || mode == 1, "AutoAugment: augment_step_u8 mode must be 0 (nearest) or 1 (bilinear)");
}

// The steps op_p/mag_p ([K] for the whole image when R < 0, [R, K] for its R leading rows) on a checked image.
at::Tensor apply_steps(const at::Tensor& image, const int64_t* op_p, const double* mag_p, int64_t K, int64_t R,
                       int64_t mode, Fill fill) {
  const int64_t C = image.size(-3), H = image.size(-2), W = image.size(-1);
  auto run = [&](const at::Tensor& sample, int64_t row) {
    at::Tensor x = sample;
    bool fresh = false;
    for (int64_t k = 0; k < K; ++k) {
      const int64_t op = op_p[row * K + k];
      if (op == 0) continue;  // Identity
      x = apply_op_u8(x, op, mag_p[row * K + k], mode, fill);
      fresh = true;
    }
    return fresh ? x : x.clone(at::MemoryFormat::Contiguous);
  };
  if (R < 0) return run(image, 0).view(image.sizes());
  at::Tensor out = at::empty(image.sizes(), image.options().memory_format(at::MemoryFormat::Contiguous));
  if (image.numel() == 0) return out;
  TORCH_CHECK_VALUE(R > 0 && image.numel() % (R * C * H * W) == 0, "AutoAugment: ", R,
                    " rows of operations for an image of shape ", image.sizes());
  const at::Tensor rows = image.reshape({R, -1, C, H, W});
  const at::Tensor out_rows = out.view({R, -1, C, H, W});
  for (int64_t r = 0; r < R; ++r) out_rows.select(0, r).copy_(run(rows.select(0, r), r));
  return out;
}

at::Tensor augment_step_u8(const at::Tensor& image, const at::Tensor& ops, const at::Tensor& magnitudes, int64_t mode,
                           Fill fill) {
  check_steps_input(image, mode);
  TORCH_CHECK_VALUE((ops.dim() == 1 || ops.dim() == 2) && ops.sizes() == magnitudes.sizes(),
                    "AutoAugment: ops and magnitudes must both be [K] or [R, K], got ", ops.sizes(), " and ",
                    magnitudes.sizes());
  const at::Tensor op_t = ops.to(at::kCPU, at::kLong).contiguous();
  const at::Tensor mag_t = magnitudes.to(at::kCPU, at::kDouble).contiguous();
  return apply_steps(image, op_t.data_ptr<int64_t>(), mag_t.data_ptr<double>(), ops.size(-1),
                     ops.dim() == 1 ? -1 : ops.size(0), mode, fill);
}

// ---- augment_random_u8: the policy's draw inside -------------------------------------------------------------
//
// The draw of _auto_augment.py's _draw_batch (AutoAugment, RandAugment, TrivialAugmentWide) per row, bit for bit:
// the same float32 uniforms on the same generator in the same order (color_draw.h: torch.rand's serial draw), the
// same float32 products for the integer draws (`_randint`: floor(u * n) clamped to n - 1), the float32 bins of the
// magnitude table (relative translations: torch.linspace's float32 values at the image size), a negative sign
// where the sign uniform is <= 0.5 for the signed operations (1-9), AutoAugment's steps kept where their uniform is
// <= the float32 probability. So a seed gives the parameters of the Python draw, and the distribution is its own.
//
// The policy, as _AutoAugmentBase._native_spec builds it:
// - kind 0 AutoAugment: `space` holds [op, bin, op, bin] per sub-policy, `probs` [p, p] per sub-policy; K = 2,
//   5 uniforms a row (sub-policy, two coins, two signs);
// - kind 1 RandAugment: `space` the candidate op ids, K = num_ops steps at bin `magnitude`, 2 uniforms a step
//   (operation, sign);
// - kind 2 TrivialAugmentWide: `space` the candidate op ids, K = 1, 3 uniforms (operation, bin, sign).
// `space` is int64, `table` the float32 [15, bins] magnitude table by op id, `probs` float32 ([] but for
// AutoAugment): tensors, as a long list argument costs ~0.1 us per value to convert on every call. `translate` is []
// (translations in the table) or [mul, div]: the translations' bins are linspace(0, mul * extent / div, bins).

int64_t randint_f32(float u, int64_t n) {
  const float product = u * static_cast<float>(n);  // float32, as torch's float tensor times an int
  return std::min(static_cast<int64_t>(std::floor(product)), n - 1);
}

int64_t policy_steps(int64_t kind, int64_t num_ops) { return kind == 0 ? 2 : (kind == 1 ? num_ops : 1); }

void draw_policy(int64_t kind, int64_t num_ops, int64_t magnitude, const at::Tensor& space_t,
                 const at::Tensor& table_t, at::ArrayRef<double> translate, const at::Tensor& probs_t, int64_t rows,
                 int64_t H, int64_t W, const std::optional<at::Generator>& generator, int64_t* ops, double* mags) {
  TORCH_CHECK_VALUE(kind >= 0 && kind <= 2, "AutoAugment: augment_random_u8 kind must be 0, 1 or 2, got ", kind);
  TORCH_CHECK_VALUE(space_t.scalar_type() == at::kLong && space_t.dim() == 1 && space_t.device().is_cpu() &&
                        table_t.scalar_type() == at::kFloat && table_t.dim() == 2 && table_t.size(0) == 15 &&
                        table_t.size(1) > 0 && table_t.device().is_cpu() && probs_t.scalar_type() == at::kFloat &&
                        probs_t.dim() == 1 && probs_t.device().is_cpu() && (translate.empty() || translate.size() == 2),
                    "AutoAugment: augment_random_u8 needs int64 space [S], a float32 table [15, bins], float32 probs "
                    "[P] (CPU) and [] or [mul, div] translations");
  const at::Tensor space_c = space_t.contiguous(), table_c = table_t.contiguous(), probs_c = probs_t.contiguous();
  const int64_t* space = space_c.data_ptr<int64_t>();
  const float* table = table_c.data_ptr<float>();
  const float* probs = probs_c.data_ptr<float>();
  const int64_t bins = table_t.size(1), S = space_t.size(0);
  TORCH_CHECK_VALUE(kind == 0 ? (S > 0 && S % 4 == 0 && probs_t.size(0) * 2 == S) : S > 0,
                    "AutoAugment: augment_random_u8 got an inconsistent policy");
  TORCH_CHECK_VALUE(kind != 1 || (num_ops >= 0 && magnitude >= 0 && magnitude < bins),
                    "AutoAugment: augment_random_u8 needs num_ops >= 0 and a magnitude bin in [0, ", bins, ")");
  for (int64_t i = 0; i < S; ++i) {
    const bool is_bin = kind == 0 && i % 2 == 1;
    TORCH_CHECK_VALUE(space[i] >= 0 && space[i] < (is_bin ? bins : 15),
                      "AutoAugment: augment_random_u8 got an operation or bin out of range");
  }
  const int64_t K = policy_steps(kind, num_ops);
  const int64_t per_row = kind == 0 ? 5 : (kind == 1 ? 2 * num_ops : 3);
  std::vector<float> u(static_cast<size_t>(rows * per_row));
  if (!u.empty()) uniform_floats(generator, u.data(), static_cast<int>(u.size()));
  std::vector<float> shifts[2];  // the translations' float32 bins at this size, computed once if drawn
  auto value = [&](int64_t op, int64_t bin) -> double {
    if (!translate.empty() && (op == 3 || op == 4)) {
      std::vector<float>& row = shifts[op - 3];
      if (row.empty()) {
        const double extent = static_cast<double>(op == 3 ? W : H);
        const at::Tensor line = at::linspace(0.0, translate[0] * extent / translate[1], bins, at::kFloat);
        row.assign(line.data_ptr<float>(), line.data_ptr<float>() + bins);
      }
      return static_cast<double>(row[bin]);
    }
    return static_cast<double>(table[op * bins + bin]);
  };
  auto put = [&](int64_t at, int64_t op, int64_t bin, float sign_u) {
    const double m = value(op, bin);
    ops[at] = op;
    mags[at] = (sign_u <= 0.5f && op >= 1 && op <= 9) ? -m : m;
  };
  for (int64_t r = 0; r < rows; ++r) {
    const float* v = u.data() + r * per_row;
    if (kind == 0) {
      const int64_t policy = randint_f32(v[0], S / 4);
      for (int64_t k = 0; k < 2; ++k) {
        const bool applied = v[1 + k] <= probs[2 * policy + k];
        put(r * K + k, applied ? space[4 * policy + 2 * k] : 0, space[4 * policy + 2 * k + 1], v[3 + k]);
      }
    } else if (kind == 1) {
      for (int64_t k = 0; k < K; ++k) put(r * K + k, space[randint_f32(v[2 * k], S)], magnitude, v[2 * k + 1]);
    } else {
      put(r * K, space[randint_f32(v[0], S)], randint_f32(v[1], bins), v[2]);
    }
  }
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> augment_random_u8(
    const at::Tensor& image, int64_t kind, int64_t num_ops, int64_t magnitude, const at::Tensor& space,
    const at::Tensor& table, at::ArrayRef<double> translate, const at::Tensor& probs, int64_t mode, Fill fill,
    bool rows, std::optional<at::Generator> generator) {
  check_steps_input(image, mode);
  TORCH_CHECK_VALUE(!rows || image.dim() >= 4, "AutoAugment: a draw per row needs a batch [B, ..., C, H, W], got ",
                    image.sizes());
  const int64_t R = rows ? image.size(0) : 1;
  const int64_t K = policy_steps(kind, num_ops);
  const auto long_options = at::TensorOptions().dtype(at::kLong);
  at::Tensor ops = rows ? at::empty({R, K}, long_options) : at::empty({K}, long_options);
  at::Tensor mags = at::empty(ops.sizes(), at::TensorOptions().dtype(at::kDouble));
  int64_t* op_p = ops.data_ptr<int64_t>();
  double* mag_p = mags.data_ptr<double>();
  draw_policy(kind, num_ops, magnitude, space, table, translate, probs, R, image.size(-2), image.size(-1), generator,
              op_p, mag_p);
  at::Tensor out = apply_steps(image, op_p, mag_p, K, rows ? R : -1, mode, fill);
  return {out, ops, mags};
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("to_float_u8(Tensor image, float[]? mean=None, float[]? std=None) -> Tensor");
  m.def("augment_step_u8(Tensor image, Tensor ops, Tensor magnitudes, int mode, float[]? fill=None) -> Tensor");
  // Tagged so that no graph pass merges, drops or reorders two calls: each one advances the RNG.
  m.def(
      "augment_random_u8(Tensor image, int kind, int num_ops, int magnitude, Tensor space, Tensor table, "
      "float[] translate, Tensor probs, int mode, float[]? fill=None, bool rows=False, Generator? generator=None) "
      "-> (Tensor, Tensor, Tensor)",
      {at::Tag::nondeterministic_seeded});
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("to_float_u8", &jitvision_native::to_float_u8);
  m.impl("augment_step_u8", &jitvision_native::augment_step_u8);
  m.impl("augment_random_u8", &jitvision_native::augment_random_u8);
}
