// minitvm-bench-pool: max_pool2d (kernel 3, stride 3, NCHW, float32) over the seed grid
// N=32, C in {3,32,128,256}, H=W in {7,28,56,112}, forward and backward, against oneDNN (its best
// blocked layout and plain NCHW) and a memcpy of the same byte count. Times are the minimum of
// the repeats. `--json FILE` writes one object per measurement; `--quick` runs C<=32 only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "minitvm/frontend/pool_plan.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/topi/pool.h"

#ifdef MINITVM_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

using namespace minitvm;

namespace {

template <typename F>
double time_min(F&& f, int repeats) {
  f();  // warm-up
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

struct Row {
  int64_t N, C, H, W;
  std::string direction;
  double ours = 0, dnnl_best = NAN, dnnl_nchw = NAN, copy = 0;
  int64_t bytes = 0;
};

#ifdef MINITVM_BENCH_HAVE_DNNL
// oneDNN max pooling with src in `fmt` (any = oneDNN picks), forward (training, with workspace)
// and backward. Returns {forward_s, backward_s}.
std::pair<double, double> dnnl_pool(int64_t N, int64_t C, int64_t H, int64_t W, bool any_layout, int repeats) {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  int64_t OH = (H - 3) / 3 + 1, OW = (W - 3) / 3 + 1;
  memory::dims src_d{N, C, H, W}, dst_d{N, C, OH, OW};
  // oneDNN's best layout: blocked nChw16c (nChw8c when C is not a multiple of 16); else plain nchw
  auto tag = !any_layout ? memory::format_tag::nchw
                         : (C % 16 == 0 ? memory::format_tag::nChw16c : memory::format_tag::nChw8c);
  memory::desc src_md(src_d, memory::data_type::f32, tag), dst_md(dst_d, memory::data_type::f32, tag);
  pooling_forward::desc fd(prop_kind::forward_training, algorithm::pooling_max, src_md, dst_md, {3, 3}, {3, 3},
                           {0, 0}, {0, 0});
  pooling_forward::primitive_desc fpd(fd, eng);
  memory src(fpd.src_desc(), eng), dst(fpd.dst_desc(), eng), ws(fpd.workspace_desc(), eng);
  std::memset(src.get_data_handle(), 0, fpd.src_desc().get_size());
  pooling_forward fwd(fpd);
  double tf = time_min([&] { fwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}}); s.wait(); },
                       repeats);
  pooling_backward::desc bd(algorithm::pooling_max, fpd.src_desc(), fpd.dst_desc(), {3, 3}, {3, 3}, {0, 0}, {0, 0});
  pooling_backward::primitive_desc bpd(bd, eng, fpd);
  memory dsrc(bpd.diff_src_desc(), eng), ddst(bpd.diff_dst_desc(), eng);
  pooling_backward bwd(bpd);
  double tb = time_min(
      [&] {
        bwd.execute(s, {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}, {DNNL_ARG_WORKSPACE, ws}});
        s.wait();
      },
      repeats);
  return {tf, tb};
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  bool quick = false;
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--quick") quick = true;
    else if (a == "--repeats" && i + 1 < argc) repeats = std::stoi(argv[++i]);
    else {
      std::cerr << "usage: minitvm-bench-pool [--json FILE] [--quick] [--repeats N]\n";
      return 2;
    }
  }
  std::vector<Row> rows;
  std::vector<int64_t> Cs{3, 32, 128, 256}, HWs{7, 28, 56, 112};
  if (quick) Cs = {3, 32};
  const int64_t N = 32;
  std::printf("%-22s %-8s %10s %8s %7s %10s %10s %8s\n", "shape", "dir", "ours_ms", "GB/s", "%copy", "dnnl_best",
              "dnnl_nchw", "vs_best");
  for (int64_t C : Cs)
    for (int64_t H : HWs) {
      frontend::PoolInput in{{N, C, H, H}, DataType::Float(32), frontend::PoolLayout::ChannelsFirst};
      frontend::MaxPoolParams mp;
      mp.kernel_size = {3};
      frontend::PoolPlan plan = frontend::plan_max_pool(2, in, mp);
      int64_t OH = plan.axes[0].out;
      std::vector<int64_t> ishape{N, C, H, H}, oshape{N, C, OH, OH};
      runtime::NDArray x = runtime::NDArray::empty(ishape, DataType::Float(32));
      runtime::NDArray y = runtime::NDArray::empty(oshape, DataType::Float(32));
      runtime::NDArray idx = runtime::NDArray::empty(oshape, DataType::Int(64));
      runtime::NDArray gy = runtime::NDArray::empty(oshape, DataType::Float(32));
      runtime::NDArray gx = runtime::NDArray::empty(ishape, DataType::Float(32));
      std::memset(x.data(), 0, x.nbytes());
      std::memset(gy.data(), 0, gy.nbytes());
      std::memset(idx.data(), 0, idx.nbytes());
      topi::PooledKernel fk = topi::build_pool(plan, "llvm", topi::PoolDirection::Forward);
      topi::PooledKernel bk = topi::build_pool(plan, "llvm", topi::PoolDirection::Backward);
      auto ff = fk.module.get_function(fk.func_name);
      auto bf = bk.module.get_function(bk.func_name);
#ifdef MINITVM_BENCH_HAVE_DNNL
      auto best = dnnl_pool(N, C, H, H, true, repeats);
      auto plain = dnnl_pool(N, C, H, H, false, repeats);
#endif
      for (int dir = 0; dir < 2; ++dir) {
        Row r{N, C, H, H, dir == 0 ? "forward" : "backward"};
        // bytes moved: forward reads x, writes y; backward reads gy and indices, writes gx
        r.bytes = dir == 0 ? x.nbytes() + y.nbytes() : gy.nbytes() + idx.nbytes() + gx.nbytes();
        if (dir == 0) r.ours = time_min([&] { ff(x, y); }, repeats);
        else r.ours = time_min([&] { bf(gy, idx, gx); }, repeats);
        std::vector<char> a(static_cast<size_t>(r.bytes / 2)), b(a.size());
        std::memset(a.data(), 1, a.size());
        r.copy = time_min([&] { std::memcpy(b.data(), a.data(), a.size()); }, repeats);
#ifdef MINITVM_BENCH_HAVE_DNNL
        r.dnnl_best = dir == 0 ? best.first : best.second;
        r.dnnl_nchw = dir == 0 ? plain.first : plain.second;
#endif
        double gbs = r.bytes / r.ours / 1e9, copy_gbs = r.bytes / r.copy / 1e9;
        std::printf("%-22s %-8s %10.3f %8.2f %6.0f%% %10.3f %10.3f %8.2f\n",
                    ("32x" + std::to_string(C) + "x" + std::to_string(H) + "x" + std::to_string(H)).c_str(),
                    r.direction.c_str(), r.ours * 1e3, gbs, 100 * gbs / copy_gbs, r.dnnl_best * 1e3, r.dnnl_nchw * 1e3,
                    r.dnnl_best / r.ours);
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
    std::printf("geomean %-8s: fraction of copy bandwidth %.2f, speedup vs oneDNN best %.2f, vs oneDNN nchw %.2f\n", d,
                std::exp(lg_copy / n), std::exp(lg_best / n), std::exp(lg_nchw / n));
  }
  if (!json_path.empty()) {
    std::ofstream js(json_path);
    for (auto& r : rows) {
      auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
      js << "{\"N\": " << r.N << ", \"C\": " << r.C << ", \"H\": " << r.H << ", \"W\": " << r.W
         << ", \"dtype\": \"float32\", \"direction\": \"" << r.direction << "\", \"ours_s\": " << num(r.ours)
         << ", \"onednn_best_s\": " << num(r.dnnl_best) << ", \"onednn_nchw_s\": " << num(r.dnnl_nchw)
         << ", \"copy_s\": " << num(r.copy) << ", \"bytes\": " << r.bytes << "}\n";
    }
  }
  return 0;
}
