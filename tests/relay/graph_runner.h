// A tiny in-test loop over TVM v0.6 graph JSON: one array per entry, tvm_op nodes called with their
// inputs then outputs. Independent of relay::build's internals (it reads only the JSON).
#pragma once

#include <dlpack/dlpack.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "minitvm/relay/build.h"
#include "minitvm/relay/relay.h"
#include "relay/relay_test_util.h"

namespace relay_test {

// A zero-offset view of `pool` with another shape (float32), as TVM's executor makes of its pools.
inline minitvm::runtime::NDArray view(const minitvm::runtime::NDArray& pool,
                                      const std::vector<int64_t>& shape) {
  struct Ctx {
    minitvm::runtime::NDArray keep;
    std::vector<int64_t> shape;
  };
  auto* ctx = new Ctx{pool, shape};
  auto* t = new DLManagedTensor{};
  t->dl_tensor.data = pool.data();
  t->dl_tensor.device = {kDLCPU, 0};
  t->dl_tensor.ndim = static_cast<int32_t>(shape.size());
  t->dl_tensor.dtype = {kDLFloat, 32, 1};
  t->dl_tensor.shape = ctx->shape.data();
  t->manager_ctx = ctx;
  t->deleter = [](DLManagedTensor* m) {
    delete static_cast<Ctx*>(m->manager_ctx);
    delete m;
  };
  return minitvm::runtime::NDArray::from_dlpack(t);
}

/** Run the graph. With `share_storage`, kernel outputs are views of one pool per storage_id (sized
 *  as the largest entry using it), so a wrong memory plan corrupts live values. */
inline std::vector<minitvm::runtime::NDArray> run_graph(const minitvm::runtime::CompiledGraph& g,
                                                        const minitvm::relay::Params& inputs,
                                                        bool share_storage = false) {
  using minitvm::runtime::NDArray;
  auto j = nlohmann::json::parse(g.graph_json);
  auto& nodes = j.at("nodes");
  auto row = j.at("node_row_ptr").get<std::vector<int>>();
  auto shapes = j.at("attrs").at("shape").at(1).get<std::vector<std::vector<int64_t>>>();
  auto sids = j.at("attrs").at("storage_id").at(1).get<std::vector<int>>();
  std::vector<NDArray> entry(shapes.size());
  std::map<int, int64_t> pool_elems;
  for (size_t k = 0; k < shapes.size(); ++k) {
    int64_t n = 1;
    for (int64_t d : shapes[k]) n *= d;
    pool_elems[sids[k]] = std::max(pool_elems[sids[k]], n);
  }
  std::map<int, NDArray> pools;
  for (auto& [sid, n] : pool_elems) pools[sid] = NDArray::empty({n}, minitvm::DataType::Float(32));
  for (size_t n = 0; n < nodes.size(); ++n) {
    auto& node = nodes[n];
    std::string name = node.at("name");
    if (node.at("op") == "null") {
      auto it = inputs.find(name);
      entry[row[n]] = it != inputs.end() ? it->second : g.params.at(name);
      continue;
    }
    std::vector<minitvm::runtime::ArgValue> args;
    for (auto& in : node.at("inputs"))
      args.push_back(entry[row[in[0].get<int>()] + in[1].get<int>()]);
    for (int k = row[n]; k < row[n + 1]; ++k) {
      entry[k] = share_storage ? view(pools.at(sids[k]), shapes[k])
                               : NDArray::empty(shapes[k], minitvm::DataType::Float(32));
      args.push_back(entry[k]);
    }
    g.lib.get_function(node.at("attrs").at("func_name").get<std::string>()).call(args);
  }
  std::vector<NDArray> outs;
  for (auto& h : j.at("heads")) outs.push_back(entry[row[h[0].get<int>()] + h[1].get<int>()]);
  return outs;
}

/** Build `fn` for llvm, run it on `inputs` and compare every output with the reference executor's
 *  (relative tolerance tol, as expect_close). */
inline void expect_llvm_matches_reference(const minitvm::relay::Function& fn,
                                          const minitvm::relay::Params& inputs, double tol) {
  minitvm::relay::Built b = minitvm::relay::build(fn, "llvm");
  auto got = run_graph(b, inputs);
  auto want = minitvm::relay::reference_run(fn, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], tol);
}

}  // namespace relay_test
