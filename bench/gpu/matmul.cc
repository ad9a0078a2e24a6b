// minitvm-bench-gpu-matmul: GFLOP/s of the TVM-style tiled matmul schedule
// (tests/codegen/cuda_schedules/cases.cc, 64x64 block tiles, 8x8 threads, 2x2 vthreads, shared +
// register caches) against cuBLAS SGEMM when libcublas can be loaded (dlopen, optional). Prints one
// `BENCH ...` line per size; without a GPU it prints why and exits 0.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "codegen/cuda_schedules/cases.h"
#include "minitvm/codegen/build.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/time_evaluator.h"
#include "vendor_libs.h"

using namespace minitvm;

namespace {

// The few cuBLAS entry points we need, resolved at run time.
struct Cublas {
  using Create = int (*)(void**);
  using Destroy = int (*)(void*);
  using Sgemm = int (*)(void*, int, int, int, int, int, const float*, const float*, int,
                        const float*, int, const float*, float*, int);
  void* lib = nullptr;
  void* handle = nullptr;
  Create create = nullptr;
  Destroy destroy = nullptr;
  Sgemm sgemm = nullptr;
  std::string name;

  bool load() {
    bench::DynLib dl;
    if (!dl.open(bench::kCublasNames)) return false;
    lib = dl.handle;
    name = dl.name;
    create = reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"));
    destroy = reinterpret_cast<Destroy>(dlsym(lib, "cublasDestroy_v2"));
    sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cublasSgemm_v2"));
    return create && destroy && sgemm && create(&handle) == 0;
  }
  ~Cublas() {
    if (handle) destroy(handle);
  }
};

}  // namespace

int main(int argc, char** argv) {
  auto app = minitvm::cli::make_app(
      "minitvm-bench-gpu-matmul",
      "GFLOP/s of the TVM-style tiled CUDA matmul schedule next to cuBLAS SGEMM (when "
      "loadable), one BENCH line per size; without a GPU it says why and exits 0.",
      "usage: minitvm-bench-gpu-matmul");
  if (auto rc = minitvm::cli::parse(*app, argc, argv)) return *rc;
  if (!runtime::cuda_available()) {
    std::printf("SKIP minitvm-bench-gpu-matmul: no CUDA GPU (%s)\n",
                runtime::cuda_unavailable_reason().c_str());
    return 0;
  }
  Cublas cublas;
  bool have_cublas = cublas.load();
  if (!have_cublas) std::printf("NOTE cuBLAS not loadable: minitvm figures only\n");
  Device dev = Device::cuda(0);
  int failures = 0;
  for (int n : {512, 1024, 2048, 4096}) {
    cuda_tests::CudaCase c = cuda_tests::make_tiled_matmul(n, /*with_reference=*/false);
    runtime::Module m = build(c.sch, c.args, "cuda", c.name);
    std::vector<runtime::NDArray> d;
    std::vector<runtime::ArgValue> args;
    for (const auto& h : c.host) {
      d.push_back(h.copy_to(dev));
      args.emplace_back(d.back());
    }
    runtime::PackedFunc f = m.get_function(c.name);
    runtime::ProfileResult r = runtime::time_evaluator(f, dev, 3, 5, 20.0).call(args);
    double ours = c.flops / r.median * 1e-9;
    std::printf("BENCH name=matmul_tiled n=%d minitvm_us=%.2f minitvm_gflops=%.1f", n,
                r.median * 1e6, ours);
    if (have_cublas) {
      auto ref = runtime::NDArray::empty({n, n}, DataType::Float(32), dev);
      const float alpha = 1.0f, beta = 0.0f;
      // Row-major C = A B is column-major C^T = B^T A^T.
      runtime::PackedFunc sgemm(
          [&](const std::vector<runtime::ArgValue>&) {
            cublas.sgemm(cublas.handle, 0, 0, n, n, n, &alpha,
                         static_cast<const float*>(d[1].data()), n,
                         static_cast<const float*>(d[0].data()), n, &beta,
                         static_cast<float*>(ref.data()), n);
          },
          runtime::FunctionSignature{"cublas_sgemm", {}});
      runtime::ProfileResult rc = runtime::time_evaluator(sgemm, dev, 3, 5, 20.0).call({});
      double theirs = c.flops / rc.median * 1e-9;
      auto got = d[2].copy_to(Device::cpu()).to_vector<float>();
      auto want = ref.copy_to(Device::cpu()).to_vector<float>();
      double max_rel = 0;
      for (size_t i = 0; i < got.size(); ++i)
        max_rel = std::max(
            max_rel, std::fabs(double(got[i]) - want[i]) / (1.0 + std::fabs(double(want[i]))));
      bool ok = max_rel < 1e-3;
      failures += !ok;
      std::printf(" cublas_us=%.2f cublas_gflops=%.1f ratio=%.3f max_rel_diff_vs_cublas=%.2e%s",
                  rc.median * 1e6, theirs, ours / theirs, max_rel, ok ? "" : " MISMATCH");
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
