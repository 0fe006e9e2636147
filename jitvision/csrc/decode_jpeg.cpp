// JPEG decoding with the system's libjpeg(-turbo): the op behind jitvision.io.decode_jpeg and the fused decode of
// tv_tensors.EncodedImage (a region, at a DCT scale).
//
// - jpeg_header(data) -> int[]: [height, width, components, colour space (libjpeg's J_COLOR_SPACE)] read from the
//   header alone (no pixel is decoded).
// - decode_jpeg(data, mode, region, scale_denom) -> uint8 [C, H, W] (a view of an [H, W, C] buffer, the layout
//   libjpeg writes and torchvision.io.decode_jpeg returns):
//   * mode: 0 unchanged (the file's components: 1 gray, 3 RGB, 4 CMYK as stored), 1 gray, 3 RGB (torchvision's
//     ImageReadMode values; the alpha modes are refused, as torchvision refuses them for JPEG). CMYK/YCCK files are
//     decoded to CMYK and converted here to RGB or gray with the arithmetic torchvision (after Pillow) uses.
//   * region: [] for the whole image, or [top, left, height, width] in the coordinates of the scaled image: only
//     those rows are decoded (jpeg_skip_scanlines skips the rows above: the entropy decoder still reads them, the
//     IDCT, upsampling and colour conversion do not run; the rows below are never read) and only the iMCU columns
//     that cover the columns (jpeg_crop_scanline), with a margin of two columns so that the region's pixels are
//     exactly the full decode's (at the same scale).
//   * scale_denom: 1, 2, 4 or 8: libjpeg's DCT scaling (scale_num = 1), the image decoded at ceil(size / d).
//   The full decode (region [], scale 1) runs what torchvision's does: jpeg_read_header, the colour space set only
//   where the mode asks for a conversion, libjpeg's default DCT (JDCT_ISLOW) and fancy upsampling, every scanline,
//   jpeg_finish_decompress (which reads up to the EOI marker, so a file cut after its last scanline fails too).
// - Errors: libjpeg reports errors through error_exit, which must not return: ours longjmps back to the one
//   function that called setjmp (read_header_and_start, read_rows). Those functions and every frame the jump crosses
//   hold only POD state (the decompress struct, plain pointers and ints), so no destructor is skipped; the output
//   tensor is allocated between the two phases, outside both. Running out of input is an error (the source manager
//   does not insert the fake EOI marker that jpeg_mem_src would, which decodes a truncated file to grey rows).
//   Warnings (corrupt but decodable data) are not printed, as in torchvision's decoder (which prints them).
// - The GIL: torch.ops calls release it, so threads decode in parallel.
// This file is compiled only when setup.py finds jpeglib.h and libjpeg (see setup.py's docstring).

#include <csetjmp>
#include <cstdint>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstring>

#include <jpeglib.h>

#include <algorithm>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "decode.h"

namespace jitvision_native {
namespace {

constexpr int64_t kModeUnchanged = 0;
constexpr int64_t kModeGray = 1;
constexpr int64_t kModeRgb = 3;
constexpr int64_t kColumnMargin = 2;  // columns decoded beyond each side of a region (see read_header_and_start)

struct DecodeError {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

struct Source {
  jpeg_source_mgr pub;
};

// Everything the two setjmp phases share: plain data only.
struct Decoder {
  jpeg_decompress_struct info;
  DecodeError error;
  Source source;
  bool cmyk_convert;  // decoded as CMYK, converted here to `channels`
  int channels;       // of the output
  int skip_columns;   // of a cropped scanline, left of the region
};

extern "C" {

static void decode_on_error(j_common_ptr cinfo) {
  DecodeError* error = reinterpret_cast<DecodeError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, error->message);
  longjmp(error->jump, 1);
}

static void decode_on_message(j_common_ptr) {}  // warnings: not printed

static void source_init(j_decompress_ptr) {}

// Called only when the decoder wants bytes beyond the end of the data: the file is cut short.
static boolean source_fill(j_decompress_ptr cinfo) {
  DecodeError* error = reinterpret_cast<DecodeError*>(cinfo->err);
  snprintf(error->message, sizeof(error->message), "the data ends before the image does (truncated or corrupt)");
  longjmp(error->jump, 1);
  return FALSE;  // not reached
}

static void source_skip(j_decompress_ptr cinfo, long count) {
  if (count <= 0) return;
  jpeg_source_mgr* src = cinfo->src;
  if (static_cast<size_t>(count) > src->bytes_in_buffer) {
    source_fill(cinfo);  // does not return
  }
  src->next_input_byte += count;
  src->bytes_in_buffer -= static_cast<size_t>(count);
}

static void source_term(j_decompress_ptr) {}

}  // extern "C"

// CMYK (as Adobe stores it, inverted) to RGB, per component: Pillow's and torchvision's rounding of k * (255 - x) / 255.
inline uint8_t cmyk_component(int k, int inverted) {
  int v = k * inverted + 128;
  v = ((v >> 8) + v) >> 8;
  return static_cast<uint8_t>(std::clamp(k - v, 0, 255));
}

void cmyk_row(const uint8_t* cmyk, uint8_t* out, int width, int channels) {
  for (int x = 0; x < width; ++x) {
    const int k = cmyk[4 * x + 3];
    const uint8_t r = cmyk_component(k, 255 - cmyk[4 * x]);
    const uint8_t g = cmyk_component(k, 255 - cmyk[4 * x + 1]);
    const uint8_t b = cmyk_component(k, 255 - cmyk[4 * x + 2]);
    if (channels == 3) {
      out[3 * x] = r;
      out[3 * x + 1] = g;
      out[3 * x + 2] = b;
    } else {  // ITU-R 601 luma in 16-bit fixed point (Pillow's L conversion)
      out[x] = static_cast<uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
    }
  }
}

void attach_source(Decoder* d, const uint8_t* data, size_t size) {
  d->source.pub.init_source = source_init;
  d->source.pub.fill_input_buffer = source_fill;
  d->source.pub.skip_input_data = source_skip;
  d->source.pub.resync_to_restart = jpeg_resync_to_restart;
  d->source.pub.term_source = source_term;
  d->source.pub.next_input_byte = data;
  d->source.pub.bytes_in_buffer = size;
  d->info.src = &d->source.pub;
}

// Phase 1: create the struct, read the header, set the output and start. `region` is null for the whole image, else
// [top, left, height, width] (checked against the scaled size here: a bad region is a message, not a jump). False
// with d->error.message set on failure (the struct is destroyed then).
bool read_header_and_start(Decoder* d, const uint8_t* data, size_t size, int64_t mode, const int64_t* region,
                           int scale_denom, bool header_only, int64_t* header) {
  d->info.err = jpeg_std_error(&d->error.pub);
  d->error.pub.error_exit = decode_on_error;
  d->error.pub.output_message = decode_on_message;
  if (setjmp(d->error.jump)) {
    jpeg_destroy_decompress(&d->info);
    return false;
  }
  jpeg_create_decompress(&d->info);
  attach_source(d, data, size);
  jpeg_read_header(&d->info, TRUE);
  jpeg_decompress_struct* info = &d->info;
  header[0] = info->image_height;
  header[1] = info->image_width;
  header[2] = info->num_components;
  header[3] = info->jpeg_color_space;
  if (header_only) {
    jpeg_destroy_decompress(info);
    return true;
  }
  const bool cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
  d->channels = info->num_components;
  d->cmyk_convert = false;
  if (mode == kModeGray || mode == kModeRgb) {
    d->channels = mode == kModeGray ? 1 : 3;
    if (cmyk) {
      info->out_color_space = JCS_CMYK;  // libjpeg has no CMYK -> RGB/gray conversion
      d->cmyk_convert = true;
    } else if (!(mode == kModeGray && info->jpeg_color_space == JCS_GRAYSCALE) &&
               !(mode == kModeRgb && info->jpeg_color_space == JCS_RGB)) {
      info->out_color_space = mode == kModeGray ? JCS_GRAYSCALE : JCS_RGB;
    }
  }
  if (scale_denom != 1) {
    info->scale_num = 1;
    info->scale_denom = static_cast<unsigned int>(scale_denom);
  }
  jpeg_start_decompress(info);
  if (!d->cmyk_convert && static_cast<int>(info->output_components) != d->channels) {
    snprintf(d->error.message, sizeof(d->error.message), "unsupported component count %d for mode %d",
             info->output_components, static_cast<int>(mode));
    jpeg_destroy_decompress(info);
    return false;
  }
  d->skip_columns = 0;
  if (region != nullptr) {
    const int64_t top = region[0], left = region[1], height = region[2], width = region[3];
    if (top < 0 || left < 0 || height <= 0 || width <= 0 || top + height > info->output_height ||
        left + width > info->output_width) {
      snprintf(d->error.message, sizeof(d->error.message),
               "region [%lld, %lld, %lld, %lld] is not inside the %ux%u image (at 1/%d)",
               static_cast<long long>(top), static_cast<long long>(left), static_cast<long long>(height),
               static_cast<long long>(width), info->output_height, info->output_width, scale_denom);
      jpeg_destroy_decompress(info);
      return false;
    }
    if (left != 0 || width != info->output_width) {
      // The decoded window: the region plus kColumnMargin columns on each side that is inside the image (libjpeg's
      // fancy upsampling treats the window's first and last columns as the image's edges, so those two columns
      // differ from the full decode's), widened by libjpeg to whole iMCU columns on the left. The columns left of
      // `left` in the decoded rows are skipped when copying.
      const int64_t margin_left = std::min<int64_t>(left, kColumnMargin);
      const int64_t margin_right = std::min<int64_t>(info->output_width - left - width, kColumnMargin);
      JDIMENSION x = static_cast<JDIMENSION>(left - margin_left);
      JDIMENSION w = static_cast<JDIMENSION>(width + margin_left + margin_right);
      jpeg_crop_scanline(info, &x, &w);
      d->skip_columns = static_cast<int>(left - x);
    }
    if (top > 0) jpeg_skip_scanlines(info, static_cast<JDIMENSION>(top));
  }
  return true;
}

// Phase 2: `rows` scanlines into `out` ([rows, width, channels], contiguous), then finish (whole image) or abort
// (a region: the rows below it are never read). False with the message set on failure (struct destroyed).
bool read_rows(Decoder* d, uint8_t* out, int64_t rows, int64_t width, bool whole) {
  if (setjmp(d->error.jump)) {
    jpeg_destroy_decompress(&d->info);
    return false;
  }
  jpeg_decompress_struct* info = &d->info;
  const int64_t stride = width * d->channels;
  const bool direct = !d->cmyk_convert && d->skip_columns == 0 && static_cast<int64_t>(info->output_width) == width;
  JSAMPROW scratch = nullptr;
  if (!direct) {  // one decoded row, freed with the struct (libjpeg's image pool: no C++ owner in this frame)
    const size_t bytes = static_cast<size_t>(info->output_width) * info->output_components;
    scratch = static_cast<JSAMPROW>((*info->mem->alloc_large)(reinterpret_cast<j_common_ptr>(info), JPOOL_IMAGE, bytes));
  }
  for (int64_t y = 0; y < rows; ++y) {
    uint8_t* row = out + y * stride;
    if (direct) {
      JSAMPROW target = row;
      jpeg_read_scanlines(info, &target, 1);
      continue;
    }
    jpeg_read_scanlines(info, &scratch, 1);
    const uint8_t* first = scratch + static_cast<int64_t>(d->skip_columns) * info->output_components;
    if (d->cmyk_convert) {
      cmyk_row(first, row, static_cast<int>(width), d->channels);
    } else {
      memcpy(row, first, static_cast<size_t>(stride));
    }
  }
  if (whole) {
    jpeg_finish_decompress(info);
  } else {
    jpeg_abort_decompress(info);
  }
  jpeg_destroy_decompress(info);
  return true;
}

void check_data(const at::Tensor& data, const char* op) {
  TORCH_CHECK_TYPE(data.scalar_type() == at::kByte, op, ": expected the encoded bytes as a uint8 tensor, got ",
                   data.scalar_type());
  TORCH_CHECK_VALUE(data.dim() == 1, op, ": expected a 1-D tensor of encoded bytes, got ", data.dim(), " dims");
  TORCH_CHECK_VALUE(data.numel() > 0, op, ": the encoded data is empty");
  TORCH_CHECK_VALUE(data.device().is_cpu(), op, ": the encoded data must be on the CPU, got ", data.device());
}

std::vector<int64_t> jpeg_header(const at::Tensor& data) {
  check_data(data, "jpeg_header");
  const at::Tensor bytes = data.contiguous();
  Decoder d{};
  int64_t header[4] = {0, 0, 0, 0};
  if (!read_header_and_start(&d, bytes.data_ptr<uint8_t>(), static_cast<size_t>(bytes.numel()), kModeUnchanged,
                             nullptr, 1, true, header)) {
    TORCH_CHECK_VALUE(false, "jpeg_header: not a readable JPEG: ", std::string(d.error.message));
  }
  return {header[0], header[1], header[2], header[3]};
}

at::Tensor decode_jpeg(const at::Tensor& data, int64_t mode, at::IntArrayRef region, int64_t scale_denom) {
  check_data(data, "decode_jpeg");
  TORCH_CHECK_VALUE(mode == kModeUnchanged || mode == kModeGray || mode == kModeRgb,
                    "decode_jpeg: mode ", mode, " is not supported for JPEG files (UNCHANGED, GRAY or RGB)");
  TORCH_CHECK_VALUE(scale_denom == 1 || scale_denom == 2 || scale_denom == 4 || scale_denom == 8,
                    "decode_jpeg: scale_denom must be 1, 2, 4 or 8, got ", scale_denom);
  TORCH_CHECK_VALUE(region.empty() || region.size() == 4,
                    "decode_jpeg: region must be [] or [top, left, height, width], got ", region);
  const at::Tensor bytes = data.contiguous();
  Decoder d{};
  int64_t header[4];
  const bool whole = region.empty();
  if (!read_header_and_start(&d, bytes.data_ptr<uint8_t>(), static_cast<size_t>(bytes.numel()), mode,
                             whole ? nullptr : region.data(), static_cast<int>(scale_denom), false, header)) {
    TORCH_CHECK_VALUE(false, "decode_jpeg: cannot decode the JPEG data: ", std::string(d.error.message));
  }
  const int64_t rows = whole ? d.info.output_height : region[2];
  const int64_t width = whole ? d.info.output_width : region[3];
  // Allocated between the phases: a failure below this line leaves the tensor to its destructor.
  at::Tensor out = at::empty({rows, width, d.channels}, data.options());
  if (!read_rows(&d, out.data_ptr<uint8_t>(), rows, width, whole)) {
    TORCH_CHECK_VALUE(false, "decode_jpeg: cannot decode the JPEG data: ", std::string(d.error.message));
  }
  return out.permute({2, 0, 1});
}

}  // namespace

at::Tensor decode_jpeg_bytes(const at::Tensor& data, int64_t mode, at::IntArrayRef region, int64_t scale_denom) {
  return decode_jpeg(data, mode, region, scale_denom);
}

}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("jpeg_header(Tensor data) -> int[]");
  m.def("decode_jpeg(Tensor data, int mode=0, int[] region=[], int scale_denom=1) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("jpeg_header", &jitvision_native::jpeg_header);
  m.impl("decode_jpeg", &jitvision_native::decode_jpeg);
}
