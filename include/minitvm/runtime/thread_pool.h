/** \file
 * The CPU thread pool that runs parallel loops of JIT-compiled code.
 *
 * Compiled code calls the C entry point minitvm_parallel_for (registered as an absolute symbol in
 * the JIT, so it resolves however the process was linked). The pool is created on first use with
 * one thread per hardware thread, or TVM_NUM_THREADS of them when that is set, as in TVM (the
 * caller counts as one of them), and lives for the process.
 *
 * Semantics:
 * - body(task, closure) runs exactly once for every task in [0, num_tasks), in no guaranteed
 *   order; the call returns when all finished. Thread t starts on the t-th contiguous share of the
 *   tasks and takes chunks of the others' shares when done with its own.
 * - A call made from inside a body (a nested parallel loop), or while another thread is using the
 *   pool, runs its tasks serially on the calling thread: correct, never deadlocks.
 * - Idle workers spin briefly (1-2 ms) before blocking, so back-to-back calls start at once.
 * - Bodies must not throw: C++ exceptions cannot cross the C ABI. A C++ body that does throw is
 *   caught at the task boundary; the remaining tasks still run and the call returns -1.
 * - Returns 0 on success, -1 if a body threw, -2 for num_tasks < 0.
 */
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
/** Body of one task: `task` is the task index, `closure` the pointer given to parallel_for. */
typedef void (*minitvm_parallel_body)(int64_t task, void* closure);

/** Run body(task, closure) for task = 0 .. num_tasks-1 on the pool; see the file comment. */
int32_t minitvm_parallel_for(int64_t num_tasks, minitvm_parallel_body body, void* closure);
}

namespace minitvm::runtime {

/** Number of threads (workers plus the caller) that parallel loops use (creates the pool). */
int thread_pool_size();

/** The size the pool has or will have, without creating it: TVM_NUM_THREADS when it is a positive
 *  integer (anything else is reported once on stderr and ignored), else the hardware threads.
 *  Schedules that depend on the thread count ask this. */
int configured_thread_count();

/** memcpy split into one contiguous chunk per pool thread: the machine's copy rate with the threads
 *  our kernels use (the baseline of the memory-bound benchmarks). */
void parallel_memcpy(void* dst, const void* src, size_t bytes);

}  // namespace minitvm::runtime
