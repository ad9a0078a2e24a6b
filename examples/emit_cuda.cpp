// Emit a CUDA matmul: 16 x 16 output tiles over blockIdx, one output per thread, A and B tiles
// staged in shared memory (cache_read + compute_at at the reduction's outer axis, loaded by the
// block's threads), the accumulator in a register (cache_write local). Prints the lowered IR, the
// CUDA source and ptxas's resource usage, then runs it on the GPU or, without one, the emulator.
#include <minitvm/minitvm.h>
#include <minitvm/runtime/cuda.h>
#include <minitvm/runtime/nvrtc.h>
#include <minitvm/runtime/ptxas.h>

#include <cmath>
#include <iostream>
#include <vector>
using namespace minitvm;

int main() {
  const int n = 128, T = 16;
  DataType f32 = DataType::Float(32);
  auto A = te::placeholder({n, n}, f32, "A"), B = te::placeholder({n, n}, f32, "B");
  auto k = te::reduce_axis({0, n}, "k");
  auto C = te::compute(
      {n, n}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto AA = s.cache_read(A, "shared", {C.op()});
  auto BB = s.cache_read(B, "shared", {C.op()});
  auto CL = s.cache_write(C, "local");
  auto [by, ty] = s[C].split(C.op().axis()[0], T);
  auto [bx, tx] = s[C].split(C.op().axis()[1], T);
  s[C].reorder({by, bx, ty, tx});
  s[C].bind(by, te::thread_axis("blockIdx.y"));
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(ty, te::thread_axis("threadIdx.y"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  s[CL].compute_at(s[C], tx);
  auto [ko, ki] = s[CL].split(CL.op().reduce_axis()[0], T);
  (void)ki;
  for (auto* X : {&AA, &BB}) {
    s[*X].compute_at(s[CL], ko);
    s[*X].bind(X->op().axis()[0], te::thread_axis("threadIdx.y"));
    s[*X].bind(X->op().axis()[1], te::thread_axis("threadIdx.x"));
  }

  std::cout << "== lowered IR ==\n" << lower(s, {A, B, C}, "matmul") << "\n";
  const bool gpu = runtime::cuda_available();
  const std::string target = gpu ? "cuda" : "cuda -emulate";
  runtime::Module mod = build(s, {A, B, C}, target, "matmul");
  std::cout << "== CUDA source ==\n" << mod.get_source("cuda") << "\n";

  if (runtime::nvrtc_available() && !runtime::find_ptxas().empty()) {
    std::string ptx =
        gpu ? mod.get_source("ptx") : runtime::nvrtc_compile(mod.get_source("cuda"), {}).ptx;
    runtime::PtxasReport rep = runtime::ptxas_check(ptx, "sm_90");
    std::cout << "== ptxas (sm_90) ==\n";
    for (const auto& kinfo : rep.kernels)
      std::cout << kinfo.name << ": " << kinfo.registers << " registers, " << kinfo.shared_bytes
                << " bytes shared memory, " << kinfo.spill_stores << "/" << kinfo.spill_loads
                << " bytes spill stores/loads\n";
  } else {
    std::cout << "== ptxas: NVRTC or ptxas not found, resource check skipped ==\n";
  }

  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) a[i] = std::sin(0.01f * i), b[i] = std::cos(0.02f * i);
  Device dev = gpu ? Device::cuda(0) : Device::cpu();
  auto c_nd = runtime::NDArray::empty({n, n}, f32, dev);
  mod.get_function("matmul")(runtime::NDArray::from_vector(a, {n, n}).copy_to(dev),
                             runtime::NDArray::from_vector(b, {n, n}).copy_to(dev), c_nd);
  std::vector<float> c = c_nd.copy_to(Device::cpu()).to_vector<float>();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int kk = 0; kk < n; ++kk) acc += double(a[i * n + kk]) * b[kk * n + j];
      if (std::fabs(c[i * n + j] - acc) > 1e-3 * (1 + std::fabs(acc))) {
        std::cout << "emit_cuda: MISMATCH at (" << i << ", " << j << "): " << c[i * n + j]
                  << " != " << acc << "\n";
        return 1;
      }
    }
  std::cout << "emit_cuda: ok (" << n << "x" << n << " matmul on "
            << (gpu ? "the GPU" : "the emulator") << ")\n";
  return 0;
}
