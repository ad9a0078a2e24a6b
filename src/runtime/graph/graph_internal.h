/** \file
 * Internal: the parsed form of a TVM v0.6 graph JSON, shared by the executor, the profiler and
 * export/load.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/dtype.h"
#include "minitvm/runtime/module.h"

namespace minitvm::runtime {

struct GraphEntryRef {
  int64_t node = 0, index = 0, version = 0;
};

struct GraphNode {
  std::string op;  ///< "null" or "tvm_op"
  std::string name;
  std::vector<GraphEntryRef> inputs;
  std::map<std::string, std::string> attrs;
  int64_t num_outputs = 1;
};

struct ParsedGraph {
  std::vector<GraphNode> nodes;
  std::vector<int64_t> arg_nodes;
  std::vector<GraphEntryRef> heads;
  std::vector<int64_t> node_row_ptr;
  // per entry
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DataType> dtypes;
  std::vector<int64_t> storage_ids;
  std::vector<int64_t> device_index;  ///< empty when the graph has none
};

/** Parse and validate (see graph_executor.h); RuntimeError "graph JSON: ..." naming key/node/entry.
 */
ParsedGraph parse_graph_json(const std::string& text);

/** "[1, 3, 224, 224]" */
std::string shape_str(const std::vector<int64_t>& shape);
/** "float32[1, 3, 224, 224]" */
std::string describe_array(DataType t, const std::vector<int64_t>& shape);

/** export_library's container (graph_library.h): magic, version, named sections. */
std::string pack_sections(const std::vector<std::pair<std::string, std::string>>& sections);
std::map<std::string, std::string> unpack_sections(const std::string& bytes,
                                                   const std::string& origin);
std::string read_binary_file(const std::string& path, const std::string& who);

/** The "lib_functions" section: function signatures as JSON. */
std::string signatures_to_json(const std::vector<FunctionSignature>& sigs);
std::vector<FunctionSignature> signatures_from_json(const std::string& text,
                                                    const std::string& origin);

/** The node of combine_modules (graph_library.h); export_library links its llvm parts. */
class CombinedModule : public ModuleNode {
 public:
  virtual const std::vector<Module>& parts() const = 0;
};

/** The op-type key of the profiler's op table (see ProfileReport in graph_executor.h). */
std::string profile_op_type(const std::map<std::string, std::string>& attrs,
                            const std::string& func_name);

}  // namespace minitvm::runtime
