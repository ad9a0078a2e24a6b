// Properties of the reference executor beyond the golden files (unbatched, layouts, 1-d/3-d
// adaptive, lp_pool, global pools, int64, gradients vs finite differences) and the harness itself.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "minitvm/devtools/pool_conformance.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

PoolInput input_of(std::vector<int64_t> shape, DataType dt = DataType::Float(64),
                   PoolLayout layout = PoolLayout::ChannelsFirst) {
  PoolInput in;
  in.shape = std::move(shape);
  in.dtype = dt;
  in.layout = layout;
  return in;
}

HostArray random_array(DataType dt, std::vector<int64_t> shape, unsigned seed) {
  HostArray a(dt, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-64, 64);
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, d(gen) / 16.0);  // exact in float32
  return a;
}

void expect_same(const HostArray& a, const HostArray& b, const char* what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.get(i), b.get(i)) << what << " at " << i;
}

}  // namespace

TEST(PoolReference, UnbatchedEqualsBatchOfOne) {
  MaxPoolParams m{{3, 2}, {2, 1}, {1, 0}, {1, 2}, true, true};
  HostArray x = random_array(DataType::Float(32), {1, 3, 7, 6}, 1);
  HostArray xu = x;
  xu = HostArray::from_doubles(DataType::Float(32), {3, 7, 6}, x.to_doubles());
  ReferencePoolExecutor ref;
  PoolPlan pb = plan_max_pool(2, input_of({1, 3, 7, 6}, DataType::Float(32)), m);
  PoolPlan pu = plan_max_pool(2, input_of({3, 7, 6}, DataType::Float(32)), m);
  auto rb = ref.forward(pb, x), ru = ref.forward(pu, xu);
  EXPECT_EQ(ru.output.shape(), (std::vector<int64_t>{3, pb.axes[0].out, pb.axes[1].out}));
  for (int64_t i = 0; i < rb.output.numel(); ++i) {
    EXPECT_EQ(rb.output.get(i), ru.output.get(i));
    EXPECT_EQ(rb.indices.get_int(i), ru.indices.get_int(i));
  }
}

TEST(PoolReference, ChannelsLastMatchesChannelsFirst3d) {
  AvgPoolParams a{{2, 3, 2}, {1, 2, 2}, {1, 1, 0}, true, false, {}};
  HostArray x = random_array(DataType::Float(64), {2, 3, 4, 5, 6}, 2);
  ReferencePoolExecutor ref;
  PoolPlan cf = plan_avg_pool(3, input_of({2, 3, 4, 5, 6}), a);
  PoolPlan cl =
      plan_avg_pool(3, input_of({2, 4, 5, 6, 3}, DataType::Float(64), PoolLayout::ChannelsLast), a);
  HostArray y_cf = ref.forward(cf, x).output;
  HostArray y_cl = ref.forward(cl, to_channels_last(x, 3, true)).output;
  expect_same(y_cf, to_channels_first(y_cl, 3, true), "forward");
  HostArray go = random_array(DataType::Float(64), cf.output_shape(), 3);
  HostArray g_cf = ref.backward(cf, x, go, nullptr);
  HostArray g_cl =
      ref.backward(cl, to_channels_last(x, 3, true), to_channels_last(go, 3, true), nullptr);
  expect_same(g_cf, to_channels_first(g_cl, 3, true), "backward");
}

TEST(PoolReference, Adaptive1dAnd3dAgreeWith2d) {
  ReferencePoolExecutor ref;
  HostArray x = random_array(DataType::Float(32), {2, 3, 7}, 4);
  AdaptivePoolParams p1{{int64_t{3}}, true};
  AdaptivePoolParams p2{{int64_t{1}, int64_t{3}}, true};
  PoolPlan a1 = plan_adaptive_max_pool(1, input_of({2, 3, 7}, DataType::Float(32)), p1);
  PoolPlan a2 = plan_adaptive_max_pool(2, input_of({2, 3, 1, 7}, DataType::Float(32)), p2);
  HostArray x2 = HostArray::from_doubles(DataType::Float(32), {2, 3, 1, 7}, x.to_doubles());
  auto r1 = ref.forward(a1, x), r2 = ref.forward(a2, x2);
  for (int64_t i = 0; i < r1.output.numel(); ++i) {
    EXPECT_EQ(r1.output.get(i), r2.output.get(i));
    EXPECT_EQ(r1.indices.get_int(i), r2.indices.get_int(i));
  }
  // 3-d adaptive avg with D=1 equals the 2-d one.
  AdaptivePoolParams q3{{int64_t{1}, int64_t{2}, int64_t{4}}, false};
  AdaptivePoolParams q2{{int64_t{2}, int64_t{4}}, false};
  HostArray y = random_array(DataType::Float(64), {1, 2, 1, 5, 7}, 5);
  HostArray y2 = HostArray::from_doubles(DataType::Float(64), {1, 2, 5, 7}, y.to_doubles());
  HostArray o3 = ref.forward(plan_adaptive_avg_pool(3, input_of({1, 2, 1, 5, 7}), q3), y).output;
  HostArray o2 = ref.forward(plan_adaptive_avg_pool(2, input_of({1, 2, 5, 7}), q2), y2).output;
  for (int64_t i = 0; i < o2.numel(); ++i) EXPECT_EQ(o3.get(i), o2.get(i));
}

TEST(PoolReference, LpPoolTorchQuirks) {
  ReferencePoolExecutor ref;
  // p=1 gives the signed sum: [1,-2,3,-4] -> -2 (docs/POOLING.md).
  HostArray v = HostArray::from_doubles(DataType::Float(64), {1, 1, 4}, {1, -2, 3, -4});
  PoolPlan p1 = plan_lp_pool(1, input_of({1, 1, 4}), LpPoolParams{1.0, {4}, {}, false});
  EXPECT_DOUBLE_EQ(ref.forward(p1, v).output.get(0), -2.0);
  // p=2, k=2, ceil on [1,-2,3,-4,5]: the partial last window is scaled by the full area: sqrt(50).
  HostArray w = HostArray::from_doubles(DataType::Float(64), {1, 1, 5}, {1, -2, 3, -4, 5});
  PoolPlan p2 = plan_lp_pool(1, input_of({1, 1, 5}), LpPoolParams{2.0, {2}, {}, true});
  HostArray y = ref.forward(p2, w).output;
  ASSERT_EQ(y.numel(), 3);
  EXPECT_DOUBLE_EQ(y.get(0), std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(y.get(2), std::sqrt(50.0));
}

TEST(PoolReference, GradientsMatchFiniteDifferences) {
  // Smooth ops only (avg with count_exclude_pad and ceil, adaptive avg, lp p=2): central
  // differences of sum(y * g) in float64.
  ReferencePoolExecutor ref;
  std::vector<PoolPlan> plans = {
      plan_avg_pool(2, input_of({1, 2, 5, 6}),
                    AvgPoolParams{{3, 2}, {2, 2}, {1, 1}, true, false, {}}),
      plan_adaptive_avg_pool(2, input_of({1, 2, 5, 6}),
                             AdaptivePoolParams{{int64_t{3}, int64_t{4}}, false}),
      plan_lp_pool(2, input_of({1, 2, 5, 6}), LpPoolParams{2.0, {2, 3}, {1, 2}, true}),
  };
  for (const PoolPlan& plan : plans) {
    HostArray x = random_array(DataType::Float(64), plan.input_shape(), 7);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.set(i, x.get(i) + 0.01 * (i % 7 + 1));  // avoid zeros for lp
    HostArray g = random_array(DataType::Float(64), plan.output_shape(), 8);
    HostArray gx = ref.backward(plan, x, g, nullptr);
    auto objective = [&](const HostArray& xi) {
      HostArray y = ref.forward(plan, xi).output;
      double s = 0;
      for (int64_t k = 0; k < y.numel(); ++k) s += y.get(k) * g.get(k);
      return s;
    };
    for (int64_t i = 0; i < x.numel(); ++i) {
      HostArray xp = x, xm = x;
      xp.set(i, x.get(i) + 1e-6);
      xm.set(i, x.get(i) - 1e-6);
      double fd = (objective(xp) - objective(xm)) / 2e-6;
      EXPECT_NEAR(gx.get(i), fd, 1e-5 * std::max(1.0, std::abs(fd))) << plan.str() << " at " << i;
    }
  }
}

TEST(PoolReference, Int64AvgTruncatesTowardZero) {
  // window sum -3 over 2 elements -> -1 (C++ truncation), 3/2 -> 1.
  HostArray x = HostArray::from_doubles(DataType::Int(64), {1, 1, 1, 4}, {-1, -2, 1, 2});
  PoolPlan p = plan_avg_pool(2, input_of({1, 1, 1, 4}, DataType::Int(64)),
                             AvgPoolParams{{1, 2}, {}, {0}, false, true, {}});
  HostArray y = ReferencePoolExecutor().forward(p, x).output;
  EXPECT_EQ(y.get_int(0), -1);
  EXPECT_EQ(y.get_int(1), 1);
}

TEST(PoolReference, GlobalPool) {
  HostArray x = random_array(DataType::Float(64), {2, 3, 4, 5}, 9);
  PoolPlan avg = plan_global_pool(PoolMode::Avg, 2, input_of({2, 3, 4, 5}));
  PoolPlan mx = plan_global_pool(PoolMode::Max, 2, input_of({2, 3, 4, 5}));
  ReferencePoolExecutor ref;
  HostArray ya = ref.forward(avg, x).output, ym = ref.forward(mx, x).output;
  ASSERT_EQ(ya.shape(), (std::vector<int64_t>{2, 3, 1, 1}));
  for (int64_t p = 0; p < 6; ++p) {
    double s = 0, m = -INFINITY;
    for (int64_t i = 0; i < 20; ++i) {
      s += x.get(p * 20 + i);
      m = std::max(m, x.get(p * 20 + i));
    }
    EXPECT_DOUBLE_EQ(ya.get(p), s / 20);
    EXPECT_EQ(ym.get(p), m);
  }
}

TEST(PoolReference, AllNegativeWithPaddingNeverReturnsPadding) {
  // max with padding over all -inf: -inf with the first real tap as index, never 0.
  HostArray x =
      HostArray::from_doubles(DataType::Float(32), {1, 1, 1, 3}, {-INFINITY, -INFINITY, -INFINITY});
  PoolPlan p = plan_max_pool(2, input_of({1, 1, 1, 3}, DataType::Float(32)),
                             MaxPoolParams{{1, 2}, {1, 2}, {0, 1}, {1}, false, true});
  auto r = ReferencePoolExecutor().forward(p, x);
  ASSERT_EQ(r.output.numel(), 2);
  EXPECT_EQ(r.output.get(0), -INFINITY);
  EXPECT_EQ(r.indices.get_int(0), 0);
  EXPECT_EQ(r.indices.get_int(1), 1);
}

namespace {
// Wraps the reference and corrupts one output value, to check that the harness reports it.
class CorruptingExecutor : public PoolExecutor {
 public:
  std::string name() const override { return "corrupt"; }
  PoolForwardResult forward(const PoolPlan& plan, const HostArray& input) override {
    PoolForwardResult r = ref_.forward(plan, input);
    if (r.output.numel() > 1) r.output.set(1, r.output.get(1) + 0.5);
    return r;
  }
  HostArray backward(const PoolPlan& plan, const HostArray& input, const HostArray& go,
                     const HostArray* idx) override {
    return ref_.backward(plan, input, go, idx);
  }
  ReferencePoolExecutor ref_;
};
}  // namespace

TEST(PoolConformance, ReportsFirstMismatch) {
  GoldenCase c =
      parse_golden_case(nlohmann::json::parse(R"({"id":"t/0","op":"max_pool1d","dtype":"float32",
    "params":{"kernel_size":[2],"stride":null,"padding":[0],"dilation":[1],"ceil_mode":false,"return_indices":false},
    "input_shape":[1,1,4],"input":[1.0,"nan",3.0,-4.0],"output_shape":[1,1,2],"output":["nan",3.0],
    "grad_output":[1.0,2.0],"grad_input":[0.0,1.0,2.0,0.0]})"));
  ReferencePoolExecutor ref;
  EXPECT_TRUE(run_pool_case(c, ref).passed);
  CorruptingExecutor bad;
  CaseResult r = run_pool_case(c, bad);
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failures.at(0),
            "t/0: output differs at index 1: got 3.5, expected 3 (1 of 2 differ)");
  ConformanceSummary s = run_pool_cases({c, c}, bad);
  EXPECT_EQ(s.str(), "0 passed, 2 failed");
}

TEST(PoolConformance, RejectedAndEmptyWindowCases) {
  GoldenCase rej =
      parse_golden_case(nlohmann::json::parse(R"({"id":"t/1","op":"avg_pool2d","dtype":"float32",
    "params":{"kernel_size":[2,2],"stride":[0,0],"padding":[0,0],"ceil_mode":false,"count_include_pad":true},
    "input_shape":[1,1,4,4],"reason":"zero stride","error":"stride should not be zero","error_type":"RuntimeError",
    "error_kind":"stride_zero"})"));
  ReferencePoolExecutor ref;
  EXPECT_TRUE(run_pool_case(rej, ref).passed);
  // A rejected case that we would accept fails.
  GoldenCase acc = rej;
  acc.params["stride"] = {1, 1};
  CaseResult r = run_pool_case(acc, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.failures.at(0).find("accepted a case PyTorch rejects"), std::string::npos);
  // The empty_window quirk: -inf output passes.
  GoldenCase ew =
      parse_golden_case(nlohmann::json::parse(R"({"id":"t/2","op":"max_pool1d","dtype":"float32",
    "params":{"kernel_size":[2],"stride":[1],"padding":[1],"dilation":[3],"ceil_mode":false,"return_indices":true},
    "input_shape":[1,1,2],"input":[1.0,2.0],"output_shape":[1,1,1],"output":["-inf"],"quirk":"empty_window"})"));
  EXPECT_EQ(ew.kind, GoldenCase::Kind::EmptyWindow);
  EXPECT_TRUE(run_pool_case(ew, ref).passed);
}
