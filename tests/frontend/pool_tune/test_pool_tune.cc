// The pool tuning templates (src/frontend/pool_tune_template.cc) and the shipped llvm pool
// configs (tophub/pool_llvm_v0.03.log):
// - a Task made from topi::pool_workload has that workload, the CPU template's space, GB/s work;
// - candidates measured with the correctness check (against ReferencePoolExecutor) pass for
//   max/avg forward and avg backward, and a config's kernel matches the reference;
// - records of such a task dispatch in build_pool (ApplyHistoryBest picks the tuned config);
// - the shipped log loads without warnings and build_pool under the TopHub llvm context applies
//   its config for a seed-grid layer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tophub.h"
#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/support/logging.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/pool.h"
#include "runtime/cpu/jit.h"

using namespace minitvm;
using namespace minitvm::frontend;
using autotune::Json;
using topi::PoolDirection;
using topi::PoolLayout;
using topi::PoolPlan;

namespace {

const char* kLog = MINITVM_SOURCE_DIR "/tophub/pool_llvm_v0.03.log";

PoolPlan max2d(std::vector<int64_t> shape, int64_t k, int64_t s, int64_t pad = 0,
               bool ceil = false) {
  MaxPoolParams p;
  p.kernel_size = {k};
  p.stride = {s};
  p.padding = {pad};
  p.ceil_mode = ceil;
  return plan_max_pool(2, PoolInput{shape, DataType::Float(32), PoolLayout::ChannelsFirst}, p);
}

PoolPlan avg2d(std::vector<int64_t> shape, int64_t k, int64_t s, int64_t pad, PoolLayout lay) {
  AvgPoolParams p;
  p.kernel_size = {k};
  p.stride = {s};
  p.padding = {pad};
  p.ceil_mode = true;
  p.count_include_pad = false;
  return plan_avg_pool(2, PoolInput{shape, DataType::Float(32), lay}, p);
}

autotune::Task task_of(const PoolPlan& plan, PoolDirection dir) {
  Json w = topi::pool_workload(plan, dir);
  return autotune::Task(w[0].get<std::string>(), Json(w.begin() + 1, w.end()), "llvm");
}

// The record of `cfg` (a point of `task`'s space) with a measured cost of 10 us: what a tuner would
// log for it, for ApplyHistoryBest.
std::vector<autotune::Record> record_of(const autotune::Task& task,
                                        const autotune::ConfigEntity& cfg) {
  auto idx = task.config_space().index_of(cfg);
  EXPECT_TRUE(idx.has_value()) << cfg.str();
  if (!idx) return {};
  autotune::MeasureResult res;
  res.costs = {1e-5};
  return {autotune::make_record(task, task.config(*idx), res)};
}

// Float32 data for the max rules: a sixteenth NaNs whose payloads name their positions (either
// sign), many signed zeros (ties), infinities, and the rest of the values made negative half the
// time so that zeros are often the maximum.
void sprinkle_specials(HostArray& x, uint32_t seed) {
  float* xv = x.data<float>();
  std::mt19937 rng(seed);
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (int64_t i = 0; i < x.numel(); ++i) {
    uint32_t r = rng() % 16;
    if (r == 0) {
      uint32_t bits = 0x7fc00000u | static_cast<uint32_t>(i & 0x3fffff);
      if (rng() % 2) bits |= 0x80000000u;
      std::memcpy(&xv[i], &bits, 4);
    } else if (r < 7) {
      xv[i] = specials[r % 2];
    } else if (r < 9) {
      xv[i] = specials[2 + r % 2];
    } else if (r < 13) {
      xv[i] = -std::abs(xv[i]);
    }
  }
}

HostArray random_input(const PoolPlan& plan, uint32_t seed) {
  std::vector<int64_t> shape = plan.input_shape();
  int64_t n = 1;
  for (auto v : shape) n *= v;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return HostArray::from_doubles(plan.dtype, shape, v);
}

}  // namespace

TEST(PoolTuneTemplate, TaskMatchesBuildPoolWorkloadAndSpace) {
  PoolPlan plan = max2d({2, 3, 9, 9}, 3, 2, 1);
  for (auto dir : {PoolDirection::Forward, PoolDirection::Backward}) {
    autotune::Task task = task_of(plan, dir);
    EXPECT_EQ(task.workload(), topi::pool_workload(plan, dir));
    EXPECT_EQ(task.name(), topi::pool_task_name(plan, dir));
    autotune::FallbackConfigEntity fb;
    topi::define_pool_cpu_space(fb, plan, dir);
    EXPECT_EQ(task.config_space().size(), fb.space().size());
    EXPECT_EQ(task.throughput_unit(), "GB/s");
    // forward: input 2*3*9*9 + output 2*3*5*5 floats; backward: grad_out + indices (int64) +
    // grad_in
    double expect =
        dir == PoolDirection::Forward ? 4.0 * (162 * 3 + 150) : 4.0 * 150 + 8.0 * 150 + 4.0 * 486;
    EXPECT_DOUBLE_EQ(task.bytes(), expect);
  }
  // Every layout/rank/direction name is registered.
  for (const char* n : {"pool1d_ncl_fwd.llvm", "pool2d_nhwc_bwd.llvm", "pool3d_ncdhw_fwd.llvm"})
    EXPECT_NE(autotune::find_template(n), nullptr) << n;
}

TEST(PoolTuneTemplate, BadArgsAreUserErrors) {
  EXPECT_THROW(autotune::Task("pool2d_nchw_fwd.llvm", Json::array({1, 2}), "llvm"), CompileError);
  PoolPlan plan = max2d({1, 2, 8, 8}, 2, 2);
  Json w = topi::pool_workload(plan, PoolDirection::Forward);
  Json args(w.begin() + 1, w.end());
  args[1] = "median";
  EXPECT_THROW(autotune::Task("pool2d_nchw_fwd.llvm", args, "llvm"), CompileError);
}

TEST(PoolTuneTemplate, MeasuredCandidatesPassTheReferenceCheck) {
  autotune::MeasureOption mo;
  mo.check_correctness = true;
  mo.min_repeat_ms = 0;
  mo.repeat = 1;
  mo.n_parallel = 2;
  struct Case {
    PoolPlan plan;
    PoolDirection dir;
  };
  std::vector<Case> cases = {
      {max2d({2, 3, 11, 10}, 3, 2, 1, true), PoolDirection::Forward},
      {avg2d({2, 10, 9, 7}, 3, 2, 1, PoolLayout::ChannelsLast), PoolDirection::Forward},
      {avg2d({2, 4, 9, 7}, 3, 2, 1, PoolLayout::ChannelsFirst), PoolDirection::Backward},
  };
  for (auto& c : cases) {
    autotune::Task task = task_of(c.plan, c.dir);
    autotune::LocalMeasurer m(task, mo);
    std::vector<autotune::ConfigEntity> cfgs;
    int64_t n = task.config_space().size();
    for (int64_t i = 0; i < n; i += std::max<int64_t>(1, n / 6)) cfgs.push_back(task.config(i));
    auto out = m.measure(cfgs);
    ASSERT_EQ(out.size(), cfgs.size());
    for (auto& o : out)
      EXPECT_EQ(o.result.error_no, 0) << task.name() << " #" << o.config.index << ": " << o.error;
  }
}

TEST(PoolTuneTemplate, TunedRecordDispatchesInBuildPool) {
  PoolPlan plan = max2d({2, 8, 12, 12}, 3, 3);
  autotune::Task task = task_of(plan, PoolDirection::Forward);
  // Pick a config that is not the fallback's index and make a record of it.
  autotune::FallbackConfigEntity fb;
  topi::pool_cpu_fallback(fb, plan, PoolDirection::Forward);
  int64_t fbi = task.config_space().index_of(fb).value_or(-1);
  int64_t pick = fbi == 0 ? 1 : 0;
  autotune::MeasureResult res;
  res.costs = {1e-5};
  autotune::Record rec = autotune::make_record(task, task.config(pick), res);
  autotune::ApplyHistoryBest best(std::vector<autotune::Record>{rec});
  autotune::DispatchScope scope(best);
  topi::PooledKernel k = topi::build_pool(plan, "llvm", PoolDirection::Forward);
  EXPECT_FALSE(k.config.is_fallback());
  EXPECT_EQ(k.config.index, pick);
  // The tuned kernel still computes max pooling.
  HostArray x = random_input(plan, 7);
  ReferencePoolExecutor ref;
  HostArray want = ref.forward(plan, x).output;
  CompiledPoolExecutor exe("llvm");
  HostArray got = exe.forward(plan, x).output;
  ASSERT_EQ(got.numel(), want.numel());
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << i;
}

// The fallback of channels-first max_pool2d k=3 s=3 (the seed grid): the forward vectorizes the
// whole output row (window loops outside; each tap a stride-3 read, one dense load and a shuffle),
// the backward 48-lane tiles of whole windows with a masked row tail (dense stores, grad_output
// and indices read as repeated lanes). Neither gathers, and both match the reference.
TEST(PoolCpuTemplate, SeedGridFallbackVectorizesWithoutGathers) {
  for (int64_t H : {7, 28, 56, 112}) {
    int64_t OW = (H - 3) / 3 + 1;
    PoolPlan grid = max2d({32, 128, H, H}, 3, 3);
    autotune::FallbackConfigEntity f, b;
    topi::pool_cpu_fallback(f, grid, PoolDirection::Forward);
    topi::pool_cpu_fallback(b, grid, PoolDirection::Backward);
    EXPECT_EQ(f.knob_int("vec"), 1);
    EXPECT_EQ(f.split("tile_inner").size.back(), OW);
    EXPECT_EQ(b.knob_int("vec"), 1);
    EXPECT_EQ(b.split("tile_inner").size.back(), 3 * std::min<int64_t>(16, (H + 2) / 3));
    EXPECT_EQ(f.knob_int("fuse_level"), 2);  // one task per plane
    // the backward tuning space holds that tile (it does not divide W)
    bool found = false;
    for (const auto& e : b.space().knobs()[0].entities)
      found |= std::get<autotune::SplitEntity>(e).size.back() == b.split("tile_inner").size.back();
    EXPECT_TRUE(found) << H;
    PoolPlan plan = max2d({2, 3, H, H}, 3, 3);
    plan.return_indices = true;
    CompiledPoolExecutor exe("llvm");
    for (auto dir : {PoolDirection::Forward, PoolDirection::Backward}) {
      std::string opt =
          runtime::cpu::jit_optimized_ir(exe.kernel(plan, dir, false).module.get_source("ll"));
      EXPECT_EQ(opt.find("gather"), std::string::npos) << H << "\n" << opt;
    }
    HostArray x = random_input(plan, 11);
    ReferencePoolExecutor ref;
    PoolForwardResult want = ref.forward(plan, x);
    PoolForwardResult got = exe.forward(plan, x);
    for (int64_t i = 0; i < want.output.numel(); ++i)
      ASSERT_EQ(got.output.get(i), want.output.get(i)) << H << " " << i;
    HostArray gy = random_input(max2d({2, 3, OW, OW}, 1, 1), 12);
    HostArray gx_want = ref.backward(plan, x, gy, &want.indices);
    HostArray gx = exe.backward(plan, x, gy, &want.indices);
    for (int64_t i = 0; i < gx_want.numel(); ++i)
      ASSERT_EQ(gx.get(i), gx_want.get(i)) << H << " " << i;
  }
}

// The disjoint max backward compares indices in int32 when a plane's positions fit (half the vector
// compares): an int64 index outside int32's range must still match no position, as it did when
// the comparison was int64 (1 << 32 plus a position would wrap onto that position if truncated).
// Checked against a naive loop over the windows, for the seed grid's tiles (W = 28, 56).
TEST(PoolCpuTemplate, DisjointBackwardIgnoresIndicesOutsideInt32) {
  for (int64_t H : {28, 56}) {
    PoolPlan plan = max2d({2, 3, H, H}, 3, 3);
    int64_t OH = plan.axes[0].out, planes = 2 * 3;
    topi::PooledKernel k = topi::build_pool(plan, "llvm", PoolDirection::Backward);
    runtime::NDArray gy = runtime::NDArray::empty({2, 3, OH, OH}, DataType::Float(32));
    runtime::NDArray idx = runtime::NDArray::empty({2, 3, OH, OH}, DataType::Int(64));
    runtime::NDArray gx = runtime::NDArray::empty({2, 3, H, H}, DataType::Float(32));
    auto* g = static_cast<float*>(gy.data());
    auto* ix = static_cast<int64_t*>(idx.data());
    std::mt19937 rng(5);
    const int64_t far[] = {int64_t{1} << 32, -(int64_t{1} << 32), int64_t{1} << 31,
                           std::numeric_limits<int64_t>::min()};
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OH; ++ow) {
          int64_t o = (p * OH + oh) * OH + ow;
          g[o] = static_cast<float>(rng() % 1000) / 8.f + 1.f;
          ix[o] = (oh * 3 + static_cast<int64_t>(rng() % 3)) * H + ow * 3 +
                  static_cast<int64_t>(rng() % 3);
          if (rng() % 3 == 0) ix[o] += far[rng() % 4];  // a third of them out of range
        }
    k.module.get_function(k.func_name)(gy, idx, gx);
    const auto* got = static_cast<const float*>(gx.data());
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < H; ++w) {
          float want = 0.f;
          int64_t oh = h / 3, ow = w / 3;
          if (oh < OH && ow < OH) {
            int64_t o = (p * OH + oh) * OH + ow;
            if (ix[o] == h * H + w) want = g[o];
          }
          ASSERT_EQ(got[(p * H + h) * H + w], want) << H << " " << p << " " << h << " " << w;
        }
  }
}

// The prefetch knob (Stage::prefetch of the input at the innermost outer loop): each value emits
// llvm.prefetch and leaves the results bit-exact (padded/ceil max, channels-last and -first avg,
// 1-d max). The seed grid's fallback turns it on only where the input streams from memory.
TEST(PoolCpuTemplate, PrefetchKnobEmitsPrefetchAndKeepsResults) {
  AdaptivePoolParams ad;
  ad.output_size = {5, 4};
  MaxPoolParams m1;
  m1.kernel_size = {4};
  m1.stride = {3};
  m1.padding = {1};
  m1.dilation = {2};
  std::vector<PoolPlan> plans = {
      max2d({2, 3, 11, 10}, 3, 2, 1, true),
      avg2d({2, 10, 9, 7}, 3, 2, 1, PoolLayout::ChannelsLast),
      avg2d({2, 4, 9, 7}, 3, 2, 1, PoolLayout::ChannelsFirst),
      plan_max_pool(1, PoolInput{{3, 5, 40}, DataType::Float(32), PoolLayout::ChannelsFirst}, m1),
      plan_adaptive_avg_pool(
          2, PoolInput{{2, 3, 13, 11}, DataType::Float(32), PoolLayout::ChannelsFirst}, ad),
  };
  for (auto& plan : plans) {
    autotune::Task task = task_of(plan, PoolDirection::Forward);
    HostArray x = random_input(plan, 21);
    ReferencePoolExecutor ref;
    HostArray want = ref.forward(plan, x).output;
    for (int pf : {1, 2, 4}) {
      SCOPED_TRACE(task.name() + " prefetch " + std::to_string(pf));
      autotune::FallbackConfigEntity fb;
      topi::pool_cpu_fallback(fb, plan, PoolDirection::Forward);
      EXPECT_EQ(fb.knob_int("prefetch"), 0);  // small inputs: off in the fallback
      fb.set("prefetch", autotune::OtherOptionEntity{pf});
      autotune::ApplyHistoryBest best(record_of(task, fb));
      autotune::DispatchScope scope(best);
      CompiledPoolExecutor exe("llvm");
      EXPECT_NE(exe.kernel(plan, PoolDirection::Forward, false)
                    .module.get_source("ll")
                    .find("@llvm.prefetch"),
                std::string::npos);
      HostArray got = exe.forward(plan, x).output;
      ASSERT_EQ(got.numel(), want.numel());
      for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << i;
    }
  }
  // Seed grid: on from 8 MiB of input with rows of at most 256 bytes (forward only).
  for (int64_t C : {32, 128, 256})
    for (int64_t H : {28, 56, 112}) {
      autotune::FallbackConfigEntity f, b;
      topi::pool_cpu_fallback(f, max2d({32, C, H, H}, 3, 3), PoolDirection::Forward);
      topi::pool_cpu_fallback(b, max2d({32, C, H, H}, 3, 3), PoolDirection::Backward);
      bool on = 32 * C * H * H * 4 >= (int64_t{8} << 20) && H <= 64;  // 32x56, 128x28/56, 256x28/56
      EXPECT_EQ(f.knob_int("prefetch"), on ? 4 : 0) << C << "x" << H;
      EXPECT_EQ(b.knob_int("prefetch"), 0);
    }
}

// The backward's "stream" knob: each plane is computed into a buffer, then copied to grad_input as
// whole vectors under the "nontemporal_store" pragma (streaming stores where a vector's address is
// aligned). Max backward of disjoint windows in 1, 2 and 3 dimensions, float32 and float64, planes
// of whole vectors and not: bit-exact against the reference. The fallback streams seed-grid
// grad_inputs that do not stay in cache (streams_grad_input).
TEST(PoolCpuTemplate, StreamKnobCopiesPlanesOutAndKeepsResults) {
  auto maxpool = [](int rank, std::vector<int64_t> shape, int64_t k, DataType dt) {
    MaxPoolParams p;
    p.kernel_size = {k};
    p.return_indices = true;
    return plan_max_pool(rank, PoolInput{shape, dt, PoolLayout::ChannelsFirst}, p);
  };
  const DataType f32 = DataType::Float(32), f64 = DataType::Float(64);
  struct Case {
    PoolPlan plan;
    bool whole_vectors;  // the plane is a whole number of 64-byte vectors
  };
  std::vector<Case> cases = {
      {maxpool(2, {2, 3, 28, 28}, 3, f32), true},  {maxpool(2, {2, 3, 27, 27}, 3, f32), false},
      {maxpool(2, {3, 2, 16, 16}, 2, f32), true},  {maxpool(1, {2, 4, 48}, 4, f32), true},
      {maxpool(3, {1, 2, 6, 8, 8}, 2, f32), true}, {maxpool(2, {2, 3, 12, 12}, 3, f64), true},
  };
  for (auto& [plan, whole] : cases) {
    autotune::Task task = task_of(plan, PoolDirection::Backward);
    SCOPED_TRACE(task.name() + " " + topi::pool_workload(plan, PoolDirection::Backward).dump());
    autotune::FallbackConfigEntity fb;
    topi::pool_cpu_fallback(fb, plan, PoolDirection::Backward);
    EXPECT_EQ(fb.knob_int("stream"), 0);  // small: off in the fallback
    fb.set("stream", autotune::OtherOptionEntity{1});
    autotune::ApplyHistoryBest best(record_of(task, fb));
    autotune::DispatchScope scope(best);
    CompiledPoolExecutor exe("llvm");
    std::string ll = exe.kernel(plan, PoolDirection::Backward, false).module.get_source("ll");
    // Streaming stores in every case (loop_partition peels a plane's last, partial vector);
    // that masked vector is an ordinary store.
    EXPECT_NE(ll.find("!nontemporal"), std::string::npos);
    bool masked = false;
    std::istringstream lines(ll);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("call void @llvm.masked.store") == std::string::npos) continue;
      masked = true;
      EXPECT_EQ(line.find("!nontemporal"), std::string::npos) << line;
    }
    if (!whole) EXPECT_TRUE(masked);
    HostArray x = random_input(plan, 31);
    ReferencePoolExecutor ref;
    PoolForwardResult fwd = ref.forward(plan, x);
    HostArray gy =
        random_input(maxpool(plan.spatial_rank(), fwd.output.shape(), 1, plan.dtype), 32);
    HostArray want = ref.backward(plan, x, gy, &fwd.indices);
    HostArray got = exe.backward(plan, x, gy, &fwd.indices);
    ASSERT_EQ(got.numel(), want.numel());
    for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << i;
  }
  // A backward record written before the knob existed (no "stream" entry) loads and applies
  // with stream = 0, also where the fallback would stream (32x256x112x112: 411 MB, more than any
  // cache).
  {
    PoolPlan big = max2d({32, 256, 112, 112}, 3, 3);
    autotune::Task task = task_of(big, PoolDirection::Backward);
    autotune::FallbackConfigEntity fb;
    topi::pool_cpu_fallback(fb, big, PoolDirection::Backward);
    ASSERT_EQ(fb.knob_int("stream"), 1);
    std::vector<autotune::Record> rec = record_of(task, fb);
    ASSERT_EQ(rec.size(), 1u);
    std::string line = autotune::encode_record(rec[0]);
    const std::string entry = ", [\"stream\", \"ot\", 1]";
    size_t at = line.find(entry);
    ASSERT_NE(at, std::string::npos) << line;
    line.erase(at, entry.size());
    auto recs = autotune::load_records_from_string(line + "\n", "old.log");
    ASSERT_EQ(recs.size(), 1u) << line;
    autotune::ApplyHistoryBest best(recs);
    autotune::DispatchScope scope(best);
    topi::PooledKernel k = topi::build_pool(big, "llvm", PoolDirection::Backward);
    EXPECT_TRUE(!k.config.has("stream") || k.config.knob_int("stream") == 0) << k.config.str();
    EXPECT_EQ(k.module.get_source("ll").find("!nontemporal"), std::string::npos);
  }
  // The fallback streams a grad_input made of whole-line planes that is larger than the L2s of the
  // threads writing it; on AMD one of 16 MiB or more, except where everything the backward
  // touches fits in the last-level cache (it stays there between calls): grad_output (4 bytes per
  // output), the indices (8 or 1) and grad_input.
  const int64_t llc = topi::cpu::last_level_cache_bytes();
  const bool amd = topi::cpu::host_cpu_is_amd();
  const int64_t l2s = runtime::configured_thread_count() * topi::cpu::l2_cache_bytes();
  for (bool taps : {false, true})
    for (int64_t C : {3, 32, 128, 256})
      for (int64_t H : {7, 28, 56, 112}) {
        PoolPlan plan = max2d({32, C, H, H}, 3, 3);
        if (taps) plan.index_base = topi::IndexBase::WindowTap;
        autotune::FallbackConfigEntity b, f;
        topi::pool_cpu_fallback(b, plan, PoolDirection::Backward);
        topi::pool_cpu_fallback(f, plan, PoolDirection::Forward);
        const int64_t grad_in = 32 * C * H * H * 4;
        const int64_t touched = grad_in + 32 * C * (H / 3) * (H / 3) * (4 + (taps ? 1 : 8));
        const bool on =
            H * H * 4 % 64 == 0 &&
            (amd ? grad_in >= (int64_t{16} << 20) && !(llc > 0 && touched <= llc) : grad_in > l2s);
        EXPECT_EQ(b.knob_int("stream"), on ? 1 : 0) << C << "x" << H << (taps ? " taps" : "");
        EXPECT_FALSE(f.has("stream"));  // a backward knob only
      }
  // 32x256x112x112 (411 MB) streams on every host; 32x32x56x56 (12.8 MB) on Intel's hosts whose
  // threads' L2s take less, never on AMD's (it stays in the L3 of a 16 MiB or larger one).
  for (bool taps : {false, true}) {
    PoolPlan big = max2d({32, 256, 112, 112}, 3, 3), small = max2d({32, 32, 56, 56}, 3, 3);
    if (taps) big.index_base = small.index_base = topi::IndexBase::WindowTap;
    autotune::FallbackConfigEntity b, s;
    topi::pool_cpu_fallback(b, big, PoolDirection::Backward);
    topi::pool_cpu_fallback(s, small, PoolDirection::Backward);
    EXPECT_EQ(b.knob_int("stream"), 1);
    EXPECT_EQ(s.knob_int("stream"), !amd && 32 * 32 * 56 * 56 * 4 > l2s ? 1 : 0);
  }
}

// The last-level cache size the fallbacks read: Linux's sysfs size of cpu0's highest cache level
// (here parsed independently, "32768K"), at least the L2 wherever it is known.
TEST(PoolCpuTemplate, LastLevelCacheBytesMatchSysfs) {
  const int64_t llc = topi::cpu::last_level_cache_bytes();
  int best_level = 0;
  int64_t want = 0;
  if (!std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache"))
    GTEST_SKIP() << "no sysfs cache description on this host";
  for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/cpu/cpu0/cache",
                                                           std::filesystem::directory_options::skip_permission_denied)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    std::string level, size, type;
    std::ifstream(e.path() / "level") >> level;
    std::ifstream(e.path() / "size") >> size;
    std::ifstream(e.path() / "type") >> type;
    if (level.empty() || size.empty() || type == "Instruction") continue;
    int64_t mult = 1;
    if (size.back() == 'K') mult = 1024, size.pop_back();
    else if (size.back() == 'M') mult = 1024 * 1024, size.pop_back();
    if (std::stoi(level) > best_level) best_level = std::stoi(level), want = std::stoll(size) * mult;
  }
  if (best_level < 3) GTEST_SKIP() << "no L3 in sysfs on this host";
  EXPECT_EQ(llc, want);
  EXPECT_GE(llc, topi::cpu::l2_cache_bytes());
}

TEST(PoolTophub, ShippedLogLoadsWithoutWarnings) {
  ASSERT_TRUE(std::filesystem::exists(kLog));
  WarningCapture wc;
  autotune::LoadOptions lo;
  lo.strict = true;
  autotune::LoadReport rep;
  std::vector<autotune::Record> recs = autotune::load_records(kLog, lo, &rep);
  EXPECT_TRUE(wc.messages().empty()) << wc.messages().front();
  EXPECT_TRUE(rep.skipped.empty());
  EXPECT_EQ(rep.records, 16);  // one best record per seed-grid forward layer
  for (const auto& r : recs) {
    EXPECT_EQ(r.result.error_no, 0);
    EXPECT_EQ(r.input.task_name, "pool2d_nchw_fwd.llvm");
  }
}

namespace {
// build_pool of the seed-grid layer N=32, C=32, H=W=28 (k=3, s=3) under `ctx` must apply the
// log's config.
void expect_tuned_config(autotune::DispatchContext& ctx) {
  PoolPlan plan = max2d({32, 32, 28, 28}, 3, 3);
  Json w = topi::pool_workload(plan, PoolDirection::Forward);
  const autotune::Record* want = nullptr;
  autotune::LoadOptions lo;
  std::vector<autotune::Record> recs = autotune::load_records(kLog, lo);
  for (const auto& r : recs)
    if (autotune::workload_v02(r.input.task_name, r.input.args) == w) want = &r;
  ASSERT_NE(want, nullptr) << "no record for " << w.dump();
  WarningCapture wc;
  autotune::DispatchScope scope(ctx);
  topi::PooledKernel k = topi::lower_pool(plan, "llvm", PoolDirection::Forward);
  EXPECT_FALSE(k.config.is_fallback());
  EXPECT_EQ(k.config.index, want->input.config.index);
  EXPECT_TRUE(wc.messages().empty());
}
}  // namespace

TEST(PoolTophub, BuildPoolUsesShippedConfigWithTophubFile) {
  auto ctx = autotune::tophub::context("llvm", {kLog});
  expect_tuned_config(*ctx);
}

// Needs src/autotune/tophub.cc to load index.json's "extra_packages" (see the lead's note);
// enable when that lands.
TEST(PoolTophub, BuildPoolUsesShippedConfigUnderTophubContext) {
  auto ctx = autotune::tophub::context("llvm");
  expect_tuned_config(*ctx);
}

// The value-only max forward combines taps as `isnan(v) ? v : max(v, best)` (one maxps, one NaN
// compare, one blend on x86): the same rule as `v > best || isnan(v)`. Checked bit for bit against
// a naive loop of PyTorch's rule on windows holding NaNs of distinct payloads (the last NaN in
// window order wins), -0 and +0 ties (the first wins), -inf and +inf, over vectorized rows with
// tails (W = 25, 56) and a padded, strided case.
TEST(PoolCpuTemplate, ValueOnlyMaxForwardKeepsNaNAndTieRulesBitExact) {
  struct Shape {
    int64_t H, W, k, s, pad;
  };
  for (Shape sh : {Shape{9, 25, 3, 3, 0}, Shape{12, 56, 3, 3, 0}, Shape{11, 20, 3, 2, 1}}) {
    MaxPoolParams p;
    p.kernel_size = {sh.k};
    p.stride = {sh.s};
    p.padding = {sh.pad};
    PoolPlan plan = plan_max_pool(
        2, PoolInput{{2, 3, sh.H, sh.W}, DataType::Float(32), PoolLayout::ChannelsFirst}, p);
    SCOPED_TRACE(topi::pool_workload(plan, PoolDirection::Forward).dump());
    HostArray x = random_input(plan, 41);
    sprinkle_specials(x, 42);
    const float* xv = x.data<float>();
    CompiledPoolExecutor exe("llvm");
    HostArray got = exe.forward(plan, x).output;
    const int64_t OH = plan.axes[0].out, OW = plan.axes[1].out;
    ASSERT_EQ(got.numel(), 2 * 3 * OH * OW);
    for (int64_t pl = 0; pl < 6; ++pl)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          float best = -std::numeric_limits<float>::infinity();
          bool any = false;
          for (int64_t kh = 0; kh < sh.k; ++kh)
            for (int64_t kw = 0; kw < sh.k; ++kw) {
              int64_t h = oh * sh.s - sh.pad + kh, w = ow * sh.s - sh.pad + kw;
              if (h < 0 || h >= sh.H || w < 0 || w >= sh.W) continue;
              float v = xv[(pl * sh.H + h) * sh.W + w];
              if (!any || v > best || std::isnan(v)) best = v;
              any = true;
            }
          float g = got.data<float>()[(pl * OH + oh) * OW + ow];
          uint32_t gb, wb;
          std::memcpy(&gb, &g, 4);
          std::memcpy(&wb, &best, 4);
          ASSERT_EQ(gb, wb) << "plane " << pl << " (" << oh << ", " << ow << "): got " << g
                            << ", want " << best;
        }
  }
}

// The "window_rows" knob: the input rows under an output tile are staged in a local buffer
// (cache_read at the tile) and the taps read it; still folded in window order, so the result is
// bit-exact against the reference (PyTorch's rule) on windows of NaNs with distinct payloads,
// signed-zero ties and infinities. Disjoint and overlapping windows, dilation, tiles with masked
// tails, 3-D, float64. The fallback stages rows only where the staged rows fit in 8
// vectors (the seed grid's 28-wide rows on AVX-512).
TEST(PoolCpuTemplate, WindowRowsKnobStagesRowsAndKeepsTapOrder) {
  auto maxpool = [](int rank, std::vector<int64_t> shape, int64_t k, int64_t s, int64_t d,
                    DataType dt) {
    MaxPoolParams p;
    p.kernel_size = {k};
    p.stride = {s};
    p.dilation = {d};
    return plan_max_pool(rank, PoolInput{shape, dt, PoolLayout::ChannelsFirst}, p);
  };
  const DataType f32 = DataType::Float(32);
  std::vector<PoolPlan> plans = {
      maxpool(2, {2, 3, 28, 28}, 3, 3, 1, f32),
      maxpool(2, {2, 3, 9, 25}, 3, 3, 1, f32),
      maxpool(2, {2, 3, 11, 20}, 3, 2, 1, f32),
      maxpool(2, {1, 4, 12, 19}, 3, 1, 2, f32),
      maxpool(2, {2, 2, 16, 16}, 2, 2, 1, f32),
      maxpool(3, {1, 2, 6, 8, 9}, 2, 2, 1, f32),
      maxpool(2, {2, 3, 12, 12}, 3, 3, 1, DataType::Float(64)),
      maxpool(2, {2, 3, 16, 32}, 4, 4, 1, f32),
  };
  for (const PoolPlan& plan : plans) {
    autotune::Task task = task_of(plan, PoolDirection::Forward);
    SCOPED_TRACE(topi::pool_workload(plan, PoolDirection::Forward).dump());
    HostArray x = random_input(plan, 51);
    if (plan.dtype == f32) sprinkle_specials(x, 52);
    ReferencePoolExecutor ref;
    HostArray want = ref.forward(plan, x).output;
    for (int on : {0, 1}) {
      SCOPED_TRACE("window_rows " + std::to_string(on));
      autotune::FallbackConfigEntity fb;
      topi::pool_cpu_fallback(fb, plan, PoolDirection::Forward);
      ASSERT_TRUE(fb.has("window_rows"));
      ASSERT_EQ(fb.knob_int("vec"), 1) << fb.str();
      fb.set("window_rows", autotune::OtherOptionEntity{on});
      autotune::ApplyHistoryBest best(record_of(task, fb));
      autotune::DispatchScope scope(best);
      CompiledPoolExecutor exe("llvm");
      const topi::PooledKernel& k = exe.kernel(plan, PoolDirection::Forward, false);
      std::ostringstream ir;
      ir << k.lowered;
      EXPECT_EQ(ir.str().find("data.local") != std::string::npos, on == 1) << ir.str();
      HostArray got = exe.forward(plan, x).output;
      ASSERT_EQ(got.numel(), want.numel());
      const int64_t bytes = plan.dtype.bytes();
      for (int64_t i = 0; i < got.numel(); ++i)
        ASSERT_EQ(std::memcmp(static_cast<const char*>(got.raw()) + i * bytes,
                              static_cast<const char*>(want.raw()) + i * bytes, bytes),
                  0)
            << i << ": got " << got.get(i) << ", want " << want.get(i);
    }
  }
  // No knob where a window can leave the input (padding, ceil mode), for avg, channels-last or
  // one spatial axis; the training forward (indices) ignores it.
  for (const PoolPlan& plan : {max2d({2, 3, 11, 10}, 3, 2, 1), max2d({2, 3, 10, 10}, 3, 3, 0, true),
                               avg2d({2, 4, 9, 9}, 3, 3, 0, PoolLayout::ChannelsFirst),
                               avg2d({2, 4, 9, 9}, 3, 3, 0, PoolLayout::ChannelsLast),
                               maxpool(1, {2, 3, 30}, 3, 3, 1, f32)}) {
    autotune::FallbackConfigEntity fb;
    topi::pool_cpu_fallback(fb, plan, PoolDirection::Forward);
    EXPECT_FALSE(fb.has("window_rows")) << topi::pool_workload(plan, PoolDirection::Forward).dump();
  }
  // The fallback: on for the seed grid's 28-wide rows with 16 lanes (6 vectors staged), off for
  // 56 and 112 (12 and 21); with 8 lanes 28-wide rows stage 12 vectors, off as well.
  for (int64_t H : {28, 56, 112}) {
    autotune::FallbackConfigEntity f;
    topi::pool_cpu_fallback(f, max2d({32, 128, H, H}, 3, 3), PoolDirection::Forward);
    EXPECT_EQ(f.knob_int("window_rows"), H == 28 && topi::cpu::fp32_lanes() == 16 ? 1 : 0) << H;
  }
}

// Channels-first backwards of disjoint windows unroll the input rows of one window row together
// (stride 2..4 on the row axis), so that they share the grad_output/indices loads. Input heights
// that leave a partial last group (H % stride != 0, rows below the last window), rows of one and
// of several vectors with masked tails, float32 and float64, with and without streaming stores:
// bit-exact against the reference. Rows of more than 32 / stride vectors stay ungrouped (the
// group is unrolled with its row's vectors).
TEST(PoolCpuTemplate, GroupedBackwardRowsMatchTheReference) {
  struct Case {
    int64_t H, W, k, s;
    DataType dt;
    int stream;
    bool grouped = true;
  };
  const DataType f32 = DataType::Float(32), f64 = DataType::Float(64);
  std::vector<Case> cases = {
      {28, 28, 3, 3, f32, 0}, {29, 56, 3, 3, f32, 1},        {56, 56, 3, 3, f32, 0},
      {55, 55, 3, 3, f32, 1}, {57, 40, 3, 3, f32, 0},        {17, 70, 2, 2, f32, 1},
      {18, 33, 2, 4, f32, 0}, {23, 64, 4, 4, f32, 1},        {14, 30, 3, 3, f64, 1},
      {13, 19, 3, 3, f64, 0}, {9, 700, 3, 3, f32, 0, false}, {8, 700, 3, 3, f32, 1, false},
  };
  for (const Case& c : cases) {
    MaxPoolParams p;
    p.kernel_size = {c.k};
    p.stride = {c.s};
    p.return_indices = true;
    PoolPlan plan =
        plan_max_pool(2, PoolInput{{2, 3, c.H, c.W}, c.dt, PoolLayout::ChannelsFirst}, p);
    autotune::Task task = task_of(plan, PoolDirection::Backward);
    SCOPED_TRACE(topi::pool_workload(plan, PoolDirection::Backward).dump() + " stream " +
                 std::to_string(c.stream));
    autotune::FallbackConfigEntity fb;
    topi::pool_cpu_fallback(fb, plan, PoolDirection::Backward);
    fb.set("stream", autotune::OtherOptionEntity{c.stream});
    autotune::ApplyHistoryBest best(record_of(task, fb));
    autotune::DispatchScope scope(best);
    CompiledPoolExecutor exe("llvm");
    // the row axis (i2; i2.c in the streaming plane buffer) is split by the stride
    std::ostringstream ir;
    ir << exe.kernel(plan, PoolDirection::Backward, false).lowered;
    std::string row_outer = c.stream ? "i2.c.outer" : "i2.outer";
    EXPECT_EQ(ir.str().find(row_outer) != std::string::npos, c.grouped) << row_outer << "\n"
                                                                        << ir.str();
    HostArray x = random_input(plan, 51);
    ReferencePoolExecutor ref;
    PoolForwardResult fwd = ref.forward(plan, x);
    MaxPoolParams one;
    one.kernel_size = {1};
    HostArray gy = random_input(
        plan_max_pool(2, PoolInput{fwd.output.shape(), c.dt, PoolLayout::ChannelsFirst}, one), 52);
    HostArray want = ref.backward(plan, x, gy, &fwd.indices);
    HostArray got = exe.backward(plan, x, gy, &fwd.indices);
    ASSERT_EQ(got.numel(), want.numel());
    for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << i;
  }
}

// IndexBase::WindowTap, the one-byte workspace of a forward/backward pair (oneDNN's form): the
// compiled forward writes, for every window, the row-major number of its max tap in the kernel,
// which is the per-plane index the reference finds re-expressed by hand here; the compiled
// backward that reads those bytes gives the reference's gradient from per-plane indices, bit for
// bit. Disjoint windows (the vectorized whole-window backward, with and without streaming
// stores, grouped rows), overlapping padded and dilated ones, 1-d and 3-d, channels-last,
// float64, NaNs and ties.
TEST(PoolCpuTemplate, WindowTapIndicesMatchTheReference) {
  struct Case {
    int rank;
    std::vector<int64_t> shape;
    int64_t k, s, pad, dil;
    DataType dt;
    PoolLayout layout = PoolLayout::ChannelsFirst;
    bool ceil = false;
  };
  const DataType f32 = DataType::Float(32), f64 = DataType::Float(64);
  const PoolLayout cl = PoolLayout::ChannelsLast;
  std::vector<Case> cases = {
      {2, {2, 3, 28, 28}, 3, 3, 0, 1, f32},       {2, {2, 4, 56, 56}, 3, 3, 0, 1, f32},
      {2, {1, 2, 29, 61}, 2, 2, 0, 1, f32},       {2, {2, 3, 9, 11}, 3, 2, 1, 1, f32},
      {2, {1, 2, 13, 12}, 3, 2, 1, 2, f32},       {2, {2, 10, 10, 3}, 3, 3, 1, 1, f64, cl},
      {1, {2, 3, 40}, 4, 3, 1, 1, f32},           {3, {1, 2, 6, 7, 8}, 2, 2, 0, 1, f32},
      {2, {1, 14, 14, 3}, 3, 2, 0, 1, f32, cl, true},
  };
  for (const Case& c : cases) {
    MaxPoolParams p;
    p.kernel_size = {c.k};
    p.stride = {c.s};
    p.padding = {c.pad};
    p.dilation = {c.dil};
    p.ceil_mode = c.ceil;
    p.return_indices = true;
    const PoolPlan flat = plan_max_pool(c.rank, PoolInput{c.shape, c.dt, c.layout}, p);
    PoolPlan plan = flat;
    plan.index_base = topi::IndexBase::WindowTap;
    SCOPED_TRACE(plan.str());
    // Random values with ties and NaNs.
    HostArray x = random_input(plan, 61);
    for (int64_t i = 0; i < x.numel(); i += 7) x.set(i, std::round(x.get(i)));
    for (int64_t i = 5; i < x.numel(); i += 97) x.set(i, std::nan(""));
    // windows of -inf only (the first in-range tap is the index)
    for (int64_t i = 0; i < 4 * c.shape.back(); ++i) x.set(i, -INFINITY);
    ReferencePoolExecutor ref;
    PoolForwardResult want_flat = ref.forward(flat, x);
    for (int stream : {0, 1}) {
      autotune::FallbackConfigEntity fb;
      topi::pool_cpu_fallback(fb, plan, PoolDirection::Backward);
      if (fb.has("stream"))
        fb.set("stream", autotune::OtherOptionEntity{stream});
      else if (stream)
        continue;
      autotune::FallbackConfigEntity ffb;
      topi::pool_cpu_fallback(ffb, plan, PoolDirection::Forward);
      std::vector<autotune::Record> recs = record_of(task_of(plan, PoolDirection::Backward), fb);
      for (auto& r : record_of(task_of(plan, PoolDirection::Forward), ffb)) recs.push_back(r);
      autotune::ApplyHistoryBest best(recs);
      autotune::DispatchScope scope(best);
      CompiledPoolExecutor exe("llvm");
      PoolForwardResult got = exe.forward(plan, x);
      ASSERT_EQ(got.indices.dtype(), DataType::UInt(8));
      ASSERT_EQ(got.indices.shape(), want_flat.indices.shape());
      // The tap each per-plane index names: (h - oh*s + pad) / dil per axis, row-major.
      const std::vector<int64_t> os = flat.output_shape(), is = flat.input_shape();
      const int R = c.rank, sp = c.layout == cl ? 1 : 2;
      for (int64_t i = 0; i < got.indices.numel(); ++i) {
        std::vector<int64_t> o(os.size());
        for (int64_t r = i, d = static_cast<int64_t>(os.size()) - 1; d >= 0; --d) {
          o[static_cast<size_t>(d)] = r % os[static_cast<size_t>(d)];
          r /= os[static_cast<size_t>(d)];
        }
        int64_t f = want_flat.indices.get_int(i), tap = 0, plane = 1;
        for (int a = 0; a < R; ++a) plane *= is[static_cast<size_t>(sp + a)];
        for (int a = 0; a < R; ++a) {
          plane /= is[static_cast<size_t>(sp + a)];
          int64_t pos = f / plane % is[static_cast<size_t>(sp + a)];
          tap = tap * c.k + (pos - o[static_cast<size_t>(sp + a)] * c.s + c.pad) / c.dil;
        }
        ASSERT_EQ(got.indices.get_int(i), tap) << i;
        EXPECT_TRUE(got.output.get(i) == want_flat.output.get(i) ||
                    (std::isnan(got.output.get(i)) && std::isnan(want_flat.output.get(i))));
      }
      PoolForwardResult ref_taps = ref.forward(plan, x);
      for (int64_t i = 0; i < got.indices.numel(); ++i)
        ASSERT_EQ(ref_taps.indices.get_int(i), got.indices.get_int(i)) << i;
      MaxPoolParams one;
      one.kernel_size = {1};
      HostArray gy = random_input(
          plan_max_pool(c.rank, PoolInput{os, c.dt, c.layout}, one), 62);
      HostArray want = ref.backward(flat, x, gy, &want_flat.indices);
      HostArray back = exe.backward(plan, x, gy, &got.indices);
      HostArray back_ref = ref.backward(plan, x, gy, &got.indices);
      ASSERT_EQ(back.numel(), want.numel());
      for (int64_t i = 0; i < back.numel(); ++i) {
        ASSERT_EQ(back.get(i), want.get(i)) << i;
        ASSERT_EQ(back_ref.get(i), want.get(i)) << i;
      }
    }
  }
}

// A byte that names no tap of its window (255, a padded tap, past the kernel) moves no gradient,
// in the compiled backward as in the reference; plans that cannot use one-byte taps are rejected
// with the plan in the message.
// The forward with indices reduces into its own stage (pool_argmax_taps, accumulators in
// registers) where the fallback vectorizes the output tile, and keeps the single reduction where
// the tile is scalar (a padded row: ResNet's 3x3 stride-2 pool), which ran 2.5x faster there.
// Both give the reference's values and indices, int64 and window taps alike.
TEST(PoolCpuTemplate, TrainingForwardArgmaxStageOnlyWhereTheTileIsVectorized) {
  struct Case {
    PoolPlan plan;
    bool stage;
  };
  std::vector<Case> cases = {{max2d({2, 3, 30, 30}, 3, 3), true},
                             {max2d({2, 3, 29, 29}, 3, 2, 1), false},
                             {max2d({2, 4, 16, 16}, 2, 2), true}};
  for (bool taps : {false, true})
    for (Case c : cases) {
      PoolPlan ref_plan = c.plan;  // PyTorch's per-plane indices
      ref_plan.return_indices = true;
      if (taps) c.plan.index_base = topi::IndexBase::WindowTap;
      topi::BuildPoolOptions o;
      o.with_indices = true;
      topi::PooledKernel k = topi::build_pool(c.plan, "llvm", PoolDirection::Forward, o);
      std::ostringstream ir;
      ir << k.lowered;
      EXPECT_EQ(ir.str().find("pool_argmax_taps") != std::string::npos, c.stage) << ir.str();
      HostArray x = random_input(c.plan, 61);
      PoolForwardResult want = ReferencePoolExecutor().forward(ref_plan, x);
      runtime::NDArray xd = runtime::NDArray::empty(x.shape(), x.dtype());
      xd.copy_from_bytes(x.raw(), x.nbytes());
      runtime::NDArray y = runtime::NDArray::empty(c.plan.batched_output_shape(), c.plan.dtype);
      runtime::NDArray idx =
          runtime::NDArray::empty(c.plan.batched_output_shape(), topi::pool_index_dtype(c.plan));
      k.module.get_function(k.func_name)(xd, y, idx);
      std::vector<float> yv(y.size());
      y.copy_to_bytes(yv.data(), y.nbytes());
      ASSERT_EQ(static_cast<int64_t>(yv.size()), want.output.numel());
      for (size_t e = 0; e < yv.size(); ++e)
        ASSERT_EQ(yv[e], want.output.get(static_cast<int64_t>(e))) << e;
      // the reference's per-plane indices, as taps for a window-tap plan
      std::vector<int64_t> iv(idx.size());
      if (taps) {
        std::vector<uint8_t> b(idx.size());
        idx.copy_to_bytes(b.data(), b.size());
        const int64_t W = c.plan.axes[1].in, OW = c.plan.axes[1].out, OH = c.plan.axes[0].out;
        const int64_t s = c.plan.axes[0].stride, pad = c.plan.axes[0].pad_begin,
                      kk = c.plan.axes[0].kernel;
        for (size_t e = 0; e < b.size(); ++e) {
          const int64_t ow = static_cast<int64_t>(e) % OW, oh = static_cast<int64_t>(e) / OW % OH;
          const int64_t pos = want.indices.get_int(static_cast<int64_t>(e));
          const int64_t th = pos / W - (oh * s - pad), tw = pos % W - (ow * s - pad);
          ASSERT_EQ(static_cast<int64_t>(b[e]), th * kk + tw) << e;
        }
      } else {
        idx.copy_to_bytes(iv.data(), idx.nbytes());
        for (size_t e = 0; e < iv.size(); ++e)
          ASSERT_EQ(iv[e], want.indices.get_int(static_cast<int64_t>(e))) << e;
      }
    }
}

TEST(PoolCpuTemplate, WindowTapBytesOutsideTheWindowAndBadPlans) {
  auto taps_of = [](PoolPlan p) {
    p.return_indices = true;
    p.index_base = topi::IndexBase::WindowTap;
    return p;
  };
  PoolPlan plan = taps_of(max2d({1, 2, 8, 8}, 3, 3, 1));
  HostArray x = random_input(plan, 71);
  const std::vector<int64_t> os = plan.output_shape();
  HostArray gy = HostArray::from_doubles(DataType::Float(32), os,
                                         std::vector<double>(2 * 3 * 3, 1.0));
  HostArray taps(DataType::UInt(8), os);
  // Windows start at -1, 2, 5 on each axis (3 x 3 outputs). Output o gets byte bytes[o]:
  // (0,0) tap 0 is the padded corner; (0,2) 9 is past the kernel; (1,0) 255 is "none"; the other
  // six name (0,3), (4,4), (2,6), (5,1), (6,4), (7,5).
  const int64_t bytes[] = {0, 4, 9, 255, 8, 1, 2, 5, 6};
  for (int64_t i = 0; i < taps.numel(); ++i) taps.set_int(i, bytes[i % 9]);
  ReferencePoolExecutor ref;
  CompiledPoolExecutor exe("llvm");
  HostArray want = ref.backward(plan, x, gy, &taps);
  HostArray got = exe.backward(plan, x, gy, &taps);
  std::vector<double> expect(2 * 64, 0.0);
  for (int pl = 0; pl < 2; ++pl)
    for (auto [h, w] : {std::pair{0, 3}, {4, 4}, {2, 6}, {5, 1}, {6, 4}, {7, 5}})
      expect[static_cast<size_t>(pl * 64 + h * 8 + w)] = 1.0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    ASSERT_EQ(got.get(i), expect[static_cast<size_t>(i)]) << i;
    ASSERT_EQ(want.get(i), expect[static_cast<size_t>(i)]) << i;
  }
  PoolPlan adaptive = plan_adaptive_max_pool(
      2, PoolInput{{1, 2, 8, 8}, DataType::Float(32), PoolLayout::ChannelsFirst},
      AdaptivePoolParams{{3, 3}, true});
  adaptive.index_base = topi::IndexBase::WindowTap;
  EXPECT_THROW(exe.forward(adaptive, x), CompileError);
  PoolPlan wide = taps_of(max2d({1, 1, 32, 32}, 16, 16));
  HostArray xw = random_input(wide, 72);
  try {
    exe.forward(wide, xw);
    ADD_FAILURE() << "a 256-tap window took one-byte taps";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("one byte"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("k=16"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ref.forward(wide, xw), CompileError);
  // 255 taps (15 x 17) still fit: numbers 0..254, 255 for none.
  MaxPoolParams edge;
  edge.kernel_size = {15, 17};
  edge.stride = {7, 8};
  PoolPlan fit = taps_of(plan_max_pool(
      2, PoolInput{{1, 2, 30, 40}, DataType::Float(32), PoolLayout::ChannelsFirst}, edge));
  HostArray xf = random_input(fit, 73);
  PoolForwardResult fit_got = exe.forward(fit, xf), fit_want = ref.forward(fit, xf);
  int64_t high = 0;
  for (int64_t i = 0; i < fit_got.indices.numel(); ++i) {
    ASSERT_EQ(fit_got.indices.get_int(i), fit_want.indices.get_int(i)) << i;
    high = std::max(high, fit_got.indices.get_int(i));
  }
  EXPECT_GT(high, 127);  // bytes above int8's range come back unsigned
  EXPECT_LT(high, 255);
}
