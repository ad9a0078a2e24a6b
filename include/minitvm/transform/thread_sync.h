/** \file
 * thread_sync: insert barriers (`tvm_storage_sync("shared")`, printed `__syncthreads()`) where
 * threads of a block communicate through shared memory, as TVM v0.6's ThreadSync("shared") did.
 *
 * The pass simulates, for every statement sequence, the shared-memory reads and writes since the
 * last barrier and inserts a barrier *before* a statement that
 *  - reads a buffer written earlier (RAW),
 *  - writes a buffer read earlier (WAR), or
 *  - writes a buffer written earlier (WAW; TVM did not check this one),
 * unless both accesses use the same single index expression (then each thread touches only what it
 * touched itself). A loop body is also checked across the back edge: the accesses after the last
 * barrier of iteration i against the statements of iteration i+1 before the first barrier; at most
 * one barrier is added for that, before the first conflicting statement. Compound statements (a
 * loop, an if) count as one statement with all their accesses; accesses inside an inner loop whose
 * index depends on that loop's variable are never "single index". Barriers are never inserted
 * inside a conditional: that is reported as a CompileError, since not every thread would reach it.
 *
 * Only buffers allocated in the synchronised scope (Allocate with that StorageScope) are tracked.
 * Existing barriers in the input are respected.
 */
#pragma once

#include "minitvm/ir/stmt.h"

namespace minitvm::transform {

/** Insert barriers for buffers of `scope`. Only StorageScope::Shared is supported; Warp is a no-op.
 */
ir::Stmt thread_sync(const ir::Stmt& body, ir::StorageScope scope);
/** Same on a function body. */
ir::PrimFunc thread_sync(const ir::PrimFunc& f, ir::StorageScope scope);

/** The barrier statement: Evaluate(tvm_storage_sync("shared")). */
ir::Stmt make_storage_sync(ir::StorageScope scope);

}  // namespace minitvm::transform
