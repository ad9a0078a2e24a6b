/** \file
 * frontend::onnx: load ONNX models made of pooling nodes (MaxPool with optional Indices,
 * AveragePool, LpPool, GlobalMaxPool, GlobalAveragePool, GlobalLpPool, MaxUnpool) and their
 * TensorProto inputs/outputs, map each node to a PoolPlan, and run ONNX backend node-test
 * directories (model.onnx + test_data_set_N/{input,output}_M.pb) through a PoolExecutor.
 *
 * Parsing uses Debian's libonnx-dev protobuf classes (no hand-written protobuf parsing); when
 * minitvm is built without it (cmake/onnx.cmake), every function throws CompileError saying so.
 * Unsupported operators or attributes give a CompileError naming the node and the attribute.
 */
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "minitvm/frontend/onnx_ops.h"
#include "minitvm/frontend/onnx_pool_attrs.h"
#include "minitvm/frontend/pool_executor.h"

namespace minitvm {
namespace frontend {
namespace onnx {

/** True when minitvm was built with libonnx-dev. */
bool available();

/** A graph input or output: name, element type and static shape (-1 for a symbolic dimension). */
struct ValueInfo {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
};

/** One node of a model. For pooling ops `attrs` holds the parsed attributes; MaxUnpool uses
 * kernel_shape, strides and pads of `attrs` too. */
struct Node {
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;   ///< "" for an omitted optional input
  std::vector<std::string> outputs;  ///< "" for an omitted optional output
  OnnxPoolAttrs attrs;
  TensorOpAttrs op_attrs;  ///< attributes of tensor ops (onnx_ops.h: Conv, Gemm, Relu, Add, ...)
};

/** A loaded model: the graph's nodes in order, its inputs/outputs and the default-domain opset. */
struct Model {
  int64_t opset = 0;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<Node> nodes;
};

/** Load a model file; throws CompileError for unreadable files and unsupported ops/attributes. */
Model load_model(const std::string& path);

/** Read a serialized TensorProto (.pb) into a HostArray (float32/64, int8/32/64, uint8). */
HostArray load_tensor(const std::string& path);

/** Run the model's nodes on `inputs` (in graph-input order) with `exec`; returns the graph outputs
 * in order. Pooling nodes are planned with plan_onnx_pool on the actual input shapes; MaxUnpool
 * is computed directly (scatter of X to the global Indices). */
std::vector<HostArray> run_model(const Model& model, const std::vector<HostArray>& inputs,
                                 PoolExecutor& exec);

/** Outcome of one node-test directory. */
struct NodeTestResult {
  std::string dir;
  bool passed = false;
  std::vector<std::string>
      failures;  ///< "dir: data set k output m differs at index i: got x, expected y"
};

/** Run every test_data_set_* of an ONNX backend node-test directory and compare with ONNX's
 * default tolerances (rtol 1e-3, atol 1e-7; exact for integer outputs). Never throws for
 * test-level problems (they become failures). */
NodeTestResult run_node_test(const std::string& dir, PoolExecutor& exec);

}  // namespace onnx
}  // namespace frontend
}  // namespace minitvm
