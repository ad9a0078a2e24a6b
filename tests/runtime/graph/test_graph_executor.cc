// GraphExecutor on a hand-written TVM v0.6 graph (graph_fixture.h): results against naive loops on
// llvm and the CUDA emulator, storage planning, inputs/outputs, the reader's rules and errors,
// params bytes, and no allocation during run().
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>

#include "minitvm/runtime/graph_executor.h"
#include "runtime/graph/graph_fixture.h"

// Allocation counter for NoAllocationInRun: counts operator new on all threads while enabled.
namespace {
std::atomic<bool> g_count_allocs{false};
std::atomic<int64_t> g_allocs{0};
}  // namespace
void* operator new(size_t n) {
  if (g_count_allocs.load(std::memory_order_relaxed)) g_allocs.fetch_add(1);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}

namespace minitvm {
namespace {

using namespace graph_test;
using runtime::GraphExecutor;

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f) << "element " << i;
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "(no RuntimeError)";
}

TEST(GraphExecutor, RunsAgainstNaiveLoopsOnLlvm) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  for (unsigned seed : {1u, 2u}) {
    auto x = rnd(72, seed);
    m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));
    m.run();
    const auto want = reference(x, p);
    expect_near(m.get_output(0).to_vector<float>(), want);
    expect_near(m.get_output(1).to_vector<float>(), want);  // __copy
    NDArray out = NDArray::empty({1, 144}, f32);
    m.get_output(1, out);
    expect_near(out.to_vector<float>(), want);
  }
}

TEST(GraphExecutor, RunsOnTheCudaEmulator) {
  Params p;
  GraphExecutor m(compiled("cuda -emulate", p), Device::cpu());
  auto x = rnd(72, 5);
  m.set_input(0, NDArray::from_vector(x, {1, 2, 6, 6}));
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(x, p));
}

TEST(GraphExecutor, StoragePlanSharesPoolsByStorageId) {
  Params p;
  {
    GraphExecutor m(compiled("llvm", p), Device::cpu());
    // Seven storage ids of 72, 72, 4, 144, 144, 144, 144 floats (id 3: conv output, reshape, relu).
    EXPECT_EQ(m.storage_bytes(), (72 + 72 + 4 + 144 * 4) * 4);
    EXPECT_NE(m.get_output(0).data(), m.get_output(1).data());
  }
  // The relu writes into storage id 0 instead (the input's; dead after the conv): the pool grows
  // to the larger entry and the input entry is a view of the same memory.
  auto g = compiled("llvm", p);
  auto j = nlohmann::ordered_json::parse(g.graph_json);
  j["attrs"]["storage_id"][1][7] = 0;
  g.graph_json = j.dump();
  GraphExecutor m(g, Device::cpu());
  EXPECT_EQ(m.storage_bytes(), (144 + 72 + 4 + 144 * 4) * 4);
  auto x = rnd(72, 7);
  m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));
  m.run();
  const auto want = reference(x, p);
  expect_near(m.get_output(0).to_vector<float>(), want);
  expect_near(m.get_output(1).to_vector<float>(), want);
  EXPECT_EQ(m.get_input(0).data(), m.get_output(0).data());
  std::vector<float> in = m.get_input(0).to_vector<float>();
  expect_near(in, std::vector<float>(want.begin(), want.begin() + 72));  // overwritten by the relu
}

TEST(GraphExecutor, InputsOutputsNamesShapes) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  EXPECT_EQ(m.get_num_inputs(), 4);
  EXPECT_EQ(m.input_names(), (std::vector<std::string>{"data", "p0", "p1", "p2"}));
  EXPECT_FALSE(m.is_param(0));
  EXPECT_TRUE(m.is_param(1) && m.is_param(2) && m.is_param(3));
  EXPECT_EQ(m.get_input_index("p1"), 2);
  EXPECT_EQ(m.get_input_index("nope"), -1);
  EXPECT_EQ(m.input_shape(1), (std::vector<int64_t>{4, 2, 3, 3}));
  EXPECT_EQ(m.input_dtype(0), f32);
  EXPECT_EQ(m.get_num_outputs(), 2);
  EXPECT_EQ(m.output_names(), (std::vector<std::string>{"fused_nn_relu", "copy"}));
  EXPECT_EQ(m.output_shape(0), (std::vector<int64_t>{1, 144}));
  EXPECT_EQ(m.output_dtype(1), f32);
  // params were copied in
  EXPECT_EQ(m.get_input("p2").to_vector<float>(), p.p2);
  EXPECT_EQ(m.num_nodes(), 9);
}

TEST(GraphExecutor, SetInputErrorsNameInputExpectedAndGot) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  EXPECT_EQ(error_of([&] {
              m.set_input("dat", NDArray::empty({1, 2, 6, 6}, f32));
            }),
            "GraphExecutor::set_input: no input named 'dat'; inputs are: data, p0, p1, p2");
  EXPECT_EQ(
      error_of([&] {
        m.set_input("data", NDArray::empty({1, 2, 6, 7}, f32));
      }),
      "GraphExecutor::set_input('data'): expected float32[1, 2, 6, 6], got float32[1, 2, 6, 7]");
  EXPECT_EQ(
      error_of([&] {
        m.set_input(1, NDArray::empty({4, 2, 3, 3}, DataType::Float(64)));
      }),
      "GraphExecutor::set_input('p0'): expected float32[4, 2, 3, 3], got float64[4, 2, 3, 3]");
  EXPECT_EQ(error_of([&] { m.set_input(4, NDArray::empty({1}, f32)); }),
            "GraphExecutor::set_input: input index 4 out of range (the graph has 4 inputs)");
  EXPECT_EQ(error_of([&] { m.get_output(2); }),
            "GraphExecutor::get_output: output index 2 out of range (the graph has 2 outputs)");
  NDArray wrong = NDArray::empty({144}, f32);
  EXPECT_EQ(error_of([&] { m.get_output(0, wrong); }),
            "GraphExecutor::get_output(0, out): output is float32[1, 144], out is float32[144]");
}

TEST(GraphExecutor, SetInputFromDLPack) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  auto x = rnd(72, 9);
  NDArray src = NDArray::from_vector(x, {1, 2, 6, 6});
  m.set_input("data", src.to_dlpack());
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(x, p));
}

TEST(GraphExecutor, SetInputZeroCopy) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  auto x = rnd(72, 61);
  NDArray mine = NDArray::from_vector(x, {1, 2, 6, 6});
  m.set_input_zero_copy("data", mine);
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(x, p));
  // The kernels read `mine` itself: changing it changes the next run without another set_input.
  auto y = rnd(72, 62);
  mine.copy_from_bytes(y.data(), y.size() * sizeof(float));
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(y, p));
  // A parameter too.
  Params q;
  q.p2 = rnd(144, 63);
  NDArray p2 = NDArray::from_vector(q.p2, {1, 144});
  m.set_input_zero_copy(3, p2);
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(y, q));
  EXPECT_EQ(
      error_of([&] {
        m.set_input_zero_copy("data", NDArray::empty({1, 2, 6, 6}, DataType::Float(64)));
      }),
      "GraphExecutor::set_input_zero_copy('data'): expected float32[1, 2, 6, 6] on cpu(0), got "
      "float64[1, 2, 6, 6] on cpu(0)");
}

TEST(GraphExecutor, ModuleAndDeviceMismatchAtSetup) {
  Params p;
  auto g = compiled("llvm", p);
  EXPECT_EQ(error_of([&] { GraphExecutor m(g, Device::cuda(0)); }),
            "GraphExecutor: the module is \"llvm\" and runs on cpu (host arrays), got cuda(0)");
  // A graph naming a function the module lacks: the node and the module's functions are named.
  std::string json = kGraphJson;
  json.replace(json.find("\"func_name\": \"fused_add\""), 24, "\"func_name\": \"fused_sub\"");
  g.graph_json = json;
  EXPECT_EQ(error_of([&] { GraphExecutor m(g, Device::cpu()); }),
            "GraphExecutor: node 6 'fused_add' (func_name fused_sub): module (llvm) has no "
            "function 'fused_sub'; "
            "it has: fused_nn_conv2d_add_nn_relu, fused_add, fused_nn_relu");
  // A parameter that is not an input of the graph.
  g.graph_json = kGraphJson;
  g.params["p9"] = NDArray::empty({1}, f32);
  EXPECT_EQ(error_of([&] { GraphExecutor m(g, Device::cpu()); }),
            "GraphExecutor: parameter 'p9' is not an input of the graph");
}

// Kernel argument shapes are checked once, at setup, against the entries the graph gives them.
TEST(GraphExecutor, KernelSignatureMismatchAtSetup) {
  Params p;
  auto g = compiled("llvm", p);
  std::string json = kGraphJson;
  // The relu kernel takes 1-D arrays; without flatten_data it gets [1, 144].
  json.replace(json.find("\"flatten_data\": \"1\""), 19, "\"flatten_data\": \"0\"");
  g.graph_json = json;
  EXPECT_EQ(error_of([&] { GraphExecutor m(g, Device::cpu()); }),
            "GraphExecutor: node 7 'fused_nn_relu' (func_name fused_nn_relu): fused_nn_relu: "
            "argument 0 'A' "
            "expects float32[144] on cpu(0), got float32[1, 144] on cpu(0)");
}

// ---- the reader's rules
// --------------------------------------------------------------------------

nlohmann::ordered_json graph_doc() {
  return nlohmann::ordered_json::parse(kGraphJson);
}

std::string setup_error(const std::string& json) {
  Params p;
  runtime::Module lib = build_kernels("llvm");
  return error_of([&] { GraphExecutor m(json, lib, Device::cpu(), p.arrays()); });
}

TEST(GraphReader, RequiresTheFiveKeys) {
  for (const char* key : {"nodes", "arg_nodes", "heads", "attrs", "node_row_ptr"}) {
    auto j = graph_doc();
    j.erase(key);
    EXPECT_EQ(setup_error(j.dump()), std::string("graph JSON: missing required key '") + key + "'");
  }
  auto j = graph_doc();
  j["extra"] = 1;
  EXPECT_EQ(setup_error(j.dump()), "graph JSON: key 'extra' is not supported");
  EXPECT_EQ(setup_error("{\"nodes\": [}"), setup_error("{\"nodes\": [}"));
  EXPECT_EQ(setup_error("{\"nodes\": [}").rfind("graph JSON: not valid JSON: ", 0), 0u);
}

TEST(GraphReader, StopsAtMetadata) {
  // Everything after "metadata" is ignored (v0.6 breaks out of the read loop), so a bogus key there
  // is fine.
  auto j = graph_doc();
  j["metadata"] = {{"anything", 1}};
  j["bogus"] = 2;
  Params p;
  GraphExecutor m(j.dump(), build_kernels("llvm"), Device::cpu(), p.arrays());
  auto x = rnd(72, 3);
  m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(x, p));
}

TEST(GraphReader, NodeAndEntryErrors) {
  {
    auto j = graph_doc();
    j["nodes"][6]["inputs"][0] = nlohmann::ordered_json::array({4});
    EXPECT_EQ(
        setup_error(j.dump()),
        "graph JSON: nodes[6].inputs[0] must be [node, index] or [node, index, version], got [4]");
  }
  {
    auto j = graph_doc();
    j["nodes"][6]["inputs"][0] = {7, 0, 0};
    EXPECT_EQ(
        setup_error(j.dump()),
        "graph JSON: node 6 'fused_add': input 0 refers to node 7, which is not an earlier node");
  }
  {
    auto j = graph_doc();
    j["nodes"][6]["inputs"][0] = {4, 1, 0};
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: node 6 'fused_add': input 0 reads output 1 of node 4 'reshape_nop', "
              "which has 1");
  }
  {
    auto j = graph_doc();
    j["nodes"][3]["colour"] = "red";
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: nodes[3] (node 3 'fused_nn_conv2d_add_nn_relu'): key 'colour' is not "
              "supported");
  }
  {
    auto j = graph_doc();
    j["nodes"][3]["attrs"]["num_inputs"] = 3;
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: nodes[3].attrs.num_inputs must be a string, got 3");
  }
  {
    auto j = graph_doc();
    j["nodes"][3]["attrs"]["num_inputs"] = "2";
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: node 3 'fused_nn_conv2d_add_nn_relu': num_inputs = \"2\" but the node "
              "has 3 inputs");
  }
  {
    auto j = graph_doc();
    j["nodes"][3]["op"] = "conv";
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: node 3 'fused_nn_conv2d_add_nn_relu': op 'conv' is not supported "
              "(tvm_op or null)");
  }
  {
    auto j = graph_doc();
    j["nodes"][3]["control_deps"] = nlohmann::ordered_json::array();
    EXPECT_EQ(setup_error(j.dump()), "(no RuntimeError)");  // accepted, as v0.6
  }
}

TEST(GraphReader, AttrErrors) {
  {
    auto j = graph_doc();
    j["attrs"]["shape"][1].erase(8);
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: attrs.shape has 8 entries, the graph has 9 (node_row_ptr.back())");
  }
  {
    auto j = graph_doc();
    j["attrs"]["dltype"][1][2] = "complex64";
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: attrs.dltype[2] = \"complex64\" is not a data type");
  }
  {
    auto j = graph_doc();
    j["attrs"]["storage_id"][0] = "list_str";
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: attrs.storage_id has type \"list_str\", expected \"list_int\"");
  }
  {
    auto j = graph_doc();
    j["attrs"]["skippable"] = {"list_int", {1, 2}};
    j["attrs"]["also"] = {"size_t", 3};
    EXPECT_EQ(setup_error(j.dump()), "(no RuntimeError)");
    j["attrs"]["other"] = {"list_str", {"a"}};
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: cannot skip graph attr 'other' (only list_int and size_t attrs can be "
              "skipped)");
  }
  {
    auto j = graph_doc();
    j["node_row_ptr"][4] = 5;
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: node_row_ptr[4] - node_row_ptr[3] = 2 but node 3 "
              "'fused_nn_conv2d_add_nn_relu' has 1 "
              "output(s)");
  }
  {
    auto j = graph_doc();
    j["arg_nodes"][0] = 3;
    EXPECT_EQ(
        setup_error(j.dump()),
        "graph JSON: arg_nodes: node 3 'fused_nn_conv2d_add_nn_relu' is not a null (input) node");
  }
  {
    auto j = graph_doc();
    j["heads"][0] = {9, 0, 0};
    EXPECT_EQ(setup_error(j.dump()),
              "graph JSON: heads[0] = [9, 0] is not an output of the graph's nodes");
  }
}

// ---- params bytes
// ---------------------------------------------------------------------------------

template <typename T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

TEST(Params, BytesFollowTvmLayout) {
  // Built field by field from TVM v0.6's SaveParamDict layout (docs/RUNTIME.md), independently of
  // save_param_dict.
  std::string want;
  put<uint64_t>(want, 0xF7E58D4F05049CB7ULL);
  put<uint64_t>(want, 0);
  put<uint64_t>(want, 2);
  put<uint64_t>(want, 1), want += "a";
  put<uint64_t>(want, 2), want += "bb";
  put<uint64_t>(want, 2);
  // "a": float32[2]
  put<uint64_t>(want, 0xDD5E40F096B4A13FULL), put<uint64_t>(want, 0), put<int32_t>(want, 1),
      put<int32_t>(want, 0);
  put<int32_t>(want, 1), put<uint8_t>(want, 2), put<uint8_t>(want, 32), put<uint16_t>(want, 1);
  put<int64_t>(want, 2), put<int64_t>(want, 8), put<float>(want, 1.5f), put<float>(want, -2.0f);
  // "bb": int8[1, 3]
  put<uint64_t>(want, 0xDD5E40F096B4A13FULL), put<uint64_t>(want, 0), put<int32_t>(want, 1),
      put<int32_t>(want, 0);
  put<int32_t>(want, 2), put<uint8_t>(want, 0), put<uint8_t>(want, 8), put<uint16_t>(want, 1);
  put<int64_t>(want, 1), put<int64_t>(want, 3), put<int64_t>(want, 3);
  put<int8_t>(want, 7), put<int8_t>(want, -8), put<int8_t>(want, 9);

  std::map<std::string, NDArray> params = {
      {"a", NDArray::from_vector(std::vector<float>{1.5f, -2.0f}, {2})},
      {"bb", NDArray::from_vector(std::vector<int8_t>{7, -8, 9}, {1, 3})}};
  EXPECT_EQ(runtime::save_param_dict(params), want);
  auto back = runtime::load_param_dict(want);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.at("a").to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(back.at("bb").shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(back.at("bb").to_vector<int8_t>(), (std::vector<int8_t>{7, -8, 9}));
}

TEST(Params, MalformedBytes) {
  std::map<std::string, NDArray> params = {
      {"a", NDArray::from_vector(std::vector<float>{1.5f, -2.0f}, {2})}};
  const std::string good = runtime::save_param_dict(params);
  EXPECT_EQ(error_of([&] { runtime::load_param_dict(good.substr(0, good.size() - 1)); }),
            "params: truncated at byte 89 reading array data (8 bytes needed, 7 left)");
  EXPECT_EQ(error_of([&] { runtime::load_param_dict(good + "x"); }),
            "params: 1 trailing bytes after the last array");
  std::string bad = good;
  bad[0] = 0;
  EXPECT_EQ(
      error_of([&] { runtime::load_param_dict(bad); }).rfind("params: not a TVM params blob", 0),
      0u);
  bad = good;
  bad[41 + 16] =
      2;  // device type of array "a" (after 8+8+8+8+1+8 bytes, the array magic and reserved word)
  EXPECT_EQ(error_of([&] { runtime::load_param_dict(bad); }),
            "params: array 'a' has device type 2 (only CPU tensors, 1, are saved)");
}

TEST(Params, ExecutorLoadAndSaveParams) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  Params q;
  q.w = rnd(72, 21), q.b = rnd(4, 22), q.p2 = rnd(144, 23);
  m.load_params(runtime::save_param_dict(q.arrays()));
  auto x = rnd(72, 4);
  m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));
  m.run();
  expect_near(m.get_output(0).to_vector<float>(), reference(x, q));
  EXPECT_EQ(m.save_params(), runtime::save_param_dict(q.arrays()));
  std::map<std::string, NDArray> unknown = {{"data2", NDArray::empty({1}, f32)}};
  EXPECT_EQ(error_of([&] { m.load_params(runtime::save_param_dict(unknown)); }),
            "GraphExecutor::load_params: parameter 'data2' is not an input of the graph");
}

TEST(GraphExecutor, NoAllocationInRun) {
  Params p;
  GraphExecutor m(compiled("llvm", p), Device::cpu());
  m.set_input("data", NDArray::from_vector(rnd(72, 1), {1, 2, 6, 6}));
  m.run();  // first run: anything lazily initialised happens here
  g_allocs = 0;
  g_count_allocs = true;
  for (int i = 0; i < 5; ++i) m.run();
  g_count_allocs = false;
  EXPECT_EQ(g_allocs.load(), 0);
  // The counter works: a PackedFunc call (checked, with argument vectors) allocates.
  runtime::Module lib = build_kernels("llvm");
  NDArray a = NDArray::empty({144}, f32), b = NDArray::empty({144}, f32);
  auto relu = lib.get_function("fused_nn_relu");
  g_count_allocs = true;
  relu(a, b);
  g_count_allocs = false;
  EXPECT_GT(g_allocs.load(), 0);
}

}  // namespace
}  // namespace minitvm

namespace minitvm {
namespace {

using namespace graph_test;
using runtime::GraphExecutor;

// A node with two outputs: entry ids come from node_row_ptr, heads and inputs pick outputs by
// index.
TEST(GraphExecutor, MultiOutputNode) {
  te::Tensor X = te::placeholder({8}, f32, "X");
  te::Tensor Twice = te::compute(
      {8}, [&](Var i) { return X(i) * 2.0f; }, "twice");
  te::Tensor Inc = te::compute(
      {8}, [&](Var i) { return X(i) + 1.0f; }, "inc");
  te::Schedule s1 = te::create_schedule({Twice.op(), Inc.op()});
  te::Tensor A = te::placeholder({8}, f32, "A"), B = te::placeholder({8}, f32, "B");
  te::Tensor Sum = te::compute(
      {8}, [&](Var i) { return A(i) - B(i) * 3.0f; }, "sum");
  te::Schedule s2 = te::create_schedule({Sum.op()});
  runtime::Module lib = build(
      {lower(s1, {X, Twice, Inc}, "fused_two"), lower(s2, {A, B, Sum}, "fused_combine")}, "llvm");
  const char* json = R"({"nodes": [
      {"op": "null", "name": "x", "inputs": []},
      {"op": "tvm_op", "name": "two", "attrs": {"func_name": "fused_two", "num_inputs": "1", "num_outputs": "2"},
       "inputs": [[0, 0]]},
      {"op": "tvm_op", "name": "combine", "attrs": {"func_name": "fused_combine", "num_inputs": "2",
       "num_outputs": "1"}, "inputs": [[1, 1], [1, 0]]}],
    "arg_nodes": [0], "heads": [[2, 0, 0], [1, 1, 0]],
    "attrs": {"dltype": ["list_str", ["float32", "float32", "float32", "float32"]],
              "storage_id": ["list_int", [0, 1, 2, 3]],
              "shape": ["list_shape", [[8], [8], [8], [8]]]},
    "node_row_ptr": [0, 1, 3, 4]})";
  GraphExecutor m(json, lib, Device::cpu());
  EXPECT_EQ(m.output_names(), (std::vector<std::string>{"combine", "two:1"}));
  auto x = rnd(8, 17);
  m.set_input("x", NDArray::from_vector(x, {8}));
  m.run();
  const auto out0 = m.get_output(0).to_vector<float>(), out1 = m.get_output(1).to_vector<float>();
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(out0[i], (x[i] + 1.0f) - (x[i] * 2.0f) * 3.0f) << i;  // combine(inc, twice)
    EXPECT_FLOAT_EQ(out1[i], x[i] + 1.0f) << i;
  }
}

}  // namespace
}  // namespace minitvm
