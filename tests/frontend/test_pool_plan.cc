// PyTorch parameter planning: output sizes (docs/POOLING.md) and validation order, kind and message
// (the strings are PyTorch 1.13's).
#include <gtest/gtest.h>

#include "minitvm/frontend/pool_plan.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::adaptive_end;
using topi::adaptive_start;
using topi::DivisorRule;
using topi::layout_name;
using topi::PoolLayout;
using topi::PoolPlan;

namespace {

PoolInput nchw(std::vector<int64_t> shape, DataType dt = DataType::Float(32)) {
  PoolInput in;
  in.shape = std::move(shape);
  in.dtype = dt;
  return in;
}

MaxPoolParams maxp(std::vector<int64_t> k, std::vector<int64_t> s = {},
                   std::vector<int64_t> p = {0}, std::vector<int64_t> d = {1}, bool ceil = false) {
  MaxPoolParams m;
  m.kernel_size = std::move(k);
  m.stride = std::move(s);
  m.padding = std::move(p);
  m.dilation = std::move(d);
  m.ceil_mode = ceil;
  return m;
}

// Expects PoolParamError of `kind` whose message starts with `prefix`.
template <typename F>
void expect_reject(F&& f, PoolErrorKind kind, const std::string& prefix) {
  try {
    f();
    ADD_FAILURE() << "accepted; expected " << error_kind_name(kind) << ": " << prefix;
  } catch (const PoolParamError& e) {
    EXPECT_EQ(error_kind_name(e.kind()), std::string(error_kind_name(kind))) << e.what();
    EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix);
  }
}

}  // namespace

TEST(PoolOutputSize, FloorDivisionOfNegativeNumerator) {
  // L=2, k=3, s=2: num = -1, floor(-1/2) + 1 = 0 (truncation would give 1).
  EXPECT_EQ(pool_output_size(2, 3, 2, 0, 0, 1, false), 0);
  // ceil_mode makes it legal: window [0, 3) starts inside the input.
  EXPECT_EQ(pool_output_size(2, 3, 2, 0, 0, 1, true), 1);
}

TEST(PoolOutputSize, CeilModeLastWindowRule) {
  // With padding: L=5, k=2, s=2, p=1: raw ceil gives 4, window 3 starts at 6 >= 5+1 -> 3.
  EXPECT_EQ(pool_output_size(5, 2, 2, 1, 1, 1, true), 3);
  // Without padding, stride > effective kernel: L=5, k=1, s=3 -> 2, not 3.
  EXPECT_EQ(pool_output_size(5, 1, 3, 0, 0, 1, true), 2);
  // Plain ceil adding a window: L=5, k=2, s=2 -> floor 2, ceil 3.
  EXPECT_EQ(pool_output_size(5, 2, 2, 0, 0, 1, false), 2);
  EXPECT_EQ(pool_output_size(5, 2, 2, 0, 0, 1, true), 3);
  // Dilation: ke = 2*(3-1)+1 = 5, L=9, s=2: floor((9-5)/2)+1 = 3.
  EXPECT_EQ(pool_output_size(9, 3, 2, 0, 0, 2, false), 3);
}

TEST(PoolPlanTorch, DefaultStrideIsKernelAndIntBroadcast) {
  PoolPlan p = plan_max_pool(2, nchw({2, 3, 7, 9}), maxp({3}));
  ASSERT_EQ(p.axes.size(), 2u);
  EXPECT_EQ(p.axes[0].stride, 3);
  EXPECT_EQ(p.axes[1].stride, 3);
  EXPECT_EQ(p.output_shape(), (std::vector<int64_t>{2, 3, 2, 3}));
  EXPECT_TRUE(p.batched);
}

TEST(PoolPlanTorch, UnbatchedShapes) {
  PoolPlan p = plan_avg_pool(2, nchw({3, 5, 5}), AvgPoolParams{{2}, {}, {0}, false, true, {}});
  EXPECT_FALSE(p.batched);
  EXPECT_EQ(p.output_shape(), (std::vector<int64_t>{3, 2, 2}));
  PoolPlan q = plan_max_pool(1, nchw({4, 10}), maxp({3}, {2}));
  EXPECT_EQ(q.output_shape(), (std::vector<int64_t>{4, 4}));
  PoolPlan r = plan_max_pool(3, nchw({2, 4, 4, 4}), maxp({2}));
  EXPECT_EQ(r.output_shape(), (std::vector<int64_t>{2, 2, 2, 2}));
}

TEST(PoolPlanTorch, ChannelsLastShapes) {
  PoolInput in = nchw({2, 7, 9, 3});
  in.layout = PoolLayout::ChannelsLast;
  PoolPlan p = plan_max_pool(2, in, maxp({3}));
  EXPECT_EQ(p.channels, 3);
  EXPECT_EQ(p.output_shape(), (std::vector<int64_t>{2, 2, 3, 3}));
  EXPECT_EQ(layout_name(p.layout, 2), "NHWC");
  EXPECT_EQ(parse_layout("NDHWC", 3), PoolLayout::ChannelsLast);
  EXPECT_THROW(parse_layout("NCHW16c", 2), CompileError);
}

TEST(PoolPlanTorch, EmptyBatchIsValid) {
  PoolPlan p = plan_max_pool(2, nchw({0, 2, 4, 4}), maxp({2}));
  EXPECT_EQ(p.output_shape(), (std::vector<int64_t>{0, 2, 2, 2}));
}

TEST(PoolValidation, MessagesAndKindsFollowPyTorchOrder) {
  auto mp2 = [](std::vector<int64_t> shape, MaxPoolParams m) {
    return [=] { plan_max_pool(2, nchw(shape), m); };
  };
  expect_reject(mp2({1, 1, 6, 6}, maxp({2}, {1}, {2})), PoolErrorKind::PadGtHalfKernel,
                "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  // k=-2 with an explicit stride: the pad check (0 <= -2/2 fails) comes first.
  expect_reject(mp2({1, 1, 6, 6}, maxp({-2}, {1})), PoolErrorKind::PadGtHalfKernel,
                "pad should be at most half of kernel size, but got pad=0 and kernel_size=-2");
  expect_reject(mp2({1, 1, 6, 6}, maxp({2}, {1}, {-1, 0})), PoolErrorKind::PadNegative,
                "pad must be non-negative, but got pad: -1");
  // kernel 0 and no stride: stride defaults to 0.
  expect_reject(mp2({1, 1, 5, 5}, maxp({0, 0})), PoolErrorKind::StrideZero,
                "stride should not be zero");
  expect_reject(mp2({1, 1, 5, 5}, maxp({2}, {-1, 1})), PoolErrorKind::StrideNonpositive,
                "stride should be greater than zero, but got dH: -1 dW: 1");
  expect_reject(mp2({1, 1, 5, 5}, maxp({0, 2}, {1})), PoolErrorKind::KernelNonpositive,
                "kernel size should be greater than zero, but got kH: 0 kW: 2");
  expect_reject(mp2({1, 1, 5, 5}, maxp({2}, {1}, {0}, {0, 1})), PoolErrorKind::DilationNonpositive,
                "dilation should be greater than zero, but got dilationH: 0 dilationW: 1");
  expect_reject(
      mp2({1, 1, 2, 2}, maxp({3}, {2})), PoolErrorKind::OutputTooSmall,
      "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
  expect_reject(mp2({5, 5}, maxp({2})), PoolErrorKind::BadInputRank,
                "non-empty 3D or 4D (batch mode) tensor expected for input");
  expect_reject(mp2({1, 0, 5, 5}, maxp({2})), PoolErrorKind::EmptyInput,
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                "but got:[1, 0, 5, 5]");
  expect_reject(mp2({1, 1, 5, 5}, maxp({2, 2, 2})), PoolErrorKind::BadArgArity,
                "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  // 1.13 limits the pad with the raw kernel even when dilated: k=2, d=3, p=2 is rejected.
  expect_reject(mp2({1, 1, 8, 8}, maxp({2}, {1}, {2}, {3})), PoolErrorKind::PadGtHalfKernel,
                "pad should be at most");
}

TEST(PoolValidation, OneDimensionalOps) {
  expect_reject([] { plan_max_pool(1, nchw({5}), maxp({2})); }, PoolErrorKind::BadInputRank,
                "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' "
                "(while checking "
                "arguments for max_pool1d)");
  expect_reject(
      [] {
        plan_max_pool(1, nchw({1, 1, 5}), maxp({2, 2}));
      },
      PoolErrorKind::BadArgArity,
      "max_pool1d() argument 'kernel_size' should contain one int (got 2)");
  // The 1-d op runs the 2-d checks on input.unsqueeze(-2): the H axis appears in messages.
  expect_reject(
      [] {
        plan_max_pool(1, nchw({1, 1, 5}), maxp({2}, {1}, {0}, {0}));
      },
      PoolErrorKind::DilationNonpositive,
      "dilation should be greater than zero, but got dilationH: 1 dilationW: 0");
  expect_reject(
      [] {
        plan_avg_pool(1, nchw({1, 1, 2}), AvgPoolParams{{3}, {1}, {0}, false, true, {}});
      },
      PoolErrorKind::OutputTooSmall, "Given input size: (1x1x2). Calculated output size: (1x1x0).");
}

TEST(PoolValidation, AvgSpecificChecks) {
  auto avg = [](int rank, std::vector<int64_t> shape, AvgPoolParams p) {
    return [=] { plan_avg_pool(rank, nchw(shape), p); };
  };
  expect_reject(avg(2, {1, 1, 4, 4}, AvgPoolParams{{2}, {1}, {0}, false, true, 0}),
                PoolErrorKind::DivisorZero, "divisor must be not zero");
  expect_reject(avg(2, {4, 4}, AvgPoolParams{{2}, {1}, {0}, false, true, {}}),
                PoolErrorKind::BadInputRank,
                "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  // 3-d only: input smaller than the kernel, although padding would give an output.
  expect_reject(avg(3, {1, 1, 2, 5, 5}, AvgPoolParams{{3}, {1}, {1}, false, true, {}}),
                PoolErrorKind::InputSmallerThanKernel,
                "input image (T: 2 H: 5 W: 5) smaller than kernel size (kT: 3 kH: 3 kW: 3)");
  // ... which avg_pool2d does not have: H=1, k=3, p=1 is fine.
  PoolPlan p = plan_avg_pool(2, nchw({1, 1, 1, 5}), AvgPoolParams{{3}, {1}, {1}, false, true, {}});
  EXPECT_EQ(p.output_shape(), (std::vector<int64_t>{1, 1, 1, 5}));
  // Negative divisors are accepted.
  PoolPlan q = plan_avg_pool(2, nchw({1, 1, 4, 4}), AvgPoolParams{{2}, {}, {0}, false, true, -3});
  EXPECT_EQ(q.divisor_rule, DivisorRule::Override);
  EXPECT_EQ(q.divisor_override, -3);
}

TEST(PoolValidation, Dtypes) {
  // Max pooling is floating-only; CPU avg_pool2d accepts int64.
  expect_reject(
      [] {
        plan_max_pool(2, nchw({1, 1, 4, 4}, DataType::Int(64)), maxp({2}));
      },
      PoolErrorKind::Unsupported, "\"max_pool2d\" not implemented for 'int64'");
  EXPECT_NO_THROW(plan_avg_pool(2, nchw({1, 1, 4, 4}, DataType::Int(64)),
                                AvgPoolParams{{2}, {}, {0}, false, true, {}}));
  EXPECT_NO_THROW(plan_max_pool(2, nchw({1, 1, 4, 4}, DataType::Float(64)), maxp({2})));
}

TEST(PoolValidation, ErrorsAreCompileErrors) {
  EXPECT_THROW(plan_max_pool(2, nchw({1, 1, 4, 4}), maxp({2}, {0})), CompileError);
}

TEST(PoolValidation, Adaptive) {
  AdaptivePoolParams neg;
  neg.output_size = {int64_t{-1}, int64_t{2}};
  expect_reject(
      [&] {
        plan_adaptive_avg_pool(2, nchw({1, 1, 4, 4}), neg);
      },
      PoolErrorKind::OutputSizeNegative,
      "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
      "received {-1, 2}");
  expect_reject(
      [&] {
        plan_adaptive_max_pool(2, nchw({1, 1, 4, 4}), neg);
      },
      PoolErrorKind::OutputSizeNegative,
      "Trying to create tensor with negative dimension -1: [1, 1, -1, 2]");
  AdaptivePoolParams two;
  two.output_size = {int64_t{2}, int64_t{2}};
  expect_reject(
      [&] {
        plan_adaptive_avg_pool(2, nchw({4, 4}), two);
      },
      PoolErrorKind::BadInputRank, "Input dimension should be at least 3");
  expect_reject(
      [&] {
        plan_adaptive_max_pool(2, nchw({1, 1, 0, 4}), two);
      },
      PoolErrorKind::EmptyInput,
      "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
      "input has "
      "sizes [1, 1, 0, 4] with dimension 2 being empty");
  // None keeps the input size; zero output is a valid forward but its backward is rejected.
  AdaptivePoolParams keep;
  keep.output_size = {std::nullopt, int64_t{0}};
  PoolPlan p = plan_adaptive_avg_pool(2, nchw({1, 2, 5, 4}), keep);
  EXPECT_EQ(p.output_shape(), (std::vector<int64_t>{1, 2, 5, 0}));
  expect_reject([&] { check_backward(p); }, PoolErrorKind::OutputTooSmall,
                "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size");
}

TEST(PoolWindows, AdaptiveBounds) {
  // 5 -> 3: [0,2), [1,4), [3,5)  (floor(o*I/O), ceil((o+1)*I/O))
  EXPECT_EQ(adaptive_start(0, 5, 3), 0);
  EXPECT_EQ(adaptive_end(0, 5, 3), 2);
  EXPECT_EQ(adaptive_start(1, 5, 3), 1);
  EXPECT_EQ(adaptive_end(1, 5, 3), 4);
  EXPECT_EQ(adaptive_start(2, 5, 3), 3);
  EXPECT_EQ(adaptive_end(2, 5, 3), 5);
  // O > I repeats elements: 2 -> 3 gives [0,1), [0,2), [1,2).
  EXPECT_EQ(adaptive_end(1, 2, 3) - adaptive_start(1, 2, 3), 2);
}

TEST(PoolWindows, CountIncludePadClipsAtRightPadding) {
  // ones(3), k=2, s=2, ceil: windows [0,2) and [2,4) -> the second counts 1 real tap and, with
  // count_include_pad, still 1 (nothing beyond L + p = 3 counts).
  PoolPlan p = plan_avg_pool(1, nchw({1, 1, 3}), AvgPoolParams{{2}, {2}, {0}, true, true, {}});
  ASSERT_EQ(p.axes[0].out, 2);
  EXPECT_EQ(p.window(0, 1).real_count(), 1);
  EXPECT_EQ(p.window(0, 1).pool_count, 1);
  // L=1, k=2, s=2, p=1, ceil: window [-1, 1) -> pool 2 (one pad + one real), real 1.
  PoolPlan q = plan_avg_pool(1, nchw({1, 1, 1}), AvgPoolParams{{2}, {2}, {1}, true, true, {}});
  ASSERT_EQ(q.axes[0].out, 1);
  EXPECT_EQ(q.window(0, 0).pool_count, 2);
  EXPECT_EQ(q.window(0, 0).real_count(), 1);
}

TEST(PoolWindows, DilatedEmptyWindowIsFlagged) {
  // L=2, k=2, d=3, p=1: taps at -1 and 2, both outside the input (docs/POOLING.md).
  PoolPlan p = plan_max_pool(1, nchw({1, 1, 2}), maxp({2}, {1}, {1}, {3}));
  EXPECT_TRUE(p.has_empty_window);
  EXPECT_EQ(p.window(0, 0).real_count(), 0);
}
