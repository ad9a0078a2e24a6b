// minitvm-bench-pool: max_pool2d (kernel 3, stride 3, NCHW, float32) over the seed grid
// N=32, C in {3,32,128,256}, H=W in {7,28,56,112}, forward and backward, against oneDNN (its best
// blocked layout and plain NCHW) and a memcpy of the same byte count, split over the same thread
// pool as our kernels (runtime::thread_pool_size() threads). Times are the minimum of
// the interleaved repeats (--repeats, default 15); `--number K` times K back-to-back calls per
// repeat (their mean), so that each candidate is timed in its own cache state. `--json FILE` writes
// one object per measurement;
// `--quick` runs C<=32 only, `--shapes 256x28 64x54` those shapes only (any C, H >= 3). Every input
// is random (the backward's indices come from a forward over the random input). Kernels use the CPU
// template's fallback configs; `--tophub` uses the shipped TopHub configs (tophub::context("llvm"),
// which loads index.json's extra packages) where they have one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
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
#include "minitvm/frontend/pool_plan.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/topi/pool.h"

#ifdef MINITVM_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

using namespace minitvm;

namespace {

// Random data (the issue: PyTorch's kernel is data-dependent, so zeros are not timed): uniform
// floats in [-1, 1) from a fixed seed.
void fill_random(float* p, size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (size_t i = 0; i < n; ++i) p[i] = u(g);
}

struct Row {
  int64_t N, C, H, W;
  std::string direction;
  double ours = 0, dnnl_best = NAN, dnnl_nchw = NAN, copy = 0;
  int64_t bytes = 0;
};

#ifdef MINITVM_BENCH_HAVE_DNNL
// oneDNN max pooling with src in `tag`-layout (blocked = oneDNN's best, or plain nchw): forward
// inference (values only), forward training (values and the workspace the backward reads) and
// backward primitives, ready to run.
struct DnnlPool {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream s{eng};
  dnnl::pooling_forward fwd, fwd_inference;
  dnnl::pooling_backward bwd;
  dnnl::memory src, dst, ws, dsrc, ddst;
  DnnlPool(int64_t N, int64_t C, int64_t H, int64_t W, bool blocked) {
    using namespace dnnl;
    int64_t OH = (H - 3) / 3 + 1, OW = (W - 3) / 3 + 1;
    memory::dims src_d{N, C, H, W}, dst_d{N, C, OH, OW};
    // blocked nChw16c (nChw8c when C is not a multiple of 16); else plain nchw
    auto tag = !blocked ? memory::format_tag::nchw
                        : (C % 16 == 0 ? memory::format_tag::nChw16c : memory::format_tag::nChw8c);
    memory::desc src_md(src_d, memory::data_type::f32, tag),
        dst_md(dst_d, memory::data_type::f32, tag);
    pooling_forward::desc fd(prop_kind::forward_training, algorithm::pooling_max, src_md, dst_md,
                             {3, 3}, {3, 3}, {0, 0}, {0, 0});
    pooling_forward::primitive_desc fpd(fd, eng);
    src = memory(fpd.src_desc(), eng);
    dst = memory(fpd.dst_desc(), eng);
    ws = memory(fpd.workspace_desc(), eng);
    fill_random(static_cast<float*>(src.get_data_handle()), fpd.src_desc().get_size() / 4, 1);
    fwd = pooling_forward(fpd);
    pooling_forward::desc id(prop_kind::forward_inference, algorithm::pooling_max, src_md, dst_md,
                             {3, 3}, {3, 3}, {0, 0}, {0, 0});
    fwd_inference = pooling_forward(pooling_forward::primitive_desc(id, eng));
    pooling_backward::desc bd(algorithm::pooling_max, fpd.src_desc(), fpd.dst_desc(), {3, 3},
                              {3, 3}, {0, 0}, {0, 0});
    pooling_backward::primitive_desc bpd(bd, eng, fpd);
    dsrc = memory(bpd.diff_src_desc(), eng);
    ddst = memory(bpd.diff_dst_desc(), eng);
    fill_random(static_cast<float*>(ddst.get_data_handle()), bpd.diff_dst_desc().get_size() / 4, 2);
    bwd = pooling_backward(bpd);
    forward();  // the workspace of random data, as a training step leaves it
  }
  void forward() {
    fwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
    s.wait();
  }
  void infer() {
    fwd_inference.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    s.wait();
  }
  void backward() {
    bwd.execute(s,
                {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}, {DNNL_ARG_WORKSPACE, ws}});
    s.wait();
  }
};
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef MINITVM_BENCH_HAVE_DNNL
  bench::match_openmp_spin(
      argv);  // oneDNN's OpenMP workers spin as long as our pool's (openmp_spin.h)
#endif
  std::string json_path;
  bool quick = false, use_tophub = false, with_indices = false, taps = false;
  int repeats = 15, number = 1;
  int64_t dump_c = 0, dump_h = 0;
  std::vector<int64_t> dump;
  std::vector<std::string> shapes;
  auto app = minitvm::cli::make_app(
      "minitvm-bench-pool",
      "The seed max-pool grid (max_pool2d k=3 s=3 NCHW float32, N=32) on the CPU: minitvm vs "
      "oneDNN (when built "
      "with it) vs a parallel memcpy of the same bytes (docs/PERFORMANCE.md).",
      "usage: minitvm-bench-pool [--json FILE] [--quick] [--indices] [--taps] [--shapes CxH ...] "
      "[--tophub] [--repeats N] [--number K] [--dump C H]");
  app->add_option("--json", json_path, "also write the results as JSON to FILE");
  app->add_flag("--quick", quick, "a few shapes only");
  app->add_flag("--indices", with_indices,
                "time the forward that also writes int64 indices (a training step's forward, "
                "against oneDNN's training forward, which writes its workspace) instead of the "
                "value-only one (against oneDNN's inference forward); the forward's bytes then "
                "count the indices");
  app->add_flag("--taps", taps,
                "the indices are one-byte window taps (topi::IndexBase::WindowTap, the form of "
                "oneDNN's workspace) instead of int64 per-plane ones: the backward reads them, and "
                "with --indices the forward writes them");
  app->add_option("--shapes", shapes,
                  "only these shapes (N=32), as CxH: grid shapes or any other (e.g. 256x28 64x54)");
  app->add_flag("--tophub", use_tophub,
                "configs from TopHub's llvm package (tophub/pool_llvm_v0.03.log)");
  app->add_option("--repeats", repeats, "timed repeats per kernel (default 15)")
      ->check(minitvm::cli::Integer(1));
  app->add_option("--number", number,
                  "calls per timed repeat, back to back, timed as their mean (TVM's "
                  "time_evaluator `number`); default 1: each repeat is one call, after the other "
                  "candidates have run, so every candidate starts from the others' cache state")
      ->check(minitvm::cli::Integer(1));
  app->add_option("--dump", dump,
                  "print the lowered IR and LLVM IR of the C x H x H shape's kernels, then exit")
      ->expected(2)
      ->check(minitvm::cli::Integer(1));
  if (auto rc = minitvm::cli::parse(*app, argc, argv)) return *rc;
  if (dump.size() == 2) {
    dump_c = dump[0];
    dump_h = dump[1];
  }
  std::unique_ptr<autotune::ApplyHistoryBest> tophub;
  std::optional<autotune::DispatchScope> scope;
  if (use_tophub) {
    tophub = autotune::tophub::context("llvm");
    scope.emplace(*tophub);
  }
  if (dump_c > 0) {  // print the lowered IR and LLVM IR of one grid shape's kernels, then exit
    frontend::PoolInput in{
        {32, dump_c, dump_h, dump_h}, DataType::Float(32), topi::PoolLayout::ChannelsFirst};
    frontend::MaxPoolParams mp;
    mp.kernel_size = {3};
    topi::PoolPlan plan = frontend::plan_max_pool(2, in, mp);
    if (taps) plan.index_base = topi::IndexBase::WindowTap;
    topi::BuildPoolOptions fo;
    fo.with_indices = with_indices;
    for (auto dir : {topi::PoolDirection::Forward, topi::PoolDirection::Backward}) {
      topi::PooledKernel k = topi::build_pool(plan, "llvm", dir, fo);
      std::cout << k.config.str() << "\n" << k.lowered << "\n" << k.module.get_source("ll") << "\n";
    }
    return 0;
  }
  std::vector<Row> rows;
  std::vector<int64_t> Cs{3, 32, 128, 256}, HWs{7, 28, 56, 112};
  if (quick) Cs = {3, 32};
  // --shapes: those shapes, in the order given (any C and H, not only the grid's)
  std::vector<std::pair<int64_t, int64_t>> grid;
  for (const std::string& sh : shapes) {
    size_t x = sh.find('x');
    long long c = 0, h = 0;
    if (x == std::string::npos || std::sscanf(sh.c_str(), "%lldx%lld", &c, &h) != 2 || c < 1 ||
        h < 3) {
      std::fprintf(stderr, "minitvm-bench-pool: --shapes wants CxH with C >= 1, H >= 3: '%s'\n",
                   sh.c_str());
      return 2;
    }
    grid.emplace_back(c, h);
  }
  if (shapes.empty())
    for (int64_t C : Cs)
      for (int64_t H : HWs) grid.emplace_back(C, H);
  const int64_t N = 32;
  std::printf("%-22s %-8s %10s %8s %7s %10s %10s %8s\n", "shape", "dir", "ours_ms", "GB/s", "%copy",
              "dnnl_best", "dnnl_nchw", "vs_best");
  for (auto [C, H] : grid) {
    frontend::PoolInput in{{N, C, H, H}, DataType::Float(32), topi::PoolLayout::ChannelsFirst};
    frontend::MaxPoolParams mp;
    mp.kernel_size = {3};
    topi::PoolPlan plan = frontend::plan_max_pool(2, in, mp);
    if (taps) plan.index_base = topi::IndexBase::WindowTap;
    const DataType idx_type = topi::pool_index_dtype(plan);
    int64_t OH = plan.axes[0].out;
    std::vector<int64_t> ishape{N, C, H, H}, oshape{N, C, OH, OH};
    runtime::NDArray x = runtime::NDArray::empty(ishape, DataType::Float(32));
    runtime::NDArray y = runtime::NDArray::empty(oshape, DataType::Float(32));
    runtime::NDArray idx = runtime::NDArray::empty(oshape, idx_type);
    runtime::NDArray gy = runtime::NDArray::empty(oshape, DataType::Float(32));
    runtime::NDArray gx = runtime::NDArray::empty(ishape, DataType::Float(32));
    fill_random(static_cast<float*>(x.data()), x.nbytes() / 4, 1);
    fill_random(static_cast<float*>(gy.data()), gy.nbytes() / 4, 2);
    topi::BuildPoolOptions with_idx;
    with_idx.with_indices = true;
    topi::PooledKernel fk = topi::build_pool(plan, "llvm", topi::PoolDirection::Forward,
                                             with_indices ? with_idx : topi::BuildPoolOptions{});
    runtime::NDArray idx_out = runtime::NDArray::empty(oshape, idx_type);
    {  // the backward's indices: the argmax of the same random input (a forward with indices)
      topi::PooledKernel fi =
          topi::build_pool(plan, "llvm", topi::PoolDirection::Forward, with_idx);
      fi.module.get_function(fi.func_name)(x, y, idx);
    }
    topi::PooledKernel bk = topi::build_pool(plan, "llvm", topi::PoolDirection::Backward);
    auto ff = fk.module.get_function(fk.func_name);
    auto bf = bk.module.get_function(bk.func_name);
    // Interleaved rounds: every candidate runs once per round and keeps its minimum, so that
    // a busy machine (shared cores) slows all of them alike rather than one column.
    std::vector<std::function<void()>> cand;
    if (with_indices)
      cand.push_back([&] { ff(x, y, idx_out); });
    else
      cand.push_back([&] { ff(x, y); });
    cand.push_back([&] { bf(gy, idx, gx); });
    size_t fwd_bytes = x.nbytes() + y.nbytes() + (with_indices ? idx_out.nbytes() : 0),
           bwd_bytes = gy.nbytes() + idx.nbytes() + gx.nbytes();
    // copy kernels: memcpy of half the bytes (each byte read once and written once), split over
    // the same thread pool as our kernels, so "fraction of copy bandwidth" compares like with
    // like
    std::vector<char> ca(fwd_bytes / 2, 1), cb(ca.size(), 0), da(bwd_bytes / 2, 1),
        db(da.size(), 0);
    cand.push_back([&] { runtime::parallel_memcpy(cb.data(), ca.data(), ca.size()); });
    cand.push_back([&] { runtime::parallel_memcpy(db.data(), da.data(), da.size()); });
#ifdef MINITVM_BENCH_HAVE_DNNL
    DnnlPool best(N, C, H, H, true), plain(N, C, H, H, false);
    // our value-only forward against oneDNN's inference forward; with --indices the training
    // forwards, each writing what its backward reads
    cand.push_back([&] { with_indices ? best.forward() : best.infer(); });
    cand.push_back([&] { best.backward(); });
    cand.push_back([&] { with_indices ? plain.forward() : plain.infer(); });
    cand.push_back([&] { plain.backward(); });
#endif
    std::vector<double> tmin(cand.size(), 1e30);
    for (auto& c : cand) c();  // warm-up (first touch, caches)
    for (int rep = 0; rep < repeats; ++rep)
      for (size_t i = 0; i < cand.size(); ++i) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < number; ++k) cand[i]();
        tmin[i] = std::min(
            tmin[i],
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / number);
      }
    for (int dir = 0; dir < 2; ++dir) {
      Row r{N, C, H, H, dir == 0 ? "forward" : "backward"};
      // bytes moved: forward reads x, writes y (and the indices with --indices); backward reads gy
      // and indices, writes gx
      r.bytes = static_cast<int64_t>(dir == 0 ? fwd_bytes : bwd_bytes);
      r.ours = tmin[dir];
      r.copy = tmin[2 + dir];
#ifdef MINITVM_BENCH_HAVE_DNNL
      r.dnnl_best = tmin[4 + dir];
      r.dnnl_nchw = tmin[6 + dir];
#endif
      double gbs = r.bytes / r.ours / 1e9, copy_gbs = r.bytes / r.copy / 1e9;
      std::printf(
          "%-22s %-8s %10.3f %8.2f %6.0f%% %10.3f %10.3f %8.2f\n",
          ("32x" + std::to_string(C) + "x" + std::to_string(H) + "x" + std::to_string(H)).c_str(),
          r.direction.c_str(), r.ours * 1e3, gbs, 100 * gbs / copy_gbs, r.dnnl_best * 1e3,
          r.dnnl_nchw * 1e3, r.dnnl_best / r.ours);
      rows.push_back(r);
    }
  }
  for (const char* d : {"forward", "backward"}) {
    double lg_copy = 0, lg_best = 0, lg_nchw = 0;
    int n = 0;
    for (auto& r : rows)
      if (r.direction == d) {
        lg_copy += std::log(r.copy / r.ours);
        lg_best += std::log(r.dnnl_best / r.ours);
        lg_nchw += std::log(r.dnnl_nchw / r.ours);
        ++n;
      }
    std::printf(
        "geomean %-8s: fraction of copy bandwidth %.2f, speedup vs oneDNN best %.2f, vs oneDNN "
        "nchw %.2f\n",
        d, std::exp(lg_copy / n), std::exp(lg_best / n), std::exp(lg_nchw / n));
  }
  if (!json_path.empty()) {
    std::ofstream js(json_path);
    for (auto& r : rows) {
      auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
      js << "{\"N\": " << r.N << ", \"C\": " << r.C << ", \"H\": " << r.H << ", \"W\": " << r.W
         << ", \"dtype\": \"float32\", \"direction\": \"" << r.direction
         << "\", \"ours_s\": " << num(r.ours) << ", \"onednn_best_s\": " << num(r.dnnl_best)
         << ", \"onednn_nchw_s\": " << num(r.dnnl_nchw) << ", \"copy_s\": " << num(r.copy)
         << ", \"bytes\": " << r.bytes << "}\n";
    }
  }
  return 0;
}
