// jitvision deployment example: run a pipeline exported from Python in a C++ program without Python.
//
//   deploy [--native-lib LIB] (--script MODULE.pt | --aoti PACKAGE.pt2) --input IMAGE.raw
//          [--out PREFIX] [--calls N] [--seed S] [--bench ITERS] [--threads N [--seconds S] [--shared-loader]]
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
// --threads N   threads mode (instead of the calls above): N threads, each with its own module (torch::jit::load)
//               or its own package loader (one runner), its own copy of the input and one intra-op thread, call
//               the pipeline in a loop for --seconds S (default 2, after a warm-up of 20 calls each, all threads
//               released together) and print "threads N calls C seconds T calls_per_s X cpu_per_s U cpu_us_per_call
//               P waits_per_call W" (U: the process's CPU seconds per second of the window, at most N: below N,
//               the threads waited, for a lock or, on a shared machine, for a core; P: CPU time per call, which
//               grows with N if the threads slow each other down (memory bandwidth, cache, spinning); W: voluntary
//               context switches per call, a thread blocking on a lock or a condition: ~0 if nothing serialises,
//               whatever the machine's load). With --out, thread t writes its first output to PREFIX<t>.raw.
// --control     (threads mode, instead of --script/--aoti) a 200x200 float torch::mm per call: what the machine
//               gives N threads of a C++ process at the moment (the pipelines' speedups read against it).
// --shared-loader  (threads mode, --aoti) one package loader with N runners for all threads instead of N loaders.
//
// Raw tensor format (little endian): "JVT1", int32 dtype (0 uint8, 1 float32), int32 ndim, int64 sizes[ndim],
// then the contiguous data.
//
// One intra-op thread (at::set_num_threads(1)): with AOTInductor kernels each call otherwise starts one OpenMP
// thread per core (measured: 11 ms instead of 1.2 ms per call from C++ threads).

#include <dlfcn.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <barrier>
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
#include <thread>
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

using Pipeline = std::function<at::Tensor(const at::Tensor&)>;

// A pipeline of its own (loaded now), for one thread.
struct Loaded {
  std::unique_ptr<torch::jit::Module> module;
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  Pipeline call;
};

Loaded load(const std::string& script, const std::string& aoti, size_t runners = 1) {
  Loaded loaded;
  if (script.empty() && aoti.empty()) {  // --control
    const at::Tensor matrix = at::rand({200, 200});
    loaded.call = [matrix](const at::Tensor&) { return at::mm(matrix, matrix); };
  } else if (!script.empty()) {
    loaded.module = std::make_unique<torch::jit::Module>(torch::jit::load(script));
    loaded.module->eval();
    torch::jit::Module* module = loaded.module.get();
    loaded.call = [module](const at::Tensor& x) { return module->forward({x}).toTensor(); };
  } else {
    loaded.loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(aoti, "model", false, runners);
    torch::inductor::AOTIModelPackageLoader* loader = loaded.loader.get();
    loaded.call = [loader](const at::Tensor& x) { return loader->run({x})[0]; };
  }
  return loaded;
}

long voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw;
}

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Threads mode: `threads` threads call their own pipeline for `seconds`; prints the calls per second of all of them.
void run_threads(const std::string& script, const std::string& aoti, const at::Tensor& image, int64_t threads,
                 double seconds, bool shared_loader, const std::string& out_prefix) {
  // Loading is not timed, and done before the threads start (torch::jit::load from several threads at once is not
  // documented as safe).
  std::vector<Loaded> pipelines;
  Loaded shared;
  if (shared_loader && !aoti.empty()) {
    shared = load(script, aoti, static_cast<size_t>(threads));
  } else {
    for (int64_t t = 0; t < threads; ++t) pipelines.push_back(load(script, aoti));
  }
  std::vector<int64_t> counts(threads, 0);
  std::atomic<bool> stop{false};
  std::barrier<> start(threads + 1), ready(threads + 1);
  std::vector<std::string> errors(threads);
  std::vector<std::thread> workers;
  for (int64_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t]() {
      // Per thread: OpenMP's thread count is a per-thread setting (a new thread starts from OMP_NUM_THREADS or the
      // core count), and InferenceMode is thread-local.
      at::set_num_threads(1);
      c10::InferenceMode no_autograd;
      const Pipeline& call = shared.call ? shared.call : pipelines[t].call;
      const at::Tensor x = image.clone();
      try {
        const at::Tensor first = call(x);
        if (!out_prefix.empty()) write_raw(out_prefix + std::to_string(t) + ".raw", first);
        for (int i = 0; i < 20; ++i) call(x);
      } catch (const std::exception& error) {
        errors[t] = error.what();
      }
      ready.arrive_and_wait();
      start.arrive_and_wait();
      int64_t n = 0;
      try {
        while (errors[t].empty() && !stop.load(std::memory_order_relaxed)) {
          call(x);
          ++n;
        }
      } catch (const std::exception& error) {
        errors[t] = error.what();
      }
      counts[t] = n;
    });
  }
  ready.arrive_and_wait();
  const auto begin = std::chrono::steady_clock::now();
  const double cpu_begin = process_cpu_seconds();
  const long switches_begin = voluntary_switches();
  start.arrive_and_wait();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& worker : workers) worker.join();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
  const double cpu = process_cpu_seconds() - cpu_begin;
  // The joins above add one voluntary switch per thread at most (the main thread's sleep adds one): not per call.
  const long switches = voluntary_switches() - switches_begin;
  for (const auto& error : errors) {
    if (!error.empty()) throw std::runtime_error("a thread failed: " + error);
  }
  int64_t total = 0;
  for (int64_t n : counts) total += n;
  const double calls = static_cast<double>(std::max<int64_t>(total, 1));
  std::printf("threads %lld calls %lld seconds %.3f calls_per_s %.1f cpu_per_s %.2f cpu_us_per_call %.1f "
              "waits_per_call %.3f\n",
              static_cast<long long>(threads), static_cast<long long>(total), took.count(),
              static_cast<double>(total) / took.count(), cpu / took.count(), 1e6 * cpu / calls,
              static_cast<double>(switches) / calls);
}

int run(int argc, char** argv) {
  std::string native_lib, script, aoti, input, out_prefix;
  int64_t calls = 1, seed = -1, bench = 0;
  bool jit_optimize = true, shared_loader = false, control = false;
  int64_t threads = 0;
  double seconds = 2.0;
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
    else if (arg == "--threads") threads = std::stoll(value());
    else if (arg == "--seconds") seconds = std::stod(value());
    else if (arg == "--shared-loader") shared_loader = true;
    else if (arg == "--control") control = true;
    else throw std::runtime_error("unknown argument " + arg);
  }
  if (control && threads > 0 && script.empty() && aoti.empty() && input.empty()) {
    at::set_num_threads(1);
    run_threads(script, aoti, at::empty({0}), threads, seconds, false, out_prefix);
    return 0;
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
  torch::jit::setGraphExecutorOptimize(jit_optimize);
  const at::Tensor image = read_raw(input);
  if (seed >= 0) torch::manual_seed(static_cast<uint64_t>(seed));
  if (threads > 0) {
    run_threads(script, aoti, image, threads, seconds, shared_loader, out_prefix);
    return 0;
  }
  // 2. Then the pipeline.
  const Loaded loaded = load(script, aoti);
  const Pipeline& pipeline = loaded.call;
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
