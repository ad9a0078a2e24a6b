// Random pooling layers under random configs of the CPU template, against the reference executor.
//
// The golden files pin PyTorch's semantics on the fallback schedules; tuned logs may hand
// build_pool any point of the space. Here, from a fixed seed: random rank (1-3), layout, mode
// (max with/without indices, avg with its options, lp, adaptive avg/max), kernel/stride/padding/
// dilation/ceil (parameters PyTorch rejects are skipped), and a random config index of the forward
// and backward spaces, applied through ApplyHistoryBest exactly as a log record would be. Forward
// output (and indices) and the backward must match ReferencePoolExecutor: max bit-exact, sums
// within float32 rounding of a different summation order.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"
#include "minitvm/support/logging.h"
#include "minitvm/topi/pool.h"

using namespace minitvm;
using namespace minitvm::frontend;
using autotune::Json;
using topi::PoolDirection;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

struct Layer {
  PoolPlan plan;
  std::string what;
};

// A random valid layer, or nullopt when PyTorch would reject the drawn parameters.
std::optional<Layer> random_layer(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int rank = pick(1, 3);
  PoolLayout layout = pick(0, 1) ? PoolLayout::ChannelsLast : PoolLayout::ChannelsFirst;
  std::vector<int64_t> shape{pick(1, 2), pick(1, 5)};
  for (int i = 0; i < rank; ++i) shape.push_back(rank == 3 ? pick(3, 7) : pick(3, 13));
  PoolInput in{shape, DataType::Float(32), layout};
  if (layout ==
      PoolLayout::ChannelsLast) {  // shape is given in the layout's order: N, spatial..., C
    std::vector<int64_t> cl{shape[0]};
    for (int i = 0; i < rank; ++i) cl.push_back(shape[2 + i]);
    cl.push_back(shape[1]);
    in.shape = cl;
  }
  std::vector<int64_t> k, s, p, d;
  for (int i = 0; i < rank; ++i) {
    k.push_back(pick(1, 4));
    s.push_back(pick(1, 4));
    p.push_back(pick(0, 2));
    d.push_back(pick(1, 2));
  }
  bool ceil = pick(0, 1);
  std::ostringstream os;
  os << "rank " << rank
     << (layout == PoolLayout::ChannelsLast ? " channels-last" : " channels-first") << " shape [";
  for (auto v : in.shape) os << v << " ";
  os << "] k[" << k[0] << "..] s[" << s[0] << "..] p[" << p[0] << "..] ceil " << ceil;
  try {
    switch (pick(0, 4)) {
      case 0: {
        MaxPoolParams m;
        m.kernel_size = k;
        m.stride = s;
        m.padding = p;
        m.dilation = d;
        m.ceil_mode = ceil;
        m.return_indices = pick(0, 1);
        return Layer{plan_max_pool(rank, in, m), "max " + os.str()};
      }
      case 1: {
        AvgPoolParams a;
        a.kernel_size = k;
        a.stride = s;
        a.padding = p;
        a.ceil_mode = ceil;
        a.count_include_pad = pick(0, 1);
        if (rank >= 2 && pick(0, 3) == 0) a.divisor_override = pick(1, 7);
        return Layer{plan_avg_pool(rank, in, a), "avg " + os.str()};
      }
      case 2: {
        if (rank == 3 || layout == PoolLayout::ChannelsLast)
          return std::nullopt;  // lp_pool1d/2d, NC(H)W
        LpPoolParams l;
        l.norm_type = pick(1, 3);
        l.kernel_size = k;
        l.stride = s;
        l.ceil_mode = ceil;
        return Layer{plan_lp_pool(rank, in, l), "lp " + os.str()};
      }
      default: {
        AdaptivePoolParams ad;
        for (int i = 0; i < rank; ++i)
          ad.output_size.push_back(pick(1, static_cast<int>(shape[2 + i])));
        bool max = pick(0, 1);
        if (max) ad.return_indices = pick(0, 1);
        return Layer{
            max ? plan_adaptive_max_pool(rank, in, ad) : plan_adaptive_avg_pool(rank, in, ad),
            std::string(max ? "adaptive max " : "adaptive avg ") + os.str()};
      }
    }
  } catch (const CompileError&) {
    return std::nullopt;
  }
}

HostArray random_array(DataType t, std::vector<int64_t> shape, std::mt19937& rng) {
  int64_t n = 1;
  for (auto v : shape) n *= v;
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return HostArray::from_doubles(t, shape, v);
}

void expect_match(const HostArray& got, const HostArray& want, bool exact,
                  const std::string& what) {
  ASSERT_EQ(got.numel(), want.numel()) << what;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.get(i), w = want.get(i);
    if (std::isnan(w)) {
      ASSERT_TRUE(std::isnan(g)) << what << " at " << i;
      continue;
    }
    double tol = exact ? 0.0 : 2e-5 * std::max(1.0, std::fabs(w));
    ASSERT_LE(std::fabs(g - w), tol) << what << " at " << i << ": got " << g << ", want " << w;
  }
}

// Runs `f` with `cfg` of the plan's `dir` space as the only record of the dispatch context.
template <typename F>
void with_config(const PoolPlan& plan, PoolDirection dir, int64_t index, F f) {
  Json w = topi::pool_workload(plan, dir);
  autotune::Task task(w[0].get<std::string>(), Json(w.begin() + 1, w.end()), "llvm");
  autotune::MeasureResult res;
  res.costs = {1e-5};
  int64_t n = task.config_space().size();
  autotune::ApplyHistoryBest best(
      std::vector<autotune::Record>{autotune::make_record(task, task.config(index % n), res)});
  autotune::DispatchScope scope(best);
  f(task.config(index % n));
}

}  // namespace

TEST(PoolFuzz, RandomLayersUnderRandomConfigsMatchTheReference) {
  std::mt19937 rng(20261130);
  // a max backward whose indices are not per-plane runs a forward with indices first, which has no
  // record here and warns that it falls back
  WarningCapture quiet;
  int layers = 0, skipped = 0;
  while (layers < 150) {
    std::optional<Layer> l = random_layer(rng);
    if (!l) {
      ++skipped;
      continue;
    }
    ++layers;
    const PoolPlan& plan = l->plan;
    bool exact = plan.mode == PoolMode::Max;
    HostArray x = random_array(plan.dtype, plan.input_shape(), rng);
    ReferencePoolExecutor ref;
    PoolForwardResult want = ref.forward(plan, x);
    int64_t fi = std::uniform_int_distribution<int64_t>(0, 1 << 20)(rng);
    int64_t bi = std::uniform_int_distribution<int64_t>(0, 1 << 20)(rng);
    with_config(plan, PoolDirection::Forward, fi, [&](const autotune::ConfigEntity& cfg) {
      SCOPED_TRACE(l->what + " forward config " + cfg.str());
      CompiledPoolExecutor exe("llvm");
      PoolForwardResult got = exe.forward(plan, x);
      const topi::PooledKernel& k = exe.kernel(plan, PoolDirection::Forward, plan.return_indices);
      ASSERT_FALSE(k.config.is_fallback());
      ASSERT_EQ(k.config.index, cfg.index);
      expect_match(got.output, want.output, exact, "output");
      if (plan.return_indices) expect_match(got.indices, want.indices, true, "indices");
    });
    HostArray gy = random_array(plan.dtype, want.output.shape(), rng);
    HostArray gx_want = ref.backward(plan, x, gy, plan.return_indices ? &want.indices : nullptr);
    with_config(plan, PoolDirection::Backward, bi, [&](const autotune::ConfigEntity& cfg) {
      SCOPED_TRACE(l->what + " backward config " + cfg.str());
      CompiledPoolExecutor exe("llvm");
      HostArray gx = exe.backward(plan, x, gy, plan.return_indices ? &want.indices : nullptr);
      // overlapping max windows accumulate in a different order: not bit-exact
      expect_match(gx, gx_want, false, "grad_input");
    });
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GE(layers, 150);
  RecordProperty("skipped_invalid", skipped);
}
