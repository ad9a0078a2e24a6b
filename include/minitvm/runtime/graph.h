/** \file
 * A compiled network: what relay::build produces, export_library writes and GraphExecutor runs.
 */
#pragma once

#include <map>
#include <string>

#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm::runtime {

struct CompiledGraph {     // what relay::build produces, export_library writes, GraphExecutor runs
  std::string graph_json;  // TVM v0.6 graph JSON:
                           // nodes/arg_nodes/heads/attrs(shape,dltype,storage_id)/node_row_ptr
  Module lib;  // one Module holding every fused kernel; node attr func_name = function name
  std::map<std::string, NDArray>
      params;            // constants, named as the graph's null nodes (p0, p1, ...)
  std::string target;    // "llvm", "cuda", "cuda -emulate"
  std::string metadata;  // free-form text kept with the graph (relay::build: its report as JSON)
};

}  // namespace minitvm::runtime
