// jpeg_u8(images, quality): JPEG-encode and decode uint8 images [..., 1 or 3, H, W] with the system's
// libjpeg(-turbo), the codec torchvision's encode_jpeg/decode_jpeg use, with the same settings: jpeg_set_defaults
// (4:2:0 chroma subsampling for RGB, the integer "slow" DCT, no entropy optimisation), jpeg_set_quality(q, TRUE)
// (baseline tables), RGB or grayscale in, the decoder's defaults out (fancy upsampling, the same DCT).
//
// - Layout: the input stays CHW. Encoding interleaves a block of rows at a time into a small scanline buffer, and
//   decoding de-interleaves each block of decoded rows straight into the output planes (no whole-image transposes,
//   no HWC copy). One-channel images are handed to libjpeg row by row with no copy at all.
// - quality: an integer tensor of one value, or one per block of consecutive images of the flattened batch
//   (numel R with N % R == 0: image m uses quality[m / (N / R)]), read here, so a drawn quality stays live in a
//   traced graph. 1..100 (ValueError otherwise).
// - Errors: libjpeg reports errors by calling error_exit, which must not return; ours longjmps back to the one
//   function that called setjmp. That function (run_codec) and everything the jump crosses hold only POD state
//   (the codec structs, plain pointers, ints): no C++ object with a destructor lives in a frame the jump skips.
//   After it returns false, the caller (ordinary C++) turns the message into a TORCH_CHECK; the compress and
//   decompress structs and the malloc'd buffers are owned by a guard that destroys/frees them on every path.
// - A batch is split across torch's intra-op threads (at::parallel_for), one codec per chunk of images.
// This file is compiled only when setup.py finds jpeglib.h and libjpeg (see setup.py's docstring).

#include <csetjmp>
#include <cstdint>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

constexpr int kBlockRows = 16;  // rows interleaved / decoded per libjpeg call

struct ErrorManager {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

// The destination: a malloc'd buffer that grows by realloc (kept across the images of a chunk).
struct Destination {
  jpeg_destination_mgr pub;
  JOCTET* buffer;
  size_t capacity;
  size_t used;
};

// Everything the codec touches: plain data only (memset to zero, freed by CodecGuard).
struct Codec {
  jpeg_compress_struct enc;
  jpeg_decompress_struct dec;
  ErrorManager error;
  Destination dest;
  JSAMPLE* rows;  // kBlockRows interleaved scanlines
  JSAMPROW row_pointers[kBlockRows];
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

// RGB planes <-> interleaved RGB rows. SSSE3 byte shuffles, 16 pixels (48 bytes) a step, where the CPU has them
// (checked at run time: the library stays plain x86-64); the scalar loops do the rest and the other CPUs.
void interleave3_scalar(const uint8_t* __restrict__ r, const uint8_t* __restrict__ g, const uint8_t* __restrict__ b,
                        uint8_t* __restrict__ out, int64_t begin, int64_t count) {
  for (int64_t x = begin; x < count; ++x) {
    out[3 * x] = r[x];
    out[3 * x + 1] = g[x];
    out[3 * x + 2] = b[x];
  }
}

void deinterleave3_scalar(const uint8_t* __restrict__ in, uint8_t* __restrict__ r, uint8_t* __restrict__ g,
                          uint8_t* __restrict__ b, int64_t begin, int64_t count) {
  for (int64_t x = begin; x < count; ++x) {
    r[x] = in[3 * x];
    g[x] = in[3 * x + 1];
    b[x] = in[3 * x + 2];
  }
}

#if defined(__x86_64__)
// Shuffle masks: byte i of the result takes byte mask[i] of the source (-1: zero).
// Planes from 48 interleaved bytes (a0 | a1 | a2): plane c, part k takes bytes 3j + c that fall in a_k.
alignas(16) static const int8_t kSplit[3][3][16] = {
    {{0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13}},
    {{1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14}},
    {{2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15}},
};
// Interleaved part k (bytes 16k..16k+15) from plane c: byte i is plane[(16k + i) / 3] where (16k + i) % 3 == c.
alignas(16) static const int8_t kMerge[3][3][16] = {
    {{0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5},
     {-1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1},
     {-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1}},
    {{-1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10, -1},
     {5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10},
     {-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1}},
    {{-1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1, -1},
     {-1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1},
     {10, -1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15}},
};

__attribute__((target("ssse3"))) void deinterleave3_ssse3(const uint8_t* in, uint8_t* r, uint8_t* g, uint8_t* b,
                                                           int64_t count) {
  uint8_t* planes[3] = {r, g, b};
  int64_t x = 0;
  for (; x + 16 <= count; x += 16) {
    __m128i a[3];
    for (int k = 0; k < 3; ++k) a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * x + 16 * k));
    for (int c = 0; c < 3; ++c) {
      __m128i v = _mm_shuffle_epi8(a[0], _mm_load_si128(reinterpret_cast<const __m128i*>(kSplit[c][0])));
      v = _mm_or_si128(v, _mm_shuffle_epi8(a[1], _mm_load_si128(reinterpret_cast<const __m128i*>(kSplit[c][1]))));
      v = _mm_or_si128(v, _mm_shuffle_epi8(a[2], _mm_load_si128(reinterpret_cast<const __m128i*>(kSplit[c][2]))));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(planes[c] + x), v);
    }
  }
  deinterleave3_scalar(in, r, g, b, x, count);
}

__attribute__((target("ssse3"))) void interleave3_ssse3(const uint8_t* r, const uint8_t* g, const uint8_t* b,
                                                         uint8_t* out, int64_t count) {
  int64_t x = 0;
  for (; x + 16 <= count; x += 16) {
    const __m128i p[3] = {_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + x)),
                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(g + x)),
                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + x))};
    for (int k = 0; k < 3; ++k) {
      __m128i v = _mm_shuffle_epi8(p[0], _mm_load_si128(reinterpret_cast<const __m128i*>(kMerge[k][0])));
      v = _mm_or_si128(v, _mm_shuffle_epi8(p[1], _mm_load_si128(reinterpret_cast<const __m128i*>(kMerge[k][1]))));
      v = _mm_or_si128(v, _mm_shuffle_epi8(p[2], _mm_load_si128(reinterpret_cast<const __m128i*>(kMerge[k][2]))));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * x + 16 * k), v);
    }
  }
  interleave3_scalar(r, g, b, out, x, count);
}

bool has_ssse3() {
  static const bool value = __builtin_cpu_supports("ssse3");
  return value;
}
#endif

void interleave3(const uint8_t* r, const uint8_t* g, const uint8_t* b, uint8_t* out, int64_t count) {
#if defined(__x86_64__)
  if (has_ssse3()) return interleave3_ssse3(r, g, b, out, count);
#endif
  interleave3_scalar(r, g, b, out, 0, count);
}

void deinterleave3(const uint8_t* in, uint8_t* r, uint8_t* g, uint8_t* b, int64_t count) {
#if defined(__x86_64__)
  if (has_ssse3()) return deinterleave3_ssse3(in, r, g, b, count);
#endif
  deinterleave3_scalar(in, r, g, b, 0, count);
}

// Create the compress and decompress structs. False (with codec->error.message) if libjpeg failed.
bool create_codec(Codec* codec) {
  codec->enc.err = jpeg_std_error(&codec->error.pub);
  codec->dec.err = &codec->error.pub;
  codec->error.pub.error_exit = on_error;
  codec->error.pub.output_message = on_output_message;
  if (setjmp(codec->error.jump)) {
    return false;
  }
  jpeg_create_compress(&codec->enc);
  jpeg_create_decompress(&codec->dec);
  codec->dest.pub.init_destination = dest_init;
  codec->dest.pub.empty_output_buffer = dest_empty;
  codec->dest.pub.term_destination = dest_term;
  codec->enc.dest = &codec->dest.pub;
  return true;
}

// Encode the planes at `src` (C planes of H x W, contiguous) with `quality` and decode into `dst` (same layout).
// The only function that calls setjmp for the round trip: POD state only. False if libjpeg failed.
bool run_codec(Codec* codec, const uint8_t* src, uint8_t* dst, int channels, int height, int width, int quality) {
  if (setjmp(codec->error.jump)) {
    jpeg_abort_compress(&codec->enc);  // back to the idle state (frees per-image memory), so the guard can destroy
    jpeg_abort_decompress(&codec->dec);
    return false;
  }
  const int64_t plane = static_cast<int64_t>(height) * width;
  jpeg_compress_struct* enc = &codec->enc;
  enc->image_width = static_cast<JDIMENSION>(width);
  enc->image_height = static_cast<JDIMENSION>(height);
  enc->input_components = channels;
  enc->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(enc);
  jpeg_set_quality(enc, quality, TRUE);
  jpeg_start_compress(enc, TRUE);
  while (enc->next_scanline < enc->image_height) {
    const int y = static_cast<int>(enc->next_scanline);
    const int n = height - y < kBlockRows ? height - y : kBlockRows;
    for (int i = 0; i < n; ++i) {
      const int64_t offset = static_cast<int64_t>(y + i) * width;
      if (channels == 1) {
        codec->row_pointers[i] = const_cast<JSAMPLE*>(src + offset);  // libjpeg only reads it
      } else {
        JSAMPLE* row = codec->rows + static_cast<int64_t>(i) * width * 3;
        interleave3(src + offset, src + plane + offset, src + 2 * plane + offset, row, width);
        codec->row_pointers[i] = row;
      }
    }
    jpeg_write_scanlines(enc, codec->row_pointers, static_cast<JDIMENSION>(n));
  }
  jpeg_finish_compress(enc);

  jpeg_decompress_struct* dec = &codec->dec;
  jpeg_mem_src(dec, codec->dest.buffer, static_cast<unsigned long>(codec->dest.used));
  jpeg_read_header(dec, TRUE);
  jpeg_start_decompress(dec);
  if (dec->output_width != static_cast<JDIMENSION>(width) ||
      dec->output_height != static_cast<JDIMENSION>(height) || dec->output_components != channels) {
    snprintf(codec->error.message, sizeof(codec->error.message),
             "the decoded image is %dx%ux%u, the encoded one %dx%dx%d", dec->output_components, dec->output_height,
             dec->output_width, channels, height, width);
    jpeg_abort_decompress(dec);
    return false;
  }
  while (dec->output_scanline < dec->output_height) {
    const int y = static_cast<int>(dec->output_scanline);
    const int want = height - y < kBlockRows ? height - y : kBlockRows;
    for (int i = 0; i < want; ++i) {
      codec->row_pointers[i] = channels == 1 ? dst + static_cast<int64_t>(y + i) * width
                                             : codec->rows + static_cast<int64_t>(i) * width * 3;
    }
    const int got = static_cast<int>(jpeg_read_scanlines(dec, codec->row_pointers, static_cast<JDIMENSION>(want)));
    if (channels == 3) {
      for (int i = 0; i < got; ++i) {
        const int64_t offset = static_cast<int64_t>(y + i) * width;
        deinterleave3(codec->rows + static_cast<int64_t>(i) * width * 3, dst + offset, dst + plane + offset,
                      dst + 2 * plane + offset, width);
      }
    }
  }
  jpeg_finish_decompress(dec);
  return true;
}

// Owns a Codec (and its buffers) for the C++ side: destroys the libjpeg structs and frees on every path.
class CodecGuard {
 public:
  CodecGuard() : codec_(static_cast<Codec*>(calloc(1, sizeof(Codec)))) {}
  ~CodecGuard() {
    if (codec_ == nullptr) return;
    jpeg_destroy_compress(&codec_->enc);  // safe on a struct whose creation failed or never ran (mem == NULL)
    jpeg_destroy_decompress(&codec_->dec);
    free(codec_->dest.buffer);
    free(codec_->rows);
    free(codec_);
  }
  CodecGuard(const CodecGuard&) = delete;
  CodecGuard& operator=(const CodecGuard&) = delete;
  Codec* get() const { return codec_; }

 private:
  Codec* codec_;
};

void roundtrip_range(const uint8_t* src, uint8_t* dst, const int64_t* qualities, int64_t per_quality,
                     int64_t begin, int64_t end, int channels, int height, int width) {
  CodecGuard guard;
  Codec* codec = guard.get();
  TORCH_CHECK(codec != nullptr, "jpeg: out of memory");
  codec->dest.capacity = static_cast<size_t>(height) * width * channels / 4 + 4096;
  codec->dest.buffer = static_cast<JOCTET*>(malloc(codec->dest.capacity));
  codec->rows = static_cast<JSAMPLE*>(malloc(static_cast<size_t>(kBlockRows) * width * 3));
  TORCH_CHECK(codec->dest.buffer != nullptr && codec->rows != nullptr, "jpeg: out of memory");
  TORCH_CHECK(create_codec(codec), "jpeg: libjpeg failed: ", codec->error.message);
  const int64_t image_size = static_cast<int64_t>(channels) * height * width;
  for (int64_t m = begin; m < end; ++m) {
    const int quality = static_cast<int>(qualities[m / per_quality]);
    const bool ok = run_codec(codec, src + m * image_size, dst + m * image_size, channels, height, width, quality);
    TORCH_CHECK(ok, "jpeg: libjpeg failed: ", codec->error.message);
  }
}

at::Tensor jpeg_u8(const at::Tensor& images, const at::Tensor& quality) {
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
  at::parallel_for(0, images_count, 1, [&](int64_t begin, int64_t end) {
    roundtrip_range(src_data, out_data, qualities, per_quality, begin, end, channels, static_cast<int>(height),
                    static_cast<int>(width));
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
