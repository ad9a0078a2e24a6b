// `minitvm demo`, part 40: the pooling frontend. A PyTorch-style MaxPool2d and AvgPool2d
// (ceil_mode, padding) built for llvm under the TopHub llvm context (which carries the shipped pool
// configs) and for "cuda -emulate", the lowered IR of the llvm max pool, both targets checked
// against the reference executor, and one line of speed on a seed-grid layer vs a memcpy of the
// same bytes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <vector>

#include <minitvm/autotune/tophub.h>
#include <minitvm/frontend/pool_compiled.h>
#include <minitvm/frontend/pool_executor.h>
#include <minitvm/frontend/pool_plan.h>
#include <minitvm/runtime/ndarray.h>
#include <minitvm/runtime/thread_pool.h>
#include <minitvm/topi/pool.h>

#include "demo_parts.h"

namespace minitvm::tools {
namespace {

using namespace frontend;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;
using Clock = std::chrono::steady_clock;

HostArray demo_random(const std::vector<int64_t>& shape, uint32_t seed) {
  int64_t n = 1;
  for (auto v : shape) n *= v;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return HostArray::from_doubles(DataType::Float(32), shape, v);
}

double demo_error(const HostArray& got, const HostArray& want) {
  if (got.shape() != want.shape()) return INFINITY;
  double e = 0;
  for (int64_t i = 0; i < got.numel(); ++i)
    e = std::max(e, std::fabs(got.get(i) - want.get(i)) / (1 + std::fabs(want.get(i))));
  return e;
}

// Best of `reps` timings of fn, in seconds.
template <typename F>
double best_time(int reps, F&& fn) {
  double best = INFINITY;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

bool demo_pool() {
  std::cout << "== pooling frontend: PyTorch MaxPool2d / AvgPool2d for llvm (TopHub) and cuda "
               "-emulate ==\n";
  // The llvm TopHub package plus the project's pool configs (index.json "extra_packages"; passed
  // explicitly as well while tophub::context() does not read that key yet; loading twice is
  // harmless).
  std::vector<std::string> extra;
  std::string pool_log = autotune::tophub::root() + "/pool_llvm_v0.03.log";
  if (!autotune::tophub::root().empty() && std::filesystem::exists(pool_log))
    extra.push_back(pool_log);
  auto best = autotune::tophub::context("llvm", extra);
  autotune::DispatchScope scope(*best);
  PoolInput in{{2, 4, 13, 12}, DataType::Float(32), PoolLayout::ChannelsFirst};
  MaxPoolParams mp;
  mp.kernel_size = {3};
  mp.stride = {2};
  mp.padding = {1};
  mp.ceil_mode = true;
  AvgPoolParams ap;
  ap.kernel_size = {3};
  ap.stride = {2};
  ap.padding = {1};
  ap.ceil_mode = true;
  ap.count_include_pad = false;
  std::vector<std::pair<std::string, PoolPlan>> layers = {
      {"MaxPool2d(3, stride=2, padding=1, ceil_mode=True)", plan_max_pool(2, in, mp)},
      {"AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)",
       plan_avg_pool(2, in, ap)}};
  bool ok = true;
  ReferencePoolExecutor ref;
  for (auto& [title, plan] : layers) {
    std::cout << title << ": " << plan.str() << "\n";
    HostArray x = demo_random(plan.input_shape(), 3);
    HostArray want = ref.forward(plan, x).output;
    if (plan.mode == PoolMode::Max) {
      topi::PooledKernel k = topi::lower_pool(plan, "llvm", topi::PoolDirection::Forward);
      std::cout << "-- lowered IR (llvm, config " << (k.config.is_fallback() ? "fallback" : "tuned")
                << ") --\n"
                << k.lowered << "\n";
    }
    for (const char* target : {"llvm", "cuda -emulate"}) {
      try {
        CompiledPoolExecutor exe(target);
        double err = demo_error(exe.forward(plan, x).output, want);
        bool good = err <= 1e-6;
        ok &= good;
        std::cout << "  " << target << " forward vs reference: " << (good ? "ok" : "MISMATCH")
                  << " (max error " << err << ")\n";
      } catch (const std::exception& e) {
        std::cout << "  " << target << ": not available (" << e.what() << ")\n";
      }
    }
  }
  // Speed on the seed-grid layer N=32, C=128, H=W=56, k=3, s=3 (51 MB in) vs memcpy.
  MaxPoolParams sp;
  sp.kernel_size = {3};
  sp.stride = {3};
  PoolPlan big = plan_max_pool(
      2, PoolInput{{32, 128, 56, 56}, DataType::Float(32), PoolLayout::ChannelsFirst}, sp);
  topi::PooledKernel k = topi::build_pool(big, "llvm", topi::PoolDirection::Forward);
  auto xin = runtime::NDArray::empty(big.input_shape(), big.dtype);
  auto yout = runtime::NDArray::empty(big.output_shape(), big.dtype);
  std::vector<float> fill(static_cast<size_t>(xin.size()), 1.0f);
  xin.copy_from_bytes(fill.data(), fill.size() * sizeof(float));
  auto fn = k.module.get_function(k.func_name);
  double t = best_time(5, [&] { fn(xin, yout); });
  // The copy moves the same bytes (half read, half written) with the same threads, as
  // minitvm-bench-pool's baseline.
  size_t bytes = static_cast<size_t>(xin.nbytes() + yout.nbytes());
  std::vector<char> src(bytes / 2, 1), dst(bytes / 2);
  double tc = best_time(5, [&] { runtime::parallel_memcpy(dst.data(), src.data(), bytes / 2); });
  std::cout << "speed: max_pool2d 32x128x56x56 k3 s3 (config "
            << (k.config.is_fallback() ? "fallback" : "tuned") << "): " << t * 1e3 << " ms, "
            << double(bytes) / t / 1e9 << " GB/s; a copy of the same bytes on "
            << runtime::thread_pool_size() << " threads: " << tc * 1e3 << " ms, "
            << double(bytes) / tc / 1e9 << " GB/s; pool at " << 100.0 * tc / t
            << "% of copy bandwidth\n";
  std::cout << "pooling frontend: " << (ok ? "ok" : "MISMATCH") << "\n\n";
  return ok;
}

}  // namespace

MINITVM_DEMO_PART(40, "pooling frontend", demo_pool);

}  // namespace minitvm::tools
