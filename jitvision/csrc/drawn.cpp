// `drawn_sizes(values)`: the carrier of drawn output sizes for traced graphs (jitvision/transforms/_drawn.py). The
// result has shape `values` (stride 0, no storage to speak of), and its fake implementation (jitvision/_native.py)
// gives every dimension a new unbacked symbolic size, so the transforms whose output size is drawn (RandomResize,
// RandomShortestSize, ScaleJitter, RandomZoomOut, RandomIoUCrop) read their sizes from its shape without breaking
// the graph. It used to be a Python operator (`jitvision::drawn_sizes`), which an exported program run by
// AOTInductor or TorchScript in a C++ program cannot call. Any device (CompositeExplicitAutograd); the values are
// read on the host, as `Tensor.tolist()` does.

#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

namespace jitvision_native {
namespace {

at::Tensor drawn_sizes(const at::Tensor& values) {
  TORCH_CHECK(values.dim() == 1, "drawn_sizes: expected a 1-D tensor of sizes, got ", values.dim(), " dimensions");
  TORCH_CHECK(!at::isFloatingType(values.scalar_type()) && !at::isComplexType(values.scalar_type()) &&
                  values.scalar_type() != at::kBool,
              "drawn_sizes: expected integer sizes, got ", values.scalar_type());
  const at::Tensor host = values.to(at::kCPU, at::kLong).contiguous();
  const int64_t* data = host.data_ptr<int64_t>();
  std::vector<int64_t> sizes(data, data + host.numel());
  for (int64_t size : sizes) TORCH_CHECK(size >= 0, "drawn_sizes: sizes must be non-negative, got ", size);
  return at::empty_strided(sizes, std::vector<int64_t>(sizes.size(), 0), values.options().dtype(at::kByte));
}

}  // namespace
}  // namespace jitvision_native

TORCH_LIBRARY_FRAGMENT(jitvision_native, m) { m.def("drawn_sizes(Tensor values) -> Tensor"); }

TORCH_LIBRARY_IMPL(jitvision_native, CompositeExplicitAutograd, m) {
  m.impl("drawn_sizes", &jitvision_native::drawn_sizes);
}
