// Uniform float32 draws on a CPU generator exactly as torch.rand(shape, dtype=float32, generator=g) draws them (the
// serial CPU uniform kernel: the generator's lock, at::uniform_real_distribution<float>(0, 1) per element in order,
// a value that rounds up to 1 becomes 0), without building the tensor: a 0-d or 4-element rand costs several
// microseconds of tensor creation and dispatch, a large share of a cheap transform's eager call. The tests compare
// these draws with the Python path's torch.rand on the same seed (tests/transforms/test_eager_fast_path.py).
#pragma once

#include <mutex>
#include <optional>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/DistributionsHelper.h>
#include <ATen/core/Generator.h>

namespace jitvision_native {

inline void uniform_floats(const std::optional<at::Generator>& generator, float* out, int count) {
  at::CPUGeneratorImpl* gen =
      at::get_generator_or_default<at::CPUGeneratorImpl>(generator, at::detail::getDefaultCPUGenerator());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  at::uniform_real_distribution<float> uniform(0.f, 1.f);
  for (int i = 0; i < count; ++i) {
    const float value = static_cast<float>(uniform(gen));
    out[i] = value == 1.f ? 0.f : value;
  }
}

}  // namespace jitvision_native
