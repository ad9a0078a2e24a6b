// GraphExecutor::profile() and the report formats: per-kernel table, PyTorch-style op table, TVM's
// CSV/JSON, Chrome trace. Times are never asserted, only their consistency.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minitvm/runtime/graph_executor.h"
#include "runtime/graph/graph_fixture.h"
#include "runtime/graph/graph_internal.h"

namespace minitvm {
namespace {

using namespace graph_test;
using runtime::GraphExecutor;
using runtime::ProfileReport;

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

struct Profiled {
  Params p;
  std::unique_ptr<GraphExecutor> m;
  ProfileReport rep;
  Profiled() {
    m = std::make_unique<GraphExecutor>(compiled("llvm", p), Device::cpu());
    m->set_input("data", NDArray::from_vector(rnd(72, 1), {1, 2, 6, 6}));
    rep = m->profile(3);
  }
};

TEST(Profiler, CallsPerRunAndOutputsStillRight) {
  Profiled t;
  // Four op nodes run (conv, add, relu, __copy); the __nop reshape is not a call.
  ASSERT_EQ(t.rep.calls.size(), 3u * 4u);
  EXPECT_EQ(t.rep.runs, 3);
  const std::vector<std::string> funcs = {"fused_nn_conv2d_add_nn_relu", "fused_add",
                                          "fused_nn_relu", "__copy"};
  for (size_t i = 0; i < t.rep.calls.size(); ++i) {
    const auto& c = t.rep.calls[i];
    EXPECT_EQ(c.func_name, funcs[i % 4]);
    EXPECT_EQ(c.run, static_cast<int>(i / 4));
    EXPECT_GE(c.duration_us, 0.0);
    EXPECT_EQ(c.device, "cpu0");
    if (i) EXPECT_GE(c.start_us, t.rep.calls[i - 1].start_us + t.rep.calls[i - 1].duration_us);
  }
  EXPECT_EQ(t.rep.calls[0].arg_shapes,
            "float32[1, 2, 6, 6], float32[4, 2, 3, 3], float32[4], float32[1, 4, 6, 6]");
  EXPECT_EQ(t.rep.calls[0].ops, "nn.conv2d,add,nn.relu");
  EXPECT_EQ(t.rep.calls[0].node_name, "fused_nn_conv2d_add_nn_relu");
  EXPECT_LE(t.rep.total_us(), t.rep.wall_us);
  // profile() ran the network: the outputs are the network's.
  const auto got = t.m->get_output(0).to_vector<float>();
  const auto want = reference(rnd(72, 1), t.p);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f) << i;
}

TEST(Profiler, OpTypeKey) {
  using runtime::profile_op_type;
  EXPECT_EQ(profile_op_type({{"op_type", "conv2d"}, {"ops", "nn.dense"}}, "f"), "conv2d");
  EXPECT_EQ(profile_op_type({{"ops", "nn.conv2d, add, nn.relu"}}, "f"), "nn.conv2d");
  EXPECT_EQ(profile_op_type({{"ops", "nn.dense+nn.bias_add"}}, "f"), "nn.dense");
  EXPECT_EQ(profile_op_type({}, "fused_nn_conv2d_add_nn_relu_12"), "nn_conv2d_add_nn_relu");
  EXPECT_EQ(profile_op_type({}, "fused_add"), "add");
  EXPECT_EQ(profile_op_type({}, "__copy"), "__copy");
}

// A report with fixed durations, so the tables can be compared exactly.
ProfileReport fixed_report() {
  ProfileReport r;
  r.runs = 2;
  r.wall_us = 400;
  auto call = [](int node, std::string func, std::string ops, std::string type, double start,
                 double dur, int run) {
    runtime::ProfileCall c;
    c.node = node;
    c.node_name = func;
    c.func_name = std::move(func);
    c.ops = std::move(ops);
    c.op_type = std::move(type);
    c.arg_shapes = node == 3 ? "float32[1, 8], float32[1, 8]" : "float32[4]";
    c.device = "cpu0";
    c.num_inputs = node == 3 ? 2 : 1;
    c.num_outputs = 1;
    c.output_shapes = {node == 3 ? std::vector<int64_t>{1, 8} : std::vector<int64_t>{4}};
    c.run = run;
    c.start_us = start;
    c.duration_us = dur;
    return c;
  };
  r.calls = {call(3, "fused_conv", "nn.conv2d", "nn.conv2d", 0, 100, 0),
             call(5, "fused_relu", "", "relu", 100, 20, 0),
             call(3, "fused_conv", "nn.conv2d", "nn.conv2d", 200, 60, 1),
             call(5, "fused_relu", "", "relu", 260, 20, 1)};
  return r;
}

TEST(Profiler, KernelTable) {
  ProfileReport r = fixed_report();
  // TVM's AsTable layout: the first column left-aligned, the others (headers too) right-aligned.
  const std::string want =
      "Name              Ops  Calls  Total (us)  Mean (us)  Min (us)  Max (us)  Percent            "
      "   Argument Shapes\n"
      "fused_conv  nn.conv2d      2      160.00      80.00     60.00    100.00    80.00  "
      "float32[1, 8], float32[1, 8]\n"
      "fused_relu                 2       40.00      20.00     20.00     20.00    20.00            "
      "        float32[4]\n"
      "----------\n"
      "Total                      4      200.00                                  100.00\n"
      "(2 runs; wall time 400.00 us including instrumentation)\n";
  EXPECT_EQ(r.table(), want);
  // Graph order puts the node with the smaller index first; here the same order.
  std::swap(r.calls[0].node, r.calls[1].node);
  std::swap(r.calls[2].node, r.calls[3].node);
  EXPECT_EQ(lines_of(r.table(false))[1].rfind("fused_relu", 0), 0u);
  EXPECT_EQ(lines_of(r.table(true))[1].rfind("fused_conv", 0), 0u);
}

TEST(Profiler, OpTableLooksLikePyTorchLegacy) {
  ProfileReport r = fixed_report();
  const std::string dash = std::string(13, '-') + "  " + [] {
    std::string s;
    for (int i = 0; i < 6; ++i) s += std::string(15, '-') + "  ";
    return s;
  }();
  const std::string want =
      dash + "\n" +
      "Name           Self CPU total %  Self CPU total   CPU total %      CPU total        "
      "CPU time avg     Number of Calls  \n" +
      dash + "\n" +
      "nn.conv2d      80.00%           160.000us        80.00%           160.000us        "
      "80.000us         2                \n"
      "relu           20.00%           40.000us         20.00%           40.000us         "
      "20.000us         2                \n" +
      dash + "\n" + "Self CPU time total: 200.000us\n";
  EXPECT_EQ(r.op_table(), want);
  r.calls[0].duration_us = 2.5e6;
  EXPECT_NE(r.op_table().find("2.500s "), std::string::npos);
  r.calls[0].duration_us = 1500;
  EXPECT_NE(r.op_table().find("1.560ms "), std::string::npos);  // 1500 + 60 us total for nn.conv2d
}

TEST(Profiler, DebugTableLooksLikeTvm06) {
  // Columns left-aligned at the longest cell + 2 (trailing spaces kept), mean time per node.
  const std::string want =
      "Node Name   Ops         Time(us)  Time(%)  Shape   Inputs  Outputs  \n"
      "---------   ---         --------  -------  -----   ------  -------  \n"
      "fused_conv  fused_conv  80.0      80.0     (1, 8)  2       1        \n"
      "fused_relu  fused_relu  20.0      20.0     (4,)    1       1        \n"
      "Total_time  -           100.0     -        -       -       -        \n";
  EXPECT_EQ(fixed_report().debug_table(), want);
}

TEST(Profiler, CsvAndJsonFollowTvm) {
  ProfileReport r = fixed_report();
  const auto csv = lines_of(r.csv());
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0], "Argument Shapes,Count,Device,Duration (us),Name,Ops,Percent");
  EXPECT_EQ(csv[1],
            "\"float32[1, 8], float32[1, 8]\",1,\"cpu0\",100,\"fused_conv\",\"nn.conv2d\",50");
  EXPECT_EQ(csv[2], "\"float32[4]\",1,\"cpu0\",20,\"fused_relu\",\"\",10");
  auto j = nlohmann::json::parse(r.json());
  ASSERT_EQ(j["calls"].size(), 4u);
  EXPECT_EQ(j["calls"][0]["Name"]["string"], "fused_conv");
  EXPECT_EQ(j["calls"][0]["Duration (us)"]["microseconds"], 100.0);
  EXPECT_EQ(j["calls"][0]["Percent"]["percent"], 50.0);
  EXPECT_EQ(j["calls"][0]["Count"]["count"], 1);
  EXPECT_EQ(j["calls"][0]["Argument Shapes"]["string"], "float32[1, 8], float32[1, 8]");
  EXPECT_FALSE(j["calls"][1].contains("Ops"));
  EXPECT_EQ(j["device_metrics"]["cpu0"]["Duration (us)"]["microseconds"], 200.0);
  EXPECT_EQ(j["device_metrics"]["cpu0"]["Count"]["count"], 4);
  EXPECT_EQ(j["configuration"]["Executor"]["string"], "Graph");
  // doubles are written fixed with 17 decimals
  EXPECT_NE(r.json().find("\"microseconds\":100.00000000000000000}"), std::string::npos);
}

TEST(Profiler, ChromeTraceCompleteEvents) {
  Profiled t;
  const std::string path =
      (std::filesystem::temp_directory_path() / "minitvm_graph_trace.json").string();
  t.rep.save_chrome_trace(path);
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in);
  std::remove(path.c_str());
  ASSERT_EQ(j["traceEvents"].size(), t.rep.calls.size());
  for (size_t i = 0; i < t.rep.calls.size(); ++i) {
    const auto& e = j["traceEvents"][i];
    EXPECT_EQ(e["ph"], "X");
    EXPECT_EQ(e["name"], t.rep.calls[i].node_name);
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), t.rep.calls[i].start_us);
    EXPECT_DOUBLE_EQ(e["dur"].get<double>(), t.rep.calls[i].duration_us);
    EXPECT_EQ(e["pid"], 1);
    EXPECT_EQ(e["args"]["func_name"], t.rep.calls[i].func_name);
  }
  EXPECT_THROW(t.rep.save_chrome_trace("/nonexistent-dir/x.json"), RuntimeError);
}

}  // namespace
}  // namespace minitvm
