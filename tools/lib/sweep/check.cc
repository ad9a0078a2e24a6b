// One TopHub workload: build with the best record's config, NVRTC, ptxas, optional emulated run.
#include <chrono>
#include <cmath>
#include <random>

#include "minitvm/autotune/target.h"
#include "minitvm/devtools/sweep.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/topi/cuda_schedule.h"

namespace minitvm::topi::sweep {

namespace {

// Batch used on the emulator: 1 where the config does not tile the batch axis.
int64_t emulation_batch(const SweepWorkload& w) {
  if (w.op != OpKind::Dense) return 1;
  return w.batch < 32 ? 1 : w.batch;  // dense large batch: tile_x splits the batch
}

}  // namespace

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

double max_relative_error(const float* got, const float* ref, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(got[i]) || !std::isfinite(ref[i])) return INFINITY;
    double e = std::fabs(double(got[i]) - ref[i]) / std::max(1.0, std::fabs(double(ref[i])));
    m = std::max(m, e);
  }
  return m;
}

double max_relative_error(const std::vector<float>& got, const std::vector<float>& ref) {
  if (got.size() != ref.size()) return INFINITY;
  return max_relative_error(got.data(), ref.data(), got.size());
}

std::vector<float> run_layer(const LayerBuild& L, const std::vector<std::vector<float>>& inputs) {
  MINITVM_USER_CHECK(inputs.size() + 1 == L.args.size())
      << "run_layer: " << inputs.size() << " inputs for a function of " << L.args.size()
      << " arguments";
  std::vector<runtime::ArgValue> args;
  for (size_t i = 0; i + 1 < L.args.size(); ++i)
    args.push_back(runtime::NDArray::from_vector(inputs[i], nn::const_shape(L.args[i])));
  auto out = runtime::NDArray::empty(nn::const_shape(L.args.back()), L.args.back()->dtype);
  args.push_back(out);
  L.module.get_function(L.func_name).call(args);
  return out.to_vector<float>();
}

CheckResult check_workload(const SweepWorkload& w, const autotune::ApplyHistoryBest& best,
                           const CheckOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  CheckResult res;
  auto finish = [&](std::string stage, std::string reason) {
    res.stage = std::move(stage);
    res.reason = first_line(reason);
    res.passed = res.stage.empty();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  BestBuild B = build_with_best_record(w, best, "cuda");
  res.template_key = B.template_key;
  if (B.record) res.config = B.record->input.config.str();
  if (!B.ok()) return finish(B.stage, B.reason);
  const std::string& tmpl = B.template_key;
  const LayerBuild& L = B.layer;
  std::string ptx;
  try {
    runtime::NvrtcOptions no;
    no.arch = o.arch;
    ptx = runtime::nvrtc_compile(L.source, no).ptx;
  } catch (const runtime::NvrtcError& e) {
    return finish("nvrtc", e.status() + ": " + first_line(e.log()));
  } catch (const std::exception& e) {
    return finish("nvrtc", e.what());
  }
  try {
    auto rep = runtime::ptxas_check(ptx, o.arch);
    for (auto& k : rep.kernels) {
      res.registers = std::max(res.registers, k.registers);
      res.shared_bytes = std::max(res.shared_bytes, k.shared_bytes);
    }
    if (res.shared_bytes > 48 * 1024)
      return finish("ptxas",
                    "static shared memory " + std::to_string(res.shared_bytes) + " bytes > 48 KiB");
  } catch (const std::exception& e) {
    // ptxas's own message follows the first line of the error; keep the line that says why.
    std::string m = e.what();
    size_t p = m.find("ptxas");
    return finish("ptxas", p == std::string::npos ? m : m.substr(p));
  }
  if (!o.emulate) return finish("", "");

  int64_t b = emulation_batch(w);
  res.emulated_batch = b;
  if (w.macs(b) > o.max_emulate_macs) {
    res.emulated_batch = 0;
    return finish("", "");
  }
  std::vector<float> got, ref;
  try {
    BestBuild EB = build_with_best_record(w, best, "cuda -emulate", b);
    if (!EB.ok()) return finish(EB.stage == "key" ? "key" : "emulate", EB.reason);
    const LayerBuild& E = EB.layer;
    if (w.op == OpKind::Dense) {
      auto x = random_values(static_cast<size_t>(b * w.in_dim), 1);
      auto wt = random_values(static_cast<size_t>(w.out_dim * w.in_dim), 2);
      auto bias = random_values(static_cast<size_t>(w.out_dim), 3);
      got = w.bias ? run_layer(E, {x, wt, bias}) : run_layer(E, {x, wt});
      ref = reference_dense(b, w.in_dim, w.out_dim, x, wt, w.bias ? &bias : nullptr);
    } else {
      auto ds = w.data_shape;
      ds[0] = b;
      size_t nd = 1, nk = 1;
      for (auto v : ds) nd *= static_cast<size_t>(v);
      for (auto v : w.kernel_shape) nk *= static_cast<size_t>(v);
      auto x = random_values(nd, 1), k = random_values(nk, 2);
      got = run_layer(E, {x, k});
      ref = reference_conv2d(ds, w.kernel_shape, w.attrs, w.op == OpKind::Depthwise, x, k);
    }
  } catch (const std::exception& e) {
    return finish("emulate", e.what());
  }
  res.max_rel_error = max_relative_error(got, ref);
  const double tolerance = tmpl == "winograd" ? o.winograd_tolerance : o.tolerance;
  if (!(res.max_rel_error <= tolerance))
    return finish("compare", "max relative error " + std::to_string(res.max_rel_error) +
                                 " vs naive reference (batch " + std::to_string(b) + ")");
  res.emulated = true;
  return finish("", "");
}

}  // namespace minitvm::topi::sweep
