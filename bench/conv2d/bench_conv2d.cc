// minitvm-bench-conv2d: every distinct 2-D conv shape of ResNet-50 v1 (batch 1, 224x224 input),
// our llvm conv2d schedule (topi::build_conv2d) against oneDNN's convolution forward primitive
// with its preferred ("any") memory formats, fp32. Prints the min time of a few repeats per
// layer, the ratio, the geometric mean, and checks our output against oneDNN's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../openmp_spin.h"
#include "cli.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/tophub.h"
#include "minitvm/codegen/build.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/layer.h"

#ifdef MINITVM_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

using namespace minitvm;

namespace {

struct Layer {
  int64_t ci, hw, co, k, stride, pad;
};

// ResNet-50 v1 (stride on the first 1x1 of a downsampling bottleneck), batch 1, 224x224.
const std::vector<Layer> kLayers = {
    {3, 224, 64, 7, 2, 3},  // stem
    {64, 56, 64, 1, 1, 0},    {64, 56, 64, 3, 1, 1},    {64, 56, 256, 1, 1, 0},
    {256, 56, 64, 1, 1, 0},  // stage 1
    {256, 56, 128, 1, 2, 0},  {128, 28, 128, 3, 1, 1},  {128, 28, 512, 1, 1, 0},
    {256, 56, 512, 1, 2, 0},  // stage 2
    {512, 28, 128, 1, 1, 0},  {512, 28, 256, 1, 2, 0},  {256, 14, 256, 3, 1, 1},
    {256, 14, 1024, 1, 1, 0},                                                      // stage 3
    {512, 28, 1024, 1, 2, 0}, {1024, 14, 256, 1, 1, 0}, {1024, 14, 512, 1, 2, 0},  //
    {512, 7, 512, 3, 1, 1},   {512, 7, 2048, 1, 1, 0},  {1024, 14, 2048, 1, 2, 0},
    {2048, 7, 512, 1, 1, 0},  // stage 4
};

std::vector<Expr> nn_exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(Expr(static_cast<int>(v)));
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

#ifdef MINITVM_BENCH_HAVE_DNNL
// oneDNN direct convolution, formats chosen by oneDNN (format_tag::any); inputs reordered from
// NCHW / OIHW once, output reordered back to NCHW for the check (outside the timed region).
struct DnnlConv {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream s{eng};
  dnnl::convolution_forward conv;
  dnnl::memory src, wei, dst, dst_nchw;
  dnnl::reorder dst_back;
  dnnl::memory::desc src_user_desc;
  DnnlConv(const Layer& L, int64_t oh, const float* x, const float* w) {
    using namespace dnnl;
    using tag = memory::format_tag;
    auto f32 = memory::data_type::f32;
    memory::dims sd{1, L.ci, L.hw, L.hw}, wd{L.co, L.ci, L.k, L.k}, dd{1, L.co, oh, oh};
    memory::desc src_any(sd, f32, tag::any), wei_any(wd, f32, tag::any), dst_any(dd, f32, tag::any);
    convolution_forward::desc cd(prop_kind::forward_inference, algorithm::convolution_direct,
                                 src_any, wei_any, dst_any, {L.stride, L.stride}, {L.pad, L.pad},
                                 {L.pad, L.pad});
    convolution_forward::primitive_desc pd(cd, eng);
    src_user_desc = memory::desc(sd, f32, tag::nchw);
    memory x_user(src_user_desc, eng, const_cast<float*>(x));
    memory w_user({wd, f32, tag::oihw}, eng, const_cast<float*>(w));
    src = memory(pd.src_desc(), eng);
    wei = memory(pd.weights_desc(), eng);
    dst = memory(pd.dst_desc(), eng);
    dst_nchw = memory({dd, f32, tag::nchw}, eng);
    reorder(x_user, src).execute(s, x_user, src);
    reorder(w_user, wei).execute(s, w_user, wei);
    s.wait();
    conv = convolution_forward(pd);
    dst_back = reorder(dst, dst_nchw);
  }
  void pack_src(const float* x) {
    dnnl::memory x_user(src_user_desc, eng, const_cast<float*>(x));
    dnnl::reorder(x_user, src).execute(s, x_user, src);
    s.wait();
  }
  void run() {
    conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    s.wait();
  }
  const float* result() {
    dst_back.execute(s, dst, dst_nchw);
    s.wait();
    return static_cast<const float*>(dst_nchw.get_data_handle());
  }
};
#endif

std::string shape_str(const Layer& L) {
  char b[64];
  std::snprintf(b, sizeof b, "%ldx%ld->%ld k%ld/s%ld", static_cast<long>(L.ci),
                static_cast<long>(L.hw), static_cast<long>(L.co), static_cast<long>(L.k),
                static_cast<long>(L.stride));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef MINITVM_BENCH_HAVE_DNNL
  bench::match_openmp_spin(
      argv);  // oneDNN's OpenMP workers spin as long as our pool's (openmp_spin.h)
#endif
  int repeats = 3;
  int only = -1;
  bool use_tophub = false;
  bool cold_weights = false;
  auto app =
      minitvm::cli::make_app("minitvm-bench-conv2d",
                             "The ResNet-50 v1 batch-1 conv layers on the CPU: our llvm schedule "
                             "vs oneDNN (when built with it).",
                             "usage: minitvm-bench-conv2d [--repeats N] [--layer I] [--tophub]");
  app->add_option("--repeats", repeats, "timed repeats per layer (default 3)")
      ->check(minitvm::cli::Integer(1));
  app->add_option("--layer", only, "only layer I (0-based)")->check(minitvm::cli::Integer(0));
  app->add_flag("--tophub", use_tophub,
                "configs from TopHub's llvm package instead of the fallbacks");
  app->add_flag("--cold-weights", cold_weights,
                "before each timed call, evict the caches and re-read the input: the weights "
                "come from memory and the input from cache, as in a network");
  if (auto rc = minitvm::cli::parse(*app, argc, argv)) return *rc;
  // Twice the largest L3 we have seen (260 MiB), written before each cold call.
  std::vector<char> flush(cold_weights ? size_t{512} << 20 : 0);
  volatile float sink = 0;
  // The flush, then the candidate's input packed again (a parallel call: it also wakes the
  // thread pool that the 50 ms flush let sleep, as back-to-back layers in a network do not).
  auto flush_caches = [&] {
    std::memset(flush.data(), static_cast<int>(flush[7]) + 1, flush.size());
    sink = sink + static_cast<float>(flush[flush.size() / 2]);
  };
  // Without --tophub the template's fallback configs (TVM's FallbackContext, silent: no warning
  // per layer); with it the TopHub llvm package (TVM x86 configs tuned on a Skylake-AVX512).
  autotune::root_fallback_context().silent = true;
  std::unique_ptr<autotune::ApplyHistoryBest> tophub;
  std::optional<autotune::DispatchScope> scope;
  if (use_tophub) {
    tophub = autotune::tophub::context("llvm");
    scope.emplace(*tophub);
  }
  std::printf("%-3s %-22s %7s %9s %9s %8s %9s %9s %-11s %9s %8s %9s %8s\n", "#", "layer", "GFLOP",
              "ours_ms", "dnnl_ms", "ratio", "ours_GF/s", "dnnl_GF/s", "max_rel_err", "blk_ms",
              "blk_rat", "wino_ms", "wino_rat");
  double lg = 0, lg_blk = 0, sum_blk = 0;
  int n_ratio = 0, failures = 0;
  double sum_ours = 0, sum_dnnl = 0;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (size_t li = 0; li < kLayers.size(); ++li) {
    if (only >= 0 && static_cast<int>(li) != only) continue;
    const Layer& L = kLayers[li];
    int64_t oh = (L.hw + 2 * L.pad - L.k) / L.stride + 1;
    double gflop = 2.0 * L.co * oh * oh * L.ci * L.k * L.k * 1e-9;
    std::vector<int64_t> xs{1, L.ci, L.hw, L.hw}, ws{L.co, L.ci, L.k, L.k}, ys{1, L.co, oh, oh};
    runtime::NDArray x = runtime::NDArray::empty(xs, DataType::Float(32));
    runtime::NDArray w = runtime::NDArray::empty(ws, DataType::Float(32));
    runtime::NDArray y = runtime::NDArray::empty(ys, DataType::Float(32));
    for (float *p = static_cast<float*>(x.data()), *e = p + x.size(); p != e; ++p) *p = dist(rng);
    for (float *p = static_cast<float*>(w.data()), *e = p + w.size(); p != e; ++p) *p = dist(rng);
    topi::nn::Conv2dAttrs at;
    at.stride = {L.stride, L.stride};
    at.padding = {L.pad, L.pad};
    auto t_build = std::chrono::steady_clock::now();
    topi::LayerBuild B = topi::build_conv2d(xs, ws, at, "llvm");
    double build_s = seconds_since(t_build);
    auto f = B.module.get_function(B.func_name);
    // The same config on blocked layouts (the convolution alone, inputs packed once, as oneDNN's
    // are reordered once below): what a network kept in NCHWc runs per layer.
    topi::LayerOptions blk;
    blk.nchwc_blocked = true;
    topi::LayerBuild Bb = topi::build_conv2d(xs, ws, at, "llvm", blk);
    auto fb = Bb.module.get_function(Bb.func_name);
    auto shape_of = [](const te::Tensor& t) {
      std::vector<int64_t> sh;
      for (auto& e : t.shape()) sh.push_back(*ir::as_const_int(e));
      return sh;
    };
    runtime::NDArray xb = runtime::NDArray::empty(shape_of(Bb.args[0]), DataType::Float(32));
    runtime::NDArray wb = runtime::NDArray::empty(shape_of(Bb.args[1]), DataType::Float(32));
    runtime::NDArray yb = runtime::NDArray::empty(shape_of(Bb.args[2]), DataType::Float(32));
    Bb.module.get_function(Bb.func_name + "_pack_data")(x, xb);  // once, outside the timing
    Bb.module.get_function(Bb.func_name + "_pack_kernel")(w, wb);
    runtime::NDArray y_blk = runtime::NDArray::empty(ys, DataType::Float(32));
    std::vector<std::function<void()>> cand{[&] { f(x, w, y); }, [&] { fb(xb, wb, yb); }};
    auto pack_data = Bb.module.get_function(Bb.func_name + "_pack_data");
    std::vector<std::function<void()>> rewarm{[&] { pack_data(x, xb); }, [&] { pack_data(x, xb); }};
    // Winograd on the blocked layouts (3x3 stride-1 layers): the weight transformed once.
    const bool wino = L.k == 3 && L.stride == 1;
    runtime::Module wmod;
    runtime::NDArray wu, wy;
    size_t wino_index = 0;
    if (wino) {
      const int64_t ib = xb.shape()[4], ob = wb.shape()[5];
      const int64_t m = topi::cpu::winograd_nchwc_tile(oh, oh);
      te::Tensor kt = te::placeholder(nn_exprs(ws), DataType::Float(32), "kernel");
      te::Tensor ut = topi::cpu::conv2d_winograd_nchwc_weight_transform(kt, m, ib, ob);
      te::Schedule su = te::create_schedule({ut.op()});
      runtime::Module umod = build(su, {kt, ut}, "llvm", "wt");
      wu = runtime::NDArray::empty(shape_of(ut), DataType::Float(32));
      umod.get_function("wt")(w, wu);
      te::Tensor dt = te::placeholder(nn_exprs(shape_of(Bb.args[0])), DataType::Float(32), "data");
      te::Tensor up = te::placeholder(nn_exprs(shape_of(ut)), DataType::Float(32), "u");
      topi::cpu::WinogradNCHWc wt = topi::cpu::conv2d_winograd_nchwc(dt, up, {L.pad, L.pad}, m);
      wmod =
          build(topi::cpu::schedule_conv2d_winograd_nchwc(wt), {dt, up, wt.output}, "llvm", "wino");
      wy = runtime::NDArray::empty(shape_of(wt.output), DataType::Float(32));
      auto wf = wmod.get_function("wino");
      wino_index = cand.size();
      cand.push_back([&, wf]() mutable { wf(xb, wu, wy); });
      rewarm.push_back([&] { pack_data(x, xb); });
    }
#ifdef MINITVM_BENCH_HAVE_DNNL
    DnnlConv dn(L, oh, static_cast<const float*>(x.data()), static_cast<const float*>(w.data()));
    cand.push_back([&] { dn.run(); });
    rewarm.push_back([&] { dn.pack_src(static_cast<const float*>(x.data())); });
#endif
    std::vector<double> tmin(cand.size(), 1e30);
    for (auto& c : cand) c();  // warm-up
    // Interleaved rounds, min per candidate: a busy machine slows both alike.
    for (int r = 0; r < repeats; ++r)
      for (size_t i = 0; i < cand.size(); ++i) {
        if (cold_weights) {
          flush_caches();
          rewarm[i]();
        }
        auto t0 = std::chrono::steady_clock::now();
        cand[i]();
        tmin[i] = std::min(tmin[i], seconds_since(t0));
      }
    // The blocked result, unpacked, must equal the NCHW function's.
    Bb.module.get_function(Bb.func_name + "_unpack_output")(yb, y_blk);
    if (std::memcmp(y_blk.data(), y.data(), y.nbytes()) != 0) {
      std::printf("layer %zu: blocked-layout result differs from the NCHW function's\n", li);
      ++failures;
    }
    double err = NAN, dnnl_t = NAN, wino_t = NAN, wino_err = NAN;
    if (wino) {
      wino_t = tmin[wino_index];
      std::vector<float> a = yb.to_vector<float>(), b = wy.to_vector<float>();
      double max_abs = 0, max_ref = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        max_abs = std::max(max_abs, static_cast<double>(std::fabs(a[i] - b[i])));
        max_ref = std::max(max_ref, static_cast<double>(std::fabs(a[i])));
      }
      wino_err = max_abs / std::max(max_ref, 1e-30);
      if (!(wino_err < 1e-4)) {
        std::printf("layer %zu: winograd result differs from the direct one (%.2e)\n", li,
                    wino_err);
        ++failures;
      }
    }
#ifdef MINITVM_BENCH_HAVE_DNNL
    {
      dnnl_t = tmin[wino ? 3 : 2];
      const float* ref = dn.result();
      const float* got = static_cast<const float*>(y.data());
      double max_abs = 0, max_ref = 0;
      for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
        max_abs = std::max(max_abs, static_cast<double>(std::fabs(got[i] - ref[i])));
        max_ref = std::max(max_ref, static_cast<double>(std::fabs(ref[i])));
      }
      err = max_abs / std::max(max_ref, 1e-30);
      if (!(err < 1e-4)) ++failures;
      lg += std::log(dnnl_t / tmin[0]);
      lg_blk += std::log(dnnl_t / tmin[1]);
      ++n_ratio;
      sum_dnnl += dnnl_t;
    }
#endif
    sum_ours += tmin[0];
    sum_blk += tmin[1];
    std::printf(
        "%-3zu %-22s %7.3f %9.3f %9.3f %8.3f %9.1f %9.1f %.2e%s %9.3f %8.3f %9.3f %8.3f  (build "
        "%.1fs; winograd err %.1e)\n",
        li, shape_str(L).c_str(), gflop, tmin[0] * 1e3, dnnl_t * 1e3, dnnl_t / tmin[0],
        gflop / tmin[0], gflop / dnnl_t, err, err < 1e-4 ? "" : " MISMATCH", tmin[1] * 1e3,
        dnnl_t / tmin[1], wino_t * 1e3, dnnl_t / wino_t, build_s, wino_err);
    std::fflush(stdout);
  }
  std::printf("total: ours %.2f ms (blocked layouts %.2f ms), oneDNN %.2f ms\n", sum_ours * 1e3,
              sum_blk * 1e3, sum_dnnl * 1e3);
  if (n_ratio > 0) {
    std::printf("geomean speed vs oneDNN (dnnl_time / our_time; 1 = parity): %.3f over %d layers\n",
                std::exp(lg / n_ratio), n_ratio);
    std::printf("geomean speed vs oneDNN, ours on blocked layouts: %.3f\n",
                std::exp(lg_blk / n_ratio));
  }
  if (failures) std::printf("%d layer(s) differ from oneDNN beyond 1e-4 relative\n", failures);
  return failures ? 1 : 0;
}
