// jpeg_u8(images, quality): JPEG-encode and decode uint8 images [..., 1 or 3, H, W] with the system's
// libjpeg(-turbo), the codec torchvision's encode_jpeg/decode_jpeg use, with the same settings: jpeg_set_defaults
// (4:2:0 chroma subsampling for RGB, the integer "slow" DCT, no entropy optimisation), jpeg_set_quality(q, TRUE)
// (baseline tables), RGB or grayscale in, the decoder's defaults out (fancy upsampling, the same DCT).
//
// - Layout: the input stays CHW. RGB images go through libjpeg's raw-data interface (raw_data_in / raw_data_out):
//   the RGB <-> YCbCr conversion and the 4:2:0 down/upsampling that libjpeg would do on interleaved pixels are done
//   here on the planes (jpeg_ycc.cpp, in libjpeg-turbo's integer arithmetic, so the pixels are libjpeg's: the tests
//   compare with torchvision bit for bit), so no pixel is ever interleaved. That holds where jpeg_ycc.cpp's loops
//   are SIMD (x86-64 with AVX2); elsewhere (or with JITVISION_JPEG_INTERLEAVED=1, for the tests) RGB rows are
//   interleaved 16 at a time and libjpeg converts them itself (its own SIMD: faster there than our scalar loops;
//   the same pixels). One-channel images are handed to libjpeg row by row with no copy at all.
// - quality: an integer tensor of one value, or one per block of consecutive images of the flattened batch
//   (numel R with N % R == 0: image m uses quality[m / (N / R)]), read here, so a drawn quality stays live in a
//   traced graph. 1..100 (ValueError otherwise).
// - Errors: libjpeg reports errors by calling error_exit, which must not return; ours longjmps back to the one
//   function that called setjmp. That function (run_codec) and everything the jump crosses hold only POD state
//   (the codec structs, plain pointers, ints): no C++ object with a destructor lives in a frame the jump skips.
//   After it returns false, the caller (ordinary C++) turns the message into a TORCH_CHECK. An error leaves the
//   structs idle (jpeg_abort_*), so they stay usable.
// - Each thread keeps one codec (the compress and decompress structs and the buffers, grown as needed) for all its
//   calls (thread_local, destroyed at thread exit): no per-call set-up, allocation or page faults.
// - A batch is split across torch's intra-op threads (at::parallel_for), one codec per thread.
// This file is compiled only when setup.py finds jpeglib.h and libjpeg (see setup.py's docstring).

#include <csetjmp>
#include <cstdint>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>

#include <algorithm>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include "jpeg_ycc.h"

namespace jitvision_native {
namespace {

constexpr size_t kKeptBytes = size_t{16} << 20;  // buffers up to this size stay with the thread between calls
constexpr int kMcuRows = 16;  // rows of an iMCU row at 4:2:0 (the rows a raw-data call takes); gray: rows per call

struct ErrorManager {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

// The destination: a malloc'd buffer that grows by realloc (kept across calls).
struct Destination {
  jpeg_destination_mgr pub;
  JOCTET* buffer;
  size_t capacity;
  size_t used;
};

// Everything the codec touches: plain data only (zeroed by calloc, freed by CodecGuard).
struct Codec {
  bool created;  // the libjpeg structs exist
  jpeg_compress_struct enc;
  jpeg_decompress_struct dec;
  ErrorManager error;
  Destination dest;
  uint8_t* work;  // the raw-data planes and rows (sized by work_bytes)
  size_t work_capacity;
  JSAMPROW rows[3][kMcuRows];  // row pointers: Y (or gray), Cb, Cr
};

extern "C" {

static void on_error(j_common_ptr cinfo) {
  ErrorManager* error = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, error->message);
  longjmp(error->jump, 1);
}

static void on_output_message(j_common_ptr) {}  // warnings are not printed (libjpeg's default: stderr)

static void dest_init(j_compress_ptr cinfo) {
  Destination* dest = reinterpret_cast<Destination*>(cinfo->dest);
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = dest->capacity;
  dest->used = 0;
}

static boolean dest_empty(j_compress_ptr cinfo) {
  Destination* dest = reinterpret_cast<Destination*>(cinfo->dest);
  // libjpeg-turbo calls this when the buffer is full (free_in_buffer == 0), whatever it wrote of it
  const size_t old_capacity = dest->capacity;
  const size_t new_capacity = old_capacity * 2;
  JOCTET* grown = static_cast<JOCTET*>(realloc(dest->buffer, new_capacity));
  if (grown == nullptr) {
    ErrorManager* error = reinterpret_cast<ErrorManager*>(cinfo->err);
    snprintf(error->message, sizeof(error->message), "out of memory growing the JPEG buffer to %zu bytes",
             new_capacity);
    longjmp(error->jump, 1);
  }
  dest->buffer = grown;
  dest->capacity = new_capacity;
  dest->pub.next_output_byte = grown + old_capacity;
  dest->pub.free_in_buffer = new_capacity - old_capacity;
  return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
  Destination* dest = reinterpret_cast<Destination*>(cinfo->dest);
  dest->used = dest->capacity - dest->pub.free_in_buffer;
}

}  // extern "C"

// Create the compress and decompress structs. False (with codec->error.message) if libjpeg failed.
bool create_codec(Codec* codec) {
  codec->enc.err = jpeg_std_error(&codec->error.pub);
  codec->dec.err = &codec->error.pub;
  codec->error.pub.error_exit = on_error;
  codec->error.pub.output_message = on_output_message;
  if (setjmp(codec->error.jump)) {
    jpeg_destroy_compress(&codec->enc);  // safe on a struct whose creation failed or never ran (mem == NULL)
    jpeg_destroy_decompress(&codec->dec);
    return false;
  }
  jpeg_create_compress(&codec->enc);
  jpeg_create_decompress(&codec->dec);
  codec->dest.pub.init_destination = dest_init;
  codec->dest.pub.empty_output_buffer = dest_empty;
  codec->dest.pub.term_destination = dest_term;
  codec->enc.dest = &codec->dest.pub;
  codec->created = true;
  return true;
}

// The sizes of the raw-data buffers for an RGB image of height x width at 4:2:0, as libjpeg lays the components out:
// Y is ceil(W / 8) blocks wide, Cb and Cr ceil(W / 16) blocks (chroma_stride samples), in iMCU rows of 16 / 8 rows.
struct RawLayout {
  int64_t luma_stride, chroma_stride, mcu_rows, encode_bytes, decode_bytes;
};

RawLayout raw_layout(int64_t height, int64_t width) {
  RawLayout l;
  l.luma_stride = (width + 7) / 8 * 8;
  l.chroma_stride = (width + 15) / 16 * 8;
  l.mcu_rows = (height + kMcuRows - 1) / kMcuRows;
  // encode: 16 Y rows padded to the chroma's 2x2 pairs (2 * chroma_stride >= luma_stride), 8 rows of Cb and of Cr
  l.encode_bytes = kMcuRows * 2 * l.chroma_stride + kMcuRows * l.chroma_stride;
  // decode: the whole Y, Cb and Cr planes, a full-resolution row of Cb and of Cr (widths up to 4), the int16
  // column sums of the fancy upsampling (+ alignment)
  const int64_t chroma_width = (width + 1) / 2;
  l.decode_bytes =
      l.mcu_rows * kMcuRows * (l.luma_stride + l.chroma_stride) + 2 * width + 2 * (2 * chroma_width + 4) + 2;
  return l;
}

// Encode the RGB planes at `src` with libjpeg's raw-data interface: per iMCU row, 16 rows to Y, Cb and Cr here, two
// rows at a time (libjpeg's bottom-edge rule: rows below the image repeat the last row, chroma rows below the
// image's ceil(H / 2) repeat the last chroma row), then jpeg_write_raw_data. Runs inside run_codec's setjmp.
void encode_rgb_raw(Codec* codec, const uint8_t* src, int height, int width, const RawLayout& l) {
  namespace ycc = jpeg_ycc;
  jpeg_compress_struct* enc = &codec->enc;
  const int64_t plane = static_cast<int64_t>(height) * width;
  const int chroma_stride = static_cast<int>(l.chroma_stride);
  const int chroma_height = (height + 1) / 2;
  uint8_t* y_rows = codec->work;                              // 16 Y rows of 2 * chroma_stride samples
  uint8_t* chroma = y_rows + kMcuRows * 2 * l.chroma_stride;  // 8 Cb rows, then 8 Cr rows
  JSAMPROW* ry = codec->rows[0];
  JSAMPROW* rb = codec->rows[1];
  JSAMPROW* rr = codec->rows[2];
  for (int i = 0; i < kMcuRows; ++i) ry[i] = y_rows + i * 2 * l.chroma_stride;
  for (int j = 0; j < kMcuRows / 2; ++j) {
    rb[j] = chroma + j * l.chroma_stride;
    rr[j] = chroma + (kMcuRows / 2 + j) * l.chroma_stride;
  }
  JSAMPARRAY planes[3] = {ry, rb, rr};
  while (enc->next_scanline < enc->image_height) {
    const int y0 = static_cast<int>(enc->next_scanline);
    for (int j = 0; j < kMcuRows / 2; ++j) {
      const int64_t top = static_cast<int64_t>(y0 + 2 * j < height ? y0 + 2 * j : height - 1) * width;
      const int64_t below = static_cast<int64_t>(y0 + 2 * j + 1 < height ? y0 + 2 * j + 1 : height - 1) * width;
      const ycc::Rows2 rows{src + top,   src + plane + top,   src + 2 * plane + top,
                            src + below, src + plane + below, src + 2 * plane + below};
      ycc::rgb_to_ycc_h2v2(rows, width, chroma_stride, ry[2 * j], ry[2 * j + 1], rb[j], rr[j]);
      if (y0 / 2 + j >= chroma_height) {  // j >= 1 here: the iMCU row starts inside the image
        memcpy(rb[j], rb[j - 1], chroma_stride);
        memcpy(rr[j], rr[j - 1], chroma_stride);
      }
    }
    jpeg_write_raw_data(enc, planes, kMcuRows);
  }
}

// Decode (after jpeg_start_decompress with raw_data_out) into the RGB planes at `dst`: the whole Y, Cb and Cr planes
// first (the chroma upsampling needs the chroma row below), then per output row libjpeg's fancy h2v2 upsampling
// (the row above or below repeats at the image's edges) and the YCbCr -> RGB conversion. False (message set) if the
// stream is not the 4:2:0 YCbCr one this op wrote. Runs inside run_codec's setjmp.
bool decode_rgb_raw(Codec* codec, uint8_t* dst, int height, int width, const RawLayout& l) {
  namespace ycc = jpeg_ycc;
  jpeg_decompress_struct* dec = &codec->dec;
  const jpeg_component_info* comp = dec->comp_info;
  if (dec->num_components != 3 || dec->jpeg_color_space != JCS_YCbCr || comp[0].h_samp_factor != 2 ||
      comp[0].v_samp_factor != 2 || comp[1].h_samp_factor != 1 || comp[1].v_samp_factor != 1 ||
      comp[2].h_samp_factor != 1 || comp[2].v_samp_factor != 1 ||
      static_cast<int64_t>(comp[0].width_in_blocks) * 8 != l.luma_stride ||
      static_cast<int64_t>(comp[1].width_in_blocks) * 8 != l.chroma_stride ||
      static_cast<int64_t>(dec->total_iMCU_rows) != l.mcu_rows) {
    snprintf(codec->error.message, sizeof(codec->error.message), "the decoder's layout is not the encoded 4:2:0 one");
    return false;
  }
  const int64_t plane = static_cast<int64_t>(height) * width;
  const int64_t rows = l.mcu_rows * kMcuRows;
  uint8_t* luma = codec->work;
  uint8_t* cb_plane = luma + rows * l.luma_stride;
  uint8_t* cr_plane = cb_plane + rows / 2 * l.chroma_stride;
  uint8_t* cb_row = cr_plane + rows / 2 * l.chroma_stride;
  uint8_t* cr_row = cb_row + width;
  int16_t* sums = reinterpret_cast<int16_t*>((reinterpret_cast<uintptr_t>(cr_row + width) + 1) & ~uintptr_t{1});
  JSAMPROW* ry = codec->rows[0];
  JSAMPROW* rb = codec->rows[1];
  JSAMPROW* rr = codec->rows[2];
  JSAMPARRAY planes[3] = {ry, rb, rr};
  while (dec->output_scanline < dec->output_height) {
    const int64_t y0 = dec->output_scanline;
    for (int i = 0; i < kMcuRows; ++i) ry[i] = luma + (y0 + i) * l.luma_stride;
    for (int j = 0; j < kMcuRows / 2; ++j) {
      rb[j] = cb_plane + (y0 / 2 + j) * l.chroma_stride;
      rr[j] = cr_plane + (y0 / 2 + j) * l.chroma_stride;
    }
    jpeg_read_raw_data(dec, planes, kMcuRows);
  }
  const int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
  for (int y = 0; y < height; ++y) {
    const int cy = y / 2;
    // the chroma row nearest the output row's centre after the one it falls in (above for even rows)
    const int other = (y & 1) ? (cy + 1 < chroma_height ? cy + 1 : cy) : (cy > 0 ? cy - 1 : 0);
    const uint8_t* cb_near = cb_plane + cy * l.chroma_stride;
    const uint8_t* cr_near = cr_plane + cy * l.chroma_stride;
    const int64_t offset = static_cast<int64_t>(y) * width;
    uint8_t* r = dst + offset;
    if (chroma_width > 2) {
      ycc::ycc_to_rgb_fancy_row(luma + y * l.luma_stride, cb_near, cb_plane + other * l.chroma_stride, cr_near,
                                cr_plane + other * l.chroma_stride, chroma_width, width, r, r + plane,
                                r + 2 * plane, sums);
    } else {  // libjpeg replicates chroma rows of 1 or 2 samples (no fancy upsampling)
      for (int x = 0; x < width; ++x) {
        cb_row[x] = cb_near[x / 2];
        cr_row[x] = cr_near[x / 2];
      }
      ycc::ycc_to_rgb_row(luma + y * l.luma_stride, cb_row, cr_row, width, r, r + plane, r + 2 * plane);
    }
  }
  return true;
}

// The RGB planes at `src` as interleaved rows for jpeg_write_scanlines, kMcuRows at a time through codec->work
// (the path where jpeg_ycc's loops are not SIMD). Runs inside run_codec's setjmp.
void encode_rgb_interleaved(Codec* codec, const uint8_t* src, int height, int width) {
  jpeg_compress_struct* enc = &codec->enc;
  const int64_t plane = static_cast<int64_t>(height) * width;
  while (enc->next_scanline < enc->image_height) {
    const int y = static_cast<int>(enc->next_scanline);
    const int n = height - y < kMcuRows ? height - y : kMcuRows;
    for (int i = 0; i < n; ++i) {
      uint8_t* row = codec->work + static_cast<int64_t>(i) * 3 * width;
      const uint8_t* r = src + static_cast<int64_t>(y + i) * width;
      for (int x = 0; x < width; ++x) {
        row[3 * x] = r[x];
        row[3 * x + 1] = r[plane + x];
        row[3 * x + 2] = r[2 * plane + x];
      }
      codec->rows[0][i] = row;
    }
    jpeg_write_scanlines(enc, codec->rows[0], static_cast<JDIMENSION>(n));
  }
}

// Decode (after jpeg_start_decompress, RGB out) into the planes at `dst` through interleaved rows in codec->work.
void decode_rgb_interleaved(Codec* codec, uint8_t* dst, int height, int width) {
  jpeg_decompress_struct* dec = &codec->dec;
  const int64_t plane = static_cast<int64_t>(height) * width;
  while (dec->output_scanline < dec->output_height) {
    const int y = static_cast<int>(dec->output_scanline);
    const int want = height - y < kMcuRows ? height - y : kMcuRows;
    for (int i = 0; i < want; ++i) codec->rows[0][i] = codec->work + static_cast<int64_t>(i) * 3 * width;
    const int got = static_cast<int>(jpeg_read_scanlines(dec, codec->rows[0], static_cast<JDIMENSION>(want)));
    for (int i = 0; i < got; ++i) {
      const uint8_t* row = codec->rows[0][i];
      uint8_t* r = dst + static_cast<int64_t>(y + i) * width;
      for (int x = 0; x < width; ++x) {
        r[x] = row[3 * x];
        r[plane + x] = row[3 * x + 1];
        r[2 * plane + x] = row[3 * x + 2];
      }
    }
  }
}

// Encode the planes at `src` (C planes of H x W, contiguous) with `quality` and decode into `dst` (same layout).
// The only function that calls setjmp for the round trip: POD state only. False if libjpeg failed. codec->work
// holds work_bytes(...)'s bytes. `planes`: RGB through the raw-data interface (else interleaved rows).
bool run_codec(Codec* codec, const uint8_t* src, uint8_t* dst, int channels, int height, int width, int quality,
               bool planes) {
  if (setjmp(codec->error.jump)) {
    jpeg_abort_compress(&codec->enc);  // back to the idle state (frees per-image memory): reusable, destroyable
    jpeg_abort_decompress(&codec->dec);
    return false;
  }
  const RawLayout layout = raw_layout(height, width);
  jpeg_compress_struct* enc = &codec->enc;
  enc->image_width = static_cast<JDIMENSION>(width);
  enc->image_height = static_cast<JDIMENSION>(height);
  enc->input_components = channels;
  enc->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(enc);  // RGB: YCbCr, 4:2:0
  jpeg_set_quality(enc, quality, TRUE);
  const bool raw = channels == 3 && planes;
  enc->raw_data_in = raw ? TRUE : FALSE;
  jpeg_start_compress(enc, TRUE);
  if (raw) {
    encode_rgb_raw(codec, src, height, width, layout);
  } else if (channels == 3) {
    encode_rgb_interleaved(codec, src, height, width);
  } else {
    while (enc->next_scanline < enc->image_height) {
      const int y = static_cast<int>(enc->next_scanline);
      const int n = height - y < kMcuRows ? height - y : kMcuRows;
      for (int i = 0; i < n; ++i) {
        codec->rows[0][i] = const_cast<JSAMPLE*>(src + static_cast<int64_t>(y + i) * width);  // only read
      }
      jpeg_write_scanlines(enc, codec->rows[0], static_cast<JDIMENSION>(n));
    }
  }
  jpeg_finish_compress(enc);

  jpeg_decompress_struct* dec = &codec->dec;
  jpeg_mem_src(dec, codec->dest.buffer, static_cast<unsigned long>(codec->dest.used));
  jpeg_read_header(dec, TRUE);
  dec->raw_data_out = raw ? TRUE : FALSE;
  jpeg_start_decompress(dec);
  if (dec->output_width != static_cast<JDIMENSION>(width) ||
      dec->output_height != static_cast<JDIMENSION>(height) || dec->num_components != channels) {
    snprintf(codec->error.message, sizeof(codec->error.message),
             "the decoded image is %dx%ux%u, the encoded one %dx%dx%d", dec->num_components, dec->output_height,
             dec->output_width, channels, height, width);
    jpeg_abort_decompress(dec);
    return false;
  }
  if (raw) {
    if (!decode_rgb_raw(codec, dst, height, width, layout)) {
      jpeg_abort_decompress(dec);
      return false;
    }
  } else if (channels == 3) {
    decode_rgb_interleaved(codec, dst, height, width);
  } else {
    while (dec->output_scanline < dec->output_height) {
      const int y = static_cast<int>(dec->output_scanline);
      const int want = height - y < kMcuRows ? height - y : kMcuRows;
      for (int i = 0; i < want; ++i) codec->rows[0][i] = dst + static_cast<int64_t>(y + i) * width;
      jpeg_read_scanlines(dec, codec->rows[0], static_cast<JDIMENSION>(want));
    }
  }
  jpeg_finish_decompress(dec);
  return true;
}

// Owns a Codec (and its buffers) for the C++ side: destroys the libjpeg structs and frees them when the owning
// thread ends (one per thread, see codec_for_this_thread).
class CodecGuard {
 public:
  CodecGuard() : codec_(static_cast<Codec*>(calloc(1, sizeof(Codec)))) {}
  ~CodecGuard() {
    if (codec_ == nullptr) return;
    jpeg_destroy_compress(&codec_->enc);  // safe on a struct whose creation failed or never ran (mem == NULL)
    jpeg_destroy_decompress(&codec_->dec);
    free(codec_->dest.buffer);
    free(codec_->work);
    free(codec_);
  }
  CodecGuard(const CodecGuard&) = delete;
  CodecGuard& operator=(const CodecGuard&) = delete;
  Codec* get() const { return codec_; }

 private:
  Codec* codec_;
};

// This thread's codec, created on first use; its buffers hold at least `dest_bytes` and `work_bytes`.
Codec* codec_for_this_thread(size_t dest_bytes, size_t work_bytes) {
  thread_local CodecGuard guard;
  Codec* codec = guard.get();
  TORCH_CHECK(codec != nullptr, "jpeg: out of memory");
  if (!codec->created) {
    const bool ok = create_codec(codec);
    TORCH_CHECK(ok, "jpeg: libjpeg failed: ", codec->error.message);
  }
  if (codec->dest.capacity < dest_bytes) {
    free(codec->dest.buffer);
    codec->dest.buffer = static_cast<JOCTET*>(malloc(dest_bytes));
    codec->dest.capacity = codec->dest.buffer == nullptr ? 0 : dest_bytes;
  }
  if (codec->work_capacity < work_bytes) {
    free(codec->work);
    codec->work = static_cast<uint8_t*>(malloc(work_bytes));
    codec->work_capacity = codec->work == nullptr ? 0 : work_bytes;
  }
  TORCH_CHECK(codec->dest.buffer != nullptr && (work_bytes == 0 || codec->work != nullptr), "jpeg: out of memory");
  return codec;
}

// RGB through the raw-data interface (our SIMD conversion) or through interleaved rows (libjpeg's conversion).
bool rgb_through_planes() {
  const char* forced = std::getenv("JITVISION_JPEG_INTERLEAVED");
  return jpeg_ycc::planes_path_is_fast() && !(forced != nullptr && forced[0] == '1');
}

void roundtrip_range(const uint8_t* src, uint8_t* dst, const int64_t* qualities, int64_t per_quality,
                     int64_t begin, int64_t end, int channels, int height, int width, bool planes) {
  const RawLayout layout = raw_layout(height, width);
  size_t work = 0;
  if (channels == 3) {
    work = planes ? static_cast<size_t>(std::max(layout.encode_bytes, layout.decode_bytes))
                  : static_cast<size_t>(kMcuRows) * 3 * width;
  }
  Codec* codec = codec_for_this_thread(static_cast<size_t>(height) * width * channels / 4 + 4096, work);
  const int64_t image_size = static_cast<int64_t>(channels) * height * width;
  for (int64_t m = begin; m < end; ++m) {
    const int quality = static_cast<int>(qualities[m / per_quality]);
    const bool ok =
        run_codec(codec, src + m * image_size, dst + m * image_size, channels, height, width, quality, planes);
    TORCH_CHECK(ok, "jpeg: libjpeg failed: ", codec->error.message);
  }
  if (codec->work_capacity > kKeptBytes) {  // a large image's buffers are not kept for the thread's lifetime
    free(codec->work);
    codec->work = nullptr;
    codec->work_capacity = 0;
  }
  if (codec->dest.capacity > kKeptBytes) {
    free(codec->dest.buffer);
    codec->dest.buffer = nullptr;
    codec->dest.capacity = 0;
  }
}

at::Tensor jpeg_u8(const at::Tensor& images, const at::Tensor& quality) {
  // libjpeg works on host memory: an image on another device makes the round trip through the host (documented)
  if (!images.device().is_cpu() || !quality.device().is_cpu()) {
    return jpeg_u8(images.cpu(), quality.cpu()).to(images.device());
  }
  TORCH_CHECK_TYPE(images.scalar_type() == at::kByte, "jpeg: expected a uint8 image, got ", images.scalar_type());
  TORCH_CHECK_VALUE(images.dim() >= 3 && (images.size(-3) == 1 || images.size(-3) == 3),
                    "jpeg: expected an image [..., 1 or 3, H, W], got shape ", images.sizes());
  TORCH_CHECK_TYPE(!at::isFloatingType(quality.scalar_type()) && !at::isComplexType(quality.scalar_type()) &&
                       quality.scalar_type() != at::kBool,
                   "jpeg: quality must be an integer tensor, got ", quality.scalar_type());
  const int channels = static_cast<int>(images.size(-3));
  const int64_t height = images.size(-2), width = images.size(-1);
  int64_t images_count = 1;  // the flattened batch: every dimension before C
  for (int64_t d = 0; d + 3 < images.dim(); ++d) images_count *= images.size(d);
  const at::Tensor q = quality.to(at::kCPU, at::kLong).contiguous().reshape({-1});
  const int64_t rows = q.numel();
  TORCH_CHECK_VALUE(rows >= 1 && images_count % rows == 0, "jpeg: ", rows, " qualities for ", images_count,
                    " images (one quality, or one per block of consecutive images)");
  const int64_t* qualities = q.const_data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    TORCH_CHECK_VALUE(qualities[r] >= 1 && qualities[r] <= 100,
                      "jpeg: quality must be an integer from 1 to 100, got ", qualities[r]);
  }
  if (images_count == 0) {
    return images.clone(at::MemoryFormat::Contiguous);
  }
  TORCH_CHECK_VALUE(height > 0 && width > 0, "jpeg: cannot encode an empty image, got shape ", images.sizes());
  // libjpeg itself refuses sides over JPEG_MAX_DIMENSION (65500, an error message through run_codec); this only
  // keeps the sides within an int on the way there.
  TORCH_CHECK_VALUE(height <= (1 << 24) && width <= (1 << 24), "jpeg: image too large to JPEG-encode, got shape ",
                    images.sizes());
  const at::Tensor src = images.to(at::kCPU).contiguous();
  at::Tensor out = at::empty(src.sizes(), src.options());
  const uint8_t* src_data = src.const_data_ptr<uint8_t>();
  uint8_t* out_data = out.mutable_data_ptr<uint8_t>();
  const int64_t per_quality = images_count / rows;
  const bool planes = rgb_through_planes();  // read here, outside the worker threads
  at::parallel_for(0, images_count, 1, [&](int64_t begin, int64_t end) {
    roundtrip_range(src_data, out_data, qualities, per_quality, begin, end, channels, static_cast<int>(height),
                    static_cast<int>(width), planes);
  });
  return images.device().is_cpu() ? out : out.to(images.device());
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("jpeg_u8(Tensor images, Tensor quality) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("jpeg_u8", &jitvision_native::jpeg_u8);
}
