/** \file
 * split_host_device: cut a lowered GPU function into host code and device kernels, as TVM v0.6's
 * SplitHostDevice did.
 *
 * Each outermost `AttrStmt(IterVar, ThreadExtent, extent)` region becomes a kernel named
 * `<func>_kernel<k>` (k = 0, 1, ... in order of appearance; characters that are not valid in a C
 * identifier become '_'). A kernel's `thread_axes` are the
 * thread IterVars in order of first appearance (keyed by variable, so a re-bound tag is listed
 * again). Its parameters are the variables it uses but does not define: buffer handles first, then
 * scalars, each group in order of first use (a Store uses its buffer before its value, so
 * `C[i] = A[i] + B[i]` gives (C, A, B)). In the host function the region is replaced by
 * `tvm_call_packed("<kernel>", args..., extent_0, extent_1, ...)`.
 *
 * Launch dimensions come from the thread_extent values, which must be constants here:
 * blockIdx.{x,y,z} -> grid[0..2], threadIdx.{x,y,z} -> block[0..2]; unused dims are 1. A tag bound
 * twice in one kernel must have the same extent.
 */
#pragma once

#include <vector>

#include "minitvm/ir/stmt.h"
#include "minitvm/runtime/module.h"

namespace minitvm::transform {

struct HostDeviceSplit {
  /** The host function: the original parameters, kernel regions replaced by launches. */
  ir::PrimFunc host;
  /** Device kernels in launch order (with thread_axes and buffer_map of their handle params). */
  std::vector<ir::PrimFunc> kernels;
  /** Signature of the host function and one KernelLaunch per kernel (args index the signature). */
  runtime::CudaFunctionInfo info;
};

/** Split `f`. Throws CompileError for non-constant launch extents or a kernel that needs a value
 *  that is not a parameter of `f`. */
HostDeviceSplit split_host_device(const ir::PrimFunc& f);

/** The call signature of a lowered function: buffers (name, dtype, constant shape) and scalars. */
runtime::FunctionSignature function_signature(const ir::PrimFunc& f);

}  // namespace minitvm::transform
