// ONNX pooling attributes -> PoolPlan. Expected sizes are derived by hand from the ONNX formulas
// (onnx/defs/nn/defs.cc shape inference):
//   explicit pads: O = floor((L + pb + pe - ke)/s) + 1; ceil_mode: ceil(...) + 1, minus one when
//                  (O-1)*s >= L + pb;
//   VALID:         O = floor((L - ke)/s) + 1;
//   SAME_*:        O = ceil(L/s), total = max(0, (O-1)*s + ke - L), UPPER begin = floor(total/2),
//                  LOWER begin = ceil(total/2).
#include <gtest/gtest.h>

#include <cmath>

#include "minitvm/frontend/onnx_pool_attrs.h"
#include "minitvm/frontend/pool_executor.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::IndexBase;
using topi::PoolPlan;

namespace {

OnnxPoolAttrs attrs(const std::string& op, std::vector<int64_t> k, std::vector<int64_t> s = {},
                    std::vector<int64_t> pads = {}, const std::string& auto_pad = "NOTSET") {
  OnnxPoolAttrs a;
  a.op_type = op;
  a.node_name = "n0";
  a.kernel_shape = std::move(k);
  a.strides = std::move(s);
  a.pads = std::move(pads);
  a.auto_pad = auto_pad;
  return a;
}

struct Axis {
  int64_t out, pb, pe;
};
void expect_axis(const PoolPlan& p, int i, Axis want) {
  EXPECT_EQ(p.axes[i].out, want.out) << "axis " << i;
  EXPECT_EQ(p.axes[i].pad_begin, want.pb) << "axis " << i;
  EXPECT_EQ(p.axes[i].pad_end, want.pe) << "axis " << i;
}

}  // namespace

TEST(OnnxPoolAttrs, StridesDefaultToOne) {
  PoolPlan p = plan_onnx_pool(attrs("MaxPool", {2, 2}), {1, 3, 32, 32}, DataType::Float(32));
  EXPECT_EQ(p.axes[0].stride, 1);
  expect_axis(p, 0, {31, 0, 0});  // (32 - 2)/1 + 1
  EXPECT_EQ(p.index_base, IndexBase::GlobalRowMajor);
}

TEST(OnnxPoolAttrs, SameUpperAndLower) {
  // L=6, k=3, s=2: O = ceil(6/2) = 3, total = max(0, 2*2 + 3 - 6) = 1.
  PoolPlan u = plan_onnx_pool(attrs("AveragePool", {3}, {2}, {}, "SAME_UPPER"), {1, 1, 6},
                              DataType::Float(32));
  expect_axis(u, 0, {3, 0, 1});  // extra pad at the end
  PoolPlan l = plan_onnx_pool(attrs("AveragePool", {3}, {2}, {}, "SAME_LOWER"), {1, 1, 6},
                              DataType::Float(32));
  expect_axis(l, 0, {3, 1, 0});  // extra pad at the beginning
  // L=5, k=3, s=2: O = 3, total = 2*2 + 3 - 5 = 2 -> 1/1 for both.
  PoolPlan e =
      plan_onnx_pool(attrs("MaxPool", {3}, {2}, {}, "SAME_LOWER"), {1, 1, 5}, DataType::Float(32));
  expect_axis(e, 0, {3, 1, 1});
  // ONNX node test averagepool_2d_same_upper: 32x32, k=2, s=1: O=32, total=1 -> pads 0/1.
  PoolPlan t = plan_onnx_pool(attrs("AveragePool", {2, 2}, {}, {}, "SAME_UPPER"), {1, 3, 32, 32},
                              DataType::Float(32));
  expect_axis(t, 0, {32, 0, 1});
  expect_axis(t, 1, {32, 0, 1});
  // Dilation enters through ke: L=7, k=2, d=3 (ke=4), s=3: O = 3, total = 2*3 + 4 - 7 = 3 -> 1/2
  // (upper).
  OnnxPoolAttrs d = attrs("MaxPool", {2}, {3}, {}, "SAME_UPPER");
  d.dilations = {3};
  expect_axis(plan_onnx_pool(d, {1, 1, 7}, DataType::Float(32)), 0, {3, 1, 2});
}

TEST(OnnxPoolAttrs, Valid) {
  // L=32, k=5, s=1: 28; L=7, k=3, s=2: floor(4/2)+1 = 3.
  PoolPlan p = plan_onnx_pool(attrs("MaxPool", {5, 3}, {1, 2}, {}, "VALID"), {1, 1, 32, 7},
                              DataType::Float(32));
  expect_axis(p, 0, {28, 0, 0});
  expect_axis(p, 1, {3, 0, 0});
}

TEST(OnnxPoolAttrs, AsymmetricPadsAndCeil) {
  // pads [top=1, left=0, bottom=2, right=2], L=5, k=3, s=1: H 5+1+2-3+1 = 6, W 5+0+2-3+1 = 5.
  PoolPlan p = plan_onnx_pool(attrs("AveragePool", {3, 3}, {}, {1, 0, 2, 2}), {1, 1, 5, 5},
                              DataType::Float(32));
  expect_axis(p, 0, {6, 1, 2});
  expect_axis(p, 1, {5, 0, 2});
  // ceil_mode with the right-pad rule: L=5, k=2, s=2, pads 1/1: ceil(4/2)+1 = 4 -> window 3 starts
  // at 6 >= 5 + 1 -> 3.
  OnnxPoolAttrs c = attrs("MaxPool", {2}, {2}, {1, 1});
  c.ceil_mode = 1;
  expect_axis(plan_onnx_pool(c, {1, 1, 5}, DataType::Float(32)), 0, {3, 1, 1});
  // ONNX node test maxpool_2d_ceil: 4x4, k=3, s=2: ceil(1/2)+1 = 2 (floor would give 1).
  OnnxPoolAttrs c2 = attrs("MaxPool", {3, 3}, {2, 2});
  c2.ceil_mode = 1;
  expect_axis(plan_onnx_pool(c2, {1, 1, 4, 4}, DataType::Float(32)), 0, {2, 0, 0});
  // Pads larger than half the kernel are legal in ONNX: L=4, k=2, pads 1/1 as long as no window
  // is empty: 4+2-2+1 = 5.
  expect_axis(plan_onnx_pool(attrs("MaxPool", {2}, {}, {1, 1}), {1, 1, 4}, DataType::Float(32)), 0,
              {5, 1, 1});
}

TEST(OnnxPoolAttrs, Rejections) {
  auto kind_of = [](const OnnxPoolAttrs& a, std::vector<int64_t> shape,
                    DataType dt = DataType::Float(32)) {
    try {
      plan_onnx_pool(a, shape, dt);
    } catch (const PoolParamError& e) {
      EXPECT_NE(std::string(e.what()).find("node 'n0'"), std::string::npos) << e.what();
      return std::string(error_kind_name(e.kind()));
    }
    return std::string("accepted");
  };
  // A window entirely in padding (begin pad 2 > k=1) is rejected explicitly.
  EXPECT_EQ(kind_of(attrs("MaxPool", {1}, {1}, {2, 0}), {1, 1, 3}), "empty_window");
  EXPECT_EQ(kind_of(attrs("MaxPool", {2, 2}, {}, {0, 0, 0}), {1, 1, 4, 4}), "bad_arg_arity");
  EXPECT_EQ(kind_of(attrs("MaxPool", {2}, {0}), {1, 1, 4}), "stride_zero");
  EXPECT_EQ(kind_of(attrs("MaxPool", {2}, {}, {-1, 0}), {1, 1, 4}), "pad_negative");
  EXPECT_EQ(kind_of(attrs("MaxPool", {2}, {}, {1, 1}, "SAME_UPPER"), {1, 1, 4}), "other");
  EXPECT_EQ(kind_of(attrs("MaxPool", {5}), {1, 1, 4}), "output_too_small");
  EXPECT_EQ(kind_of(attrs("AveragePool", {2}), {1, 1, 4}, DataType::UInt(8)), "unsupported");
  EXPECT_EQ(kind_of(attrs("MaxPool", {2}), {1, 1, 4}, DataType::UInt(8)), "accepted");
  EXPECT_EQ(kind_of(attrs("MaxPool", {}), {1, 1, 4}), "bad_arg_arity");
}

TEST(OnnxPoolAttrs, IndicesStorageOrder) {
  // N=1, C=2, 3x3; channel 1 has its maximum at (h=1, w=2): row-major 9 + 5, column-major
  // 9 + (1 + 2*3).
  std::vector<double> x(18, 0.0);
  x[9 + 5] = 7.0;
  x[2] = 1.0;  // channel 0: maximum at (0, 2): row-major 2, column-major 0 + 2*3 = 6
  HostArray in = HostArray::from_doubles(DataType::Float(32), {1, 2, 3, 3}, x);
  ReferencePoolExecutor ref;
  for (int64_t order : {0, 1}) {
    OnnxPoolAttrs a = attrs("MaxPool", {3, 3});
    a.storage_order = order;
    a.want_indices = true;
    PoolPlan p = plan_onnx_pool(a, {1, 2, 3, 3}, DataType::Float(32));
    PoolForwardResult r = ref.forward(p, in);
    ASSERT_EQ(r.indices.numel(), 2);
    EXPECT_EQ(r.indices.get_int(0), order ? 6 : 2);
    EXPECT_EQ(r.indices.get_int(1), order ? 9 + 7 : 9 + 5);
  }
}

TEST(OnnxPoolAttrs, AverageCountIncludePadAndLp) {
  // ones 3x3, k=3, s=1, pads 1 all round: the corner window holds 4 real cells of 9.
  HostArray ones =
      HostArray::from_doubles(DataType::Float(64), {1, 1, 3, 3}, std::vector<double>(9, 1.0));
  ReferencePoolExecutor ref;
  OnnxPoolAttrs a = attrs("AveragePool", {3, 3}, {}, {1, 1, 1, 1});
  a.count_include_pad = 1;
  EXPECT_DOUBLE_EQ(
      ref.forward(plan_onnx_pool(a, {1, 1, 3, 3}, DataType::Float(64)), ones).output.get(0),
      4.0 / 9.0);
  a.count_include_pad = 0;  // the ONNX default
  EXPECT_DOUBLE_EQ(
      ref.forward(plan_onnx_pool(a, {1, 1, 3, 3}, DataType::Float(64)), ones).output.get(0), 1.0);
  // LpPool uses |x|: p=1 over [1,-2,3,-4] is 10 (PyTorch's lp_pool1d would give -2).
  HostArray v = HostArray::from_doubles(DataType::Float(64), {1, 1, 4}, {1, -2, 3, -4});
  OnnxPoolAttrs lp = attrs("LpPool", {4});
  lp.p = 1;
  EXPECT_DOUBLE_EQ(ref.forward(plan_onnx_pool(lp, {1, 1, 4}, DataType::Float(64)), v).output.get(0),
                   10.0);
  lp.p = 2;
  EXPECT_DOUBLE_EQ(ref.forward(plan_onnx_pool(lp, {1, 1, 4}, DataType::Float(64)), v).output.get(0),
                   std::sqrt(30.0));
}

TEST(OnnxPoolAttrs, GlobalPools) {
  HostArray x =
      HostArray::from_doubles(DataType::Float(64), {1, 2, 2, 2}, {1, 2, 3, 4, -1, -5, -2, -3});
  ReferencePoolExecutor ref;
  OnnxPoolAttrs gm;
  gm.op_type = "GlobalMaxPool";
  PoolPlan pm = plan_onnx_pool(gm, {1, 2, 2, 2}, DataType::Float(64));
  EXPECT_EQ(pm.output_shape(), (std::vector<int64_t>{1, 2, 1, 1}));
  HostArray ym = ref.forward(pm, x).output;
  EXPECT_EQ(ym.get(0), 4.0);
  EXPECT_EQ(ym.get(1), -1.0);
  OnnxPoolAttrs ga;
  ga.op_type = "GlobalAveragePool";
  HostArray ya = ref.forward(plan_onnx_pool(ga, {1, 2, 2, 2}, DataType::Float(64)), x).output;
  EXPECT_EQ(ya.get(0), 2.5);
  EXPECT_EQ(ya.get(1), -2.75);
}
