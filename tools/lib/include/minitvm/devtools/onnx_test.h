/** \file
 * run_onnx_test_dir: one ONNX backend test directory (model.onnx + test_data_set_N/
 * {input,output}_K.pb, as in Debian's libonnx-testdata) through relay::frontend::from_onnx,
 * relay::build for a target and runtime::GraphExecutor, every output of every data set compared
 * with the recorded one (and with reference_run). Float32 inputs stay graph inputs, shaped as the
 * data set's tensor; other inputs (int64 shapes/axes/pads, doubles ...), and float inputs the
 * importer needs as constants (Clip's min/max, Pad's constant_value ...), become initializers
 * holding the data set's values, so the model is imported (and built) again for a data set whose
 * constants or shapes differ. QA code (minitvm_devtools): `minitvm pool onnx-test` and the tests
 * use it.
 */
#pragma once

#include <string>

namespace minitvm::relay::frontend {

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
