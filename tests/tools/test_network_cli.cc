// `minitvm compile`, `run` and `profile` as the user runs them (tvmc's shape): a small ONNX model
// written here with libonnx's classes is compiled, run on .npy and TensorProto inputs and profiled;
// its outputs are compared with relay's reference executor of the same model (an independent
// naive interpreter). Bad models, inputs and options are errors with exit code 1 (usage: 2).
#include <gtest/gtest.h>

#include <sstream>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "minitvm/relay/frontend.h"
#include "minitvm/relay/reference.h"
#include "minitvm/relay/testing.h"
#include "minitvm/runtime/npy.h"
#include "tools/cli_runner.h"

#ifdef MINITVM_HAVE_ONNX
#include "common/onnx_model.h"

namespace fs = std::filesystem;
using namespace minitvm;
using namespace minitvm::testutil;

namespace {

std::string folder(const std::string& name) {
  return fresh_folder("netcli", name);
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

// conv(3->8, 3x3, pad 1) + BN + relu -> maxpool 2x2 -> flatten -> gemm(8*4*4 -> 5) + bias.
OnnxModel small_cnn(const std::string& in = "x", bool dynamic_batch = false) {
  OnnxModel m(13);
  m.input(in, {1, 3, 8, 8}, dynamic_batch ? "N" : "");
  m.init("w", {8, 3, 3, 3}, -0.5, 0.5, 1);
  m.init("scale", {8}, 0.5, 1.5, 2);
  m.init("bias", {8}, -0.1, 0.1, 3);
  m.init("mean", {8}, -0.1, 0.1, 4);
  m.init("var", {8}, 0.5, 1.0, 5);
  m.init("fc_w", {5, 128}, -0.2, 0.2, 6);
  m.init("fc_b", {5}, -0.1, 0.1, 7);
  aints(m.node("Conv", {in, "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"});
  m.node("Relu", {"bn"}, {"r"});
  auto* p = m.node("MaxPool", {"r"}, {"p"});
  aints(p, "kernel_shape", {2, 2});
  aints(p, "strides", {2, 2});
  m.node("Flatten", {"p"}, {"f"});
  ai(m.node("Gemm", {"f", "fc_w", "fc_b"}, {"y"}), "transB", 1);
  m.output("y");
  return m;
}

runtime::NDArray reference(const OnnxModel& m, const std::string& in, const runtime::NDArray& x) {
  auto [mod, params] = relay::frontend::from_onnx_bytes(m.bytes(), {{in, x.shape()}});
  auto out = relay::reference_run(mod, {{in, x}}, params);
  return out.at(0);
}

void expect_close(const runtime::NDArray& got, const runtime::NDArray& want) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  auto a = got.to_vector<float>(), b = want.to_vector<float>();
  double m = 0;
  for (float v : b) m = std::max(m, double(std::abs(v)));
  ASSERT_GT(m, 0.0);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4 * m) << "element " << i;
}

// An ONNX TensorProto .pb of a float array.
std::string tensor_pb(const runtime::NDArray& a) {
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  for (auto d : a.shape()) t.add_dims(d);
  auto v = a.to_vector<float>();
  t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
  return t.SerializeAsString();
}

autotune::Json read_json(const std::string& path) {
  std::ifstream f(path);
  return autotune::Json::parse(f);
}

}  // namespace

TEST(NetworkCli, CompileThenRunMatchesTheReferenceExecutor) {
  std::string d = folder("compile_run");
  OnnxModel m = small_cnn();
  write(d + "/cnn.onnx", m.bytes());
  Result c = run_minitvm(
      {"compile", "cnn.onnx", "--target", "llvm", "-o", "cnn.mtvm", "--json", "report.json"}, d);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "fused_nn_contrib_conv2d_NCHWc"))
      << c.out;  // llvm: blocked (alter_op_layout)
  autotune::Json rep = read_json(d + "/report.json");
  for (const char* k : {"total", "from_log", "fallback"})
    EXPECT_TRUE(rep["workloads"].contains(k)) << rep.dump();
  EXPECT_GT(rep["peak_bytes"].get<int64_t>(), 0);
  ASSERT_TRUE(rep["kernels"].is_array());
  EXPECT_GE(rep["kernels"].size(), 2u);

  auto x = relay::testing::random_uniform({1, 3, 8, 8}, -1, 1, 42);
  runtime::save_npy(d + "/x.npy", x);
  Result r = run_minitvm({"run", "cnn.mtvm", "--input", "x=x.npy", "--output-dir", "out",
                          "--repeat", "3", "--warmup", "2", "--json", "run.json"},
                         d);
  ASSERT_EQ(r.code, 0) << r.err;
  expect_close(runtime::load_npy(d + "/out/output_0.npy"), reference(m, "x", x));
  autotune::Json j = read_json(d + "/run.json");
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["shape"], autotune::Json::array({1, 5}));
  EXPECT_EQ(j["outputs"][0]["dtype"], "float32");
  EXPECT_TRUE(fs::exists(fs::path(d) / j["outputs"][0]["path"].get<std::string>()));
  EXPECT_EQ(j["latency_ms"]["repeat"], 3);
  EXPECT_EQ(j["latency_ms"]["warmup"], 2);
  double lo = j["latency_ms"]["min"], med = j["latency_ms"]["median"], hi = j["latency_ms"]["max"];
  EXPECT_LE(lo, med);
  EXPECT_LE(med, hi);
  EXPECT_GT(lo, 0.0);
  EXPECT_TRUE(j["workloads"].contains("fallback")) << j.dump();  // kept in the compiled file

  // The same input as an unnamed TensorProto, running the model itself (compiled in-process).
  write(d + "/x.pb", tensor_pb(x));
  Result r2 = run_minitvm(
      {"run", "cnn.onnx", "--target", "llvm", "--input", "x.pb", "--output-dir", "out2"}, d);
  ASSERT_EQ(r2.code, 0) << r2.err;
  expect_close(runtime::load_npy(d + "/out2/output_0.npy"), reference(m, "x", x));
}

// A 3x3 stride-1 conv with 32 channels at 12x12 runs by Winograd on llvm (F(2, 3)), and directly
// with --disable-winograd; both match the reference executor.
TEST(NetworkCli, DisableWinogradKeepsTheDirectKernel) {
  std::string d = folder("winograd");
  OnnxModel m(13);
  m.input("x", {1, 32, 12, 12});
  m.init("w", {32, 32, 3, 3}, -0.2, 0.2, 11);
  aints(m.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"y"});
  m.output("y");
  write(d + "/w.onnx", m.bytes());
  auto x = relay::testing::random_uniform({1, 32, 12, 12}, -1, 1, 12);
  runtime::save_npy(d + "/x.npy", x);
  for (bool off : {false, true}) {
    SCOPED_TRACE(off ? "--disable-winograd" : "default");
    std::vector<std::string> args = {"compile", "w.onnx", "--target", "llvm", "-o", "w.mtvm"};
    if (off) args.push_back("--disable-winograd");
    Result c = run_minitvm(args, d);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(has(c.out, "fused_nn_contrib_conv2d_winograd_NCHWc"), !off) << c.out;
    EXPECT_EQ(has(c.out, "fused_nn_contrib_conv2d_NCHWc"), off) << c.out;
    Result r = run_minitvm({"run", "w.mtvm", "--input", "x=x.npy", "--output-dir", "out"}, d);
    ASSERT_EQ(r.code, 0) << r.err;
    expect_close(runtime::load_npy(d + "/out/output_0.npy"), reference(m, "x", x));
  }
}

// `minitvm tune MODEL` on llvm leaves out the conv2d_NCHWc task of a layer that runs by Winograd
// (its records would make the layer a direct conv) and lists it as such; --disable-winograd tunes
// it. The 3x3 layer of the model above (32 channels, 12x12) is one; a 1x1 layer next to it is not.
TEST(NetworkCli, TuneLeavesOutTheLayersThatRunByWinograd) {
  std::string d = folder("tune_winograd");
  OnnxModel m(13);
  m.input("x", {1, 32, 12, 12});
  m.init("w", {32, 32, 3, 3}, -0.2, 0.2, 11);
  m.init("w1", {48, 32, 1, 1}, -0.2, 0.2, 12);
  aints(m.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"r"});
  m.node("Conv", {"r", "w1"}, {"y"});
  m.output("y");
  write(d + "/t.onnx", m.bytes());
  for (bool off : {false, true}) {
    SCOPED_TRACE(off ? "--disable-winograd" : "default");
    std::vector<std::string> args = {"tune", "t.onnx", "--target", "llvm", "--list-tasks"};
    if (off) args.push_back("--disable-winograd");
    Result l = run_minitvm(args, d);
    ASSERT_EQ(l.code, 0) << l.err;
    const std::string k3 = "('TENSOR', (32, 32, 3, 3), 'float32')";
    const std::string k1 = "('TENSOR', (48, 32, 1, 1), 'float32')";
    std::istringstream lines(l.out);
    int tasks = 0, winograd = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("winograd: ", 0) == 0) {
        ++winograd;
        EXPECT_TRUE(has(line, k3)) << line;
      } else if (has(line, "conv2d_NCHWc.x86")) {
        ++tasks;
        EXPECT_TRUE(has(line, off ? "TENSOR" : k1)) << line;
      }
    }
    EXPECT_EQ(tasks, off ? 2 : 1) << l.out;
    EXPECT_EQ(winograd, off ? 0 : 1) << l.out;
    EXPECT_EQ(has(l.err, "run by Winograd left out"), !off) << l.err;
  }
}

// TVM_NUM_THREADS sets the thread pool's size, as in TVM; a value that is not a thread count is
// reported and ignored. Results do not depend on the thread count.
TEST(NetworkCli, TvmNumThreadsSetsThePoolSize) {
  std::string d = folder("threads");
  OnnxModel m = small_cnn();
  write(d + "/cnn.onnx", m.bytes());
  auto x = relay::testing::random_uniform({1, 3, 8, 8}, -1, 1, 43);
  runtime::save_npy(d + "/x.npy", x);
  const char* old = std::getenv("TVM_NUM_THREADS");
  const std::string saved = old ? old : "";
  for (const char* v : {"1", "3", "zero"}) {
    SCOPED_TRACE(v);
    ::setenv("TVM_NUM_THREADS", v, 1);
    Result r = run_minitvm({"run", "cnn.onnx", "--target", "llvm", "--input", "x=x.npy",
                            "--output-dir", "out", "--json", "run.json"},
                           d);
    ASSERT_EQ(r.code, 0) << r.err;
    expect_close(runtime::load_npy(d + "/out/output_0.npy"), reference(m, "x", x));
    autotune::Json j = read_json(d + "/run.json");
    if (std::strcmp(v, "zero") == 0) {
      EXPECT_TRUE(has(r.err, "TVM_NUM_THREADS='zero' is not a thread count")) << r.err;
      EXPECT_GE(j["threads"].get<int>(), 1);
    } else {
      EXPECT_EQ(j["threads"].get<int>(), std::atoi(v));
      EXPECT_FALSE(has(r.err, "TVM_NUM_THREADS")) << r.err;
    }
  }
  if (old)
    ::setenv("TVM_NUM_THREADS", saved.c_str(), 1);
  else
    ::unsetenv("TVM_NUM_THREADS");
}

TEST(NetworkCli, RandomInputIsSeededAndBatchSetsSymbolicDims) {
  std::string d = folder("batch");
  OnnxModel m = small_cnn("input", /*dynamic_batch=*/true);
  write(d + "/cnn.onnx", m.bytes());
  Result a =
      run_minitvm({"run", "cnn.onnx", "--batch", "2", "--output-dir", "a", "--seed", "7"}, d);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_TRUE(has(a.err, "random")) << a.err;
  auto x = relay::testing::random_uniform({2, 3, 8, 8}, -1, 1, 7);  // the documented seeded input
  expect_close(runtime::load_npy(d + "/a/output_0.npy"), reference(m, "input", x));
  Result b =
      run_minitvm({"run", "cnn.onnx", "--input-shapes", "input:[3,3,8,8]", "--output-dir", "b"}, d);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(runtime::load_npy(d + "/b/output_0.npy").shape(), (std::vector<int64_t>{3, 5}));
  // A symbolic batch takes the size of the --input data (as ONNX Runtime does).
  auto x3 = relay::testing::random_uniform({3, 3, 8, 8}, -1, 1, 9);
  runtime::save_npy(d + "/x3.npy", x3);
  Result e = run_minitvm({"run", "cnn.onnx", "--input", "x3.npy", "--output-dir", "e"}, d);
  ASSERT_EQ(e.code, 0) << e.err;
  expect_close(runtime::load_npy(d + "/e/output_0.npy"), reference(m, "input", x3));
  // A symbolic batch without --batch, --input-shapes or --input names the input.
  Result c = run_minitvm({"run", "cnn.onnx"}, d);
  EXPECT_EQ(c.code, 1);
  EXPECT_TRUE(has(c.err, "input")) << c.err;
}

TEST(NetworkCli, ProfilePrintsBothTablesCsvAndTrace) {
  std::string d = folder("profile");
  write(d + "/cnn.onnx", small_cnn().bytes());
  Result p = run_minitvm(
      {"profile", "cnn.onnx", "--runs", "3", "--csv", "p.csv", "--chrome-trace", "t.json"}, d);
  ASSERT_EQ(p.code, 0) << p.err;
  for (const char* s : {"fused_nn_contrib_conv2d_NCHWc", "Total", "Self CPU total %",
                        "Number of Calls", "nn.contrib_conv2d_NCHWc"})
    EXPECT_TRUE(has(p.out, s)) << s << "\n" << p.out;
  std::ifstream csv(d + "/p.csv");
  std::string header, line;
  std::getline(csv, header);
  int rows = 0;
  while (std::getline(csv, line)) rows += !line.empty();
  EXPECT_GT(rows, 0);
  autotune::Json t = read_json(d + "/t.json");
  auto& ev = t.is_object() ? t["traceEvents"] : t;
  ASSERT_TRUE(ev.is_array());
  EXPECT_GE(ev.size(), 3u * 3u);  // >= 3 kernels per run, 3 runs
}

TEST(NetworkCli, BadModelsAndInputsAreErrorsWithExitCodeOne) {
  std::string d = folder("bad");
  OnnxModel m = small_cnn();
  std::string bytes = m.bytes();
  write(d + "/cnn.onnx", bytes);
  write(d + "/truncated.onnx", bytes.substr(0, bytes.size() / 3));
  std::string noise(4096, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = char((i * 2654435761u) >> 13);
  write(d + "/random.onnx", noise);
  write(d + "/empty.onnx", "");
  ::onnx::TensorProto not_a_model;
  not_a_model.add_dims(3);
  write(d + "/tensor.onnx", not_a_model.SerializeAsString());
  OnnxModel unsupported(13);
  unsupported.input("x", {1, 4});
  unsupported.node("NonMaxSuppression", {"x"}, {"y"}, "the_nms");
  unsupported.output("y");
  write(d + "/nms.onnx", unsupported.bytes());
  runtime::save_npy(d + "/wrong_shape.npy", relay::testing::random_uniform({1, 3, 9, 8}, -1, 1, 1));
  runtime::save_npy(d + "/f64.npy", runtime::NDArray::from_vector<double>(
                                        std::vector<double>(192, 0.5), {1, 3, 8, 8}));
  std::string npy = runtime::save_npy_bytes(relay::testing::random_uniform({1, 3, 8, 8}, -1, 1, 1));
  write(d + "/cut.npy", npy.substr(0, npy.size() - 7));

  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"compile", "missing.onnx", "--target", "llvm", "-o", "o.mtvm"}, "missing.onnx"},
      {{"compile", "truncated.onnx", "--target", "llvm", "-o", "o.mtvm"}, "truncated.onnx"},
      {{"compile", "random.onnx", "--target", "llvm", "-o", "o.mtvm"}, "random.onnx"},
      {{"compile", "empty.onnx", "--target", "llvm", "-o", "o.mtvm"}, "empty.onnx"},
      {{"compile", "tensor.onnx", "--target", "llvm", "-o", "o.mtvm"}, "tensor.onnx"},
      {{"compile", "nms.onnx", "--target", "llvm", "-o", "o.mtvm"}, "NonMaxSuppression"},
      {{"compile", "resnet7", "--target", "llvm", "-o", "o.mtvm"}, "resnet7"},
      {{"run", "cnn.onnx", "--input", "x=wrong_shape.npy"}, "[1, 3, 9, 8]"},
      {{"run", "cnn.onnx", "--input", "x=f64.npy"}, "float64"},
      {{"run", "cnn.onnx", "--input", "y=wrong_shape.npy"}, "'y'"},
      {{"run", "cnn.onnx", "--input", "x=cut.npy"}, "cut.npy"},
      {{"run", "cnn.onnx", "--input", "x=nothere.npy"}, "nothere.npy"},
      {{"run", "cnn.onnx", "--input", "x=cnn.onnx"}, ".npy"},
      {{"run", "cnn.onnx", "--log", "nolog.log"}, "nolog.log"},
  };
  for (const auto& c : cases) {
    Result r = run_minitvm(c.args, d);
    std::string cmd;
    for (auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.code, 1) << cmd << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.message)) << cmd << ": '" << c.message << "' not in: " << r.err;
    EXPECT_TRUE(has(r.err, "error")) << cmd << ": " << r.err;
  }
  // Usage errors (a missing -o, a bad number) exit 2.
  EXPECT_EQ(run_minitvm({"compile", "cnn.onnx", "--target", "llvm"}, d).code, 2);
  EXPECT_EQ(run_minitvm({"run", "cnn.onnx", "--repeat", "0"}, d).code, 2);
  EXPECT_EQ(run_minitvm({"run", "cnn.onnx", "--warmup", "-1"}, d).code, 2);
  EXPECT_EQ(run_minitvm({"run", "cnn.onnx", "--target", "banana"}, d).code, 2);
  for (const char* cmd : {"compile", "run", "profile"}) {
    Result h = run_minitvm({cmd, "--help"}, d);
    EXPECT_EQ(h.code, 0) << cmd;
    EXPECT_TRUE(has(h.out, std::string("usage: minitvm ") + cmd)) << h.out;
  }
}

TEST(NetworkCli, SeedNetworkForCudaUnderTheSeedLogsHasNoFallback) {
  // The zoo by name, built for cuda (NVRTC + ptxas) under TopHub with the seed logs; exported as
  // PTX.
  std::string d = folder("cuda");
  Result c = run_minitvm({"compile", "mobilenet_v2", "--target", "cuda", "--tophub", "-o",
                          "mnv2.mtvm", "--json", "r.json"},
                         d);
  if (c.code != 0 && (has(c.err, "NVRTC") || has(c.err, "nvrtc") || has(c.err, "libcuda")))
    GTEST_SKIP() << "no CUDA toolkit: " << c.err;
  ASSERT_EQ(c.code, 0) << c.err;
  autotune::Json r = read_json(d + "/r.json");
  EXPECT_EQ(r["workloads"]["fallback"], 0) << r["workloads"].dump();
  EXPECT_GT(r["workloads"]["total"].get<int>(), 10) << r["workloads"].dump();
  EXPECT_EQ(r["workloads"]["from_log"], r["workloads"]["total"]);
  EXPECT_TRUE(fs::file_size(d + "/mnv2.mtvm") > 1000);
}

TEST(NetworkCli, ResNet50ForCudaTakesTheWinogradRecordsWithBuildTimeWeights) {
  // ResNet-50 under TopHub's seed log: its four winograd workloads are built as TVM's cuda alter
  // layout builds them (the weight transformed at build time), compiled by NVRTC + ptxas.
  std::string d = folder("cuda_r50");
  Result c = run_minitvm(
      {"compile", "resnet50", "--target", "cuda", "--tophub", "-o", "r50.mtvm", "--json", "r.json"},
      d);
  if (c.code != 0 && (has(c.err, "NVRTC") || has(c.err, "nvrtc") || has(c.err, "libcuda")))
    GTEST_SKIP() << "no CUDA toolkit: " << c.err;
  ASSERT_EQ(c.code, 0) << c.err;
  fs::remove(d + "/r50.mtvm");
  autotune::Json r = read_json(d + "/r.json");
  EXPECT_EQ(r["workloads"]["fallback"], 0) << r["workloads"].dump();
  EXPECT_EQ(r["workloads"]["from_log"], 24) << r["workloads"].dump();
  std::set<std::string> winograd;
  for (auto& k : r["kernels"]) {
    if (k["schedule"] != "winograd") continue;
    EXPECT_EQ(k["master_op"], "nn.contrib_conv2d_winograd_without_weight_transform") << k.dump();
    EXPECT_FALSE(k["fallback"].get<bool>()) << k.dump();
    winograd.insert(k["workload"].get<std::string>());
  }
  // The 3x3 stride-1 convs of layers 1-4 (64, 128, 256, 512 channels).
  EXPECT_EQ(winograd.size(), 4u) << r["kernels"].dump();
}

#endif  // MINITVM_HAVE_ONNX
