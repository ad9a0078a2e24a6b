/** \file
 * Workspace memory of compiled kernels: the heap buffers a kernel allocates and frees inside one
 * call (buffers over 64 KiB; smaller ones live on the stack), as TVM's TVMBackendAllocWorkspace.
 *
 * Compiled code calls these C entry points (registered as absolute symbols in the JIT; an
 * exported shared object routes them to the loading process's through its runtime stub). Each
 * thread keeps the blocks its kernels freed and hands them out again, best fit first, so that a
 * kernel run again (a network's next inference) neither maps fresh pages from the kernel nor
 * page-faults them in: a 29 MB buffer allocated per call cost VGG-16's 224x224 Winograd layer
 * 2.5x its time. A thread keeps at most 1 GiB of free blocks (larger frees go back to the system)
 * and frees them when it exits.
 *
 * Semantics: minitvm_workspace_alloc returns a 64-byte aligned block of at least `bytes` bytes
 * (nullptr when the system has no memory); minitvm_workspace_free takes a block from alloc, on the
 * thread that allocated it, or nullptr (ignored).
 */
#pragma once

#include <cstdint>

extern "C" {
void* minitvm_workspace_alloc(int64_t bytes);
void minitvm_workspace_free(void* ptr);
}

namespace minitvm::runtime {

/** Bytes of free blocks the calling thread keeps (for tests). */
int64_t workspace_cached_bytes();

}  // namespace minitvm::runtime
