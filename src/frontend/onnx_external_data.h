// ONNX external data (internal to the ONNX readers of frontend and relay::frontend): tensors whose
// bytes live in a file beside the model (TensorProto.data_location = EXTERNAL, as torch.onnx's
// dynamo exporter and onnx.save_model(save_as_external_data=True) write them).
#pragma once

#ifdef MINITVM_HAVE_ONNX

#include <onnx/onnx_pb.h>

#include <string>

namespace minitvm::frontend {

/** Reads every external tensor of `m` (initializers and Constant attributes) into raw_data, from
 * its `location` relative to the directory of `model_path`, at `offset` for `length` bytes. A
 * location that is absolute or leaves that directory, a missing file or a range outside it is a
 * CompileError naming the tensor and the file. */
void load_external_data(::onnx::ModelProto& m, const std::string& model_path);

/** True when `t` keeps its bytes outside the model (not loaded). */
bool is_external(const ::onnx::TensorProto& t);

/** The `location` entry of an external tensor ("" if absent). */
std::string external_location(const ::onnx::TensorProto& t);

}  // namespace minitvm::frontend

#endif  // MINITVM_HAVE_ONNX
