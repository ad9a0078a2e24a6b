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
 * run_onnx_test_dir runs one ONNX backend test directory (model.onnx + test_data_set_N/
 * {input,output}_K.pb, as in Debian's libonnx-testdata) through from_onnx, relay::build for a
 * target and runtime::GraphExecutor, and compares every output of every data set with the recorded
 * one (and with reference_run). Float32 inputs stay graph inputs, shaped as the data set's tensor;
 * other inputs (int64 shapes/axes/pads, doubles ...), and float inputs the importer needs as
 * constants (Clip's min/max, Pad's constant_value ...), become initializers holding the data set's
 * values, so the model is imported (and built) again for a data set whose constants or shapes
 * differ.
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

/** Outcome of one ONNX backend test directory. */
struct OnnxTestResult {
  enum class Status {
    Passed,
    Failed,       ///< a build/run error or an output that differs (reason says which)
    Unsupported,  ///< an op from_onnx does not map, or from_onnx rejects the model (reason: its
                  ///< message)
  };
  std::string dir;
  Status status = Status::Failed;
  std::string reason;  ///< empty when passed
  int data_sets = 0;   ///< data sets compared
  int kernels =
      0;  ///< kernels compiled (for the first data set); 0 for a graph with no computation
  bool passed() const { return status == Status::Passed; }
};

struct OnnxTestOptions {
  double rtol = 1e-3;
  double atol = 1e-5;
  bool check_reference = true;  ///< also compare reference_run's outputs with the recorded ones
};

/** Run the test directory `dir` for `target` ("llvm", "cuda -emulate" or "cuda"). Never throws for
 * problems of the test (they become Failed / Unsupported). */
OnnxTestResult run_onnx_test_dir(const std::string& dir, const std::string& target = "llvm",
                                 const OnnxTestOptions& options = {});

}  // namespace minitvm::relay::frontend
