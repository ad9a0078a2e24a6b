// PyTorch-style MaxPool2d and AvgPool2d through the pooling frontend: plan the layers with
// PyTorch's parameters (ceil_mode and padding), build the kernels with build_pool under the
// shipped TopHub llvm logs, print the lowered IR and the CUDA source of the chosen schedule, run
// forward and backward on the CPU (and on the GPU when there is one), and check every result
// against the naive reference executor.
//
//   torch: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True, return_indices=True)
//          nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
#include <minitvm/autotune/tophub.h>
#include <minitvm/frontend/pool_compiled.h>
#include <minitvm/frontend/pool_executor.h>
#include <minitvm/frontend/pool_plan.h>
#include <minitvm/runtime/cuda.h>
#include <minitvm/topi/pool.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>

using namespace minitvm;
using namespace minitvm::frontend;
using topi::PoolLayout;
using topi::PoolPlan;

namespace {

HostArray random_array(const std::vector<int64_t>& shape, uint32_t seed) {
  int64_t n = 1;
  for (auto v : shape) n *= v;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return HostArray::from_doubles(DataType::Float(32), shape, v);
}

// Largest |got - want| / (1 + |want|); infinity on a shape mismatch.
double max_error(const HostArray& got, const HostArray& want) {
  if (got.shape() != want.shape()) return INFINITY;
  double e = 0;
  for (int64_t i = 0; i < got.numel(); ++i)
    e = std::max(e, std::fabs(got.get(i) - want.get(i)) / (1 + std::fabs(want.get(i))));
  return e;
}

bool check(const std::string& what, double err, double tol) {
  bool ok = err <= tol;
  std::cout << "  " << what << ": " << (ok ? "ok" : "MISMATCH") << " (max error " << err << ")\n";
  return ok;
}

// Forward (with indices for max) and backward on one executor, against the reference.
bool run_layer(const PoolPlan& plan, PoolExecutor& exe, const HostArray& x,
               const HostArray& grad_out) {
  ReferencePoolExecutor ref;
  PoolForwardResult want = ref.forward(plan, x), got = exe.forward(plan, x);
  bool ok = check(exe.name() + " forward", max_error(got.output, want.output), 1e-6);
  if (plan.return_indices)
    ok &= check(exe.name() + " indices", max_error(got.indices, want.indices), 0);
  const HostArray* gi = plan.return_indices ? &got.indices : nullptr;
  const HostArray* wi = plan.return_indices ? &want.indices : nullptr;
  ok &= check(exe.name() + " backward",
              max_error(exe.backward(plan, x, grad_out, gi), ref.backward(plan, x, grad_out, wi)),
              1e-5);
  return ok;
}

bool run(const std::string& title, const PoolPlan& plan, bool print_code) {
  std::cout << "== " << title << " ==\n" << plan.str() << "\n";
  HostArray x = random_array(plan.input_shape(), 1),
            grad_out = random_array(plan.output_shape(), 2);
  // The llvm kernel and its config (from TopHub when the layer was tuned, else the fallback).
  topi::PooledKernel k = topi::build_pool(plan, "llvm", topi::PoolDirection::Forward);
  std::cout << "llvm config: " << (k.config.is_fallback() ? "fallback " : "tuned ")
            << k.config.str() << "\n";
  if (print_code) std::cout << "-- lowered IR (llvm, forward) --\n" << k.lowered << "\n";
  try {
    topi::PooledKernel c = topi::build_pool(plan, "cuda -emulate", topi::PoolDirection::Forward);
    if (print_code)
      std::cout << "-- CUDA source (forward) --\n" << c.module.get_source("cuda") << "\n";
  } catch (const std::exception& e) {
    std::cout << "-- CUDA source: not available (" << e.what() << ")\n";
  }
  CompiledPoolExecutor cpu("llvm");
  bool ok = run_layer(plan, cpu, x, grad_out);
  if (runtime::cuda_available()) {
    CompiledPoolExecutor gpu("cuda");
    ok &= run_layer(plan, gpu, x, grad_out);
  } else {
    std::cout << "  (no GPU: CUDA kernels not run)\n";
  }
  return ok;
}

}  // namespace

int main() {
  try {
    auto best = autotune::tophub::context("llvm");
    autotune::DispatchScope scope(*best);
    PoolInput in{{2, 3, 11, 10}, DataType::Float(32), PoolLayout::ChannelsFirst};

    MaxPoolParams mp;  // nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True, return_indices=True)
    mp.kernel_size = {3};
    mp.stride = {2};
    mp.padding = {1};
    mp.ceil_mode = true;
    mp.return_indices = true;
    bool ok =
        run("MaxPool2d(3, stride=2, padding=1, ceil_mode=True)", plan_max_pool(2, in, mp), true);

    AvgPoolParams
        ap;  // nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
    ap.kernel_size = {3};
    ap.stride = {2};
    ap.padding = {1};
    ap.ceil_mode = true;
    ap.count_include_pad = false;
    ok &= run("AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)",
              plan_avg_pool(2, in, ap), false);
    std::cout << (ok ? "all checks passed" : "SOME CHECKS FAILED") << "\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
