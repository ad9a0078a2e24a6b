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
 * Temporaries: an `Allocate` of global scope outside every kernel (an intermediate tensor written
 * by one kernel and read by a later one, e.g. two root stages both bound to threads) becomes a
 * temporary of the host function, `temporaries[t]` (name, dtype, constant element count;
 * a non-constant size is a CompileError), in order of appearance in the host body. Kernels that
 * use it take it as a handle parameter like any buffer (same first-use order, with a Buffer in
 * their buffer_map), and their DeviceLaunch::args refer to it as index `params.size() + t`. The
 * Allocate stays in the host function, around the launches, as the host's device allocation; the
 * runtime modules allocate the memory per function and never show it to the caller. A shared or
 * local allocation outside the kernels that a kernel uses is a CompileError.
 *
 * Launch dimensions come from the thread_extent values, which must be constants here:
 * blockIdx.{x,y,z} -> grid[0..2], threadIdx.{x,y,z} -> block[0..2]; unused dims are 1. A tag bound
 * twice in one kernel must have the same extent.
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/ir/stmt.h"

namespace minitvm::transform {

/** One kernel launch of the host function (static launch dimensions). `args` index the host
 *  function's parameters, then its temporaries (index `params.size() + t`). */
struct DeviceLaunch {
  std::string kernel;  ///< e.g. "matmul_kernel0"
  std::vector<int> args;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t dynamic_shared_bytes = 0;
};

/** A global allocation of the host function that kernels share (see above). */
struct HostTemporary {
  std::string name;  ///< the allocation's name in the IR
  DataType dtype;
  int64_t elements = 0;
};

/** What split_host_device produces: IR and launch data only. codegen turns the launch data into
 *  the runtime's description of the function (codegen::cuda_function_info), as TVM's
 *  ExtractFuncInfo does, so this pass does not depend on the runtime. */
struct HostDeviceSplit {
  /** The host function: the original parameters, kernel regions replaced by launches. */
  ir::PrimFunc host;
  /** Device kernels in launch order (with thread_axes and buffer_map of their handle params). */
  std::vector<ir::PrimFunc> kernels;
  /** One launch per kernel, in order. */
  std::vector<DeviceLaunch> launches;
  /** The host function's global temporaries, in order of appearance. */
  std::vector<HostTemporary> temporaries;
};

/** Split `f`. Throws CompileError for non-constant launch extents, a non-constant temporary size,
 *  or a kernel that needs a value that is neither a parameter of `f` nor a host-level global
 *  allocation. */
HostDeviceSplit split_host_device(const ir::PrimFunc& f);

}  // namespace minitvm::transform
