// Hardening of the frontend against hostile sizes and attributes: every value from a user (a plan's
// parameters, an ONNX model's attributes and arities, a TensorProto's dims and data) is validated
// with minitvm's error types naming the value, before it is used for arithmetic or allocation.
// Each case here used to crash (SIGFPE, heap overflow), hang, allocate gigabytes, or throw a raw
// standard-library exception.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "minitvm/frontend/onnx_loader.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"

#ifdef MINITVM_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

using namespace minitvm;
using namespace minitvm::frontend;
using topi::checked_pool_output_size;
using topi::PoolAxis;
using topi::PoolMode;
using topi::PoolPlan;
namespace fs = std::filesystem;
namespace mo = minitvm::frontend::onnx;

namespace {

// The message of the minitvm::Error that f throws; a standard-library exception or no exception
// is reported as such, so the assertions below show what happened instead.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const PoolParamError& e) {
    return std::string("[") + error_kind_name(e.kind()) + "] " + e.what();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("raw std::exception: ") + e.what();
  }
  return "no error";
}

#define EXPECT_HAS(haystack, needle)                                    \
  do {                                                                  \
    const std::string h_ = (haystack);                                  \
    EXPECT_NE(h_.find(needle), std::string::npos) << "message: " << h_; \
  } while (0)

PoolInput nchw(std::vector<int64_t> shape) {
  PoolInput in;
  in.shape = std::move(shape);
  return in;
}

constexpr int64_t k2to32 = int64_t{1} << 32;

}  // namespace

// ---- HostArray -----------------------------------------------------------------------------

TEST(HostArrayLimits, ShapeOverflowAndNegativeDimsAreErrors) {
  EXPECT_HAS(error_of([] {
               HostArray(DataType::Float(32), {k2to32, k2to32});
             }),
             "HostArray: the element count of shape [4294967296, 4294967296] overflows int64");
  EXPECT_HAS(error_of([] { HostArray(DataType::Float(64), {int64_t{1} << 61}); }),
             "HostArray: shape [2305843009213693952] of float64 needs more than "
             "9223372036854775807 bytes");
  EXPECT_HAS(error_of([] {
               HostArray(DataType::Float(32), {2, -3});
             }),
             "HostArray: negative dimension -3 at axis 1 in shape [2, -3]");
  HostArray z(DataType::Float(32), {0, k2to32, k2to32});  // empty whatever the other dims are
  EXPECT_EQ(z.numel(), 0);
  EXPECT_EQ(z.nbytes(), 0u);
}

TEST(HostArrayLimits, OutOfRangeConversionsAreErrors) {
  HostArray u(DataType::UInt(8), {3});
  u.set(0, 255.0);
  EXPECT_EQ(u.get_int(0), 255);
  EXPECT_HAS(error_of([&] { u.set(1, 256.0); }),
             "HostArray: value 256 at element 1 does not fit in uint8");
  EXPECT_HAS(error_of([&] { u.set(1, -1.0); }), "value -1 at element 1 does not fit in uint8");
  EXPECT_HAS(error_of([&] { u.set(2, std::nan("")); }),
             "value nan at element 2 does not fit in uint8");
  EXPECT_HAS(error_of([&] { u.set_int(2, 300); }), "value 300 at element 2 does not fit in uint8");
  HostArray l(DataType::Int(64), {1});
  EXPECT_HAS(error_of([&] { l.set(0, 9.3e18); }), "does not fit in int64");
  l.set_int(0, (int64_t{1} << 53) + 1);  // exact, unlike a trip through double
  EXPECT_EQ(l.get_int(0), (int64_t{1} << 53) + 1);
}

// ---- pooling plans -------------------------------------------------------------------------

TEST(PoolPlanLimits, GlobalPoolRejectsBadRankWithoutLengthError) {
  // assign(rank, 1) with rank -1 used to throw std::length_error.
  EXPECT_EQ(error_of([] {
              plan_global_pool(PoolMode::Max, -1, nchw({1, 1, 4, 4}));
            }),
            "[unsupported] pooling: spatial rank must be 1, 2 or 3, got -1");
  EXPECT_EQ(error_of([] {
              plan_global_pool(PoolMode::Avg, 0, nchw({1, 1, 4}));
            }),
            "[unsupported] pooling: spatial rank must be 1, 2 or 3, got 0");
}

TEST(PoolPlanLimits, NegativeInputDimensionsAreRejected) {
  AdaptivePoolParams two;
  two.output_size = {int64_t{2}, int64_t{2}};
  EXPECT_EQ(
      error_of([&] {
        plan_adaptive_avg_pool(2, nchw({-2, 1, 4, 4}), two);
      }),
      "[other] adaptive_avg_pool2d: input dimension 0 is negative (input shape [-2, 1, 4, 4])");
  EXPECT_EQ(
      error_of([&] {
        plan_global_pool(PoolMode::Max, 2, nchw({1, -1, 4, 4}));
      }),
      "[other] adaptive_max_pool2d: input dimension 1 is negative (input shape [1, -1, 4, 4])");
  MaxPoolParams mp;
  mp.kernel_size = {2};
  EXPECT_EQ(error_of([&] {
              plan_max_pool(2, nchw({1, -3, 4, 4}), mp);
            }),
            "[other] max_pool2d: input dimension 1 is negative (input shape [1, -3, 4, 4])");
  OnnxPoolAttrs g;
  g.op_type = "GlobalAveragePool";
  g.node_name = "gap";
  EXPECT_EQ(error_of([&] {
              plan_onnx_pool(g, {-1, 2, 3, 3}, DataType::Float(32));
            }),
            "[other] ONNX GlobalAveragePool node 'gap': input dimension 0 is negative (-1)");
}

TEST(PoolPlanLimits, AdaptiveOutputBeyond32BitsIsRejected) {
  AdaptivePoolParams big;
  big.output_size = {int64_t{1}, k2to32};
  EXPECT_EQ(error_of([&] {
              plan_adaptive_avg_pool(2, nchw({1, 1, 4, 4}), big);
            }),
            "[too_large] adaptive_avg_pool2d: output length 4294967296 of spatial axis 1 is "
            "outside [0, 2147483647]");
  // Below 2^31 per axis, but the output tensor and the work are still refused by their limits.
  AdaptivePoolParams wide;
  wide.output_size = {int64_t{65536}, int64_t{65536}};
  EXPECT_EQ(error_of([&] {
              plan_adaptive_max_pool(2, nchw({1, 1, 4, 4}), wide);
            }),
            "[too_large] adaptive_max_pool2d: the output has more than 2147483647 elements");
  // 16K input elements must not make a 4 GB output (2^30 elements): at most 64x the input or 2^24.
  AdaptivePoolParams up;
  up.output_size = {int64_t{1}, int64_t{1} << 16};
  EXPECT_EQ(error_of([&] {
              plan_adaptive_avg_pool(2, nchw({128, 128, 1, 1}), up);
            }),
            "[too_large] adaptive_avg_pool2d: the output would hold 1073741824 elements for an "
            "input of 16384 (at "
            "most 64 times the input, or 16777216)");
  up.output_size = {int64_t{1}, int64_t{1} << 10};  // 2^24 elements: within the budget
  EXPECT_NO_THROW(plan_adaptive_avg_pool(2, nchw({128, 128, 1, 1}), up));
  // An empty batch does not make an arbitrarily long axis cheap: the window geometry is per axis.
  AdaptivePoolParams long1;
  long1.output_size = {int64_t{1} << 31};
  EXPECT_HAS(error_of([&] {
               plan_adaptive_avg_pool(1, nchw({0, 1, 4}), long1);
             }),
             "[too_large] adaptive_avg_pool1d: output length 2147483648 of spatial axis 0");
  // An empty batch took 45 s to plan an lp_pool1d of 429496729 outputs (window geometry per
  // position); each output length is bounded by kPoolMaxAxisOutput.
  long1.output_size = {kPoolMaxAxisOutput + 1};
  EXPECT_EQ(
      error_of([&] {
        plan_adaptive_avg_pool(1, nchw({0, 1, 4}), long1);
      }),
      "[too_large] adaptive_avg_pool1d: output length 16777217 of spatial axis 0 exceeds 16777216");
  LpPoolParams lp;
  lp.kernel_size = {3};
  lp.stride = {5};
  EXPECT_EQ(error_of([&] {
              plan_lp_pool(1, nchw({0, 2, INT32_MAX}), lp);
            }),
            "[too_large] avg_pool1d: output length 429496729 of spatial axis 0 exceeds 16777216");
}

// first_empty_window looks only at the windows that can be empty; it must agree with testing
// every window (the brute force the planners used to run) on every small axis.
TEST(PoolPlanLimits, FirstEmptyWindowMatchesBruteForce) {
  int checked = 0, with_empty = 0;
  for (int64_t in = 1; in <= 6; ++in)
    for (int64_t k = 1; k <= 4; ++k)
      for (int64_t s = 1; s <= 4; ++s)
        for (int64_t d = 1; d <= 8; ++d)
          for (int64_t pb = 0; pb <= 9; ++pb)
            for (int64_t pe = 0; pe <= 3; ++pe)
              for (bool ceil : {false, true}) {
                PoolPlan p;
                PoolAxis ax;
                ax.in = in;
                ax.kernel = k;
                ax.stride = s;
                ax.dilation = d;
                ax.pad_begin = pb;
                ax.pad_end = pe;
                ax.out = pool_output_size(in, k, s, pb, pe, d, ceil);
                if (ax.out < 1) continue;
                p.axes.push_back(ax);
                int64_t brute = -1;
                for (int64_t o = 0; o < ax.out && brute < 0; ++o)
                  if (p.window(0, o).real_count() == 0) brute = o;
                ASSERT_EQ(p.first_empty_window(0), brute)
                    << "in " << in << " k " << k << " s " << s << " d " << d << " pads " << pb
                    << "/" << pe;
                ++checked;
                with_empty += brute >= 0;
              }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(with_empty, 1000);
}

TEST(PoolPlanLimits, OutputSizeArithmeticOverflowIsAnError) {
  // in + 2*pad - dilation*(kernel-1) - 1 overflows int64 (UBSan: signed integer overflow).
  EXPECT_HAS(
      error_of([] { pool_output_size(4, int64_t{1} << 62, 1, 0, 0, 4, false); }),
      "pooling: the output length for input 4, kernel 4611686018427387904, stride 1, padding 0/0, "
      "dilation 4 overflows int64");
  EXPECT_EQ(checked_pool_output_size(INT64_MAX, 1, 1, 1, 0, 1, false), std::nullopt);
  EXPECT_EQ(checked_pool_output_size(8, 3, 2, 1, 1, 1, true),
            pool_output_size(8, 3, 2, 1, 1, 1, true));
  MaxPoolParams mp;
  mp.kernel_size = {int64_t{1} << 62};
  mp.padding = {int64_t{1} << 61};
  mp.dilation = {4};
  EXPECT_HAS(error_of([&] {
               plan_max_pool(1, nchw({1, 1, 8}), mp);
             }),
             "[too_large] pooling: the output length");
  OnnxPoolAttrs a;
  a.op_type = "MaxPool";
  a.node_name = "mp";
  a.kernel_shape = {int64_t{1} << 40};
  a.pads = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(error_of([&] {
              plan_onnx_pool(a, {1, 1, 8}, DataType::Float(32));
            }),
            "[too_large] ONNX MaxPool node 'mp': attribute 'kernel_shape' value 1099511627776 "
            "exceeds 2147483647");
  a.kernel_shape = {2};
  a.strides = {INT64_MAX};
  EXPECT_EQ(error_of([&] {
              plan_onnx_pool(a, {1, 1, 8}, DataType::Float(32));
            }),
            "[too_large] ONNX MaxPool node 'mp': attribute 'strides' value 9223372036854775807 "
            "exceeds 2147483647");
  a.strides = {1};
  a.auto_pad = "SAME_UPPER";
  a.pads.clear();
  EXPECT_EQ(error_of([&] {
              plan_onnx_pool(a, {1, 1, INT64_MAX}, DataType::Float(32));
            }),
            "[too_large] ONNX MaxPool node 'mp': input dimension 2 = 9223372036854775807 exceeds "
            "2147483647");
}

TEST(PoolPlanLimits, WorkIsBoundedByOutputTimesWindow) {
  // LpPool with a huge kernel over a long input: (2^19 + 1) outputs x 2^19 taps > 2^31.
  OnnxPoolAttrs lp;
  lp.op_type = "LpPool";
  lp.node_name = "lp";
  lp.kernel_shape = {int64_t{1} << 19};
  EXPECT_EQ(error_of([&] {
              plan_onnx_pool(lp, {1, 1, int64_t{1} << 20}, DataType::Float(32));
            }),
            "[too_large] ONNX LpPool node 'lp': the work (output positions x window taps) exceeds "
            "4294967296 "
            "(docs/POOLING.md, size limits)");
  LpPoolParams tp;
  tp.kernel_size = {int64_t{1} << 19};
  tp.stride = {1};
  EXPECT_HAS(
      error_of([&] {
        plan_lp_pool(1, nchw({1, 1, int64_t{1} << 20}), tp);
      }),
      "[too_large] avg_pool1d: the work (output positions x window taps) exceeds 4294967296");
  // The same kernel with a stride that keeps the work small is fine.
  tp.stride = {int64_t{1} << 18};
  PoolPlan ok = plan_lp_pool(1, nchw({1, 1, int64_t{1} << 20}), tp);
  EXPECT_EQ(ok.axes[0].out, 3);
  // A plan built by hand gets the same limits from the executor (it used to tabulate every window).
  PoolPlan hand = plan_global_pool(PoolMode::Max, 1, nchw({1, 1, 4}));
  hand.axes[0].out = int64_t{1} << 40;
  ReferencePoolExecutor ref;
  EXPECT_HAS(error_of([&] {
               ref.forward(hand, HostArray(DataType::Float(32), {1, 1, 4}));
             }),
             "[too_large] global_max_pool1d: output length 1099511627776 of spatial axis 0");
}

TEST(PoolPlanLimits, LargestAllowedPlansStillRun) {
  // A real-sized plan (32x256x112x112 max 3x3/3, the benchmark's largest) is within the limits.
  MaxPoolParams mp;
  mp.kernel_size = {3};
  EXPECT_NO_THROW(plan_max_pool(2, nchw({32, 256, 112, 112}), mp));
  // And an adaptive output of 1 over a long axis runs on the reference with the exact mean.
  PoolInput in = nchw({1, 1, 1000});
  in.dtype = DataType::Float(64);
  PoolPlan g = plan_global_pool(PoolMode::Avg, 1, in);
  HostArray x(DataType::Float(64), {1, 1, 1000});
  for (int i = 0; i < 1000; ++i) x.set(i, i);
  ReferencePoolExecutor ref;
  EXPECT_DOUBLE_EQ(ref.forward(g, x).output.get(0), 499.5);
}

// ---- ONNX models and tensors ---------------------------------------------------------------

#ifdef MINITVM_HAVE_ONNX
namespace {

::onnx::AttributeProto ints_attr(const std::string& name, std::vector<int64_t> v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto_AttributeType_INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}
::onnx::AttributeProto int_attr(const std::string& name, int64_t v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto_AttributeType_INT);
  a.set_i(v);
  return a;
}
::onnx::AttributeProto str_attr(const std::string& name, const std::string& v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto_AttributeType_STRING);
  a.set_s(v);
  return a;
}

// A one-node model: graph inputs `ins` (float32, shape left symbolic), graph outputs `outs`.
std::string save_model(const std::string& tag, const std::string& op,
                       const std::vector<std::string>& node_in,
                       const std::vector<std::string>& node_out,
                       const std::vector<::onnx::AttributeProto>& attrs,
                       const std::vector<std::string>& ins, const std::vector<std::string>& outs) {
  ::onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_name(tag);
  n->set_op_type(op);
  for (const auto& s : node_in) n->add_input(s);
  for (const auto& s : node_out) n->add_output(s);
  for (const auto& a : attrs) *n->add_attribute() = a;
  for (const auto& s : ins) {
    auto* v = g->add_input();
    v->set_name(s);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto_DataType_FLOAT);
  }
  for (const auto& s : outs) {
    auto* v = g->add_output();
    v->set_name(s);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto_DataType_FLOAT);
  }
  fs::path p = fs::temp_directory_path() / ("minitvm_limits_" + tag + ".onnx");
  std::ofstream out(p, std::ios::binary);
  m.SerializeToOstream(&out);
  return p.string();
}

std::string save_tensor(const std::string& tag, const ::onnx::TensorProto& t) {
  fs::path p = fs::temp_directory_path() / ("minitvm_limits_" + tag + ".pb");
  std::ofstream out(p, std::ios::binary);
  t.SerializeToOstream(&out);
  return p.string();
}

HostArray zeros(std::vector<int64_t> shape) {
  return HostArray(DataType::Float(32), std::move(shape));
}

}  // namespace

TEST(OnnxLimits, ConvGroupZeroWithZeroChannelsIsAnError) {
  // Used to die with SIGFPE (M % C with C = 0: group 0 == C and W's 1 channel per group passed).
  mo::Model m = mo::load_model(
      save_model("conv_g0", "Conv", {"x", "w"}, {"y"}, {int_attr("group", 0)}, {"x", "w"}, {"y"}));
  ReferencePoolExecutor ref;
  EXPECT_EQ(error_of([&] {
              mo::run_model(m, {zeros({1, 0, 4, 4}), zeros({1, 1, 3, 3})}, ref);
            }),
            "frontend::onnx: node 'conv_g0' (Conv): attribute 'group' must be positive, got 0");
  // Zero channels with group 1 is refused by the shape check, not divided by.
  mo::Model m1 =
      mo::load_model(save_model("conv_c0", "Conv", {"x", "w"}, {"y"}, {}, {"x", "w"}, {"y"}));
  EXPECT_EQ(error_of([&] {
              mo::run_model(m1, {zeros({1, 0, 4, 4}), zeros({1, 0, 3, 3})}, ref);
            }),
            "frontend::onnx: node 'conv_c0' (Conv): input X has shape [1, 0, 4, 4] (each dimension "
            "must be in [1, "
            "2147483647])");
}

TEST(OnnxLimits, ConvAttributesAreValidatedBeforeUse) {
  ReferencePoolExecutor ref;
  auto run = [&](const std::string& tag, std::vector<::onnx::AttributeProto> attrs) {
    return error_of([&] {
      mo::Model m =
          mo::load_model(save_model(tag, "Conv", {"x", "w"}, {"y"}, attrs, {"x", "w"}, {"y"}));
      mo::run_model(m, {zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3})}, ref);
    });
  };
  // SAME padding with stride 0 used to die with SIGFPE ((in + s - 1) / s).
  EXPECT_EQ(run("conv_same_s0", {str_attr("auto_pad", "SAME_UPPER"), ints_attr("strides", {0, 1})}),
            "frontend::onnx: node 'conv_same_s0' (Conv): attribute 'strides' must be positive (at "
            "most 2147483647), "
            "got 0");
  EXPECT_EQ(run("conv_dil", {ints_attr("dilations", {1, -2})}),
            "frontend::onnx: node 'conv_dil' (Conv): attribute 'dilations' must be positive (at "
            "most 2147483647), got "
            "-2");
  EXPECT_EQ(run("conv_pads", {ints_attr("pads", {0, 0, -1, 0})}),
            "frontend::onnx: node 'conv_pads' (Conv): attribute 'pads' must be non-negative (at "
            "most 2147483647), got "
            "-1");
  EXPECT_EQ(
      run("conv_bigstride",
          {ints_attr("strides", {INT64_MAX, 1}), str_attr("auto_pad", "SAME_LOWER")}),
      "frontend::onnx: node 'conv_bigstride' (Conv): attribute 'strides' must be positive (at most "
      "2147483647), got 9223372036854775807");
  EXPECT_EQ(run("conv_pads3", {ints_attr("pads", {1, 1, 1})}),
            "frontend::onnx: node 'conv_pads3' (Conv): attribute 'pads' must have 4 values, got 3");
  EXPECT_EQ(run("conv_autopad", {str_attr("auto_pad", "FULL")}),
            "frontend::onnx: node 'conv_autopad' (Conv): attribute 'auto_pad' = 'FULL' is not "
            "NOTSET, SAME_UPPER, "
            "SAME_LOWER or VALID");
  EXPECT_EQ(run("conv_big", {ints_attr("dilations", {4, 1})}),
            "frontend::onnx: node 'conv_big' (Conv): the dilated kernel (9) is larger than the "
            "padded input (5) on "
            "spatial axis 0");
  // Valid attributes still run: SAME_UPPER with stride 2 on 5x5 gives 3x3.
  mo::Model ok = mo::load_model(save_model(
      "conv_ok", "Conv", {"x", "w"}, {"y"},
      {str_attr("auto_pad", "SAME_UPPER"), ints_attr("strides", {2, 2})}, {"x", "w"}, {"y"}));
  HostArray y = mo::run_model(ok, {zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3})}, ref).at(0);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 3, 3, 3}));
}

TEST(OnnxLimits, NodeArityIsCheckedNamingTheNode) {
  // More inputs than the op takes used to end in vector::_M_range_check (std::out_of_range).
  EXPECT_EQ(error_of([] {
              mo::load_model(save_model("relu2", "Relu", {"x", "z"}, {"y"}, {}, {"x", "z"}, {"y"}));
            }),
            "frontend::onnx: node 'relu2' (Relu): takes 1 input, got 2");
  EXPECT_EQ(error_of([] {
              mo::load_model(save_model("mp2", "MaxPool", {"x", "z"}, {"y"},
                                        {ints_attr("kernel_shape", {2})}, {"x", "z"}, {"y"}));
            }),
            "frontend::onnx: node 'mp2' (MaxPool): takes 1 input, got 2");
  EXPECT_EQ(
      error_of([] {
        mo::load_model(save_model("unpool4", "MaxUnpool", {"x", "i", "s", "t"}, {"y"},
                                  {ints_attr("kernel_shape", {2})}, {"x", "i", "s", "t"}, {"y"}));
      }),
      "frontend::onnx: node 'unpool4' (MaxUnpool): takes 2 to 3 inputs, got 4");
  EXPECT_EQ(
      error_of([] { mo::load_model(save_model("conv1", "Conv", {"x"}, {"y"}, {}, {"x"}, {"y"})); }),
      "frontend::onnx: node 'conv1' (Conv): takes 2 to 3 inputs, got 1");
  EXPECT_EQ(error_of([] {
              mo::load_model(save_model("ap0", "AveragePool", {"x"}, {},
                                        {ints_attr("kernel_shape", {2})}, {"x"}, {}));
            }),
            "frontend::onnx: node 'ap0' (AveragePool): has 1 output, got 0");
  EXPECT_EQ(error_of([] {
              mo::load_model(save_model("add_gap", "Add", {"", "x"}, {"y"}, {}, {"x"}, {"y"}));
            }),
            "frontend::onnx: node 'add_gap' (Add): input 0 is required");
  // A model built in memory gets the same check from run_model.
  mo::Model m;
  m.inputs.push_back({"x", DataType::Float(32), {1, 1, 4}});
  mo::Node n;
  n.name = "hand";
  n.op_type = "GlobalMaxPool";
  n.attrs.op_type = "GlobalMaxPool";
  n.inputs = {"x"};
  m.nodes.push_back(n);
  ReferencePoolExecutor ref;
  EXPECT_EQ(error_of([&] {
              mo::run_model(m, {zeros({1, 1, 4})}, ref);
            }),
            "frontend::onnx: node 'hand' (GlobalMaxPool): has 1 output, got 0");
}

TEST(OnnxLimits, MaxUnpoolShortAttributesAreErrors) {
  // strides/pads shorter than the kernel rank used to be read out of bounds (ASan).
  ReferencePoolExecutor ref;
  HostArray x = zeros({1, 1, 2, 2});
  HostArray idx(DataType::Int(64), {1, 1, 2, 2});
  auto run = [&](const std::string& tag, std::vector<::onnx::AttributeProto> attrs) {
    return error_of([&] {
      mo::Model m =
          mo::load_model(save_model(tag, "MaxUnpool", {"x", "i"}, {"y"}, attrs, {"x", "i"}, {"y"}));
      mo::run_model(m, {x, idx}, ref);
    });
  };
  EXPECT_EQ(
      run("unpool_s", {ints_attr("kernel_shape", {2, 2}), ints_attr("strides", {2})}),
      "frontend::onnx: node 'unpool_s' (MaxUnpool): attribute 'strides' must have 2 values, got 1");
  EXPECT_EQ(
      run("unpool_p", {ints_attr("kernel_shape", {2, 2}), ints_attr("pads", {0, 0})}),
      "frontend::onnx: node 'unpool_p' (MaxUnpool): attribute 'pads' must have 4 values, got 2");
  EXPECT_EQ(run("unpool_k0", {ints_attr("kernel_shape", {2, 0})}),
            "frontend::onnx: node 'unpool_k0' (MaxUnpool): attribute 'kernel_shape' must be "
            "positive, got 0");
  EXPECT_EQ(run("unpool_pad", {ints_attr("kernel_shape", {2, 2}), ints_attr("pads", {0, 0, 3, 0})}),
            "frontend::onnx: node 'unpool_pad' (MaxUnpool): the unpooled length of axis 0 is 0 "
            "(attribute 'pads' "
            "removes the whole axis)");
  // A 2^31-1 kernel used to make a 2^31-element (8 GB) result for 4 input elements.
  EXPECT_EQ(run("unpool_huge", {ints_attr("kernel_shape", {2, INT32_MAX})}),
            "frontend::onnx: node 'unpool_huge' (MaxUnpool): the unpooled shape would hold more "
            "than 16777216 "
            "elements for 4 input elements (at most 64 times X, or 16777216)");
  EXPECT_EQ(
      run("unpool_big", {ints_attr("kernel_shape", {2, 2}), ints_attr("strides", {INT64_MAX, 1})}),
      "frontend::onnx: node 'unpool_big' (MaxUnpool): the unpooled length of axis 0 overflows "
      "int64");
  // Valid: k=2, s=2 unpools 2x2 to 4x4 with X[j] at I[j].
  for (int j = 0; j < 4; ++j) {
    x.set(j, j + 1);
    idx.set_int(j, j * 5);  // the diagonal 0, 5, 10, 15
  }
  mo::Model ok = mo::load_model(save_model(
      "unpool_ok", "MaxUnpool", {"x", "i"}, {"y"},
      {ints_attr("kernel_shape", {2, 2}), ints_attr("strides", {2, 2})}, {"x", "i"}, {"y"}));
  HostArray y = mo::run_model(ok, {x, idx}, ref).at(0);
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4, 4}));
  for (int k = 0; k < 16; ++k) EXPECT_EQ(y.get(k), k % 5 == 0 ? k / 5 + 1 : 0) << k;
}

TEST(OnnxLimits, TensorDimsAreCheckedAgainstTheDataBeforeAllocating) {
  ::onnx::TensorProto t;
  t.set_name("huge");
  t.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  t.add_dims(int64_t{1} << 40);  // 4 TiB of zeros used to be allocated before the length check
  EXPECT_EQ(error_of([&] { mo::load_tensor(save_tensor("huge", t)); }),
            "frontend::onnx: tensor 'huge' holds 0 values for 1099511627776 elements");
  t.add_float_data(1.f);
  t.set_raw_data(std::string(4, '\0'));
  EXPECT_EQ(error_of([&] { mo::load_tensor(save_tensor("huge_raw", t)); }),
            "frontend::onnx: tensor 'huge' raw_data has 4 bytes, its dims need 1099511627776 "
            "elements of 4 bytes");
  // A product that overflows used to wrap (to 0 here) and load as an empty tensor of a nonsense
  // shape.
  ::onnx::TensorProto w;
  w.set_name("wrap");
  w.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  w.add_dims(k2to32);
  w.add_dims(k2to32);
  EXPECT_EQ(error_of([&] { mo::load_tensor(save_tensor("wrap", w)); }),
            "frontend::onnx: tensor 'wrap': the product of its dims overflows int64");
  ::onnx::TensorProto n;
  n.set_name("neg");
  n.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  n.add_dims(2);
  n.add_dims(-2);
  EXPECT_EQ(error_of([&] { mo::load_tensor(save_tensor("neg", n)); }),
            "frontend::onnx: tensor 'neg': dims[1] = -2 is negative");
}

TEST(OnnxLimits, TensorValuesMustFitTheirType) {
  ::onnx::TensorProto u;
  u.set_name("u8");
  u.set_data_type(::onnx::TensorProto_DataType_UINT8);
  u.add_dims(2);
  u.add_int32_data(255);
  u.add_int32_data(300);
  EXPECT_EQ(error_of([&] { mo::load_tensor(save_tensor("u8", u)); }),
            "frontend::onnx: tensor 'u8': value 300 at element 1 does not fit in uint8");
  ::onnx::TensorProto l;
  l.set_name("i64");
  l.set_data_type(::onnx::TensorProto_DataType_INT64);
  l.add_dims(1);
  l.add_int64_data((int64_t{1} << 53) + 1);  // not a double: must not be rounded
  HostArray a = mo::load_tensor(save_tensor("i64", l));
  EXPECT_EQ(a.get_int(0), (int64_t{1} << 53) + 1);
}
#endif

#ifdef MINITVM_HAVE_ONNX
TEST(OnnxLimits, AttributeKindsAndFlagValuesAreChecked) {
  // strides given as one int (not a list) used to be ignored in favour of the default.
  ReferencePoolExecutor ref;
  EXPECT_EQ(error_of([&] {
              mo::Model m = mo::load_model(save_model("conv_kind", "Conv", {"x", "w"}, {"y"},
                                                      {int_attr("strides", 2)}, {"x", "w"}, {"y"}));
              mo::run_model(m, {zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3})}, ref);
            }),
            "frontend::onnx: node 'conv_kind' (Conv): attribute 'strides' must be a list of ints, "
            "got an int");
  OnnxPoolAttrs a;
  a.op_type = "AveragePool";
  a.node_name = "ap";
  a.kernel_shape = {2};
  a.ceil_mode = 2;
  EXPECT_EQ(error_of([&] {
              plan_onnx_pool(a, {1, 1, 8}, DataType::Float(32));
            }),
            "[other] ONNX AveragePool node 'ap': attribute 'ceil_mode' must be 0 or 1, got 2");
  a.ceil_mode = 0;
  a.count_include_pad = -1;
  EXPECT_EQ(
      error_of([&] {
        plan_onnx_pool(a, {1, 1, 8}, DataType::Float(32));
      }),
      "[other] ONNX AveragePool node 'ap': attribute 'count_include_pad' must be 0 or 1, got -1");
}
#endif

#ifdef MINITVM_HAVE_ONNX
TEST(OnnxLimits, NodeTestFileNamesAreCheckedNotParsedByStol) {
  // input_a.pb used to surface std::stol's own text ("stol") as the failure.
  fs::path dir = fs::temp_directory_path() / "minitvm_limits_nodetest";
  fs::remove_all(dir);
  fs::create_directories(dir / "test_data_set_0");
  fs::copy_file(save_model("nodetest_relu", "Relu", {"x"}, {"y"}, {}, {"x"}, {"y"}),
                dir / "model.onnx");
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  t.add_dims(1);
  t.add_float_data(1.f);
  fs::copy_file(save_tensor("nodetest_in", t), dir / "test_data_set_0" / "input_a.pb");
  ReferencePoolExecutor ref;
  mo::NodeTestResult r = mo::run_node_test(dir.string(), ref);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_HAS(r.failures[0], "input_a.pb: expected a number (at most 9 digits) after 'input_'");
  fs::remove_all(dir);
}
#endif
