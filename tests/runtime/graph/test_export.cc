// export_library / load_compiled_graph: one file with graph JSON, params and native code; loaded
// back in this process and by a program linked only against minitvm_runtime_lite.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"
#include "minitvm/runtime/nvrtc.h"
#include "runtime/graph/graph_fixture.h"

namespace minitvm {
namespace {

using namespace graph_test;
using runtime::GraphExecutor;
namespace fs = std::filesystem;

std::string tmp_file(const std::string& name) {
  return (fs::temp_directory_path() / ("minitvm_graph_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_all(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

TEST(ExportLibrary, LlvmRoundTripRunsAgainstNaiveLoops) {
  Params p;
  const std::string path = tmp_file("llvm.mtvm");
  runtime::export_library(compiled("llvm", p), path);
  runtime::CompiledGraph g = runtime::load_compiled_graph(path);
  std::remove(path.c_str());
  EXPECT_EQ(g.target, "llvm");
  EXPECT_EQ(g.graph_json, kGraphJson);
  ASSERT_EQ(g.params.size(), 3u);
  EXPECT_EQ(g.params.at("p2").to_vector<float>(), p.p2);
  EXPECT_EQ(g.lib.type_key(), "llvm");
  EXPECT_EQ(g.lib.function_names(), (std::vector<std::string>{"fused_nn_conv2d_add_nn_relu",
                                                              "fused_add", "fused_nn_relu"}));
  EXPECT_NE(g.lib.get_source("ll").find("define"), std::string::npos);
  // The loaded functions keep their checked signatures.
  EXPECT_THROW(
      g.lib.get_function("fused_nn_relu")(NDArray::empty({3}, f32), NDArray::empty({144}, f32)),
      RuntimeError);
  GraphExecutor m(g, Device::cpu());
  for (unsigned seed : {1u, 2u}) {
    auto x = rnd(72, seed);
    m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));
    m.run();
    const auto want = reference(x, p);
    const auto got = m.get_output(0).to_vector<float>();
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f) << i;
  }
}

// Kernels calling libm (expf, tanhf): the shared object resolves them through its own libm
// dependency (linked with -z defs, so a missing symbol fails the export, not the load).
TEST(ExportLibrary, MathFunctionsResolve) {
  te::Tensor X = te::placeholder({64}, f32, "X");
  te::Tensor Y = te::compute(
      {64}, [&](Var i) { return ir::exp(X(i)) + ir::tanh(X(i)); }, "y");
  te::Schedule s = te::create_schedule({Y.op()});
  runtime::CompiledGraph c;
  c.lib = build(s, {X, Y}, "llvm", "fused_exp_tanh");
  c.target = "llvm";
  c.graph_json = R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "tvm_op", "name": "f", "attrs": {"func_name": "fused_exp_tanh", "num_inputs": "1", "num_outputs": "1"},
       "inputs": [[0, 0, 0]]}], "arg_nodes": [0], "heads": [[1, 0, 0]],
      "attrs": {"dltype": ["list_str", ["float32", "float32"]], "storage_id": ["list_int", [0, 1]],
                "shape": ["list_shape", [[64], [64]]]}, "node_row_ptr": [0, 1, 2]})";
  const std::string path = tmp_file("math.mtvm");
  runtime::export_library(c, path);
  runtime::CompiledGraph g = runtime::load_compiled_graph(path);
  std::remove(path.c_str());
  GraphExecutor m(g, Device::cpu());
  auto x = rnd(64, 41);
  m.set_input("x", NDArray::from_vector(x, {64}));
  m.run();
  const auto y = m.get_output(0).to_vector<float>();
  for (size_t i = 0; i < 64; ++i) ASSERT_NEAR(y[i], std::exp(x[i]) + std::tanh(x[i]), 1e-5f) << i;
}

// One module per kernel, combined: the executor runs it, export links all objects into one .so.
TEST(ExportLibrary, CombinedModulePerKernel) {
  Params p;
  std::vector<runtime::Module> parts;
  for (const auto& f : kernel_funcs("llvm")) parts.push_back(build({f}, "llvm"));
  runtime::CompiledGraph c = compiled("llvm", p);
  c.lib = runtime::combine_modules(parts);
  EXPECT_EQ(c.lib.type_key(), "multi");
  EXPECT_EQ(c.lib.function_names(), (std::vector<std::string>{"fused_nn_conv2d_add_nn_relu",
                                                              "fused_add", "fused_nn_relu"}));
  auto x = rnd(72, 51);
  const auto want = reference(x, p);
  auto check = [&](GraphExecutor& m) {
    m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));
    m.run();
    const auto got = m.get_output(0).to_vector<float>();
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f) << i;
  };
  {
    GraphExecutor m(c, Device::cpu());
    check(m);
  }
  const std::string path = tmp_file("multi.mtvm");
  runtime::export_library(c, path);
  runtime::CompiledGraph g = runtime::load_compiled_graph(path);
  std::remove(path.c_str());
  EXPECT_EQ(g.lib.type_key(), "llvm");
  EXPECT_EQ(g.lib.function_names(), c.lib.function_names());
  GraphExecutor m(g, Device::cpu());
  check(m);
  try {
    runtime::combine_modules({parts[0], parts[0]});
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "combine_modules: function 'fused_nn_conv2d_add_nn_relu' is defined by module 0 and "
              "module 1");
  }
}

int run_lite(const std::string& lib, const std::string& inputs, const std::string& expected,
             std::string* out, const std::string& extra = "") {
  const std::string log = tmp_file("lite.log");
  const std::string cmd = std::string("'") + MINITVM_GRAPH_LITE_RUN + "' '" + lib + "' '" + inputs +
                          "' '" + expected + "' " + extra + " > '" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  *out = read_all(log);
  std::remove(log.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(ExportLibrary, RuntimeOnlyProgramLoadsAndRuns) {
  Params p;
  const std::string lib = tmp_file("lite.mtvm"), inputs = tmp_file("in.params"),
                    expected = tmp_file("out.params");
  runtime::export_library(compiled("llvm", p), lib);
  auto x = rnd(72, 31);
  const auto want = reference(x, p);
  write_all(inputs, runtime::save_param_dict({{"data", NDArray::from_vector(x, {1, 2, 6, 6})}}));
  write_all(expected, runtime::save_param_dict({{"0", NDArray::from_vector(want, {1, 144})},
                                                {"1", NDArray::from_vector(want, {1, 144})}}));
  std::string out;
  EXPECT_EQ(run_lite(lib, inputs, expected, &out, "--measure 2000"), 0) << out;
  EXPECT_NE(out.find("OK: 2 outputs"), std::string::npos) << out;
  EXPECT_NE(out.find("measure: 4 ops;"), std::string::npos) << out;
  std::cout << out;  // the profile table and the instrumentation cost, for the log
  EXPECT_NE(out.find("fused_nn_conv2d_add_nn_relu"), std::string::npos)
      << out;  // the profile table
  // The program does compare: a wrong expectation fails.
  auto wrong = want;
  wrong[5] += 0.5f;
  write_all(expected, runtime::save_param_dict({{"0", NDArray::from_vector(wrong, {1, 144})}}));
  EXPECT_EQ(run_lite(lib, inputs, expected, &out), 1) << out;
  EXPECT_NE(out.find("MISMATCH"), std::string::npos) << out;
  for (const auto& f : {lib, inputs, expected}) std::remove(f.c_str());
}

// The cuda path needs NVRTC to build but no GPU to export and load (the PTX is loaded on a device
// only at the first call); running it is in test_graph_gpu.
TEST(ExportLibrary, CudaModuleRoundTripWithoutRunning) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed";
  Params p;
  runtime::CompiledGraph c = compiled("cuda", p);
  const std::string path = tmp_file("cuda.mtvm");
  runtime::export_library(c, path);
  runtime::CompiledGraph g = runtime::load_compiled_graph(path);
  std::remove(path.c_str());
  EXPECT_EQ(g.target, "cuda");
  EXPECT_EQ(g.lib.type_key(), "cuda");
  EXPECT_EQ(g.lib.function_names(), c.lib.function_names());
  EXPECT_EQ(g.lib.get_source("ptx"), c.lib.get_source("ptx"));
  EXPECT_EQ(g.lib.get_source("cuda"), c.lib.get_source("cuda"));
  EXPECT_EQ(g.params.at("p0").to_vector<float>(), p.w);
  try {
    GraphExecutor m(g, Device::cpu());
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "GraphExecutor: the module is \"cuda\" and runs on a CUDA device, got cpu(0)");
  }
}

TEST(ExportLibrary, EmulatorModulesCannotBeExported) {
  Params p;
  try {
    runtime::export_library(compiled("cuda -emulate", p), tmp_file("emu.mtvm"));
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "export_library: a module of type 'cuda-emulator' cannot be exported (llvm and cuda "
              "modules can; "
              "build for \"cuda\" instead of \"cuda -emulate\")");
  }
}

TEST(ExportLibrary, CompilerFailureIsReported) {
  Params p;
  runtime::ExportOptions o;
  o.cc = "false";
  try {
    runtime::export_library(compiled("llvm", p), tmp_file("bad.mtvm"), o);
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "export_library: linking the shared object failed (exit 1, `false -shared", 0),
              0u)
        << e.what();
  }
}

TEST(ExportLibrary, MalformedFiles) {
  Params p;
  const std::string path = tmp_file("m.mtvm");
  runtime::export_library(compiled("llvm", p), path);
  const std::string good = read_all(path);
  auto error_of = [&](const std::string& bytes) {
    write_all(path, bytes);
    try {
      runtime::load_compiled_graph(path);
    } catch (const RuntimeError& e) {
      return std::string(e.what());
    }
    return std::string("(no RuntimeError)");
  };
  const std::string origin = "load_compiled_graph(" + path + "): ";
  EXPECT_EQ(error_of("hello world, not a library"),
            origin + "not a minitvm graph library (export_library file)");
  EXPECT_EQ(error_of(good.substr(0, 100)).rfind(origin + "truncated at byte ", 0), 0u);
  EXPECT_EQ(error_of(good + "x"), origin + "1 trailing bytes");
  std::string v2 = good;
  v2[8] = 2;
  EXPECT_EQ(error_of(v2), origin + "graph library version 2, this minitvm reads version 1");
  EXPECT_EQ(error_of(""), origin + "not a minitvm graph library (export_library file)");
  std::remove(path.c_str());
  try {
    runtime::load_compiled_graph(tmp_file("does-not-exist"));
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "load_compiled_graph: cannot read " + tmp_file("does-not-exist"));
  }
}

}  // namespace
}  // namespace minitvm
