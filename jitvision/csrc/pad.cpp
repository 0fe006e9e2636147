// ATen kernels as single opaque ops, for uint8 work under torch.compile.
//
// Inductor's CPU code for uint8 handles 8 bytes per step with masked partial loads: a uint8 constant pad took
// ~11 ms for a 3x512x512 image against ~60 us for ATen's kernel (what made the compiled Pad row cost 6-9 ms a
// call), and the select of a compiled probability gate (`where(coin, effect(x), x)`) cost as much as a copy (~1.8
// ms) on every compiled Random* colour transform. As one graph node each runs ATen's kernel instead:
// - constant_pad(input, pad, value): at::constant_pad_nd;
// - select_rows(apply, a, b): a where the bool `apply` is set, else b, for the whole tensor (apply []) or per row
//   (apply [R], a and b [..., R, ...] with R rows in memory order); a copy of the chosen rows.
// Outputs never alias the inputs (a custom op's rule).
// constant_pad of a contiguous CPU input padded on its last two dimensions by non-negative amounts (what Pad and
// RandomCrop's padding do) writes the output row by row (fill, memcpy of the input row, fill) instead: ~2x faster
// than at::constant_pad_nd's generic copy into a strided window (used in eager too, see functional/_pad.py).

#include <algorithm>
#include <cstring>

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

#if defined(__x86_64__)
#define JV_PAD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define JV_PAD_CLONES
#endif

// The output is written front to back. Short stretches go as fixed-size stores the compiler inlines (no libc call
// per row: a 3x512x512 uint8 image padded by 10 is 1596 rows of 512 bytes, and a memcpy + two memset calls per row
// were ~15% of the kernel): a row's bytes in 32-byte chunks (the last chunk overlapping the one before), and the
// border between two rows (the right border of one and the left border of the next, adjacent in memory) as one
// 64-byte store of the fill pattern. Stores may run past what they mean to write, into bytes that are written
// again later (every byte after the current position is), never past the end of the output.
constexpr int64_t kPattern = 64;

JV_PAD_CLONES void pad_rows_bytes(const uint8_t* __restrict src, uint8_t* __restrict dst, uint8_t* const end,
                                  int64_t planes, int64_t H, int64_t row, int64_t left, int64_t right, int64_t top,
                                  int64_t bottom, const uint8_t* __restrict pattern) {
  // row, left, right, top and bottom in bytes (top and bottom: whole border blocks); pattern: kPattern bytes of the
  // fill repeated (whole elements, so any store starting on an element boundary writes whole fill elements).
  auto fill = [&](uint8_t* p, int64_t n) {
    if (n <= kPattern && end - p >= kPattern) {
      std::memcpy(p, pattern, kPattern);
      return;
    }
    for (; n >= kPattern; n -= kPattern, p += kPattern) std::memcpy(p, pattern, kPattern);
    std::memcpy(p, pattern, static_cast<size_t>(n));
  };
  auto copy = [&](uint8_t* __restrict d, const uint8_t* __restrict s, int64_t n) {
    if (n < 32) {
      std::memcpy(d, s, static_cast<size_t>(n));
      return;
    }
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) std::memcpy(d + i, s + i, 32);
    if (i < n) std::memcpy(d + n - 32, s + n - 32, 32);
  };
  for (int64_t p = 0; p < planes; ++p) {
    if (top + left > 0) {
      fill(dst, top + left);
      dst += top + left;
    }
    for (int64_t y = 0; y < H; ++y) {
      copy(dst, src, row);
      dst += row;
      src += row;
      const int64_t gap = y + 1 < H ? right + left : right + bottom;
      if (gap > 0) {
        fill(dst, gap);
        dst += gap;
      }
    }
  }
}

template <typename T>
void pad_rows(const T* src, T* dst, int64_t planes, int64_t H, int64_t W, int64_t left, int64_t right, int64_t top,
              int64_t bottom, T fill) {
  const int64_t out_w = W + left + right;
  alignas(64) T pattern[kPattern / sizeof(T)];
  std::fill_n(pattern, kPattern / sizeof(T), fill);
  uint8_t* const out = reinterpret_cast<uint8_t*>(dst);
  const int64_t es = static_cast<int64_t>(sizeof(T));
  pad_rows_bytes(reinterpret_cast<const uint8_t*>(src), out, out + planes * (H + top + bottom) * out_w * es, planes,
                 H, W * es, left * es, right * es, top * out_w * es, bottom * out_w * es,
                 reinterpret_cast<const uint8_t*>(pattern));
}

bool rows_apply(const at::Tensor& input, at::IntArrayRef pad) {
  return input.device().is_cpu() && input.dim() >= 2 && pad.size() == 4 && input.is_contiguous() &&
         input.numel() > 0 && *std::min_element(pad.begin(), pad.end()) >= 0 &&
         (at::isIntegralType(input.scalar_type(), /*includeBool=*/true) || at::isFloatingType(input.scalar_type())) &&
         !at::isBitsType(input.scalar_type()) && input.scalar_type() != at::kUInt16 &&
         input.scalar_type() != at::kUInt32 && input.scalar_type() != at::kUInt64 && !at::isFloat8Type(input.scalar_type());
}

at::Tensor constant_pad(const at::Tensor& input, at::IntArrayRef pad, const at::Scalar& value) {
  if (rows_apply(input, pad)) {
    const int64_t H = input.size(-2), W = input.size(-1);
    auto sizes = input.sizes().vec();
    sizes[sizes.size() - 2] = H + pad[2] + pad[3];
    sizes[sizes.size() - 1] = W + pad[0] + pad[1];
    at::Tensor out = at::empty(sizes, input.options());
    const int64_t planes = input.numel() / (H * W);
    AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, input.scalar_type(), "constant_pad", [&] {
      pad_rows<scalar_t>(input.const_data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), planes, H, W, pad[0], pad[1],
                         pad[2], pad[3], value.to<scalar_t>());
    });
    return out;
  }
  at::Tensor out = at::constant_pad_nd(input, pad, value);
  return out.is_alias_of(input) ? out.clone() : out;
}

at::Tensor select_rows(const at::Tensor& apply, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK_VALUE(a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type(),
                    "jitvision_native.select_rows: the two inputs differ in shape or dtype: ", a.sizes(), " ",
                    a.scalar_type(), " vs ", b.sizes(), " ", b.scalar_type());
  const at::Tensor flags = apply.detach().to(at::kCPU, at::kBool).contiguous().reshape(-1);
  const int64_t R = flags.numel();
  const bool* f = flags.data_ptr<bool>();
  if (apply.dim() == 0) return (f[0] ? a : b).clone(at::MemoryFormat::Contiguous);
  TORCH_CHECK_VALUE(R > 0 && a.numel() % R == 0, "jitvision_native.select_rows: ", R,
                    " flags do not split a tensor of shape ", a.sizes(), " into rows");
  // Rows in memory order ([R, ...], or [1, R, ...] as callers pass it): a and b read as [R, numel / R].
  at::Tensor out = at::empty(a.sizes(), a.options().memory_format(at::MemoryFormat::Contiguous));
  const at::Tensor rows = out.view({R, -1}), ra = a.reshape({R, -1}), rb = b.reshape({R, -1});
  for (int64_t r = 0; r < R; ++r) rows.select(0, r).copy_(f[r] ? ra.select(0, r) : rb.select(0, r));
  return out;
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) {
  m.def("constant_pad(Tensor input, SymInt[] pad, Scalar value) -> Tensor");
  m.def("select_rows(Tensor apply, Tensor a, Tensor b) -> Tensor");
}

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("constant_pad", &jitvision_native::constant_pad);
  m.impl("select_rows", &jitvision_native::select_rows);
}
