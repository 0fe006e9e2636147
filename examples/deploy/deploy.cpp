// jitvision deployment example: run a pipeline exported from Python in a C++ program without Python.
//
//   deploy [--native-lib LIB] (--script MODULE.pt | --aoti PACKAGE.pt2) --input IMAGE.raw
//          [--out PREFIX] [--calls N] [--seed S] [--bench ITERS]
//
// --native-lib  jitvision's native library (python -c "import jitvision; print(jitvision.native_library_path())"),
//               loaded with dlopen(RTLD_NOW | RTLD_GLOBAL) BEFORE the pipeline: neither a scripted module nor an
//               AOTInductor package records that it needs it, and without it loading fails
//               ("Unknown builtin op: jitvision_native::..." / "Could not find schema for jitvision_native::...").
//               A module scripted under jitvision.transforms.script_native_ops(False) needs no library.
// --script      a torch.jit.save'd module (torch::jit::load);
// --aoti        an AOTInductor package (torch._inductor.aoti_compile_and_package; AOTIModelPackageLoader).
// --input       a raw tensor (the format below), e.g. a 3xHxW uint8 image.
// --out PREFIX  writes the output of call i to PREFIX<i>.raw (i = 0..N-1, N = --calls, default 1).
// --seed S      torch::manual_seed(S) before the first call (random pipelines draw from torch's global RNG).
// --bench ITERS prints "us_per_call <median over 7 rounds of ITERS calls>" after the calls.
// --jit-optimize 0|1  TorchScript's graph executor optimizations (profiling, specialisation; default 1).
//
// Raw tensor format (little endian): "JVT1", int32 dtype (0 uint8, 1 float32), int32 ndim, int64 sizes[ndim],
// then the contiguous data.
//
// One intra-op thread (at::set_num_threads(1)): with AOTInductor kernels each call otherwise starts one OpenMP
// thread per core (measured: 11 ms instead of 1.2 ms per call from C++ threads).

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/script.h>

namespace {

at::Tensor read_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char magic[4];
  int32_t dtype = 0, ndim = 0;
  in.read(magic, 4);
  in.read(reinterpret_cast<char*>(&dtype), 4);
  in.read(reinterpret_cast<char*>(&ndim), 4);
  if (!in || std::memcmp(magic, "JVT1", 4) != 0 || ndim < 0 || ndim > 8 || (dtype != 0 && dtype != 1)) {
    throw std::runtime_error(path + " is not a JVT1 raw tensor");
  }
  std::vector<int64_t> sizes(ndim);
  in.read(reinterpret_cast<char*>(sizes.data()), 8 * ndim);
  at::Tensor t = at::empty(sizes, dtype == 0 ? at::kByte : at::kFloat);
  in.read(reinterpret_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  if (!in) throw std::runtime_error(path + " is truncated");
  return t;
}

void write_raw(const std::string& path, const at::Tensor& tensor) {
  const at::Tensor t = tensor.contiguous();
  const int32_t dtype = t.scalar_type() == at::kByte ? 0 : 1;
  if (dtype == 1 && t.scalar_type() != at::kFloat) throw std::runtime_error("outputs must be uint8 or float32");
  const auto ndim = static_cast<int32_t>(t.dim());
  std::ofstream out(path, std::ios::binary);
  out.write("JVT1", 4);
  out.write(reinterpret_cast<const char*>(&dtype), 4);
  out.write(reinterpret_cast<const char*>(&ndim), 4);
  out.write(reinterpret_cast<const char*>(t.sizes().data()), 8 * ndim);
  out.write(reinterpret_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

int run(int argc, char** argv) {
  std::string native_lib, script, aoti, input, out_prefix;
  int64_t calls = 1, seed = -1, bench = 0;
  bool jit_optimize = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--native-lib") native_lib = value();
    else if (arg == "--script") script = value();
    else if (arg == "--aoti") aoti = value();
    else if (arg == "--input") input = value();
    else if (arg == "--out") out_prefix = value();
    else if (arg == "--calls") calls = std::stoll(value());
    else if (arg == "--seed") seed = std::stoll(value());
    else if (arg == "--bench") bench = std::stoll(value());
    else if (arg == "--jit-optimize") jit_optimize = value() != "0";
    else throw std::runtime_error("unknown argument " + arg);
  }
  if (script.empty() == aoti.empty() || input.empty()) {
    throw std::runtime_error("usage: deploy [--native-lib LIB] (--script M.pt | --aoti P.pt2) --input X.raw ...");
  }
  at::set_num_threads(1);
  // 1. The op library first: it registers jitvision_native::* with the dispatcher in its static initializers.
  if (!native_lib.empty() && dlopen(native_lib.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    throw std::runtime_error(std::string("dlopen failed: ") + dlerror());
  }
  c10::InferenceMode no_autograd;
  // 2. Then the pipeline.
  std::function<at::Tensor(const at::Tensor&)> pipeline;
  std::unique_ptr<torch::jit::Module> module;
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  if (!script.empty()) {
    torch::jit::setGraphExecutorOptimize(jit_optimize);
    module = std::make_unique<torch::jit::Module>(torch::jit::load(script));
    module->eval();
    pipeline = [&](const at::Tensor& x) { return module->forward({x}).toTensor(); };
  } else {
    loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(aoti);
    pipeline = [&](const at::Tensor& x) { return loader->run({x})[0]; };
  }
  const at::Tensor image = read_raw(input);
  if (seed >= 0) torch::manual_seed(static_cast<uint64_t>(seed));
  for (int64_t i = 0; i < calls; ++i) {
    const at::Tensor out = pipeline(image);
    if (!out_prefix.empty()) write_raw(out_prefix + std::to_string(i) + ".raw", out);
  }
  if (bench > 0) {
    for (int64_t i = 0; i < std::min<int64_t>(bench, 20); ++i) pipeline(image);
    std::vector<double> rounds;
    for (int r = 0; r < 7; ++r) {
      const auto start = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < bench; ++i) pipeline(image);
      const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
      rounds.push_back(took.count() / static_cast<double>(bench));
    }
    std::sort(rounds.begin(), rounds.end());
    std::printf("us_per_call %.1f\n", rounds[rounds.size() / 2]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "deploy: %s\n", error.what());
    return 1;
  }
}
