// PNG decoding with the system's libpng: the op behind jitvision.io.decode_png.
//
// decode_png(data, mode) -> [C, H, W] (a view of an [H, W, C] buffer, as torchvision.io.decode_png returns), uint8,
// or uint16 for 16-bit files (native byte order). mode is torchvision's ImageReadMode value: 0 unchanged (the file's
// channels: a palette file gives its palette indices, one channel, as torchvision's decoder does), 1 gray, 2 gray +
// alpha, 3 RGB, 4 RGB + alpha. The conversions are libpng's own transforms, chosen as torchvision chooses them
// (palette expanded to RGB, libpng's RGB -> gray with weights 0.2989/0.587, an opaque alpha added or the alpha
// stripped), so the pixels are libpng's. Gray files of 1, 2 or 4 bits are expanded to 8; packed palette indices are
// unpacked to one byte each. Adam7-interlaced files are read in libpng's passes.
// Errors: libpng reports them through the error function, which must not return: ours records the message and
// longjmps (png_longjmp) to the setjmp of read_png; that function and every frame the jump crosses hold only POD
// state (no C++ object with a destructor). The output tensor is allocated between the header phase and the pixel
// phase, outside both. Reading past the end of the data is an error (a truncated file), never a read out of bounds.
// This file is compiled only when setup.py finds png.h and libpng (see setup.py's docstring).

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <png.h>

#include <string>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

constexpr int64_t kUnchanged = 0, kGray = 1, kGrayAlpha = 2, kRgb = 3, kRgbAlpha = 4;

struct PngReader {
  png_structp png;
  png_infop info;
  const uint8_t* next;
  size_t left;
  char message[256];
  // the header, filled by read_header
  png_uint_32 width, height;
  int bit_depth, channels, passes;
};

extern "C" {

static void png_on_error(png_structp png, png_const_charp text) {
  PngReader* reader = static_cast<PngReader*>(png_get_error_ptr(png));
  snprintf(reader->message, sizeof(reader->message), "%s", text != nullptr ? text : "libpng error");
  png_longjmp(png, 1);
}

static void png_on_warning(png_structp, png_const_charp) {}

static void png_read_bytes(png_structp png, png_bytep out, png_size_t count) {
  PngReader* reader = static_cast<PngReader*>(png_get_io_ptr(png));
  if (count > reader->left) {
    png_error(png, "the data ends before the image does (truncated or corrupt)");  // does not return
  }
  memcpy(out, reader->next, count);
  reader->next += count;
  reader->left -= count;
}

}  // extern "C"

// Phase 1: the structs, the header, the transforms for `mode`. False with reader->message set (structs destroyed).
bool read_header(PngReader* r, int64_t mode) {
  r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, png_on_error, png_on_warning);
  if (r->png == nullptr) {
    snprintf(r->message, sizeof(r->message), "libpng could not allocate its read struct");
    return false;
  }
  r->info = png_create_info_struct(r->png);
  if (r->info == nullptr) {
    png_destroy_read_struct(&r->png, nullptr, nullptr);
    snprintf(r->message, sizeof(r->message), "libpng could not allocate its info struct");
    return false;
  }
  if (setjmp(png_jmpbuf(r->png))) {
    png_destroy_read_struct(&r->png, &r->info, nullptr);
    return false;
  }
  png_set_read_fn(r->png, r, png_read_bytes);
  png_read_info(r->png, r->info);
  int color_type = 0, interlace = 0;
  png_get_IHDR(r->png, r->info, &r->width, &r->height, &r->bit_depth, &color_type, &interlace, nullptr, nullptr);
  r->channels = png_get_channels(r->png, r->info);
  if (color_type == PNG_COLOR_TYPE_GRAY && r->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
  if (color_type == PNG_COLOR_TYPE_PALETTE && r->bit_depth < 8) png_set_packing(r->png);
  r->passes = interlace == PNG_INTERLACE_ADAM7 ? png_set_interlace_handling(r->png) : 1;
  const bool palette = (color_type & PNG_COLOR_MASK_PALETTE) != 0;
  const bool color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
  // A palette expands to RGB, plus alpha where it has a tRNS chunk. (torchvision assumes the alpha is always there
  // and, for a palette without tRNS, returns 2 or 4 channels of which only the first rows' worth are written; an
  // opaque alpha is added here instead.)
  const bool alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
                     (palette && png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0);
  const png_uint_32 opaque = (1u << r->bit_depth) - 1u;
  // Only a mode that differs from the file's colour type converts (torchvision's rule).
  if (mode == kGray && color_type != PNG_COLOR_TYPE_GRAY) {
    if (palette) png_set_palette_to_rgb(r->png);
    if (alpha) png_set_strip_alpha(r->png);
    if (color) png_set_rgb_to_gray(r->png, 1, 0.2989, 0.587);
    r->channels = 1;
  } else if (mode == kGrayAlpha && color_type != PNG_COLOR_TYPE_GRAY_ALPHA) {
    if (palette) png_set_palette_to_rgb(r->png);
    if (!alpha) png_set_add_alpha(r->png, palette ? 255u : opaque, PNG_FILLER_AFTER);
    if (color) png_set_rgb_to_gray(r->png, 1, 0.2989, 0.587);
    r->channels = 2;
  } else if (mode == kRgb && color_type != PNG_COLOR_TYPE_RGB) {
    if (palette) {
      png_set_palette_to_rgb(r->png);
    } else if (!color) {
      png_set_gray_to_rgb(r->png);
    }
    if (alpha) png_set_strip_alpha(r->png);
    r->channels = 3;
  } else if (mode == kRgbAlpha && color_type != PNG_COLOR_TYPE_RGB_ALPHA) {
    if (palette) {
      png_set_palette_to_rgb(r->png);
    } else if (!color) {
      png_set_gray_to_rgb(r->png);
    }
    if (!alpha) png_set_add_alpha(r->png, palette ? 255u : opaque, PNG_FILLER_AFTER);
    r->channels = 4;
  }
  if (r->bit_depth == 16) {
    const uint16_t probe = 1;
    if (*reinterpret_cast<const uint8_t*>(&probe) == 1) png_set_swap(r->png);  // PNG is big-endian
  }
  png_read_update_info(r->png, r->info);
  const size_t row_bytes = png_get_rowbytes(r->png, r->info);
  const size_t expected = static_cast<size_t>(r->width) * r->channels * (r->bit_depth == 16 ? 2 : 1);
  if (row_bytes != expected) {
    snprintf(r->message, sizeof(r->message), "unexpected row size %zu for %u pixels of %d channels", row_bytes,
             r->width, r->channels);
    png_destroy_read_struct(&r->png, &r->info, nullptr);
    return false;
  }
  return true;
}

// Phase 2: every row of every pass into `out` (contiguous [H, W, C]). False with the message set (structs destroyed).
bool read_pixels(PngReader* r, uint8_t* out, size_t row_bytes) {
  if (setjmp(png_jmpbuf(r->png))) {
    png_destroy_read_struct(&r->png, &r->info, nullptr);
    return false;
  }
  for (int pass = 0; pass < r->passes; ++pass) {
    for (png_uint_32 y = 0; y < r->height; ++y) {
      png_read_row(r->png, out + static_cast<size_t>(y) * row_bytes, nullptr);
    }
  }
  png_destroy_read_struct(&r->png, &r->info, nullptr);
  return true;
}

at::Tensor decode_png(const at::Tensor& data, int64_t mode) {
  TORCH_CHECK_TYPE(data.scalar_type() == at::kByte, "decode_png: expected the encoded bytes as a uint8 tensor, got ",
                   data.scalar_type());
  TORCH_CHECK_VALUE(data.dim() == 1 && data.numel() > 0, "decode_png: expected a non-empty 1-D tensor of bytes");
  TORCH_CHECK_VALUE(mode >= kUnchanged && mode <= kRgbAlpha, "decode_png: unknown mode ", mode);
  const at::Tensor bytes = data.contiguous();
  const uint8_t* start = bytes.data_ptr<uint8_t>();
  TORCH_CHECK_VALUE(bytes.numel() >= 8 && png_sig_cmp(start, 0, 8) == 0, "decode_png: the data is not a PNG file");
  PngReader r{};
  r.next = start;
  r.left = static_cast<size_t>(bytes.numel());
  if (!read_header(&r, mode)) {
    TORCH_CHECK_VALUE(false, "decode_png: cannot decode the PNG data: ", std::string(r.message));
  }
  const bool wide = r.bit_depth == 16;
  at::Tensor out = at::empty({static_cast<int64_t>(r.height), static_cast<int64_t>(r.width), r.channels},
                             data.options().dtype(wide ? at::kUInt16 : at::kByte));
  const size_t row_bytes = static_cast<size_t>(r.width) * r.channels * (wide ? 2 : 1);
  if (!read_pixels(&r, static_cast<uint8_t*>(out.data_ptr()), row_bytes)) {
    TORCH_CHECK_VALUE(false, "decode_png: cannot decode the PNG data: ", std::string(r.message));
  }
  return out.permute({2, 0, 1});
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("decode_png(Tensor data, int mode=0) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CPU, m) {
  m.impl("decode_png", &jitvision_native::decode_png);
}
