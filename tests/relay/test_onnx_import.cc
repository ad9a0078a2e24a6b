// relay::frontend::from_onnx: small models written with libonnx's protobuf classes, imported, built
// for llvm and run through runtime::GraphExecutor against the reference executor; import errors;
// and ONNX's own node tests (Debian libonnx-testdata) against their recorded outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <unistd.h>

#include "minitvm/devtools/onnx_test.h"
#include "minitvm/relay/frontend.h"
#include "minitvm/relay/relay.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/support/error.h"

#ifdef MINITVM_HAVE_ONNX
#include <onnx/onnx_pb.h>

#include "common/onnx_model.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;
namespace fs = std::filesystem;

namespace {

// Models are written with the shared builder (tests/common/onnx_model.h).
using Model = testutil::OnnxModel;
using testutil::af;
using testutil::ai;
using testutil::aints;
using testutil::as;

using relay_test::expect_close;

// Import, build for llvm, run through the GraphExecutor and compare with the reference executor.
void import_build_run(const Model& model, const std::vector<int64_t>& in_shape,
                      const std::string& in_name = "x") {
  auto [mod, params] = frontend::from_onnx_bytes(model.bytes(), {{in_name, in_shape}});
  auto input = relay::testing::random_uniform(in_shape, -1, 1, 11);
  auto want = reference_run(mod, {{in_name, input}}, params);
  ASSERT_EQ(want.size(), 1u);
  Built b = build(mod, "llvm", params);
  runtime::GraphExecutor ex(b, Device::cpu());
  ex.set_input(in_name, input);
  ex.run();
  expect_close(ex.get_output(0).copy_to(Device::cpu()), want[0], 1e-4);
}

std::string import_error(const Model& model, const frontend::ShapeDict& shapes) {
  try {
    frontend::from_onnx_bytes(model.bytes(), shapes);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(OnnxImport, ConvBnReluPoolGemmChain) {
  Model m(13);
  m.input("x", {1, 3, 16, 16}, "N");
  m.init("w", {8, 3, 3, 3}, -0.5, 0.5, 1);
  m.init("b", {8}, -0.5, 0.5, 2);
  auto* c = m.node("Conv", {"x", "w", "b"}, {"c"});
  aints(c, "pads", {1, 0, 2, 1});
  aints(c, "strides", {2, 1});
  aints(c, "kernel_shape", {3, 3});
  m.init("g", {8}, 0.5, 1.5, 3);
  m.init("be", {8}, -0.5, 0.5, 4);
  m.init("mu", {8}, -0.2, 0.2, 5);
  m.init("var", {8}, 0.5, 1.5, 6);
  af(m.node("BatchNormalization", {"c", "g", "be", "mu", "var"}, {"bn"}), "epsilon", 1e-3f);
  m.node("Relu", {"bn"}, {"r"});
  auto* p = m.node("MaxPool", {"r"}, {"p"});
  aints(p, "kernel_shape", {3, 3});
  aints(p, "strides", {2, 2});
  aints(p, "pads", {1, 1, 1, 1});
  ai(p, "ceil_mode", 1);
  auto* ap = m.node("AveragePool", {"p"}, {"ap"});
  aints(ap, "kernel_shape", {2, 2});
  as(ap, "auto_pad", "SAME_UPPER");
  m.node("GlobalAveragePool", {"ap"}, {"gp"});
  m.node("Flatten", {"gp"}, {"f"});
  m.init("fw", {5, 8}, -1, 1, 7);
  m.init("fc", {5}, -1, 1, 8);
  auto* gm = m.node("Gemm", {"f", "fw", "fc"}, {"y"});
  ai(gm, "transB", 1);
  af(gm, "alpha", 0.5f);
  af(gm, "beta", 2.0f);
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {1, 3, 16, 16}}});
  EXPECT_EQ(params.size(), 8u);  // the float initializers
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{1, 5}));
  import_build_run(m, {1, 3, 16, 16});
}

TEST(OnnxImport, ResidualBlockWithDepthwiseDilatedConv) {
  Model m(11);
  m.input("x", {1, 8, 10, 10});
  m.init("w1", {8, 8, 3, 3}, -0.3, 0.3, 1);
  auto* c1 = m.node("Conv", {"x", "w1"}, {"c1"});
  as(c1, "auto_pad", "SAME_LOWER");
  m.node("Relu", {"c1"}, {"r1"});
  m.init("w2", {8, 1, 3, 3}, -0.3, 0.3, 2);  // depthwise, dilation 2
  auto* c2 = m.node("Conv", {"r1", "w2"}, {"c2"});
  ai(c2, "group", 8);
  aints(c2, "dilations", {2, 2});
  aints(c2, "pads", {2, 2, 2, 2});
  m.init("mn", {}, 0, 0.1, 3);
  m.init("mx", {}, 1.0, 1.5, 4);
  m.node("Clip", {"c2", "mn", "mx"}, {"cl"});
  m.node("Add", {"cl", "x"}, {"s"});
  m.node("HardSwish", {"s"}, {"y"});
  m.output("y");
  import_build_run(m, {1, 8, 10, 10});
}

// A video block as R(2+1)D and R3D build them: 3-D convolutions (spatial 1x3x3, temporal 3x1x1
// strided and padded, a full 3x3x3 with groups), BatchNormalization and global pooling of 5-D
// data; the llvm build against the reference executor (the ONNX node tests test_Conv3d* check
// the 3-D convolution against PyTorch's outputs).
TEST(OnnxImport, VideoBlockOf3dConvolutions) {
  Model m(13);
  m.input("x", {1, 3, 6, 10, 10});
  m.init("ws", {8, 3, 1, 3, 3}, -0.5, 0.5, 1);
  aints(m.node("Conv", {"x", "ws"}, {"s"}), "pads", {0, 1, 1, 0, 1, 1});
  m.init("g", {8}, 0.5, 1.5, 2);
  m.init("be", {8}, -0.5, 0.5, 3);
  m.init("mu", {8}, -0.2, 0.2, 4);
  m.init("var", {8}, 0.5, 1.5, 5);
  m.node("BatchNormalization", {"s", "g", "be", "mu", "var"}, {"bn"});
  m.node("Relu", {"bn"}, {"r"});
  m.init("wt", {8, 8, 3, 1, 1}, -0.5, 0.5, 6);
  m.init("bt", {8}, -0.5, 0.5, 7);
  auto* t = m.node("Conv", {"r", "wt", "bt"}, {"t"});
  aints(t, "pads", {1, 0, 0, 1, 0, 0});
  aints(t, "strides", {2, 1, 1});
  m.init("wg", {8, 4, 3, 3, 3}, -0.3, 0.3, 8);
  auto* g = m.node("Conv", {"t", "wg"}, {"c"});
  ai(g, "group", 2);
  aints(g, "dilations", {1, 2, 1});
  as(g, "auto_pad", "SAME_UPPER");
  m.node("GlobalAveragePool", {"c"}, {"ga"});
  m.node("GlobalMaxPool", {"c"}, {"gm"});
  m.node("Add", {"ga", "gm"}, {"y"});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {});
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{1, 8, 1, 1, 1}));
  import_build_run(m, {1, 3, 6, 10, 10});
}

TEST(OnnxImport, TorchStyleShapeFlattenIsFoldedAtImport) {
  Model m(13);
  m.input("x", {2, 4, 3, 3});
  m.init("w", {6, 4, 3, 3}, -0.5, 0.5, 1);
  m.node("Conv", {"x", "w"}, {"c"});
  m.node("Shape", {"c"}, {"sh"});
  m.init_i64("zero", {}, {0});
  m.init_i64("ax0", {1}, {0});
  ai(m.node("Gather", {"sh", "zero"}, {"n"}), "axis", 0);
  m.node("Unsqueeze", {"n", "ax0"}, {"n1"});
  auto* k = m.node("Constant", {}, {"minus1"});
  aints(k, "value_ints", {-1});
  ai(m.node("Concat", {"n1", "minus1"}, {"target"}), "axis", 0);
  m.node("Reshape", {"c", "target"}, {"flat"});
  m.init("fw", {3, 6}, -1, 1, 2);
  m.node("MatMul", {"flat", "fwT"}, {"mm"});
  m.node("Transpose", {"fw"}, {"fwT"});
  m.output("mm");
  // Transpose after its use is a dangling reference: an error naming the node and the input.
  std::string e = import_error(m, {});
  EXPECT_NE(e.find("node 7 'mm' (MatMul): input 1 'fwT' is not produced by any earlier node"),
            std::string::npos)
      << e;
  // In topological order it imports; the shape chain leaves no op behind but the reshape.
  m.g()->mutable_node()->SwapElements(7, 8);
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {});
  int reshapes = 0;
  for (auto& n : post_order(mod.body))
    if (n->is_call("reshape")) {
      ++reshapes;
      EXPECT_EQ(n->attrs["newshape"], Json::parse("[2, -1]"));
    }
  EXPECT_EQ(reshapes, 1);
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{2, 3}));
  import_build_run(m, {2, 4, 3, 3});
}

// LRN with an even size: ONNX's window [c - floor((size-1)/2), c + ceil((size-1)/2)] is [c, c + 1]
// (TVM's topi would take [c - 1, c]); values checked by hand, on the reference and on llvm.
TEST(OnnxImport, LrnEvenSizeWindowAndConv1d) {
  Model m(13);
  m.input("x", {1, 3, 1, 1});
  auto* n = m.node("LRN", {"x"}, {"y"});
  ai(n, "size", 2);
  af(n, "alpha", 2.0f);  // alpha / size = 1
  af(n, "beta", 1.0f);
  af(n, "bias", 1.0f);
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {});
  auto x = runtime::NDArray::from_vector<float>({1, 2, 3}, {1, 3, 1, 1});
  std::vector<float> want{1.0f / 6, 2.0f / 14, 3.0f / 10};
  auto ref = reference_run(mod, {{"x", x}}, params);
  ASSERT_EQ(ref.size(), 1u);
  Built b = build(mod, "llvm", params);
  runtime::GraphExecutor ex(b, Device::cpu());
  ex.set_input("x", x);
  ex.run();
  auto got = ex.get_output(0).copy_to(Device::cpu()).to_vector<float>();
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(ref[0].to_vector<float>()[k], want[k], 1e-6) << k;
    EXPECT_NEAR(got[k], want[k], 1e-6) << k;
  }
  import_build_run(m, {1, 3, 1, 1});

  // A grouped, strided, padded 1-D convolution (lifted to 2-D) followed by LRN over its channels.
  Model c(11);
  c.input("x", {2, 4, 9});
  c.init("w", {6, 2, 3}, -0.5, 0.5, 1);
  c.init("b", {6}, -0.5, 0.5, 2);
  auto* cv = c.node("Conv", {"x", "w", "b"}, {"c"});
  ai(cv, "group", 2);
  aints(cv, "strides", {2});
  aints(cv, "pads", {1, 2});
  aints(cv, "kernel_shape", {3});
  ai(c.node("LRN", {"c"}, {"y"}), "size", 3);
  c.output("y");
  auto imp = frontend::from_onnx_bytes(c.bytes(), {});
  EXPECT_EQ(imp.mod.body->type().shape, (std::vector<int64_t>{2, 6, 5}));
  import_build_run(c, {2, 4, 9});
}

// A transformer encoder block as torch.onnx exports one at opset 17: LayerNormalization, per-head
// Q/K/V through Reshape/Transpose, MatMul of two 4-D graph values (Q K^T, then the weights times
// V: nn.batch_matmul), Softmax, GELU through Erf, residual adds; a B of rank 3 with batch 1 against
// a 4-D A broadcasts. Built for llvm against the reference executor.
TEST(OnnxImport, TransformerBlockWithBatchedMatMul) {
  const int64_t S = 6, D = 8, H = 2, hd = D / H;
  Model m(17);
  m.input("x", {2, S, D});
  m.init("g1", {D}, 0.5, 1.5, 1);
  m.init("b1", {D}, -0.2, 0.2, 2);
  ai(m.node("LayerNormalization", {"x", "g1", "b1"}, {"ln"}), "axis", -1);
  m.init_i64("heads", {4}, {2, S, H, hd});
  uint32_t seed = 3;
  for (std::string n : {"q", "k", "v"}) {
    m.init("w" + n, {D, D}, -0.5, 0.5, seed++);
    m.node("MatMul", {"ln", "w" + n}, {n + "0"});
    m.node("Reshape", {n + "0", "heads"}, {n + "1"});
    aints(m.node("Transpose", {n + "1"}, {n + "2"}), "perm",
          n == "k" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
  }
  m.node("MatMul", {"q2", "k2"}, {"s"});  // (2, H, S, S)
  ai(m.node("Softmax", {"s"}, {"p"}), "axis", -1);
  m.node("MatMul", {"p", "v2"}, {"o"});  // (2, H, S, hd)
  m.init("wb", {1, hd, hd}, -0.5, 0.5, seed++);
  m.node("MatMul", {"o", "wb"}, {"o1"});  // B of rank 3, batch 1: broadcast
  aints(m.node("Transpose", {"o1"}, {"o2"}), "perm", {0, 2, 1, 3});
  m.init_i64("flat", {3}, {2, S, D});
  m.node("Reshape", {"o2", "flat"}, {"o3"});
  m.node("Erf", {"o3"}, {"e"});
  m.node("Mul", {"e", "o3"}, {"ge"});
  m.node("Add", {"ge", "x"}, {"y"});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {2, S, D}}});
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{2, S, D}));
  import_build_run(m, {2, S, D});
  // Batch dimensions that neither agree nor are all 1: a clear error at import.
  Model bad(13);
  bad.input("a", {2, 3, 4, 5});
  bad.init("b", {3, 1, 5, 6}, -1, 1, 9);
  bad.node("MatMul", {"a", "b"}, {"y"});
  bad.output("y");
  EXPECT_NE(import_error(bad, {{"a", {2, 3, 4, 5}}}).find("batch dimensions"), std::string::npos)
      << import_error(bad, {{"a", {2, 3, 4, 5}}});
}

// A segmentation head's upsampling, as torch.onnx exports F.interpolate: a strided conv (its
// output blocked by AlterOpLayout), bilinear x2 (pytorch_half_pixel, constant scales, empty roi),
// a conv, nearest to explicit sizes (asymmetric, floor) and a skip connection; built for llvm
// against the reference executor. Then Resize's values against hand-computed ones, and the
// unsupported forms as clear errors.
TEST(OnnxImport, ResizeInAnUpsamplingNetwork) {
  Model m(13);
  m.input("x", {1, 3, 12, 12});
  m.init("w1", {16, 3, 3, 3}, -0.5, 0.5, 1);
  auto* c1 = m.node("Conv", {"x", "w1"}, {"c1"});
  aints(c1, "strides", {2, 2});
  aints(c1, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"});  // (1, 16, 6, 6)
  m.init_f32("sc", {4}, {1, 1, 2, 2});
  auto* up = m.node("Resize", {"r1", "", "sc"}, {"u1"});  // (1, 16, 12, 12)
  as(up, "mode", "linear");
  as(up, "coordinate_transformation_mode", "pytorch_half_pixel");
  m.init("w2", {3, 16, 1, 1}, -0.5, 0.5, 2);
  m.node("Conv", {"u1", "w2"}, {"c2"});  // (1, 3, 12, 12)
  m.init_i64("sz", {4}, {1, 3, 24, 18});
  auto* nn = m.node("Resize", {"c2", "", "", "sz"}, {"u2"});
  as(nn, "coordinate_transformation_mode", "asymmetric");
  as(nn, "nearest_mode", "floor");
  m.init_f32("sx", {4}, {1, 1, 2, 1.5});
  auto* nx = m.node("Resize", {"x", "", "sx"}, {"ux"});
  as(nx, "coordinate_transformation_mode", "asymmetric");
  as(nx, "nearest_mode", "floor");
  m.node("Add", {"u2", "ux"}, {"y"});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {});
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{1, 3, 24, 18}));
  import_build_run(m, {1, 3, 12, 12});

  // Values: a 2x2 input [[1, 2], [3, 4]] to 4x4.
  auto resize = [](const std::string& mode, const std::string& ctm, const std::string& nearest) {
    Model r(13);
    r.input("x", {1, 1, 2, 2});
    r.init_f32("s", {4}, {1, 1, 2, 2});
    auto* n = r.node("Resize", {"x", "", "s"}, {"y"});
    as(n, "mode", mode);
    as(n, "coordinate_transformation_mode", ctm);
    if (!nearest.empty()) as(n, "nearest_mode", nearest);
    r.output("y");
    auto [f, p] = frontend::from_onnx_bytes(r.bytes(), {});
    Built b = build(f, "llvm", p);
    runtime::GraphExecutor ex(b, Device::cpu());
    ex.set_input("x", runtime::NDArray::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2}));
    ex.run();
    return ex.get_output(0).copy_to(Device::cpu()).to_vector<float>();
  };
  // Nearest, asymmetric, floor: each input pixel repeated 2x2.
  EXPECT_EQ(resize("nearest", "asymmetric", "floor"),
            (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // Bilinear, half_pixel: input coordinates -0.25, 0.25, 0.75, 1.25 per axis, clamped at the edge;
  // a row interpolates 1..2 as 1, 1.25, 1.75, 2 and the columns 1..3 as 1, 1.5, 2.5, 3.
  std::vector<float> lin = resize("linear", "half_pixel", "");
  const float ry[4] = {0, 0.25f, 0.75f, 1}, rx[4] = {0, 0.25f, 0.75f, 1};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_FLOAT_EQ(lin[i * 4 + j], 1 + rx[j] + 2 * ry[i]) << i << "," << j;
  // align_corners: 0, 1/3, 2/3, 1.
  std::vector<float> ac = resize("linear", "align_corners", "");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_NEAR(ac[i * 4 + j], 1 + j / 3.0 + 2 * (i / 3.0), 1e-6) << i << "," << j;

  // Unsupported forms: clear errors at import.
  auto bad = [](const std::function<void(Model&)>& edit) {
    Model r(18);
    r.input("x", {1, 2, 4, 4});
    r.init_f32("s", {4}, {1, 1, 2, 2});
    edit(r);
    r.output("y");
    return import_error(r, {});
  };
  std::string e = bad([](Model& r) {
    r.init_f32("s2", {4}, {1, 2, 2, 2});
    r.node("Resize", {"x", "", "s2"}, {"y"});
  });
  EXPECT_NE(e.find("channels"), std::string::npos) << e;
  e = bad([](Model& r) {
    as(r.node("Resize", {"x", "", "s"}, {"y"}), "coordinate_transformation_mode",
       "tf_crop_and_resize");
  });
  EXPECT_NE(e.find("tf_crop_and_resize"), std::string::npos) << e;
  e = bad([](Model& r) { ai(r.node("Resize", {"x", "", "s"}, {"y"}), "antialias", 1); });
  EXPECT_NE(e.find("antialias"), std::string::npos) << e;
  e = bad([](Model& r) {
    r.init_i64("z", {4}, {1, 2, 8, 8});
    r.node("Resize", {"x", "", "s", "z"}, {"y"});
  });
  EXPECT_NE(e.find("exactly one"), std::string::npos) << e;
  e = bad([](Model& r) {
    r.input("s3", {4});
    r.node("Resize", {"x", "", "s3"}, {"y"});
  });
  EXPECT_NE(e.find("must be a constant"), std::string::npos) << e;
  e = bad([](Model& r) {
    r.init_f32("s4", {4}, {1, 1, 0.1f, 2});
    r.node("Resize", {"x", "", "s4"}, {"y"});
  });
  EXPECT_NE(e.find("output extent"), std::string::npos) << e;
}

// ConvTranspose against its definition, a scatter: input pixel (i, j) adds x * w[kh, kw] to output
// (i * stride - pad_begin + kh * dilation, ...). Groups, strides, dilations, output_padding and
// asymmetric pads at once; then a U-Net decoder step (transposed conv, skip concat, conv) built for
// llvm against the reference executor; then the unsupported forms.
TEST(OnnxImport, ConvTransposeMatchesTheScatterDefinition) {
  const int64_t N = 1, C = 4, H = 5, W = 6, G = 2, COG = 3, KH = 3, KW = 2;
  const int64_t SH = 2, SW = 3, DH = 2, DW = 1, PT = 1, PL = 0, PB = 2, PR = 1, OPH = 1, OPW = 2;
  const int64_t OH = SH * (H - 1) + OPH + (KH - 1) * DH + 1 - PT - PB;
  const int64_t OW = SW * (W - 1) + OPW + (KW - 1) * DW + 1 - PL - PR;
  Model m(13);
  m.input("x", {N, C, H, W});
  m.init("w", {C, COG, KH, KW}, -1, 1, 5);
  m.init("b", {G * COG}, -1, 1, 6);
  auto* n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  ai(n, "group", G);
  aints(n, "strides", {SH, SW});
  aints(n, "dilations", {DH, DW});
  aints(n, "pads", {PT, PL, PB, PR});
  aints(n, "output_padding", {OPH, OPW});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {});
  ASSERT_EQ(mod.body->type().shape, (std::vector<int64_t>{N, G * COG, OH, OW}));
  auto x = relay::testing::random_uniform({N, C, H, W}, -1, 1, 7);
  Built built = build(mod, "llvm", params);
  runtime::GraphExecutor ex(built, Device::cpu());
  ex.set_input("x", x);
  ex.run();
  auto got = ex.get_output(0).copy_to(Device::cpu()).to_vector<float>();
  auto xv = x.to_vector<float>(), wv = params.at("w").to_vector<float>(),
       bv = params.at("b").to_vector<float>();
  std::vector<double> want(N * G * COG * OH * OW);
  for (int64_t o = 0; o < G * COG; ++o)
    for (int64_t k = 0; k < OH * OW; ++k) want[o * OH * OW + k] = bv[o];
  const int64_t CG = C / G;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < H; ++i)
      for (int64_t j = 0; j < W; ++j)
        for (int64_t oc = 0; oc < COG; ++oc)
          for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) {
              int64_t y = i * SH - PT + kh * DH, z = j * SW - PL + kw * DW;
              if (y < 0 || y >= OH || z < 0 || z >= OW) continue;
              int64_t o = (c / CG) * COG + oc;
              want[(o * OH + y) * OW + z] +=
                  double(xv[(c * H + i) * W + j]) * wv[((c * COG + oc) * KH + kh) * KW + kw];
            }
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-4) << k;

  // A U-Net decoder step: upsample by a k2 s2 transposed conv, concat the skip, conv, relu.
  Model u(13);
  u.input("x", {1, 16, 7, 7});
  u.init("wu", {16, 8, 2, 2}, -0.5, 0.5, 8);
  aints(u.node("ConvTranspose", {"x", "wu"}, {"up"}), "strides", {2, 2});
  u.init("skip", {1, 8, 14, 14}, -1, 1, 9);
  ai(u.node("Concat", {"up", "skip"}, {"cat"}), "axis", 1);
  u.init("wc", {8, 16, 3, 3}, -0.5, 0.5, 10);
  aints(u.node("Conv", {"cat", "wc"}, {"c"}), "pads", {1, 1, 1, 1});
  u.node("Relu", {"c"}, {"y"});
  u.output("y");
  import_build_run(u, {1, 16, 7, 7});

  auto bad = [](const std::function<void(::onnx::NodeProto*)>& edit) {
    Model r(13);
    r.input("x", {1, 2, 4, 4});
    r.init("w", {2, 3, 3, 3}, -1, 1, 1);
    edit(r.node("ConvTranspose", {"x", "w"}, {"y"}));
    r.output("y");
    return import_error(r, {});
  };
  std::string e = bad([](::onnx::NodeProto* n) { aints(n, "pads", {3, 0, 0, 0}); });
  EXPECT_NE(e.find("exceed the dilated kernel extent"), std::string::npos) << e;
  e = bad([](::onnx::NodeProto* n) { ai(n, "group", 3); });
  EXPECT_NE(e.find("does not match data"), std::string::npos) << e;
  e = bad([](::onnx::NodeProto* n) { aints(n, "strides", {0, 1}); });
  EXPECT_NE(e.find("strides"), std::string::npos) << e;
  e = bad([](::onnx::NodeProto* n) {
    aints(n, "pads", {1, 1, 1, 1});
    aints(n, "output_shape", {8, 8});
  });
  EXPECT_NE(e.find("cannot both be given"), std::string::npos) << e;
}

// ONNX names are assigned once. A graph input declared twice became two Vars of one name, which
// the reference executor fed one value and the GraphExecutor fed only one of (fuzz_relay_onnx found
// the disagreement); now each violation is an import error.
TEST(OnnxImport, NamesDefinedTwiceAreRejected) {
  auto err = [](const std::function<void(Model&)>& edit) {
    Model m(13);
    m.input("a", {2, 3});
    edit(m);
    m.output("y");
    return import_error(m, {});
  };
  std::string e = err([](Model& m) {
    m.input("a", {2, 3});
    m.node("Max", {"a", "a"}, {"y"});
  });
  EXPECT_NE(e.find("graph input 'a' is declared twice"), std::string::npos) << e;
  e = err([](Model& m) {
    m.init("w", {2, 3}, -1, 1, 1);
    m.init("w", {2, 3}, -1, 1, 2);
    m.node("Add", {"a", "w"}, {"y"});
  });
  EXPECT_NE(e.find("two initializers are named 'w'"), std::string::npos) << e;
  e = err([](Model& m) {
    m.node("Relu", {"a"}, {"t"});
    m.node("Neg", {"a"}, {"t"});
    m.node("Abs", {"t"}, {"y"});
  });
  EXPECT_NE(e.find("output 't' is already defined"), std::string::npos) << e;
  e = err([](Model& m) { m.node("Relu", {"a"}, {"a"}); });
  EXPECT_NE(e.find("output 'a' is already defined"), std::string::npos) << e;
  e = err([](Model& m) { ai(m.node("Split", {"a"}, {"y", "y"}), "axis", 1); });
  EXPECT_NE(e.find("are both named 'y'"), std::string::npos) << e;
}

// Reflect and edge Pad (CycleGAN's ReflectionPad2d), Tile and LogSoftmax against values written out
// by hand, then in a small network against the reference executor.
TEST(OnnxImport, ReflectEdgePadTileAndLogSoftmax) {
  auto run1 = [](const std::function<void(Model&)>& body, const std::vector<int64_t>& shape,
                 const std::vector<float>& x, int64_t opset = 13) {
    Model m(opset);
    m.input("x", shape);
    body(m);
    m.output("y");
    auto [f, p] = frontend::from_onnx_bytes(m.bytes(), {});
    Built b = build(f, "llvm", p);
    runtime::GraphExecutor ex(b, Device::cpu());
    ex.set_input("x", runtime::NDArray::from_vector<float>(x, shape));
    ex.run();
    return ex.get_output(0).copy_to(Device::cpu()).to_vector<float>();
  };
  const std::vector<float> row{1, 2, 3, 4};
  auto pad = [&](const std::string& mode) {
    return run1(
        [&](Model& m) {
          m.init_i64("p", {4}, {0, 2, 0, 3});
          as(m.node("Pad", {"x", "p"}, {"y"}), "mode", mode);
        },
        {1, 4}, row);
  };
  EXPECT_EQ(pad("reflect"), (std::vector<float>{3, 2, 1, 2, 3, 4, 3, 2, 1}));
  EXPECT_EQ(pad("edge"), (std::vector<float>{1, 1, 1, 2, 3, 4, 4, 4, 4}));
  EXPECT_EQ(run1(
                [](Model& m) {
                  m.init_i64("r", {2}, {2, 3});
                  m.node("Tile", {"x", "r"}, {"y"});
                },
                {1, 2}, {5, 6}),
            (std::vector<float>{5, 6, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6}));
  // log_softmax of (0, ln 2, ln 5 + 1000): the large value must not overflow.
  auto ls = run1([](Model& m) { m.node("LogSoftmax", {"x"}, {"y"}); }, {1, 3},
                 {1000.0f, 1000.0f + float(std::log(2.0)), 1000.0f + float(std::log(5.0))});
  ASSERT_EQ(ls.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(ls[i], std::log(std::vector<double>{1, 2, 5}[i] / 8.0), 1e-4) << i;
  // A reflect pad too wide for its axis is an import error.
  Model bad(13);
  bad.input("x", {1, 4});
  bad.init_i64("p", {4}, {0, 4, 0, 0});
  as(bad.node("Pad", {"x", "p"}, {"y"}), "mode", "reflect");
  bad.output("y");
  std::string e = import_error(bad, {});
  EXPECT_NE(e.find("must be less than its extent"), std::string::npos) << e;

  Model net(13);
  net.input("x", {1, 3, 10, 9});
  net.init_i64("p", {8}, {0, 0, 3, 3, 0, 0, 3, 3});
  as(net.node("Pad", {"x", "p"}, {"xp"}), "mode", "reflect");
  net.init("w", {8, 3, 7, 7}, -0.3, 0.3, 3);
  net.node("Conv", {"xp", "w"}, {"c"});
  net.node("Relu", {"c"}, {"r"});
  net.init_i64("q", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
  as(net.node("Pad", {"r", "q"}, {"rp"}), "mode", "edge");
  net.init("w2", {4, 8, 3, 3}, -0.3, 0.3, 4);
  net.node("Conv", {"rp", "w2"}, {"c2"});
  ai(net.node("LogSoftmax", {"c2"}, {"y"}), "axis", 1);
  net.output("y");
  import_build_run(net, {1, 3, 10, 9});
}

// ViT's class token: a (1, 1, D) parameter expanded to the batch (Expand of a graph value),
// concatenated before the tokens, a position embedding added; Size of the input, cast to float,
// scales the result (Size is a constant of the static shape).
TEST(OnnxImport, ExpandAndSizeOfStaticShapes) {
  const int64_t S = 5, D = 8;
  Model m(13);
  m.input("x", {2, S, D});
  m.init("ct", {1, 1, D}, -1, 1, 1);
  m.init_i64("to", {3}, {2, 1, D});
  m.node("Expand", {"ct", "to"}, {"cls"});
  ai(m.node("Concat", {"cls", "x"}, {"tok"}), "axis", 1);
  m.init("pos", {1, S + 1, D}, -1, 1, 2);
  m.node("Add", {"tok", "pos"}, {"e"});
  m.node("Size", {"x"}, {"n"});
  ai(m.node("Cast", {"n"}, {"nf"}), "to", 1);  // FLOAT
  m.node("Div", {"e", "nf"}, {"y"});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {2, S, D}}});
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{2, S + 1, D}));
  import_build_run(m, {2, S, D});
  // The values: row 0 of each batch is the token over 2 * S * D, the rest x + pos over the same.
  auto xv = relay::testing::random_uniform({2, S, D}, -1, 1, 11);
  auto got = reference_run(mod, {{"x", xv}}, params)[0].to_vector<float>();
  auto x = xv.to_vector<float>();
  // (the initializers' values: Model::init draws them with random_uniform)
  auto ct = relay::testing::random_uniform({1, 1, D}, -1, 1, 1).to_vector<float>();
  auto pos = relay::testing::random_uniform({1, S + 1, D}, -1, 1, 2).to_vector<float>();
  const float n = float(2 * S * D);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t t = 0; t <= S; ++t)
      for (int64_t d = 0; d < D; ++d) {
        float want = (t == 0 ? ct[d] : x[(b * S + t - 1) * D + d]) + pos[t * D + d];
        EXPECT_FLOAT_EQ(got[(b * (S + 1) + t) * D + d], want / n) << b << " " << t << " " << d;
      }
  // A shape the input does not broadcast to: an error naming both.
  Model bad(13);
  bad.input("a", {3, 4});
  bad.init_i64("to", {2}, {2, 4});
  bad.node("Expand", {"a", "to"}, {"y"});
  bad.output("y");
  EXPECT_NE(import_error(bad, {{"a", {3, 4}}}).find("does not broadcast"), std::string::npos)
      << import_error(bad, {{"a", {3, 4}}});
}

// Einsum against loop nests: torch's attention spelling (spaces, batch labels), three operands with
// an ellipsis and the implicit output, one operand summed and transposed; a diagonal is refused.
TEST(OnnxImport, EinsumMatchesLoopNests) {
  auto run = [](const Model& m, const std::vector<int64_t>& xs) {
    auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", xs}});
    auto xv = relay::testing::random_uniform(xs, -1, 1, 11);
    import_build_run(m, xs);
    return std::make_pair(xv.to_vector<float>(),
                          reference_run(mod, {{"x", xv}}, params)[0].to_vector<float>());
  };
  {  // maxvit's 'B G H I D, B G H J D -> B G H I J'
    const int64_t G = 2, H = 3, I = 5, J = 6, D = 4;
    Model m(13);
    m.input("x", {1, G, H, I, D});
    m.init("k", {1, G, H, J, D}, -1, 1, 3);
    as(m.node("Einsum", {"x", "k"}, {"y"}), "equation", "B G H I D, B G H J D -> B G H I J");
    m.output("y");
    auto [x, got] = run(m, {1, G, H, I, D});
    auto k = relay::testing::random_uniform({1, G, H, J, D}, -1, 1, 3).to_vector<float>();
    ASSERT_EQ(got.size(), size_t(G * H * I * J));
    for (int64_t g = 0; g < G * H; ++g)
      for (int64_t i = 0; i < I; ++i)
        for (int64_t j = 0; j < J; ++j) {
          double s = 0;
          for (int64_t d = 0; d < D; ++d)
            s += double(x[(g * I + i) * D + d]) * k[(g * J + j) * D + d];
          EXPECT_NEAR(got[(g * I + i) * J + j], s, 1e-5) << g << " " << i << " " << j;
        }
  }
  {  // '...ij,jk,kl' (implicit output '...il'), the ellipsis covering one dim
    const int64_t E = 2, I = 3, J = 4, K = 5, L = 6;
    Model m(13);
    m.input("x", {E, I, J});
    m.init("a", {J, K}, -1, 1, 4);
    m.init("b", {K, L}, -1, 1, 5);
    as(m.node("Einsum", {"x", "a", "b"}, {"y"}), "equation", "...ij,jk,kl");
    m.output("y");
    auto [x, got] = run(m, {E, I, J});
    auto a = relay::testing::random_uniform({J, K}, -1, 1, 4).to_vector<float>();
    auto b = relay::testing::random_uniform({K, L}, -1, 1, 5).to_vector<float>();
    ASSERT_EQ(got.size(), size_t(E * I * L));
    for (int64_t e = 0; e < E; ++e)
      for (int64_t i = 0; i < I; ++i)
        for (int64_t l = 0; l < L; ++l) {
          double s = 0;
          for (int64_t j = 0; j < J; ++j)
            for (int64_t k = 0; k < K; ++k)
              s += double(x[(e * I + i) * J + j]) * a[j * K + k] * b[k * L + l];
          EXPECT_NEAR(got[(e * I + i) * L + l], s, 1e-4) << e << " " << i << " " << l;
        }
  }
  {  // one operand: 'ijk->ki' sums over j
    const int64_t I = 3, J = 4, K = 5;
    Model m(13);
    m.input("x", {I, J, K});
    as(m.node("Einsum", {"x"}, {"y"}), "equation", "ijk->ki");
    m.output("y");
    auto [x, got] = run(m, {I, J, K});
    ASSERT_EQ(got.size(), size_t(K * I));
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < I; ++i) {
        double s = 0;
        for (int64_t j = 0; j < J; ++j) s += x[(i * J + j) * K + k];
        EXPECT_NEAR(got[k * I + i], s, 1e-5) << k << " " << i;
      }
  }
  Model bad(13);
  bad.input("x", {3, 3});
  as(bad.node("Einsum", {"x"}, {"y"}), "equation", "ii->i");
  bad.output("y");
  std::string err = import_error(bad, {{"x", {3, 3}}});
  EXPECT_NE(err.find("repeats label 'i'"), std::string::npos) << err;
}

// Integer shape logic (torch's masks and index arithmetic) evaluated at import: Range, Mod with
// the divisor's sign, Equal, Not, Greater, And, Where, ConstantOfShape with an int64 value and
// ScatterND, cast to float and added to a graph input; the result against the same formulas.
TEST(OnnxImport, IntegerLogicFoldsAtImport) {
  Model m(13);
  m.input("x", {6});
  m.init_i64("start", {}, {-3});
  m.init_i64("limit", {}, {3});
  m.init_i64("delta", {}, {1});
  m.init_i64("four", {}, {4});
  m.init_i64("two", {}, {2});
  m.init_i64("zero", {}, {0});
  m.init_i64("six", {1}, {6});
  m.init_i64("where", {2, 1}, {0, 5});
  m.init_i64("upd", {2}, {10, 20});
  m.node("Range", {"start", "limit", "delta"}, {"r"});
  m.node("Mod", {"r", "four"}, {"md"});
  m.node("Equal", {"md", "two"}, {"eq"});
  m.node("Not", {"eq"}, {"ne"});
  m.node("Greater", {"r", "zero"}, {"pos"});
  m.node("And", {"ne", "pos"}, {"pick"});
  auto* cos = m.node("ConstantOfShape", {"six"}, {"sevens"});
  auto* va = cos->add_attribute();
  va->set_name("value");
  va->set_type(::onnx::AttributeProto_AttributeType_TENSOR);
  va->mutable_t()->set_data_type(::onnx::TensorProto_DataType_INT64);
  va->mutable_t()->add_dims(1);
  va->mutable_t()->add_int64_data(7);
  m.node("ScatterND", {"sevens", "where", "upd"}, {"sc"});
  m.node("Where", {"pick", "md", "sc"}, {"w"});
  ai(m.node("Cast", {"w"}, {"wf"}), "to", 1);  // FLOAT
  m.node("Add", {"x", "wf"}, {"y"});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {6}}});
  auto xv = relay::testing::random_uniform({6}, -1, 1, 11);
  auto got = reference_run(mod, {{"x", xv}}, params)[0].to_vector<float>();
  auto x = xv.to_vector<float>();
  ASSERT_EQ(got.size(), 6u);
  for (int64_t k = 0; k < 6; ++k) {
    int64_t r = k - 3, md = ((r % 4) + 4) % 4;
    int64_t sc = k == 0 ? 10 : k == 5 ? 20 : 7;
    bool pick = md != 2 && r > 0;
    EXPECT_FLOAT_EQ(got[k], x[k] + float(pick ? md : sc)) << k;
  }
  import_build_run(m, {6});
  // A mask op on a graph tensor: an error saying it needs a constant.
  Model bad(13);
  bad.input("x", {4});
  bad.init_i64("z", {}, {0});
  bad.node("Equal", {"x", "z"}, {"y"});
  bad.output("y");
  std::string err = import_error(bad, {{"x", {4}}});
  EXPECT_NE(err.find("must be a constant or initializer"), std::string::npos) << err;
}

// Slices with steps on graph tensors (swin's x[:, 0::2, 1::2, :], reversed axes): against the
// indices they pick.
TEST(OnnxImport, SteppedSlicesOfGraphTensors) {
  const int64_t A = 2, B = 7, C = 9;
  // axis 1: 0, 2, 4, 6 (the range padded to 8); axis 2: 8, 6, 4, 2 (reversed, step 2);
  // then axis 0 from the end with step -1.
  Model m(13);
  m.input("x", {A, B, C});
  m.init_i64("st", {3}, {-1, 0, 8});
  m.init_i64("en", {3}, {-3, 100, 1});
  m.init_i64("ax", {3}, {0, 1, 2});
  m.init_i64("sp", {3}, {-1, 2, -2});
  m.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
  m.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {A, B, C}}});
  EXPECT_EQ(mod.body->type().shape, (std::vector<int64_t>{2, 4, 4}));
  auto xv = relay::testing::random_uniform({A, B, C}, -1, 1, 11);
  auto got = reference_run(mod, {{"x", xv}}, params)[0].to_vector<float>();
  auto x = xv.to_vector<float>();
  ASSERT_EQ(got.size(), 32u);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 4; ++c)
        EXPECT_EQ(got[(a * 4 + b) * 4 + c], x[((1 - a) * B + 2 * b) * C + (8 - 2 * c)])
            << a << " " << b << " " << c;
  import_build_run(m, {A, B, C});
  // Step 3 from 1 on axis 2 (1, 4, 7): the range [1, 8) split off, no padding.
  Model m3(13);
  m3.input("x", {A, B, C});
  m3.init_i64("st", {1}, {1});
  m3.init_i64("en", {1}, {9});
  m3.init_i64("ax", {1}, {2});
  m3.init_i64("sp", {1}, {3});
  m3.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
  m3.output("y");
  auto i3 = frontend::from_onnx_bytes(m3.bytes(), {{"x", {A, B, C}}});
  auto got3 = reference_run(i3.mod, {{"x", xv}}, i3.params)[0].to_vector<float>();
  ASSERT_EQ(got3.size(), size_t(A * B * 3));
  for (int64_t r = 0; r < A * B; ++r)
    for (int64_t c = 0; c < 3; ++c)
      EXPECT_EQ(got3[r * 3 + c], x[r * C + 1 + 3 * c]) << r << " " << c;
  import_build_run(m3, {A, B, C});
}

// Gather of constant indices from a graph tensor: torch's as_strided views (a permuted block of the
// axis, and the same with a step and an offset) and a short arbitrary list, against the indices.
TEST(OnnxImport, GatherOfConstantIndicesFromAGraphTensor) {
  auto check = [](int64_t axis_len, const std::vector<int64_t>& ishape,
                  const std::vector<int64_t>& idx) {
    const int64_t A = 2, C = 3;
    Model m(13);
    m.input("x", {A, axis_len, C});
    m.init_i64("i", ishape, idx);
    ai(m.node("Gather", {"x", "i"}, {"y"}), "axis", 1);
    m.output("y");
    auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {A, axis_len, C}}});
    auto xv = relay::testing::random_uniform({A, axis_len, C}, -1, 1, 11);
    auto got = reference_run(mod, {{"x", xv}}, params)[0].to_vector<float>();
    auto x = xv.to_vector<float>();
    const int64_t n = int64_t(idx.size());
    ASSERT_EQ(got.size(), size_t(A * n * C));
    for (int64_t a = 0; a < A; ++a)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t c = 0; c < C; ++c)
          EXPECT_EQ(got[(a * n + k) * C + c],
                    x[(a * axis_len + (idx[k] + axis_len) % axis_len) * C + c])
              << a << " " << k << " " << c;
    import_build_run(m, {A, axis_len, C});
  };
  std::vector<int64_t> perm, stepped;
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 2; ++c) {
        perm.push_back(2 * a + 4 * b + c);               // a permutation of 0..11
        stepped.push_back(1 + 2 * (2 * a + 4 * b + c));  // every other element from 1
      }
  check(12, {2, 3, 2}, perm);
  check(24, {2, 3, 2}, stepped);
  check(9, {4}, {5, 0, 5, 3});  // repeats and any order: one-element slices
  check(9, {}, {-2});           // a scalar index drops the axis
  // A long list that is no strided block: a product with a one-hot matrix (Swin V2's bias table).
  std::vector<int64_t> many;
  for (int64_t k = 0; k < 80; ++k) many.push_back((k * 37) % 9);
  check(9, {8, 10}, many);
  // Too many index-axis pairs for the one-hot matrix: an error that says so.
  Model bad(13);
  bad.input("x", {1, 5000});
  std::vector<int64_t> lots;
  for (int64_t k = 0; k < 4000; ++k) lots.push_back((k * 37) % 5000);
  bad.init_i64("i", {4000}, lots);
  ai(bad.node("Gather", {"x", "i"}, {"y"}), "axis", 1);
  bad.output("y");
  std::string err = import_error(bad, {{"x", {1, 5000}}});
  EXPECT_NE(err.find("too many"), std::string::npos) << err;
}

// GatherND (batch_dims 0) of constant index tuples from a graph tensor (torch's dynamo export of
// advanced indexing), few and many tuples, against the tuples.
TEST(OnnxImport, GatherNDOfConstantTuples) {
  const int64_t A = 4, B = 5, C = 3;
  for (int64_t n : {6, 70}) {
    std::vector<int64_t> tup;
    for (int64_t j = 0; j < n; ++j) tup.insert(tup.end(), {(j * 3) % A, (j * 7 + 1) % B});
    Model m(13);
    m.input("x", {A, B, C});
    m.init_i64("i", {n, 2}, tup);
    m.node("GatherND", {"x", "i"}, {"y"});
    m.output("y");
    auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {A, B, C}}});
    auto xv = relay::testing::random_uniform({A, B, C}, -1, 1, 11);
    auto got = reference_run(mod, {{"x", xv}}, params)[0].to_vector<float>();
    auto x = xv.to_vector<float>();
    ASSERT_EQ(got.size(), size_t(n * C));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < C; ++c)
        EXPECT_EQ(got[j * C + c], x[(tup[2 * j] * B + tup[2 * j + 1]) * C + c]) << j << " " << c;
    import_build_run(m, {A, B, C});
  }
}

// Initializers in an external data file (torch.onnx's dynamo exporter writes them so): read from
// beside the model, equal to the same model with the data inline; a location that leaves the
// model's directory, a missing file, a range past the end and from_onnx_bytes are errors.
TEST(OnnxImport, ExternalDataInitializers) {
  fs::path dir = fs::temp_directory_path() / ("minitvm_extdata_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Model m(13);
  m.input("x", {2, 8});
  m.init("w", {4, 8}, -1, 1, 3);
  m.init("b", {4}, -1, 1, 4);
  ai(m.node("Gemm", {"x", "w", "b"}, {"y"}), "transB", 1);
  m.output("y");
  ::onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(m.bytes()));
  // Move both initializers into one data file, w at offset 0 and b after it.
  std::string blob;
  for (const auto& t : proto.graph().initializer()) blob += t.raw_data();
  auto externalize = [&](const std::string& loc, bool with_length) {
    ::onnx::ModelProto p = proto;
    int64_t off = 0;
    for (auto& t : *p.mutable_graph()->mutable_initializer()) {
      std::string raw = t.raw_data();
      t.clear_raw_data();
      t.set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
      auto add = [&](const std::string& k, const std::string& v) {
        auto* e = t.add_external_data();
        e->set_key(k);
        e->set_value(v);
      };
      add("location", loc);
      add("offset", std::to_string(off));
      if (with_length) add("length", std::to_string(raw.size()));
      off += int64_t(raw.size());
    }
    return p;
  };
  auto write = [&](const fs::path& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
  };
  ::onnx::ModelProto ext = externalize("model.data", true);
  write(dir / "model.data", blob);
  write(dir / "model.onnx", ext.SerializeAsString());
  auto inline_imp = frontend::from_onnx_bytes(m.bytes(), {});
  auto ext_imp = frontend::from_onnx((dir / "model.onnx").string(), {});
  auto xv = relay::testing::random_uniform({2, 8}, -1, 1, 11);
  auto want = reference_run(inline_imp.mod, {{"x", xv}}, inline_imp.params)[0];
  auto got = reference_run(ext_imp.mod, {{"x", xv}}, ext_imp.params)[0];
  EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>());
  auto error_of = [&](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // From bytes there is no directory to read from.
  std::string err = error_of([&] { frontend::from_onnx_bytes(ext.SerializeAsString(), {}); });
  EXPECT_NE(err.find("external file 'model.data'"), std::string::npos) << err;
  // Outside the model's directory.
  write(dir / "up.onnx", externalize("../model.data", true).SerializeAsString());
  err = error_of([&] { frontend::from_onnx((dir / "up.onnx").string(), {}); });
  EXPECT_NE(err.find("inside the model's directory"), std::string::npos) << err;
  // A missing file.
  write(dir / "missing.onnx", externalize("nothing.data", true).SerializeAsString());
  err = error_of([&] { frontend::from_onnx((dir / "missing.onnx").string(), {}); });
  EXPECT_NE(err.find("cannot open its external data file"), std::string::npos) << err;
  // A file shorter than the tensors (no length given: the rest of the file, which is short).
  write(dir / "short.data", blob.substr(0, 40));
  write(dir / "short.onnx", externalize("short.data", false).SerializeAsString());
  err = error_of([&] { frontend::from_onnx((dir / "short.onnx").string(), {}); });
  EXPECT_NE(err.find("past the end"), std::string::npos) << err;
  fs::remove_all(dir);
}

// ReduceLogSumExp (its libonnx-testdata directories are float64): log(sum(exp(x))) over axis 1
// without keepdims, inputs up to 100 (exp alone would overflow float32), against a naive loop.
TEST(OnnxImport, ReduceLogSumExpOfLargeValues) {
  Model one(13);
  one.input("x", {2, 5, 3});
  auto* n = one.node("ReduceLogSumExp", {"x"}, {"y"});
  aints(n, "axes", {1});
  ai(n, "keepdims", 0);
  one.output("y");
  auto [mod, params] = frontend::from_onnx_bytes(one.bytes(), {{"x", {2, 5, 3}}});
  ASSERT_EQ(mod.body->type().shape, (std::vector<int64_t>{2, 3}));
  auto xv = relay::testing::random_uniform({2, 5, 3}, 60, 100, 5);
  auto x = xv.to_vector<float>();
  Built b = build(mod, "llvm", params);
  runtime::GraphExecutor ex(b, Device::cpu());
  ex.set_input("x", xv);
  ex.run();
  auto got = ex.get_output(0).copy_to(Device::cpu()).to_vector<float>();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 3; ++k) {
      double mx = -1e300, s = 0;
      for (int64_t j = 0; j < 5; ++j) mx = std::max(mx, double(x[(i * 5 + j) * 3 + k]));
      for (int64_t j = 0; j < 5; ++j) s += std::exp(double(x[(i * 5 + j) * 3 + k]) - mx);
      EXPECT_NEAR(got[i * 3 + k], mx + std::log(s), 1e-4) << i << " " << k;
    }
}

// Gelu (opset 20, exact and tanh forms), Mish, Softsign and Celu (alpha 2) built for llvm against
// their formulas in double (libonnx-testdata has no Gelu or Mish directories).
TEST(OnnxImport, SmoothActivationsMatchTheirFormulas) {
  struct Case {
    std::string op, approximate;
    std::function<double(double)> f;
  };
  const double pi = 3.14159265358979323846;
  std::vector<Case> cases = {
      {"Gelu", "", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"Gelu", "tanh",
       [&](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
       }},
      {"Mish", "", [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {"Softsign", "", [](double x) { return x / (1 + std::fabs(x)); }},
      {"Celu", "",
       [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * std::expm1(x / 2)); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + c.approximate);
    Model m(20);
    m.input("x", {3, 40});
    auto* n = m.node(c.op, {"x"}, {"y"});
    if (!c.approximate.empty()) as(n, "approximate", c.approximate);
    if (c.op == "Celu") af(n, "alpha", 2.0f);
    m.output("y");
    auto [mod, params] = frontend::from_onnx_bytes(m.bytes(), {{"x", {3, 40}}});
    auto xv = relay::testing::random_uniform({3, 40}, -6, 6, 21);
    Built b = build(mod, "llvm", params);
    runtime::GraphExecutor ex(b, Device::cpu());
    ex.set_input("x", xv);
    ex.run();
    auto got = ex.get_output(0).copy_to(Device::cpu()).to_vector<float>();
    auto x = xv.to_vector<float>();
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(got[i], c.f(x[i]), 2e-5 * (1 + std::fabs(c.f(x[i])))) << x[i];
  }
}

TEST(OnnxImport, ErrorsNameNodeOpAndAttribute) {
  {
    Model m;
    m.input("x", {1, 3, 4, 4});
    m.node("NonMaxSuppression", {"x"}, {"y"}, "nms");
    m.output("y");
    EXPECT_NE(import_error(m, {}).find(
                  "node 0 'nms' (NonMaxSuppression): op NonMaxSuppression is not supported"),
              std::string::npos);
  }
  {
    Model m;
    m.input("x", {1, 3, 4, 4});
    m.node("Relu", {"x"}, {"r"});
    auto* p = m.node("MaxPool", {"r"}, {"y"}, "pool");
    aints(p, "kernel_shape", {2, 2});
    ai(p, "storage_order", 1);
    m.output("y");
    EXPECT_EQ(import_error(m, {}),
              "from_onnx: node 1 'pool' (MaxPool): attribute 'storage_order' = 1 is not supported");
    p->mutable_attribute()->RemoveLast();
    aints(p, "strides", {0, 1});
    EXPECT_EQ(import_error(m, {}),
              "from_onnx: node 1 'pool' (MaxPool): attribute 'strides' has a value 0 < 1");
    p->mutable_attribute()->RemoveLast();
    ai(p, "p", 2);
    EXPECT_EQ(import_error(m, {}),
              "from_onnx: node 1 'pool' (MaxPool): attribute 'p' of MaxPool is not supported");
  }
  {
    Model m;
    m.input("x", {1, 3, 4, 4});
    m.init_i64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
    as(m.node("Pad", {"x", "pads"}, {"y"}, "pad"), "mode", "wrap");  // opset 19's
    m.output("y");
    EXPECT_EQ(import_error(m, {}),
              "from_onnx: node 0 'pad' (Pad): attribute 'mode' = 'wrap' is not supported "
              "(constant, edge, reflect)");
  }
  {
    Model m;
    m.input("x", {1, 3, 4, 4}, "batch");
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    EXPECT_EQ(import_error(m, {}),
              "from_onnx: no shape given for graph input 'x' and its shape in the model "
              "(?, 3, 4, 4) is not static; pass it in the shape dict");
    EXPECT_EQ(import_error(m, {{"x", {2, 3, 5, 4}}}),
              "from_onnx: the shape given for input 'x' (2, 3, 5, 4) "
              "disagrees with the model's (?, 3, 4, 4)");
    EXPECT_EQ(import_error(m, {{"x", {2, 3, 4, 4}}, {"data", {1}}}),
              "from_onnx: a shape is given for 'data', which is not a graph input of the model");
  }
  {
    // A 3-D Conv (a batched 2-D one over its output frames): attributes of the wrong length and
    // a weight whose groups do not match the data say so.
    Model m;
    m.input("x", {1, 4, 5, 6, 6});
    m.init("w", {2, 4, 3, 3, 3}, -1, 1, 1);
    aints(m.node("Conv", {"x", "w"}, {"y"}, "c3"), "pads", {1, 1, 1, 1});
    m.output("y");
    EXPECT_EQ(import_error(m, {}),
              "from_onnx: node 0 'c3' (Conv): attribute 'pads' has 4 values; expected 6 (3-D)");
    Model g;
    g.input("x", {1, 4, 5, 6, 6});
    g.init("w", {2, 2, 3, 3, 3}, -1, 1, 1);
    g.node("Conv", {"x", "w"}, {"y"}, "c3");
    g.output("y");
    EXPECT_EQ(import_error(g, {}),
              "from_onnx: node 0 'c3' (Conv): weight (2, 2, 3, 3, 3) with group 1 does not match "
              "data (1, 4, 5, 6, 6) (4 channels)");
  }
  {
    // A relay type error gets the ONNX node in front.
    Model m;
    m.input("x", {1, 3, 4, 4});
    m.init("w", {2, 4, 3, 3}, -1, 1, 1);
    m.node("Conv", {"x", "w"}, {"y"}, "conv");
    m.output("y");
    std::string e = import_error(m, {});
    EXPECT_EQ(e.rfind("from_onnx: node 0 'conv' (Conv): nn.conv2d", 0), 0u) << e;
  }
}

// ---- ONNX node tests
// -----------------------------------------------------------------------------

namespace {

const char* kDataDir = "/usr/share/libonnx-testdata/data";
const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";
const char* kGroups[] = {"node", "pytorch-converted", "pytorch-operator"};

// Test directories (node, pytorch-converted, pytorch-operator) of the op/attribute combinations the
// importer supports: all must pass (reference executor and the llvm build).
const std::vector<const char*> kMustPass = {
    "test_AvgPool1d",
    "test_AvgPool1d_stride",
    "test_AvgPool2d",
    "test_AvgPool2d_stride",
    "test_AvgPool3d",
    "test_AvgPool3d_stride",
    "test_AvgPool3d_stride1_pad0_gpu_input",
    "test_BatchNorm1d_3d_input_eval",
    "test_BatchNorm2d_eval",
    "test_BatchNorm2d_momentum_eval",
    "test_BatchNorm3d_eval",
    "test_BatchNorm3d_momentum_eval",
    "test_ConstantPad2d",
    "test_Conv1d",
    "test_Conv1d_dilated",
    "test_Conv1d_groups",
    "test_Conv1d_pad1",
    "test_Conv1d_pad1size1",
    "test_Conv1d_pad2",
    "test_Conv1d_pad2size1",
    "test_Conv1d_stride",
    "test_Conv2d",
    "test_Conv2d_depthwise",
    "test_Conv2d_depthwise_padded",
    "test_Conv2d_depthwise_strided",
    "test_Conv2d_depthwise_with_multiplier",
    "test_Conv2d_dilated",
    "test_Conv2d_groups",
    "test_Conv2d_groups_thnn",
    "test_Conv2d_no_bias",
    "test_Conv2d_padding",
    "test_Conv2d_strided",
    "test_Conv3d",
    "test_Conv3d_dilated",
    "test_Conv3d_dilated_strided",
    "test_Conv3d_groups",
    "test_Conv3d_no_bias",
    "test_Conv3d_stride",
    "test_Conv3d_stride_padding",
    "test_ConvTranspose2d",
    "test_ConvTranspose2d_no_bias",
    "test_ELU",
    "test_Embedding",
    "test_Embedding_sparse",
    "test_GLU",
    "test_GLU_dim",
    "test_LeakyReLU",
    "test_LeakyReLU_with_negval",
    "test_Linear",
    "test_Linear_no_bias",
    "test_LogSoftmax",
    "test_MaxPool1d",
    "test_MaxPool1d_stride",
    "test_MaxPool2d",
    "test_MaxPool3d",
    "test_MaxPool3d_stride",
    "test_MaxPool3d_stride_padding",
    "test_PReLU_1d",
    "test_PReLU_1d_multiparam",
    "test_PReLU_2d",
    "test_PReLU_2d_multiparam",
    "test_PReLU_3d",
    "test_PReLU_3d_multiparam",
    "test_PixelShuffle",
    "test_PoissonNLLLLoss_no_reduce",
    "test_ReLU",
    "test_ReflectionPad2d",
    "test_ReplicationPad2d",
    "test_SELU",
    "test_Sigmoid",
    "test_Softmax",
    "test_Softmin",
    "test_Softplus",
    "test_Softsign",
    "test_Tanh",
    "test_ZeroPad2d",
    "test_abs",
    "test_add",
    "test_add_bcast",
    "test_averagepool_1d_default",
    "test_averagepool_2d_ceil",
    "test_averagepool_2d_default",
    "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad",
    "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad",
    "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides",
    "test_averagepool_2d_same_lower",
    "test_averagepool_2d_same_upper",
    "test_averagepool_2d_strides",
    "test_averagepool_3d_default",
    "test_basic_conv_with_padding",
    "test_basic_conv_without_padding",
    "test_batchnorm_epsilon",
    "test_batchnorm_example",
    "test_cast_DOUBLE_to_FLOAT",
    "test_castlike_DOUBLE_to_FLOAT_expanded",
    "test_ceil",
    "test_ceil_example",
    "test_celu",
    "test_celu_expanded",
    "test_clip",
    "test_clip_default_inbounds",
    "test_clip_default_max",
    "test_clip_default_min",
    "test_clip_example",
    "test_clip_inbounds",
    "test_clip_outbounds",
    "test_clip_splitbounds",
    "test_concat_1d_axis_0",
    "test_concat_1d_axis_negative_1",
    "test_concat_2d_axis_0",
    "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1",
    "test_concat_2d_axis_negative_2",
    "test_concat_3d_axis_0",
    "test_concat_3d_axis_1",
    "test_concat_3d_axis_2",
    "test_concat_3d_axis_negative_1",
    "test_concat_3d_axis_negative_2",
    "test_concat_3d_axis_negative_3",
    "test_constant",
    "test_constant_pad",
    "test_conv_with_autopad_same",
    "test_conv_with_strides_and_asymmetric_padding",
    "test_conv_with_strides_no_padding",
    "test_conv_with_strides_padding",
    "test_convtranspose",
    "test_convtranspose_1d",
    "test_convtranspose_autopad_same",
    "test_convtranspose_dilations",
    "test_convtranspose_kernel_shape",
    "test_convtranspose_output_shape",
    "test_convtranspose_pad",
    "test_convtranspose_pads",
    "test_convtranspose_with_kernel",
    "test_div",
    "test_div_bcast",
    "test_div_example",
    "test_dropout_default",
    "test_dropout_default_old",
    "test_dropout_default_ratio",
    "test_dropout_random_old",
    "test_elu",
    "test_elu_default",
    "test_elu_example",
    "test_erf",
    "test_exp",
    "test_exp_example",
    "test_expand_dim_changed",
    "test_expand_dim_unchanged",
    "test_flatten_axis0",
    "test_flatten_axis1",
    "test_flatten_axis2",
    "test_flatten_axis3",
    "test_flatten_default_axis",
    "test_flatten_negative_axis1",
    "test_flatten_negative_axis2",
    "test_flatten_negative_axis3",
    "test_flatten_negative_axis4",
    "test_floor",
    "test_floor_example",
    "test_gemm_all_attributes",
    "test_gemm_alpha",
    "test_gemm_beta",
    "test_gemm_default_matrix_bias",
    "test_gemm_default_no_bias",
    "test_gemm_default_scalar_bias",
    "test_gemm_default_single_elem_vector_bias",
    "test_gemm_default_vector_bias",
    "test_gemm_default_zero_bias",
    "test_gemm_transposeA",
    "test_gemm_transposeB",
    "test_globalaveragepool",
    "test_globalaveragepool_precomputed",
    "test_globalmaxpool",
    "test_globalmaxpool_precomputed",
    "test_hardsigmoid",
    "test_hardsigmoid_default",
    "test_hardsigmoid_example",
    "test_hardswish",
    "test_hardswish_expanded",
    "test_identity",
    "test_instancenorm_epsilon",
    "test_instancenorm_example",
    "test_layer_normalization_2d_axis0",
    "test_layer_normalization_2d_axis1",
    "test_layer_normalization_2d_axis_negative_1",
    "test_layer_normalization_2d_axis_negative_2",
    "test_layer_normalization_3d_axis0_epsilon",
    "test_layer_normalization_3d_axis1_epsilon",
    "test_layer_normalization_3d_axis2_epsilon",
    "test_layer_normalization_3d_axis_negative_1_epsilon",
    "test_layer_normalization_3d_axis_negative_2_epsilon",
    "test_layer_normalization_3d_axis_negative_3_epsilon",
    "test_layer_normalization_4d_axis0",
    "test_layer_normalization_4d_axis1",
    "test_layer_normalization_4d_axis2",
    "test_layer_normalization_4d_axis3",
    "test_layer_normalization_4d_axis_negative_1",
    "test_layer_normalization_4d_axis_negative_2",
    "test_layer_normalization_4d_axis_negative_3",
    "test_layer_normalization_4d_axis_negative_4",
    "test_layer_normalization_default_axis",
    "test_leakyrelu",
    "test_leakyrelu_default",
    "test_leakyrelu_example",
    "test_log",
    "test_log_example",
    "test_log_softmax_dim3",
    "test_log_softmax_lastdim",
    "test_logsoftmax_axis_0",
    "test_logsoftmax_axis_0_expanded",
    "test_logsoftmax_axis_1",
    "test_logsoftmax_axis_1_expanded",
    "test_logsoftmax_axis_2",
    "test_logsoftmax_axis_2_expanded",
    "test_logsoftmax_default_axis",
    "test_logsoftmax_default_axis_expanded",
    "test_logsoftmax_example_1",
    "test_logsoftmax_example_1_expanded",
    "test_logsoftmax_large_number",
    "test_logsoftmax_large_number_expanded",
    "test_logsoftmax_negative_axis",
    "test_logsoftmax_negative_axis_expanded",
    "test_lrn",
    "test_lrn_default",
    "test_matmul_2d",
    "test_matmul_3d",
    "test_matmul_4d",
    "test_max_example",
    "test_max_float32",
    "test_max_one_input",
    "test_max_two_inputs",
    "test_maxpool_1d_default",
    "test_maxpool_2d_ceil",
    "test_maxpool_2d_default",
    "test_maxpool_2d_pads",
    "test_maxpool_2d_precomputed_pads",
    "test_maxpool_2d_precomputed_same_upper",
    "test_maxpool_2d_precomputed_strides",
    "test_maxpool_2d_same_lower",
    "test_maxpool_2d_same_upper",
    "test_maxpool_2d_strides",
    "test_maxpool_3d_default",
    "test_mean_example",
    "test_mean_one_input",
    "test_mean_two_inputs",
    "test_min_example",
    "test_min_float32",
    "test_min_one_input",
    "test_min_two_inputs",
    "test_mul",
    "test_mul_bcast",
    "test_mul_example",
    "test_mvn_expanded",
    "test_neg",
    "test_neg_example",
    "test_operator_addmm",
    "test_operator_basic",
    "test_operator_chunk",
    "test_operator_clip",
    "test_operator_concat2",
    "test_operator_conv",
    "test_operator_convtranspose",
    "test_operator_exp",
    "test_operator_flatten",
    "test_operator_index",
    "test_operator_max",
    "test_operator_min",
    "test_operator_mm",
    "test_operator_pad",
    "test_operator_params",
    "test_operator_permute2",
    "test_operator_pow",
    "test_operator_reduced_mean",
    "test_operator_reduced_mean_keepdim",
    "test_operator_reduced_sum",
    "test_operator_reduced_sum_keepdim",
    "test_operator_repeat",
    "test_operator_repeat_dim_overflow",
    "test_operator_selu",
    "test_operator_sqrt",
    "test_operator_symbolic_override",
    "test_operator_symbolic_override_nested",
    "test_operator_view",
    "test_pow",
    "test_pow_bcast_array",
    "test_pow_bcast_scalar",
    "test_pow_example",
    "test_prelu_broadcast",
    "test_prelu_example",
    "test_reciprocal",
    "test_reciprocal_example",
    "test_reduce_l1_default_axes_keepdims_example",
    "test_reduce_l1_default_axes_keepdims_random",
    "test_reduce_l1_do_not_keepdims_example",
    "test_reduce_l1_do_not_keepdims_random",
    "test_reduce_l1_keep_dims_example",
    "test_reduce_l1_keep_dims_random",
    "test_reduce_l1_negative_axes_keep_dims_example",
    "test_reduce_l1_negative_axes_keep_dims_random",
    "test_reduce_l2_default_axes_keepdims_example",
    "test_reduce_l2_default_axes_keepdims_random",
    "test_reduce_l2_do_not_keepdims_example",
    "test_reduce_l2_do_not_keepdims_random",
    "test_reduce_l2_keep_dims_example",
    "test_reduce_l2_keep_dims_random",
    "test_reduce_l2_negative_axes_keep_dims_example",
    "test_reduce_l2_negative_axes_keep_dims_random",
    "test_reduce_log_sum",
    "test_reduce_log_sum_asc_axes",
    "test_reduce_log_sum_default",
    "test_reduce_log_sum_desc_axes",
    "test_reduce_log_sum_negative_axes",
    "test_reduce_max_default_axes_keepdim_example",
    "test_reduce_max_default_axes_keepdims_random",
    "test_reduce_max_do_not_keepdims_example",
    "test_reduce_max_do_not_keepdims_random",
    "test_reduce_max_keepdims_example",
    "test_reduce_max_keepdims_random",
    "test_reduce_max_negative_axes_keepdims_example",
    "test_reduce_max_negative_axes_keepdims_random",
    "test_reduce_mean_default_axes_keepdims_example",
    "test_reduce_mean_default_axes_keepdims_random",
    "test_reduce_mean_do_not_keepdims_example",
    "test_reduce_mean_do_not_keepdims_random",
    "test_reduce_mean_keepdims_example",
    "test_reduce_mean_keepdims_random",
    "test_reduce_mean_negative_axes_keepdims_example",
    "test_reduce_mean_negative_axes_keepdims_random",
    "test_reduce_min_default_axes_keepdims_example",
    "test_reduce_min_default_axes_keepdims_random",
    "test_reduce_min_do_not_keepdims_example",
    "test_reduce_min_do_not_keepdims_random",
    "test_reduce_min_keepdims_example",
    "test_reduce_min_keepdims_random",
    "test_reduce_min_negative_axes_keepdims_example",
    "test_reduce_min_negative_axes_keepdims_random",
    "test_reduce_prod_default_axes_keepdims_example",
    "test_reduce_prod_default_axes_keepdims_random",
    "test_reduce_prod_do_not_keepdims_example",
    "test_reduce_prod_do_not_keepdims_random",
    "test_reduce_prod_keepdims_example",
    "test_reduce_prod_keepdims_random",
    "test_reduce_prod_negative_axes_keepdims_example",
    "test_reduce_prod_negative_axes_keepdims_random",
    "test_reduce_sum_default_axes_keepdims_example",
    "test_reduce_sum_default_axes_keepdims_random",
    "test_reduce_sum_do_not_keepdims_example",
    "test_reduce_sum_do_not_keepdims_random",
    "test_reduce_sum_empty_axes_input_noop_example",
    "test_reduce_sum_empty_axes_input_noop_random",
    "test_reduce_sum_keepdims_example",
    "test_reduce_sum_keepdims_random",
    "test_reduce_sum_negative_axes_keepdims_example",
    "test_reduce_sum_negative_axes_keepdims_random",
    "test_reduce_sum_square_default_axes_keepdims_example",
    "test_reduce_sum_square_default_axes_keepdims_random",
    "test_reduce_sum_square_do_not_keepdims_example",
    "test_reduce_sum_square_do_not_keepdims_random",
    "test_reduce_sum_square_keepdims_example",
    "test_reduce_sum_square_keepdims_random",
    "test_reduce_sum_square_negative_axes_keepdims_example",
    "test_reduce_sum_square_negative_axes_keepdims_random",
    "test_relu",
    "test_reshape_extended_dims",
    "test_reshape_negative_dim",
    "test_reshape_negative_extended_dims",
    "test_reshape_one_dim",
    "test_reshape_reduced_dims",
    "test_reshape_reordered_all_dims",
    "test_reshape_reordered_last_dims",
    "test_reshape_zero_and_negative_dim",
    "test_reshape_zero_dim",
    "test_resize_downsample_scales_cubic",
    "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
    "test_resize_downsample_scales_cubic_align_corners",
    "test_resize_downsample_scales_linear",
    "test_resize_downsample_scales_linear_align_corners",
    "test_resize_downsample_scales_nearest",
    "test_resize_downsample_sizes_cubic",
    "test_resize_downsample_sizes_linear_pytorch_half_pixel",
    "test_resize_downsample_sizes_nearest",
    "test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn",
    "test_resize_upsample_scales_cubic",
    "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside",
    "test_resize_upsample_scales_cubic_align_corners",
    "test_resize_upsample_scales_cubic_asymmetric",
    "test_resize_upsample_scales_linear",
    "test_resize_upsample_scales_linear_align_corners",
    "test_resize_upsample_scales_nearest",
    "test_resize_upsample_sizes_cubic",
    "test_resize_upsample_sizes_nearest",
    "test_resize_upsample_sizes_nearest_ceil_half_pixel",
    "test_resize_upsample_sizes_nearest_floor_align_corners",
    "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric",
    "test_selu",
    "test_selu_default",
    "test_selu_example",
    "test_sigmoid",
    "test_sigmoid_example",
    "test_slice",
    "test_slice_default_axes",
    "test_slice_default_steps",
    "test_slice_end_out_of_bounds",
    "test_slice_neg",
    "test_slice_negative_axes",
    "test_softmax_axis_0",
    "test_softmax_axis_0_expanded",
    "test_softmax_axis_1",
    "test_softmax_axis_1_expanded",
    "test_softmax_axis_2",
    "test_softmax_axis_2_expanded",
    "test_softmax_default_axis",
    "test_softmax_default_axis_expanded",
    "test_softmax_example",
    "test_softmax_example_expanded",
    "test_softmax_functional_dim3",
    "test_softmax_large_number",
    "test_softmax_large_number_expanded",
    "test_softmax_lastdim",
    "test_softmax_negative_axis",
    "test_softmax_negative_axis_expanded",
    "test_softplus",
    "test_softplus_example",
    "test_softsign",
    "test_softsign_example",
    "test_split_equal_parts_1d",
    "test_split_equal_parts_2d",
    "test_split_equal_parts_default_axis",
    "test_split_variable_parts_1d",
    "test_split_variable_parts_2d",
    "test_split_variable_parts_default_axis",
    "test_split_zero_size_splits",
    "test_sqrt",
    "test_sqrt_example",
    "test_squeeze",
    "test_squeeze_negative_axes",
    "test_sub",
    "test_sub_bcast",
    "test_sub_example",
    "test_sum_example",
    "test_sum_one_input",
    "test_sum_two_inputs",
    "test_tanh",
    "test_tanh_example",
    "test_tile",
    "test_tile_precomputed",
    "test_transpose_all_permutations_0",
    "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2",
    "test_transpose_all_permutations_3",
    "test_transpose_all_permutations_4",
    "test_transpose_all_permutations_5",
    "test_transpose_default",
    "test_unsqueeze_axis_0",
    "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2",
    "test_unsqueeze_axis_3",
    "test_unsqueeze_negative_axes",
    "test_unsqueeze_three_axes",
    "test_unsqueeze_two_axes",
    "test_unsqueeze_unsorted_axes",
    "test_upsample_nearest",
    "test_constantofshape_float_ones",
    "test_mod_mixed_sign_float32",
    "test_range_float_type_positive_delta",
    "test_scatternd",
    "test_scatternd_add",
    "test_scatternd_multiply",
    "test_slice_neg_steps",
    "test_where_example",
    "test_gather_0",
    "test_gather_1",
    "test_gather_2d_indices",
    "test_gather_negative_indices",
    "test_gathernd_example_float32",
};

}  // namespace

// Every directory of the three libonnx-testdata groups through relay::frontend::run_onnx_test_dir
// on llvm (import, build, GraphExecutor and reference executor against the recorded outputs).
TEST(OnnxImport, OnnxNodeTests) {
  if (!fs::is_directory(kNodeDir))
    GTEST_SKIP() << kNodeDir << " not found (Debian libonnx-testdata)";
  using Status = frontend::OnnxTestResult::Status;
  std::set<std::string> passed;
  std::ostringstream summary, failures;
  for (const char* group : kGroups) {
    fs::path root = fs::path(kDataDir) / group;
    if (!fs::is_directory(root)) continue;
    std::vector<fs::path> dirs;
    for (auto& e : fs::directory_iterator(root))
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    std::map<Status, int> count;
    for (auto& d : dirs) {
      frontend::OnnxTestResult r = frontend::run_onnx_test_dir(d.string(), "llvm");
      ++count[r.status];
      std::string name = d.filename().string();
      if (r.passed()) passed.insert(name);
      if (r.status == Status::Failed)
        failures << "  " << group << "/" << name << " FAILED: " << r.reason.substr(0, 240) << "\n";
    }
    summary << "  " << group << ": " << dirs.size() << " dirs, " << count[Status::Passed]
            << " passed, " << count[Status::Failed] << " failed, " << count[Status::Unsupported]
            << " unsupported\n";
  }
  std::cout << "ONNX node tests (relay, llvm):\n" << summary.str() << failures.str();
  if (std::getenv("MINITVM_ONNX_NODE_LIST"))
    for (auto& t : passed) std::cout << "PASSED " << t << "\n";
  // The tests of supported op/attribute combinations must pass.
  for (const char* t : kMustPass) EXPECT_TRUE(passed.count(t)) << t;
}

#endif  // MINITVM_HAVE_ONNX
