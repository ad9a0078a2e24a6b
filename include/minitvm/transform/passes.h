/** \file
 * The lowering passes, one per file in src/transform/. Each is a pure function Stmt -> Stmt; the
 * order they run in is the code of `lower()` (src/transform/lower.cc).
 */
#pragma once

#include <map>
#include <unordered_map>

#include "minitvm/ir/stmt.h"
#include "minitvm/te/tensor.h"

namespace minitvm::transform {

using ir::Stmt;

/** Multi-dimensional Realize/Provide/ProducerLoad -> flat Allocate/Store/Load.
 *  `binds` maps each argument operation (and output index) to its buffer; tensors that are read
 *  but neither bound nor realized raise CompileError naming the tensor.
 *  Expects: schedule_to_stmt output. Guarantees: no Realize, Provide or ProducerLoad remain. */
Stmt storage_flatten(const Stmt& s, const std::map<std::pair<const ir::OperationNode*, int>, ir::Buffer>& binds);

/** Vectorized loops with constant extent become Ramp/Broadcast vector code; loops whose body cannot
 *  be vectorized (inner loops, data-dependent conditions, allocations) become serial loops. */
Stmt vectorize_loop(const Stmt& s);

/** Virtual threads as TVM's InjectVirtualThread: buffers whose contents depend on the thread grow by
 *  its extent, and the thread variable is injected at the lowest statements using it (duplicated, or
 *  a serial loop `v.s`); statements that do not use it run once. */
Stmt inject_virtual_thread(const Stmt& s);

/** Allocations inside a GPU kernel move to the top of the kernel's outermost thread_extent. */
Stmt storage_rewrite(const Stmt& s);

struct UnrollOptions {
  int auto_max_step = 0;
  int auto_max_depth = 8;
  int auto_max_extent = 0;
  bool explicit_unroll = true;
};
/** TVM's UnrollLoop: user unroll() loops and, under pragma_auto_unroll_max_step, small perfect
 *  nests are expanded (explicit) or marked `unrolled` (#pragma unroll in CUDA). Removes the pragmas. */
Stmt unroll_loop(const Stmt& s, const UnrollOptions& opt = {});

/** Removes statements without effect: empty loops, no-op evaluates, empty branches. */
Stmt remove_no_op(const Stmt& s);

}  // namespace minitvm::transform
