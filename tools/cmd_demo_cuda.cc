// `minitvm demo`, part 10: a TVM-style tiled CUDA matmul (shared + register caches, vthreads,
// cooperative fetching). Prints the lowered IR, the CUDA source and ptxas's resource usage, runs
// it on the GPU when there is one, else on the CPU emulator, and checks it against a naive loop.
#include <cmath>
#include <iostream>
#include <vector>

#include <minitvm/minitvm.h>
#include <minitvm/runtime/cuda.h>
#include <minitvm/runtime/nvrtc.h>
#include <minitvm/runtime/ptxas.h>

#include "demo_parts.h"

namespace minitvm::tools {
namespace {

bool demo_cuda_matmul() {
  std::cout << "== CUDA: tiled matmul 128x128x128 (64x64 blocks, 8x8 threads, 2x2 vthreads) ==\n";
  const int n = 128, block = 64, nthread = 8, nvthread = 2, ktile = 8;
  DataType f32 = DataType::Float(32);
  auto A = te::placeholder({n, n}, f32, "A"), B = te::placeholder({n, n}, f32, "B");
  auto k = te::reduce_axis({0, n}, "k");
  auto C = te::compute(
      {n, n}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto AA = s.cache_read(A, "shared", {C.op()});
  auto BB = s.cache_read(B, "shared", {C.op()});
  auto AL = s.cache_read(AA, "local", {C.op()});
  auto BL = s.cache_read(BB, "local", {C.op()});
  auto CL = s.cache_write(C, "local");
  auto [by, yi0] = s[C].split(C.op().axis()[0], block);
  auto [bx, xi0] = s[C].split(C.op().axis()[1], block);
  auto [vy, yi1] = s[C].split_nparts(yi0, nvthread);
  auto [ty, yi] = s[C].split_nparts(yi1, nthread);
  auto [vx, xi1] = s[C].split_nparts(xi0, nvthread);
  auto [tx, xi] = s[C].split_nparts(xi1, nthread);
  s[C].reorder({by, bx, vy, vx, ty, tx, yi, xi});
  s[C].bind(by, te::thread_axis("blockIdx.y"));
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(vy, te::thread_axis("vthread"));
  s[C].bind(vx, te::thread_axis("vthread"));
  s[C].bind(ty, te::thread_axis("threadIdx.y"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  s[CL].compute_at(s[C], tx);
  auto cl_axes = CL.op().axis();
  auto [ko, ki] = s[CL].split(CL.op().reduce_axis()[0], ktile);
  s[CL].reorder({ko, ki, cl_axes[0], cl_axes[1]});
  s[AA].compute_at(s[CL], ko);
  s[BB].compute_at(s[CL], ko);
  s[AL].compute_at(s[CL], ki);
  s[BL].compute_at(s[CL], ki);
  for (auto* X : {&AA, &BB}) {
    auto ax = X->op().axis();
    auto fused = s[*X].fuse(ax[0], ax[1]);
    auto [fy, rest] = s[*X].split_nparts(fused, nthread);
    auto [fx, inner] = s[*X].split_nparts(rest, nthread);
    (void)inner;
    s[*X].bind(fy, te::thread_axis("threadIdx.y"));
    s[*X].bind(fx, te::thread_axis("threadIdx.x"));
  }

  std::cout << "-- lowered IR --\n" << lower(s, {A, B, C}, "matmul") << "\n";
  const bool gpu = runtime::cuda_available();
  const std::string target = gpu ? "cuda" : "cuda -emulate";
  runtime::Module mod = build(s, {A, B, C}, target, "matmul");
  std::cout << "-- CUDA source --\n" << mod.get_source("cuda") << "\n";
  if (runtime::nvrtc_available() && !runtime::find_ptxas().empty()) {
    runtime::NvrtcOptions o;
    o.arch = "sm_90";
    auto rep = runtime::ptxas_check(runtime::nvrtc_compile(mod.get_source("cuda"), o).ptx, "sm_90");
    for (const auto& kinfo : rep.kernels)
      std::cout << "-- ptxas sm_90: " << kinfo.name << ": " << kinfo.registers << " registers, "
                << kinfo.shared_bytes << " bytes shared, " << kinfo.spill_stores << "/"
                << kinfo.spill_loads << " bytes spilled (stores/loads)\n";
  } else {
    std::cout << "-- ptxas: NVRTC or ptxas not found, resource check skipped\n";
  }

  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) a[i] = std::sin(0.01f * i), b[i] = std::cos(0.03f * i);
  Device dev = gpu ? Device::cuda(0) : Device::cpu();
  auto c_nd = runtime::NDArray::empty({n, n}, f32, dev);
  mod.get_function("matmul")(runtime::NDArray::from_vector(a, {n, n}).copy_to(dev),
                             runtime::NDArray::from_vector(b, {n, n}).copy_to(dev), c_nd);
  auto c = c_nd.copy_to(Device::cpu()).to_vector<float>();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int kk = 0; kk < n; ++kk) acc += double(a[i * n + kk]) * b[kk * n + j];
      if (std::fabs(c[i * n + j] - acc) > 1e-3 * (1 + std::fabs(acc))) {
        std::cout << "cuda matmul: MISMATCH at (" << i << ", " << j << "): " << c[i * n + j]
                  << " != " << acc << "\n";
        return false;
      }
    }
  std::cout << "cuda matmul: ok (" << n * n << " outputs match the reference, run on "
            << (gpu ? "the GPU" : "the CPU emulator") << ")\n\n";
  return true;
}

}  // namespace

MINITVM_DEMO_PART(10, "CUDA: emit and run a tiled matmul", demo_cuda_matmul);

}  // namespace minitvm::tools
