// minitvm-bench-gpu-pool: the seed max-pool grid (N=32, C in {3,32,128,256}, H=W in {7,28,56,112},
// kernel 3, stride 3, NCHW) in float32 and float16, forward (no indices) and backward (per-plane
// indices from our forward), on the GPU with time_evaluator. Compiled with the CUDA pool template's
// configuration from the current dispatch context (the fallback unless a log is applied with
// --log FILE). Columns: our time, GB/s of the bytes the kernel must move, fraction of the
// bandwidth of a device-to-device copy moving the same bytes, cuDNN's time (libcudnn.so.9/.8
// through dlopen, bench/gpu/vendor_libs.h; skipped when absent) and ours/cuDNN speed ratio;
// geomeans at the end. Outputs are checked against cuDNN (forward exactly, counted in
// `mismatched_shapes`; backward: the count of differing elements is printed, tied maxima may be
// broken differently). Without a GPU it prints SKIP and exits 0; `--dry-run` compiles every kernel
// (NVRTC + ptxas sm_90) and prints its config and resource usage, no GPU needed.
#include <dlfcn.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../vendor_libs.h"
#include "cli.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/codegen/build.h"
#include "minitvm/frontend/pool_plan.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/runtime/time_evaluator.h"
#include "minitvm/topi/pool.h"

using namespace minitvm;
using topi::PoolDirection;

namespace {

// The legacy cuDNN pooling entry points, resolved at run time.
struct Cudnn {
  using Create = int (*)(void**);
  using Destroy = int (*)(void*);
  using CreateDesc = int (*)(void**);
  using SetTensor4d = int (*)(void*, int, int, int, int, int, int);
  using SetPool2d = int (*)(void*, int, int, int, int, int, int, int, int);
  using PoolFwd = int (*)(void*, void*, const void*, void*, const void*, const void*, void*, void*);
  using PoolBwd = int (*)(void*, void*, const void*, void*, const void*, void*, const void*, void*,
                          const void*, const void*, void*, void*);
  void* lib = nullptr;
  void* handle = nullptr;
  std::string name;
  Create create = nullptr;
  Destroy destroy = nullptr;
  CreateDesc create_tensor = nullptr, create_pool = nullptr;
  SetTensor4d set_tensor = nullptr;
  SetPool2d set_pool = nullptr;
  PoolFwd fwd = nullptr;
  PoolBwd bwd = nullptr;

  bool load() {
    bench::DynLib dl;
    if (!dl.open(bench::kCudnnNames)) return false;
    lib = dl.handle;
    name = dl.name;
    auto sym = [&](const char* s) { return dlsym(lib, s); };
    create = reinterpret_cast<Create>(sym("cudnnCreate"));
    destroy = reinterpret_cast<Destroy>(sym("cudnnDestroy"));
    create_tensor = reinterpret_cast<CreateDesc>(sym("cudnnCreateTensorDescriptor"));
    create_pool = reinterpret_cast<CreateDesc>(sym("cudnnCreatePoolingDescriptor"));
    set_tensor = reinterpret_cast<SetTensor4d>(sym("cudnnSetTensor4dDescriptor"));
    set_pool = reinterpret_cast<SetPool2d>(sym("cudnnSetPooling2dDescriptor"));
    fwd = reinterpret_cast<PoolFwd>(sym("cudnnPoolingForward"));
    bwd = reinterpret_cast<PoolBwd>(sym("cudnnPoolingBackward"));
    return create && destroy && create_tensor && create_pool && set_tensor && set_pool && fwd &&
           bwd && create(&handle) == 0;
  }
  // NCHW tensor descriptor; dtype: 0 float, 2 half.
  void* tensor(int dt, int n, int c, int h, int w) const {
    void* d = nullptr;
    if (create_tensor(&d) != 0 || set_tensor(d, 0, dt, n, c, h, w) != 0) return nullptr;
    return d;
  }
  // Max pooling, NaN propagated (like PyTorch).
  void* pool(int k, int s) const {
    void* d = nullptr;
    if (create_pool(&d) != 0 || set_pool(d, 0, 1, k, k, 0, 0, s, s) != 0) return nullptr;
    return d;
  }
  ~Cudnn() {
    if (handle) destroy(handle);
  }
};

// Deterministic pseudo-random fill (fast enough for 100M elements).
std::vector<float> fill(int64_t n, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& e : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    e = static_cast<float>(static_cast<double>(x >> 40) / 16777216.0 * 8.0 -
                           4.0);  // 24 bits: few ties
  }
  return v;
}

runtime::NDArray upload(const std::vector<float>& v, const std::vector<int64_t>& shape, DataType dt,
                        Device dev) {
  if (dt.bits() == 32) return runtime::NDArray::from_vector(v, shape).copy_to(dev);
  std::vector<uint16_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = std::bit_cast<uint16_t>(static_cast<_Float16>(v[i]));
  return runtime::NDArray::from_vector(b, shape, dt).copy_to(dev);
}

std::vector<float> download(const runtime::NDArray& a) {
  runtime::NDArray h = a.copy_to(Device::cpu());
  if (a.dtype().bits() == 32) return h.to_vector<float>();
  std::vector<float> r;
  for (uint16_t b : h.to_vector<uint16_t>())
    r.push_back(static_cast<float>(std::bit_cast<_Float16>(b)));
  return r;
}

double time_s(runtime::PackedFunc f, Device dev, const std::vector<runtime::ArgValue>& args) {
  return runtime::time_evaluator(f, dev, 3, 5, 10.0).call(args).median;
}

int64_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) ++n;
  return n;
}

struct Geo {
  double log_sum = 0;
  int n = 0;
  void add(double v) {
    if (v > 0 && std::isfinite(v)) log_sum += std::log(v), ++n;
  }
  double value() const { return n ? std::exp(log_sum / n) : 0; }
};

}  // namespace

// --dry-run (no GPU needed): every kernel the benchmark runs, compiled with NVRTC and assembled by
// ptxas for sm_90, with its config and resource usage; the summary line says how many passed.
int dry_run() {
  int built = 0, total = 0, spills = 0;
  for (DataType dt : {DataType::Float(32), DataType::Float(16)})
    for (PoolDirection dir : {PoolDirection::Forward, PoolDirection::Backward})
      for (int C : {3, 32, 128, 256})
        for (int H : {7, 28, 56, 112}) {
          frontend::MaxPoolParams p;
          p.kernel_size = {3};
          p.stride = {3};
          topi::PoolPlan plan =
              frontend::plan_max_pool(2, frontend::PoolInput{{32, C, H, H}, dt}, p);
          ++total;
          try {
            // the kernels of the row: forward; backward and the forward with indices that feeds it
            std::vector<topi::PooledKernel> ks{topi::lower_pool(plan, "cuda", dir)};
            if (dir == PoolDirection::Backward) {
              topi::BuildPoolOptions o;
              o.with_indices = true;
              ks.push_back(topi::lower_pool(plan, "cuda", PoolDirection::Forward, o));
            }
            for (const auto& k : ks) {
              runtime::Module m = build(std::vector<ir::PrimFunc>{k.lowered}, "cuda -emulate");
              runtime::PtxasReport rep =
                  runtime::ptxas_check(runtime::nvrtc_compile(m.get_source("cu")).ptx, "sm_90");
              for (const auto& kk : rep.kernels) {
                std::printf(
                    "DRYRUN op=max_pool2d dir=%s dtype=%s N=32 C=%d H=%d config=%s kernel=%s "
                    "registers=%d "
                    "spill_bytes=%lld\n",
                    dir == PoolDirection::Forward ? "fwd" : "bwd", dt.str().c_str(), C, H,
                    k.config.str().c_str(), kk.name.c_str(), kk.registers,
                    static_cast<long long>(kk.spill_stores + kk.spill_loads));
                if (kk.spill_stores + kk.spill_loads > 0) ++spills;
              }
            }
            ++built;
          } catch (const std::exception& e) {
            std::printf("FAIL dir=%s dtype=%s C=%d H=%d: %s\n",
                        dir == PoolDirection::Forward ? "fwd" : "bwd", dt.str().c_str(), C, H,
                        e.what());
          }
        }
  std::printf("dry run: %d of %d rows compiled (NVRTC + ptxas sm_90), %d kernels spilling\n", built,
              total, spills);
  return built == total ? 0 : 1;
}

int main(int argc, char** argv) {
  auto app = minitvm::cli::make_app("minitvm-bench-gpu-pool",
                                    "The seed max-pool grid on the GPU (float32 and float16, "
                                    "forward and backward): minitvm's CUDA pool template "
                                    "vs cuDNN (when loadable) vs a device-to-device copy. Without "
                                    "a GPU it prints SKIP and exits 0.",
                                    "usage: minitvm-bench-gpu-pool [--log FILE] [--dry-run]");
  std::string log_file;
  bool dry = false;
  app->add_option("--log", log_file, "configs from this tuning log instead of the fallbacks");
  app->add_flag("--dry-run", dry,
                "compile every kernel (NVRTC + ptxas sm_90) and print its config; no GPU needed");
  if (auto rc = minitvm::cli::parse(*app, argc, argv)) return *rc;
  if (dry) return dry_run();
  if (!runtime::cuda_available()) {
    std::printf("SKIP minitvm-bench-gpu-pool: no CUDA driver found (%s)\n",
                runtime::cuda_unavailable_reason().c_str());
    return 0;
  }
  std::unique_ptr<autotune::ApplyHistoryBest> log;
  std::unique_ptr<autotune::DispatchScope> scope;
  if (!log_file.empty()) {
    log = std::make_unique<autotune::ApplyHistoryBest>();
    log->load(log_file);
    scope = std::make_unique<autotune::DispatchScope>(*log);
  }
  Cudnn cudnn;
  bool have_cudnn = cudnn.load();
  std::printf("NOTE cuDNN: %s\n",
              have_cudnn ? cudnn.name.c_str() : "not loadable, minitvm and copy columns only");
  Device dev = Device::cuda(0);
  const int N = 32, K = 3, S = 3;
  Geo g_frac, g_ratio;
  int mismatched = 0;
  for (DataType dt : {DataType::Float(32), DataType::Float(16)}) {
    for (PoolDirection dir : {PoolDirection::Forward, PoolDirection::Backward}) {
      bool fwd = dir == PoolDirection::Forward;
      for (int C : {3, 32, 128, 256}) {
        for (int H : {7, 28, 56, 112}) {
          frontend::MaxPoolParams p;
          p.kernel_size = {K};
          p.stride = {S};
          topi::PoolPlan plan =
              frontend::plan_max_pool(2, frontend::PoolInput{{N, C, H, H}, dt}, p);
          auto ishape = plan.batched_input_shape(), oshape = plan.batched_output_shape();
          int64_t in_n = 1, out_n = 1;
          for (auto v : ishape) in_n *= v;
          for (auto v : oshape) out_n *= v;
          int64_t es = dt.bits() / 8;
          auto x = upload(fill(in_n, 1), ishape, dt, dev);
          // forward (with per-plane indices for the backward's input)
          topi::PooledKernel kf = topi::build_pool(plan, "cuda", PoolDirection::Forward, {!fwd});
          auto y = runtime::NDArray::empty(oshape, dt, dev);
          auto idx = runtime::NDArray::empty(oshape, DataType::Int(64), dev);
          runtime::PackedFunc ff = kf.module.get_function(kf.func_name);
          double ours = 0, bytes = 0;
          runtime::NDArray result, dy, dx;
          topi::PooledKernel kb;
          if (fwd) {
            ours = time_s(ff, dev, {x, y});
            bytes = static_cast<double>((in_n + out_n) * es);
            result = y;
          } else {
            ff(x, y, idx);
            dy = upload(fill(out_n, 2), oshape, dt, dev);
            dx = runtime::NDArray::empty(ishape, dt, dev);
            kb = topi::build_pool(plan, "cuda", PoolDirection::Backward);
            ours = time_s(kb.module.get_function(kb.func_name), dev, {dy, idx, dx});
            bytes = static_cast<double>(out_n * (es + 8) + in_n * es);
            result = dx;
          }
          // a device-to-device copy moving the same bytes (read + write)
          int64_t half_bytes = static_cast<int64_t>(bytes / 2);
          auto src = runtime::NDArray::empty({half_bytes}, DataType::UInt(8), dev);
          auto dst = runtime::NDArray::empty({half_bytes}, DataType::UInt(8), dev);
          runtime::PackedFunc copy(
              [&](const std::vector<runtime::ArgValue>&) { dst.copy_from(src); },
              runtime::FunctionSignature{"d2d_copy", {}});
          double copy_t = time_s(copy, dev, {});
          double gbs = bytes / ours * 1e-9, frac = copy_t / ours;
          g_frac.add(frac);
          const char* cfg_src = kf.config.is_fallback() ? "fallback" : "log";
          std::printf(
              "BENCH op=max_pool2d dir=%s dtype=%s N=%d C=%d H=%d k=%d s=%d minitvm_us=%.2f "
              "gbs=%.1f "
              "copy_us=%.2f frac_copy=%.3f config=%s",
              fwd ? "fwd" : "bwd", dt.str().c_str(), N, C, H, K, S, ours * 1e6, gbs, copy_t * 1e6,
              frac, cfg_src);
          if (have_cudnn) {
            int cdt = dt.bits() == 32 ? 0 : 2;
            int OH = static_cast<int>(oshape[2]);
            void* xd = cudnn.tensor(cdt, N, C, H, H);
            void* yd = cudnn.tensor(cdt, N, C, OH, OH);
            void* pd = cudnn.pool(K, S);
            float alpha = 1.0f, beta = 0.0f;
            auto yc = runtime::NDArray::empty(oshape, dt, dev);
            runtime::NDArray dxc;
            int rc = cudnn.fwd(cudnn.handle, pd, &alpha, xd, x.data(), &beta, yd, yc.data());
            runtime::PackedFunc theirs;
            if (fwd) {
              theirs = runtime::PackedFunc(
                  [&](const std::vector<runtime::ArgValue>&) {
                    rc |= cudnn.fwd(cudnn.handle, pd, &alpha, xd, x.data(), &beta, yd, yc.data());
                  },
                  runtime::FunctionSignature{"cudnn_pool_fwd", {}});
            } else {
              dxc = runtime::NDArray::empty(ishape, dt, dev);
              theirs = runtime::PackedFunc(
                  [&](const std::vector<runtime::ArgValue>&) {
                    rc |= cudnn.bwd(cudnn.handle, pd, &alpha, yd, yc.data(), yd, dy.data(), xd,
                                    x.data(), &beta, xd, dxc.data());
                  },
                  runtime::FunctionSignature{"cudnn_pool_bwd", {}});
            }
            double ct = time_s(theirs, dev, {});
            int64_t diff = rc == 0 ? differing(download(result), download(fwd ? yc : dxc)) : -1;
            if (diff != 0 && fwd) ++mismatched;  // backward: tie-breaking may differ
            g_ratio.add(ct / ours);
            std::printf(" cudnn_us=%.2f speedup_vs_cudnn=%.3f differing_vs_cudnn=%lld", ct * 1e6,
                        ct / ours, static_cast<long long>(diff));
          }
          std::printf("\n");
          std::fflush(stdout);
        }
      }
    }
  }
  std::printf("GEOMEAN frac_copy=%.3f", g_frac.value());
  if (have_cudnn)
    std::printf(" speedup_vs_cudnn=%.3f mismatched_shapes=%d", g_ratio.value(), mismatched);
  std::printf("\n");
  return 0;
}
