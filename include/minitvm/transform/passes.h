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
Stmt storage_flatten(const Stmt& s,
                     const std::map<std::pair<const ir::OperationNode*, int>, ir::Buffer>& binds);

/** TVM's LoopPartition for split tails: a serial loop (constant bounds) holding a vectorized loop
 *  with a lane-dependent `likely` guard that uses the serial loop's variable (`if (likely(xo*16 +
 *  xi < 197))`) is split into the iterations where every such guard provably holds, simplified
 *  without the guards (unmasked vectors), and the remaining iterations with them. Loops whose
 *  guards hold nowhere or everywhere are unchanged. Expects: after storage_flatten and simplify,
 *  before vectorize_loop. */
Stmt loop_partition(const Stmt& s);

/** Split tails of register tiles: a serial loop (constant bounds) holding, inside a further
 *  loop, `likely` guards whose conditions use its variable and no variable bound inside it (the
 *  last, partial column tile of a convolution's register tile after unrolling: `for (xo, 0, 3)
 *  for (k, ...) { acc0 += ...; if (likely(xo < 2)) acc4 += ...; }`) is split into the
 *  iterations where every such guard provably holds, without the guards, and the rest with them
 *  (simplified: guards that fail there go). The inner loops of both parts are then free of
 *  branches, so their accumulators stay in registers. Expects: after unroll_loop. */
Stmt partition_guarded_tiles(const Stmt& s);

/** TVM's HoistIfThenElse for else-less ifs, in the loop nests under a `pragma(iv,
 *  "hoist_if_then_else")` (the pragma is removed): a loop whose body is `if (a && b) ...` (or a
 *  chain of such ifs) gives the conjuncts that neither use its variable nor read memory nor call
 *  anything (likely() guards stay) to its outside: `for (i) if (c(i) && d) S` -> `if (d) for (i)
 *  if (c(i)) S`, repeated outwards up to the pragma's loop. A reduction's `where` condition on
 *  outer loop variables (the padding taps a conv2d_NCHWc skips) then guards whole inner loops
 *  instead of each vector update. Expects: after storage_flatten and simplify, before
 *  vectorize_loop. */
Stmt hoist_if_then_else(const Stmt& s);

/** Vectorized loops with constant extent (2..64) become Ramp/Broadcast vector code. Loads may use
 *  ramps (any stride) or indices with constant lane offsets over a short span (ir::lane_offsets,
 *  e.g. floordiv(ramp(x*48, 1, 48), 3)); a lane-dependent `if` without else (a split tail) makes
 *  the stores and loads under it predicated; tvm_if_then_else stays a vector call whose true
 *  branch's loads code generation masks; a let of a lane-dependent value binds a vector variable.
 *  Loops whose body cannot be vectorized (inner loops, else branches, other vector indices,
 *  allocations) become serial loops. */
Stmt vectorize_loop(const Stmt& s);

/** Virtual threads as TVM's InjectVirtualThread: buffers whose contents depend on the thread grow
 * by its extent, and the thread variable is injected at the lowest statements using it (duplicated,
 * or a serial loop `v.s`); statements that do not use it run once. */
Stmt inject_virtual_thread(const Stmt& s);

/** TVM's InjectDoubleBuffer. For each buffer whose producer sits under a `double_buffer_scope`
 *  attribute (Stage::double_buffer) and which is allocated inside a loop L (the innermost For
 *  around the allocation, the loop the stage is computed at): the allocation moves around L with
 * twice the size; iteration i reads half i % 2; the producer runs once for iteration 0 before L
 * and, inside L, fills half (i + 1) % 2 for iteration i + 1 under `if (i + 1 < extent)` and a
 *  `double_buffer_write` attribute (so thread_sync needs one barrier per iteration). With
 *  split_loop = k > 0 (TVM's double_buffer_split_loop, default 1) L runs (extent - 1) / k times
 * with k copies of its body and the last iterations follow as a tail without the prefetch; 0 keeps
 * L. A buffer with no loop around it (its loop had extent 1 and was not emitted), a loop between
 *  the allocation and the producer, or a producer using a let bound inside L is left single
 *  buffered. Expects: after storage_flatten and inject_virtual_thread. */
Stmt inject_double_buffer(const Stmt& s, int split_loop = 1);

/** TVM's LowerThreadAllreduce (shared-memory path): each `tvm_thread_allreduce` (made by
 *  schedule_to_stmt for reduce axes bound to threadIdx, under a `reduce_scope` attribute naming the
 *  combiner) becomes a shared buffer `red_buf<i>[groups * threads]` written by every thread, a tree
 *  reduction with a `tvm_storage_sync("shared")` after every step (non-power-of-two thread counts
 *  fold their tail first), and a copy of the group's result into the call's local result buffer.
 *  Threads of the enclosing threadIdx axes that are not reduced form independent groups.
 *  Raises CompileError for a thread extent that is not constant, an allreduce under a condition on
 *  the thread index (its barriers would diverge), or a threadIdx axis bound elsewhere in the
 *  kernel but not around the call. Expects: after storage_flatten (flat buffers). Guarantees: no
 *  tvm_thread_allreduce or reduce_scope remains. */
Stmt lower_thread_allreduce(const Stmt& s);

/** Allocations inside a GPU kernel move to the top of the kernel's outermost thread_extent. */
Stmt storage_rewrite(const Stmt& s);

struct UnrollOptions {
  int auto_max_step = 0;
  int auto_max_depth = 8;
  int auto_max_extent = 0;
  bool explicit_unroll = true;
};
/** TVM's UnrollLoop: user unroll() loops and, under pragma_auto_unroll_max_step, small perfect
 *  nests are expanded (explicit) or marked `unrolled` (#pragma unroll in CUDA). Removes the
 * pragmas. */
Stmt unroll_loop(const Stmt& s, const UnrollOptions& opt = {});

/** Removes statements without effect: empty loops, no-op evaluates, empty branches. */
Stmt remove_no_op(const Stmt& s);

}  // namespace minitvm::transform
