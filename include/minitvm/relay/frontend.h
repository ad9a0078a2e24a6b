/** \file
 * relay::frontend::from_onnx: an ONNX ModelProto (libonnx's protobuf classes) as a graph function.
 *
 *   auto [mod, params] = relay::frontend::from_onnx("resnet18.onnx", {{"input", {1, 3, 224,
 * 224}}}); relay::Built lib = relay::build(mod, "llvm", params);
 *
 * Graph inputs that are not initializers become Vars with the given shape (a shape for every input
 * whose shape in the model is not fully static; a given shape must agree with the model's static
 * dims). Float initializers become Vars bound through `params` (named as in the model); integer
 * initializers and Constant nodes are import-time constants. Shape computations (Shape, Gather,
 * Unsqueeze, Concat, Slice, Cast, arithmetic on integer constants ...) are evaluated at import, as
 * torch's exports of static shapes need. Supported ops: docs/RELAY.md "ONNX import". An unknown op,
 * an unsupported attribute or value, a missing input shape or a malformed model is a CompileError
 * naming the node (index, name), its op and the attribute; nothing is built or run.
 * Without libonnx-dev (MINITVM_HAVE_ONNX unset) from_onnx throws CompileError.
 *
 * The ONNX backend-test runner (run_onnx_test_dir, `minitvm pool onnx-test`) is QA code:
 * tools/lib/include/minitvm/devtools/onnx_test.h.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "minitvm/relay/expr.h"

namespace minitvm::relay::frontend {

struct Imported {
  Function mod;
  Params params;
};

using ShapeDict = std::map<std::string, std::vector<int64_t>>;

/** Import the ONNX file at `path`. */
Imported from_onnx(const std::string& path, const ShapeDict& shapes = {});
/** Import a serialized ModelProto. */
Imported from_onnx_bytes(const std::string& bytes, const ShapeDict& shapes = {});
/** A graph input of an ONNX model that is not an initializer: its name and the model's dims (-1
 *  where a dim is symbolic or absent; an empty shape when the model gives none). */
struct OnnxInput {
  std::string name;
  std::vector<int64_t> shape;
  bool has_shape = false;
};
/** The model's graph inputs, initializers excluded (CompileError when unreadable). */
std::vector<OnnxInput> onnx_graph_inputs(const std::string& path);

/** The ONNX op types from_onnx maps (default domain). */
std::vector<std::string> onnx_supported_ops();

}  // namespace minitvm::relay::frontend
