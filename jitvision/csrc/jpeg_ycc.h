// JPEG's colour conversion and 4:2:0 chroma resampling on planes, in libjpeg-turbo's integer arithmetic
// (jpeg_ycc.cpp), so that jpeg.cpp can hand libjpeg raw YCbCr data (raw_data_in / raw_data_out) straight from and
// to CHW planes and still get libjpeg's own pixels back.
#pragma once

#include <cstdint>

namespace jitvision_native {
namespace jpeg_ycc {

// Two rows of RGB planes (the second is the row below the first, or the first again at the bottom edge).
struct Rows2 {
  const uint8_t *r0, *g0, *b0, *r1, *g1, *b1;
};

// RGB -> YCbCr of two rows (libjpeg's rgb_ycc_convert) and the 4:2:0 chroma of the pair (libjpeg's h2v2
// downsampling: the mean of each 2x2 block rounded with a bias of 1, 2, 1, 2, ... from the left). Y of each row goes
// to y0, y1 (2 * chroma_stride samples, those past `width` repeating the last pixel's, libjpeg's right-edge
// expansion), Cb and Cr to cb, cr (chroma_stride samples). No full-resolution chroma row is stored.
void rgb_to_ycc_h2v2(const Rows2& in, int width, int chroma_stride, uint8_t* y0, uint8_t* y1, uint8_t* cb,
                     uint8_t* cr);

// One output row of libjpeg's "fancy" (triangle) h2v2 chroma upsampling followed by YCbCr -> RGB (libjpeg's
// h2v2_fancy_upsample and ycc_rgb_convert): the *_nearest chroma rows are those the output row falls in, *_other
// the rows above (even output rows) or below (odd ones), all `in_width` samples (in_width >= 3, libjpeg's condition
// for the fancy filter); y and the planes r, g, b have `width` <= 2 * in_width samples. scratch: 2 * in_width + 4
// int16.
void ycc_to_rgb_fancy_row(const uint8_t* y, const uint8_t* cb_nearest, const uint8_t* cb_other,
                          const uint8_t* cr_nearest, const uint8_t* cr_other, int in_width, int width, uint8_t* r,
                          uint8_t* g, uint8_t* b, int16_t* scratch);

// YCbCr -> RGB of one row, chroma at full resolution (libjpeg's ycc_rgb_convert, clamped to 0..255), writing the planes r, g, b.
void ycc_to_rgb_row(const uint8_t* y, const uint8_t* cb, const uint8_t* cr, int width, uint8_t* r, uint8_t* g,
                    uint8_t* b);

// True where the loops above have their SIMD form (x86-64 with AVX2, checked at run time). Elsewhere they run as
// scalar code, ~2x slower than libjpeg's own (SIMD) conversion, so jpeg.cpp hands libjpeg interleaved rows instead.
bool planes_path_is_fast();

}  // namespace jpeg_ycc
}  // namespace jitvision_native
