// `minitvm demo`, part 30: a resnet50 conv layer for CUDA under the shipped TopHub logs. Prints
// the config ApplyHistoryBest chose (or that it fell back), the lowered IR, the CUDA source and
// ptxas's resource usage, runs the layer on the GPU when there is one, else on the CPU emulator,
// and checks it against naive loops.
#include <iostream>
#include <vector>

#include <minitvm/autotune/record.h>
#include <minitvm/autotune/tophub.h>
#include <minitvm/devtools/sweep.h>
#include <minitvm/runtime/cuda.h>
#include <minitvm/runtime/nvrtc.h>
#include <minitvm/runtime/ptxas.h>

#include "demo_parts.h"

namespace minitvm::tools {
namespace {

bool demo_conv_layer() {
  // resnet50 stage 4, 3x3 convolution: 512 -> 512 channels on 7x7, padding 1.
  const std::vector<int64_t> ds{1, 512, 7, 7}, ks{512, 512, 3, 3};
  topi::nn::Conv2dAttrs attrs;
  attrs.padding = {1, 1};
  std::cout << "== topi: resnet50 conv2d 1x512x7x7, kernel 512x512x3x3, pad 1, for CUDA under "
               "TopHub ==\n";
  autotune::tophub::Options topt;
  topt.include_seed_logs = true;  // tophub/cuda_v0.06.log plus the project's seed logs
  auto best = autotune::tophub::context("cuda", {}, topt);
  autotune::DispatchScope scope(*best);
  const bool gpu = runtime::cuda_available();
  const std::string target = gpu ? "cuda" : "cuda -emulate";
  topi::LayerBuild L = topi::build_conv2d(ds, ks, attrs, target);
  std::cout << "-- config (" << (L.is_fallback ? "fallback" : "from TopHub") << ", template "
            << L.template_key << ") --\n"
            << L.config.str() << "\n"
            << "workload " << autotune::workload_key(L.workload) << "\n"
            << "-- lowered IR --\n"
            << L.ir << "\n"
            << "-- CUDA source --\n"
            << L.source << "\n";
  if (runtime::nvrtc_available() && !runtime::find_ptxas().empty()) {
    auto rep = runtime::ptxas_check(runtime::nvrtc_compile(L.source).ptx, "sm_90");
    for (const auto& k : rep.kernels)
      std::cout << "-- ptxas sm_90: " << k.name << ": " << k.registers << " registers, "
                << k.shared_bytes << " bytes shared, " << k.spill_stores << "/" << k.spill_loads
                << " bytes spilled\n";
  } else {
    std::cout << "-- ptxas: NVRTC or ptxas not found, resource check skipped\n";
  }
  auto x = topi::sweep::random_values(512 * 7 * 7, 11),
       k = topi::sweep::random_values(512 * 512 * 9, 12);
  std::vector<float> got;
  if (gpu) {
    Device dev = Device::cuda(0);
    auto out = runtime::NDArray::empty({1, 512, 7, 7}, DataType::Float(32), dev);
    L.module.get_function(L.func_name)(runtime::NDArray::from_vector(x, ds).copy_to(dev),
                                       runtime::NDArray::from_vector(k, ks).copy_to(dev), out);
    got = out.copy_to(Device::cpu()).to_vector<float>();
  } else {
    got = topi::sweep::run_layer(L, {x, k});
  }
  auto ref = topi::sweep::reference_conv2d(ds, ks, attrs, false, x, k);
  double err = topi::sweep::max_relative_error(got, ref);
  bool ok = err < 1e-3;
  std::cout << "conv2d layer: " << (ok ? "ok" : "MISMATCH") << " (" << got.size()
            << " outputs vs naive loops, max relative error " << err << ", run on "
            << (gpu ? "the GPU" : "the CPU emulator") << ")\n\n";
  return ok;
}

}  // namespace

MINITVM_DEMO_PART(30, "topi: a resnet50 conv layer for CUDA under TopHub", demo_conv_layer);

}  // namespace minitvm::tools
