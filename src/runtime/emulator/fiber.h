// Fibers of the CUDA emulator (internal): one per thread of a block, so that __syncthreads() is a
// real barrier. On x86-64 a switch is a few instructions of assembly (fiber.cc: callee-saved
// registers, MXCSR and the x87 control word; no signal-mask system call as in swapcontext, which
// remains the fallback elsewhere and under ThreadSanitizer). Under AddressSanitizer every switch is
// announced with __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber.
#pragma once

#include <sys/mman.h>
#include <ucontext.h>

#include <cstddef>
#include <cstdint>

#include "minitvm/runtime/cuda_emulator.h"
#include "runtime/emulator/abi.h"

#if defined(__SANITIZE_ADDRESS__)
#define MINITVM_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MINITVM_EMU_ASAN 1
#endif
#endif
#ifndef MINITVM_EMU_ASAN
#define MINITVM_EMU_ASAN 0
#endif
#if MINITVM_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define MINITVM_EMU_ASM_FIBERS 1
#else
#define MINITVM_EMU_ASM_FIBERS 0
#endif

namespace minitvm::runtime::emulator::fiber {

constexpr size_t kStackBytes = 256 * 1024;

/** Where a fiber stands in its block's launch. */
enum class Status { Ready, AtBarrier, Done, Failed };

#if MINITVM_EMU_ASM_FIBERS
/** Saves the callee-saved state of the caller on its stack, stores its stack pointer in `*save_sp`
 *  and continues the context whose stack pointer is `load_sp` (System V x86-64 ABI; fiber.cc). */
extern "C" void minitvm_emu_switch(void** save_sp, void* load_sp);
/** A context that starts `entry` on the stack [stack, stack + bytes) at the first switch to it. */
void* make_fiber_context(char* stack, size_t bytes, void (*entry)());
#endif

/**
 * AddressSanitizer's fiber protocol: announce a switch to the stack [bottom, bottom + size) before
 * it, saving the leaving context's fake stack in `*fake` (nullptr: the context never resumes), and
 * finish it first thing in the resumed context with the fake stack saved when it left. No-ops
 * without ASan.
 */
inline void asan_switch_begin(void** fake, const void* bottom, size_t size) {
#if MINITVM_EMU_ASAN
  __sanitizer_start_switch_fiber(fake, bottom, size);
#else
  (void)fake, (void)bottom, (void)size;
#endif
}
inline void asan_switch_end(void* fake, const void** old_bottom, size_t* old_size) {
#if MINITVM_EMU_ASAN
  __sanitizer_finish_switch_fiber(fake, old_bottom, old_size);
#else
  (void)fake, (void)old_bottom, (void)old_size;
#endif
}
/** Forget ASan's poisoning of stack frames that never returned (what its swapcontext interceptor
 * does for the whole stack on every switch). */
inline void asan_unpoison(const void* p, size_t bytes) {
#if MINITVM_EMU_ASAN
  __asan_unpoison_memory_region(p, bytes);
#else
  (void)p, (void)bytes;
#endif
}

struct Fiber {
#if MINITVM_EMU_ASM_FIBERS
  void* sp = nullptr;
#else
  ucontext_t ctx;
#endif
  char* stack = nullptr;  ///< lowest address of its kStackBytes stack
  void* asan_fake = nullptr;
  Status status = Status::Ready;
  int line = 0;
};

/** Fiber stacks of the calling OS thread, reused across launches. */
struct StackPool {
  char* mem = nullptr;
  size_t count = 0;
  bool abandoned =
      false;  ///< a launch ended with fibers suspended on these stacks (under ASan: stale poison)
  ~StackPool() {
    if (mem) munmap(mem, count * (kStackBytes + 4096));
  }
  char* stack(size_t i) { return mem + i * (kStackBytes + 4096) + 4096; }
  void reserve(size_t n) {
    if (n <= count) return;
    if (mem) munmap(mem, count * (kStackBytes + 4096));
    const size_t bytes = n * (kStackBytes + 4096);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      mem = nullptr;
      count = 0;
      throw EmulatorError("CUDA emulator: cannot allocate fiber stacks");
    }
    mem = static_cast<char*>(p);
    count = n;
    abandoned = true;  // new memory: clear whatever ASan remembers about these addresses
    for (size_t i = 0; i < n; ++i)
      mprotect(mem + i * (kStackBytes + 4096), 4096, PROT_NONE);  // guard pages
  }
};

}  // namespace minitvm::runtime::emulator::fiber
