/** \file
 * frontend::onnx tensor operators: Conv (2-D, group 1 or depthwise), Gemm, Relu, Add (with
 * multidirectional broadcasting), Flatten and BatchNormalization (inference), each mapped onto a
 * topi compute with its CPU schedule, compiled for "llvm" and run on HostArrays. The model loader
 * (onnx_loader.cc) parses these nodes' attributes with parse_tensor_op_attr and dispatches them to
 * run_tensor_op; pooling nodes keep going through the PoolExecutor.
 *
 *   if (onnx::is_tensor_op(n.op_type)) outs = onnx::run_tensor_op(n.name, n.op_type, n.op_attrs,
 * ins);
 */
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "minitvm/frontend/pool_executor.h"

namespace minitvm {
namespace frontend {
namespace onnx {

/** The attributes of a tensor-op node, by kind (pooling nodes use OnnxPoolAttrs instead). */
struct TensorOpAttrs {
  std::map<std::string, int64_t> ints;
  std::map<std::string, std::vector<int64_t>> int_lists;
  std::map<std::string, double> floats;
  std::map<std::string, std::string> strings;
};

/** True for the op types this file handles. */
bool is_tensor_op(const std::string& op_type);

/** The attribute names accepted for `op_type` (a tensor op). */
const std::set<std::string>& tensor_op_attribute_names(const std::string& op_type);

/** Run one node: `inputs` in node order (nullptr for an omitted optional input); returns its
 * outputs. Throws CompileError naming the node and attribute for unsupported cases (e.g. a Conv
 * group that is neither 1 nor the channel count, training-mode BatchNormalization). */
std::vector<HostArray> run_tensor_op(const std::string& node_name, const std::string& op_type,
                                     const TensorOpAttrs& attrs,
                                     const std::vector<const HostArray*>& inputs);

}  // namespace onnx
}  // namespace frontend
}  // namespace minitvm
