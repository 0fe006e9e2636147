// Crops at a tensor offset, for traced graphs: `crop_at` and `resized_crop_box`, the C++ forms of the operators
// that random crops put into a torch.compile/torch.export graph (the offset or box is a tensor read inside, so a
// random draw stays live and the output shape stays static). They used to be Python operators
// (`jitvision::crop_at`, `jitvision::resized_crop_box`), which an AOTInductor package or TorchScript in a C++
// program cannot run. Any dtype and device (CompositeExplicitAutograd); the arithmetic is the Python kernels'
// (`functional/_geometry/_crop.py` crop_image, `_resize.py` _interpolate_image): zero padding outside the image,
// then torch's own interpolate kernels with the same dtype handling, or the native uint8 kernel of resize.cpp for
// uint8 bilinear antialiased on the CPU (bit-identical to torch's).

#include <string>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>
#include <torch/version.h>

namespace jitvision_native {
namespace {

// The window [top, top + height) x [left, left + width) of the last two dimensions, zero-padded outside the image.
at::Tensor crop_padded(const at::Tensor& image, int64_t top, int64_t left, int64_t height, int64_t width) {
  const int64_t H = image.size(-2), W = image.size(-1);
  if (top >= 0 && left >= 0 && height <= H - top && width <= W - left) {
    return image.slice(-2, top, top + height).slice(-1, left, left + width);
  }
  const int64_t y0 = std::min(std::max(top, int64_t{0}), H), y1 = std::min(std::max(top + height, int64_t{0}), H);
  const int64_t x0 = std::min(std::max(left, int64_t{0}), W), x1 = std::min(std::max(left + width, int64_t{0}), W);
  const int64_t pad_top = std::min(std::max(-top, int64_t{0}), height);
  const int64_t pad_left = std::min(std::max(-left, int64_t{0}), width);
  const at::Tensor inside = image.slice(-2, y0, y1).slice(-1, x0, x1);
  return at::constant_pad_nd(inside, {pad_left, width - pad_left - (x1 - x0), pad_top, height - pad_top - (y1 - y0)},
                             0);
}

at::Tensor crop_window(const at::Tensor& image, int64_t top, int64_t left, int64_t height, int64_t width) {
  const int64_t H = image.size(-2), W = image.size(-1);
  TORCH_CHECK_VALUE(top >= 0 && left >= 0 && height >= 0 && width >= 0 && height <= H - top && width <= W - left,
                    "crop_at: the crop [", top, ", ", left, "] + [", height, ", ", width, "] leaves the image (", H,
                    ", ", W, ")");
  return image.slice(-2, top, top + height).slice(-1, left, left + width);
}

at::Tensor crop_at(const at::Tensor& image, const at::Tensor& top_left, int64_t height, int64_t width) {
  TORCH_CHECK_VALUE(image.dim() >= 2, "crop_at: expected an input [..., H, W], got ", image.sizes());
  const at::Tensor offsets = top_left.to(at::kCPU, at::kLong).contiguous();
  const int64_t* v = offsets.data_ptr<int64_t>();
  if (top_left.dim() == 1) {
    TORCH_CHECK_VALUE(top_left.numel() == 2, "crop_at: top_left must be [top, left], got ", top_left.sizes());
    return crop_window(image, v[0], v[1], height, width).clone(at::MemoryFormat::Contiguous);
  }
  // One offset per row: top_left is [*lead, 2] for an input [*lead, ..., H, W] (a batch).
  const int64_t lead = top_left.dim() - 1;
  TORCH_CHECK_VALUE(top_left.size(-1) == 2 && image.dim() >= lead + 2 &&
                        image.sizes().slice(0, lead) == top_left.sizes().slice(0, lead),
                    "crop_at: an offset per row needs shape [*leading dims, 2], got ", top_left.sizes(),
                    " for an input of shape ", image.sizes());
  const at::Tensor rows = image.flatten(0, lead - 1);
  auto sizes = rows.sizes().vec();
  sizes[sizes.size() - 2] = height;
  sizes[sizes.size() - 1] = width;
  at::Tensor out = at::empty(sizes, image.options());
  for (int64_t n = 0; n < rows.size(0); ++n) {
    out.select(0, n).copy_(crop_window(rows.select(0, n), v[2 * n], v[2 * n + 1], height, width));
  }
  auto out_sizes = image.sizes().vec();
  out_sizes[out_sizes.size() - 2] = height;
  out_sizes[out_sizes.size() - 1] = width;
  return out.view(out_sizes);
}

// ---- resized_crop_box --------------------------------------------------------------------------------------

at::Tensor native_u8_resize(const at::Tensor& image, int64_t out_h, int64_t out_w) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("jitvision_native::resize_center_crop", "")
                             .typed<at::Tensor(const at::Tensor&, c10::SymIntArrayRef, std::optional<c10::SymInt>,
                                               at::OptionalSymIntArrayRef, std::optional<at::ArrayRef<double>>,
                                               std::optional<at::ArrayRef<double>>, bool)>();
  const std::array<c10::SymInt, 2> size{c10::SymInt(out_h), c10::SymInt(out_w)};
  return op.call(image, size, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false);
}

// `_interpolate_image` of functional/_geometry/_resize.py for an image [..., C, H, W].
at::Tensor interpolate_image(const at::Tensor& image, int64_t out_h, int64_t out_w, const std::string& mode,
                             bool antialias) {
  TORCH_CHECK_VALUE(image.dim() >= 3, "resized_crop: expected an image [..., C, H, W], got ", image.dim(),
                    " dimensions");
  TORCH_CHECK_TYPE(!image.is_complex(), "resized_crop: complex images are not supported, got ", image.scalar_type());
  const bool nearest = mode == "nearest" || mode == "nearest-exact";
  TORCH_CHECK_VALUE(nearest || mode == "bilinear" || mode == "bicubic" || mode == "lanczos",
                    "resized_crop: interpolation ", mode, " is not supported on tensors");
  TORCH_CHECK_VALUE(mode != "lanczos" || antialias, "resized_crop: interpolation lanczos needs antialias=True");
  if (nearest) antialias = false;
  const int64_t C = image.size(-3), H = image.size(-2), W = image.size(-1);
  auto out_sizes = image.sizes().vec();
  out_sizes[out_sizes.size() - 2] = out_h;
  out_sizes[out_sizes.size() - 1] = out_w;
  if (out_h == H && out_w == W) return image;
  if (image.numel() == 0) return at::empty(out_sizes, image.options());
  const auto dtype = image.scalar_type();
  const bool integral = !image.is_floating_point() && dtype != at::kBool;
  bool native = dtype == at::kFloat || dtype == at::kDouble;
  if (dtype == at::kByte) {
    native = nearest || image.device().is_cpu();
    // torch's uint8 bilinear/bicubic/lanczos kernel fails an internal assert for a 3-channel 1x1 output from a
    // taller input: resample in float32 instead (as the Python kernel does).
    if (!nearest && C == 3 && out_h == 1 && out_w == 1 && H > 1) native = false;
  }
  at::Tensor x = image.reshape({-1, C, H, W});
  if (dtype == at::kByte && image.device().is_cpu() && mode == "bilinear" && antialias) {
    return native_u8_resize(x, out_h, out_w).reshape(out_sizes);
  }
  if (!native) x = x.to(at::kFloat);
  // torch 2.14's antialiased kernels return one value per column for an output 1 pixel wide and taller (float
  // always, uint8 with 5+ channels): resample the transposed image.
  const bool transpose = antialias && out_w == 1 && out_h > 1 && (x.is_floating_point() || C >= 5);
  const int64_t oh = transpose ? out_w : out_h, ow = transpose ? out_h : out_w;
  if (transpose) x = x.transpose(-1, -2);
  at::Tensor out;
  if (mode == "nearest") {
    out = at::upsample_nearest2d(x, {oh, ow});
  } else if (mode == "nearest-exact") {
    out = at::_upsample_nearest_exact2d(x, {oh, ow});
  } else if (mode == "bilinear") {
    out = antialias ? at::_upsample_bilinear2d_aa(x, {oh, ow}, false) : at::upsample_bilinear2d(x, {oh, ow}, false);
  } else if (mode == "bicubic") {
    out = antialias ? at::_upsample_bicubic2d_aa(x, {oh, ow}, false) : at::upsample_bicubic2d(x, {oh, ow}, false);
  } else {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 12)
    out = at::_upsample_lanczos2d_aa(x, {oh, ow}, false);
#else
    // torch's lanczos kernel (interpolate(mode="lanczos")) arrived in torch 2.12.
    TORCH_CHECK_VALUE(false, "resized_crop: interpolation lanczos on tensors needs torch >= 2.12");
#endif
  }
  if (transpose) out = out.transpose(-1, -2);
  if (!native) {
    if (dtype == at::kByte && mode != "bilinear") out = out.clamp_(0, 255);  // bicubic/lanczos overshoot
    if (integral) out = out.round_();
    out = out.to(dtype);
  }
  return out.reshape(out_sizes);
}

at::Tensor resized_crop_one(const at::Tensor& image, const int64_t* box, int64_t out_h, int64_t out_w,
                            const std::string& mode, bool antialias) {
  TORCH_CHECK_VALUE(box[2] > 0 && box[3] > 0, "resized_crop: the crop height and width must be positive, got [",
                    box[2], ", ", box[3], "]");
  TORCH_CHECK_VALUE(image.dim() >= 3, "resized_crop: expected an image [..., C, H, W], got ", image.dim(),
                    " dimensions");
  return interpolate_image(crop_padded(image, box[0], box[1], box[2], box[3]), out_h, out_w, mode, antialias);
}

at::Tensor resized_crop_box(const at::Tensor& image, const at::Tensor& box, at::IntArrayRef size,
                            c10::string_view interpolation, bool antialias) {
  TORCH_CHECK_VALUE(size.size() == 2 && size[0] > 0 && size[1] > 0,
                    "resized_crop_at: size must be [height, width] with positive values, got ", size);
  const std::string mode(interpolation);
  const at::Tensor boxes = box.to(at::kCPU, at::kLong).contiguous();
  const int64_t* v = boxes.data_ptr<int64_t>();
  at::Tensor out;
  if (box.dim() == 1) {
    TORCH_CHECK_VALUE(box.numel() == 4, "resized_crop_at: box must be [top, left, height, width], got ",
                      box.sizes());
    out = resized_crop_one(image, v, size[0], size[1], mode, antialias);
  } else {
    // One crop per row: box is [*lead, 4] for an image [*lead, ...].
    const int64_t lead = box.dim() - 1;
    TORCH_CHECK_VALUE(box.size(-1) == 4 && image.dim() >= lead && image.sizes().slice(0, lead) == box.sizes().slice(0, lead),
                      "resized_crop_at: a box per row needs shape [*leading dims, 4], got ", box.sizes(),
                      " for an input of shape ", image.sizes());
    const at::Tensor rows = image.flatten(0, lead - 1);
    const int64_t n_rows = rows.size(0);
    auto out_sizes = image.sizes().vec();
    out_sizes[out_sizes.size() - 2] = size[0];
    out_sizes[out_sizes.size() - 1] = size[1];
    if (n_rows == 0) return at::empty(out_sizes, image.options());
    std::vector<at::Tensor> outs;
    outs.reserve(n_rows);
    for (int64_t n = 0; n < n_rows; ++n) {
      at::Tensor row = rows.select(0, n);
      // A row of a batch of masks is [H, W]: resampled as one channel (only nearest modes reach this).
      const bool plane = row.dim() < 3;
      if (plane) row = row.unsqueeze(0);
      at::Tensor r = resized_crop_one(row, v + 4 * n, size[0], size[1], mode, antialias);
      outs.push_back(plane ? r.squeeze(0) : r);
    }
    out = at::stack(outs).reshape(out_sizes);
  }
  // An operator must not return (a view of) its input.
  if (out.is_alias_of(image)) out = out.clone(at::MemoryFormat::Contiguous);
  return out.contiguous();
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("crop_at(Tensor image, Tensor top_left, SymInt height, SymInt width) -> Tensor");
  m.def("resized_crop_box(Tensor image, Tensor box, SymInt[] size, str interpolation, bool antialias) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("crop_at", &jitvision_native::crop_at);
  m.impl("resized_crop_box", &jitvision_native::resized_crop_box);
}
