/** \file
 * The runtime's description of compiled functions, built from lowered IR (TVM's ExtractFuncInfo):
 * the call signature every backend checks its arguments against, and for CUDA the launches and
 * temporaries that split_host_device found.
 */
#pragma once

#include "minitvm/ir/stmt.h"
#include "minitvm/runtime/module.h"
#include "minitvm/transform/split_host_device.h"

namespace minitvm::codegen {

/**
 * The runtime signature of a lowered function: one ArgSpec per parameter, Buffer for parameters in
 * buffer_map (dtype and constant shape of the buffer), Scalar for the others. Throws CompileError
 * when a buffer's shape is not constant or a handle parameter has no buffer (its shape, and so the
 * argument check, would be unknown).
 */
runtime::FunctionSignature signature_of(const ir::PrimFunc& func);

/** The runtime description of a CUDA host function: `lowered`'s signature and the launches and
 *  temporaries of its split. */
runtime::CudaFunctionInfo cuda_function_info(const ir::PrimFunc& lowered,
                                             const transform::HostDeviceSplit& split);

}  // namespace minitvm::codegen
