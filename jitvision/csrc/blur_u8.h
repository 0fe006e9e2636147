// The uint8 Gaussian blur in fixed point (blur_u8.cpp), called by gaussian_blur (filters.cpp).
#pragma once

#include <cstdint>

namespace jitvision_native {

// src, dst: R * P planes of H x W uint8, contiguous; row r (P planes) is blurred with sigmas sx[r], sy[r] and the
// odd kernel sizes kx, ky (kx / 2 < W, ky / 2 < H), reflect borders.
void blur_planes_u8(const uint8_t* src, uint8_t* dst, int64_t R, int64_t P, int64_t H, int64_t W, int64_t kx,
                    int64_t ky, const double* sx, const double* sy);

}  // namespace jitvision_native
