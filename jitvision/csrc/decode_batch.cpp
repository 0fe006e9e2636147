// A batch of encoded images decoded (only the region each keeps, at a DCT scale), resized, flipped and converted in
// one call, in parallel over the images on torch's intra-op pool: the native side of
// jitvision.transforms._decode_batch (a tv_tensors.BatchedEncodedImages given to a transform or a Compose).
//
// decode_batch_into(data, plan, mode, flip, mean, std, to_float, out) -> status
// - data: B 1-D uint8 tensors, the files' bytes.
// - plan: int64 [B, 16], one row per image, drawn and computed beforehand by the caller (so the result does not
//   depend on which thread takes which image):
//     [0] source: 0 a JPEG decoded by region (jitvision_native::decode_jpeg with region [3:7] at scale 1/[2]);
//                 1 the whole image decoded (JPEG or PNG, by the signature), then turned by the EXIF orientation [1];
//                 2 not decoded here (another format, or a codec this library lacks): status 2, the caller decodes it.
//     [1] EXIF orientation (1-8) applied after a whole decode (source 1).
//     [2] DCT scale denominator (1, 2, 4, 8) of a region decode (source 0).
//     [3:7] the region [top, left, height, width] on the scaled grid (source 0).
//     [7:11] the box [top, left, height, width] within the decoded pixels that the output is made of.
//     [11] 1: the box is resized to [12] x [13] (antialiased bilinear, jitvision_native::resized_crop's kernel) and
//          the output's window of that at ([14], [15]) is kept (zero outside: a center crop that pads), flipped and
//          converted to float as asked; 0: the box is copied (its size must be the output's).
// - mode: the ImageReadMode value every image is decoded with; flip: optional bool [B]; mean/std/to_float: the
//   float tail (resized rows only).
// - out: [B, C, OH, OW], contiguous, uint8 (or float32 with to_float), allocated (and pinned) by the caller; row i
//   is written by image i only.
// - status: int8 [B]: 0 written; 1 the decode or the geometry failed (corrupt, truncated or non-image data, a box
//   outside the image, a channel count other than C); 2 not handled here (source 2, a 16-bit PNG). The caller
//   takes each non-zero row through the single-image path, which raises the error with its message or writes it.
// Work is handed out image by image from a shared counter (dynamic scheduling: one large image does not hold up a
// thread's whole share). No exception leaves a worker. The GIL is released by the op call for its whole length.

#include <atomic>
#include <optional>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "decode.h"

namespace jitvision_native {
namespace {

constexpr int64_t kPlanColumns = 16;
constexpr int8_t kWritten = 0;
constexpr int8_t kFailed = 1;
constexpr int8_t kNotHere = 2;

bool is_png(const at::Tensor& bytes) {
  static const uint8_t signature[8] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.numel() < 8) return false;
  const uint8_t* p = bytes.data_ptr<uint8_t>();
  for (int i = 0; i < 8; ++i) {
    if (p[i] != signature[i]) return false;
  }
  return true;
}

// [C, H, W] as an EXIF orientation says to display it (jitvision.io.apply_exif_orientation's mapping).
at::Tensor orient(const at::Tensor& image, int64_t orientation) {
  switch (orientation) {
    case 2: return image.flip({-1});
    case 3: return image.rot90(2, {-2, -1});
    case 4: return image.flip({-2});
    case 5: return image.transpose(-1, -2);
    case 6: return image.rot90(-1, {-2, -1});
    case 7: return image.rot90(2, {-2, -1}).transpose(-1, -2);
    case 8: return image.rot90(1, {-2, -1});
    default: return image;
  }
}

// The whole image (JPEG, or PNG through the registered decode_png when the library has it), or an undefined tensor
// where this library cannot decode it.
at::Tensor decode_whole(const at::Tensor& bytes, int64_t mode) {
  if (!is_png(bytes)) return decode_jpeg_bytes(bytes, mode, {}, 1);
  static const auto png = c10::Dispatcher::singleton().findSchema({"jitvision_native::decode_png", ""});
  if (!png.has_value()) return at::Tensor();
  return png->typed<at::Tensor(const at::Tensor&, int64_t)>().call(bytes, mode);
}

int8_t decode_one(const at::Tensor& bytes, const int64_t* p, int64_t mode, bool flip,
                  const std::optional<at::ArrayRef<double>>& mean, const std::optional<at::ArrayRef<double>>& std,
                  bool to_float, const at::Tensor& row) {
  at::Tensor image;
  if (p[0] == 0) {
    image = decode_jpeg_bytes(bytes, mode, at::IntArrayRef(p + 3, 4), p[2]);
  } else if (p[0] == 1) {
    image = decode_whole(bytes, mode);
    if (!image.defined()) return kNotHere;
    image = orient(image, p[1]);
  } else {
    return kNotHere;
  }
  if (image.scalar_type() != at::kByte) return kNotHere;  // a 16-bit PNG: not a row of a uint8 batch
  if (image.size(0) != row.size(0)) return kFailed;        // the channel count the batch was made for
  const int64_t top = p[7], left = p[8], height = p[9], width = p[10];
  if (p[11] == 1) {
    resized_crop_into(image, top, left, height, width, p[12], p[13], p[14], p[15], flip, mean, std, to_float, row);
    return kWritten;
  }
  if (to_float || top < 0 || left < 0 || height != row.size(1) || width != row.size(2) ||
      top + height > image.size(1) || left + width > image.size(2)) {
    return kFailed;
  }
  at::Tensor box = image.slice(1, top, top + height).slice(2, left, left + width);
  row.copy_(flip ? box.flip({-1}) : box);
  return kWritten;
}

at::Tensor decode_batch_into(at::TensorList data, const at::Tensor& plan, int64_t mode,
                             const std::optional<at::Tensor>& flip, std::optional<at::ArrayRef<double>> mean,
                             std::optional<at::ArrayRef<double>> std, bool to_float, const at::Tensor& out) {
  const int64_t batch = static_cast<int64_t>(data.size());
  TORCH_CHECK_VALUE(plan.scalar_type() == at::kLong && plan.dim() == 2 && plan.size(0) == batch &&
                        plan.size(1) == kPlanColumns && plan.device().is_cpu(),
                    "decode_batch_into: plan must be an int64 CPU tensor [", batch, ", ", kPlanColumns, "], got ",
                    plan.sizes());
  TORCH_CHECK_VALUE(out.dim() == 4 && out.size(0) == batch && out.is_contiguous() && out.device().is_cpu() &&
                        out.scalar_type() == (to_float ? at::kFloat : at::kByte),
                    "decode_batch_into: out must be a contiguous CPU [", batch, ", C, H, W] ",
                    to_float ? "float32" : "uint8", " tensor, got ", out.sizes(), " ", out.scalar_type());
  for (const at::Tensor& bytes : data) {
    TORCH_CHECK_VALUE(bytes.scalar_type() == at::kByte && bytes.dim() == 1 && bytes.is_contiguous() &&
                          bytes.device().is_cpu(),
                      "decode_batch_into: each encoded image must be a contiguous 1-D uint8 CPU tensor");
  }
  at::Tensor flips;
  if (flip.has_value()) {
    TORCH_CHECK_VALUE(flip->numel() == batch, "decode_batch_into: flip must hold one value per image");
    flips = flip->to(at::kCPU, at::kBool).reshape({-1}).contiguous();
  }
  const at::Tensor rows = plan.contiguous();
  at::Tensor status = at::full({batch}, kFailed, plan.options().dtype(at::kChar));
  int8_t* status_of = status.data_ptr<int8_t>();
  const int64_t* plan_of = rows.data_ptr<int64_t>();
  const bool* flip_of = flips.defined() ? flips.data_ptr<bool>() : nullptr;
  std::atomic<int64_t> next{0};
  const int64_t workers = std::max<int64_t>(std::min<int64_t>(at::get_num_threads(), batch), 1);
  at::parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t worker = begin; worker < end; ++worker) {
      for (int64_t i = next.fetch_add(1); i < batch; i = next.fetch_add(1)) {
        try {
          status_of[i] = decode_one(data[i], plan_of + i * kPlanColumns, mode, flip_of != nullptr && flip_of[i],
                                    mean, std, to_float, out.select(0, i));
        } catch (...) {  // libjpeg's, libpng's or the resize's message: the caller re-runs the row to report it
          status_of[i] = kFailed;
        }
      }
    }
  });
  return status;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def(
      "decode_batch_into(Tensor[] data, Tensor plan, int mode, Tensor? flip, float[]? mean, float[]? std, "
      "bool to_float, Tensor(a!) out) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) { m.impl("decode_batch_into", &jitvision_native::decode_batch_into); }
