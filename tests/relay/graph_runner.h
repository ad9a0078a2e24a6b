// A tiny in-test loop over TVM v0.6 graph JSON: one array per entry, tvm_op nodes called with their
// inputs then outputs. Independent of relay::build's internals (it reads only the JSON).
#pragma once

#include <nlohmann/json.hpp>

#include "minitvm/relay/build.h"

namespace relay_test {

inline std::vector<minitvm::runtime::NDArray> run_graph(const minitvm::runtime::CompiledGraph& g,
                                                        const minitvm::relay::Params& inputs) {
  using minitvm::runtime::NDArray;
  auto j = nlohmann::json::parse(g.graph_json);
  auto& nodes = j.at("nodes");
  auto row = j.at("node_row_ptr").get<std::vector<int>>();
  auto shapes = j.at("attrs").at("shape").at(1).get<std::vector<std::vector<int64_t>>>();
  std::vector<NDArray> entry(shapes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    auto& node = nodes[n];
    std::string name = node.at("name");
    if (node.at("op") == "null") {
      auto it = inputs.find(name);
      entry[row[n]] = it != inputs.end() ? it->second : g.params.at(name);
      continue;
    }
    std::vector<minitvm::runtime::ArgValue> args;
    for (auto& in : node.at("inputs")) args.push_back(entry[row[in[0].get<int>()] + in[1].get<int>()]);
    for (int k = row[n]; k < row[n + 1]; ++k) {
      entry[k] = NDArray::empty(shapes[k], minitvm::DataType::Float(32));
      args.push_back(entry[k]);
    }
    g.lib.get_function(node.at("attrs").at("func_name").get<std::string>()).call(args);
  }
  std::vector<NDArray> outs;
  for (auto& h : j.at("heads")) outs.push_back(entry[row[h[0].get<int>()] + h[1].get<int>()]);
  return outs;
}

}  // namespace relay_test
