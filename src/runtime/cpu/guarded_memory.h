// Host memory between inaccessible pages, for finding kernels that read or write outside their
// buffers (an out-of-bounds access of JIT code is invisible to AddressSanitizer).
//
// MINITVM_GUARD_PAGES=after|before|alternate puts every CPU NDArray and kernel workspace block on
// pages of its own with an inaccessible page on each side: at the end of its pages ("after": a read
// past the end faults, up to 63 bytes of 64-byte alignment slack), at their start ("before": a read
// before the start faults) or each in turn ("alternate", what scripts/sanitize.sh sets). Unset or
// "0": the ordinary allocators. Slow (an mmap per array): for test runs only.
#pragma once

#include <cstddef>

namespace minitvm::runtime {

enum class GuardPages { Off, After, Before, Alternate };

/** The current mode: MINITVM_GUARD_PAGES at the first call, or what set_guard_pages() set. */
GuardPages guard_pages();
/** Sets the mode for the allocations from now on (blocks taken before keep their placement). */
void set_guard_pages(GuardPages mode);

/** Sets a mode for a scope (a test's), then restores the one before. */
class ScopedGuardPages {
 public:
  explicit ScopedGuardPages(GuardPages mode) : saved_(guard_pages()) { set_guard_pages(mode); }
  ~ScopedGuardPages() { set_guard_pages(saved_); }
  ScopedGuardPages(const ScopedGuardPages&) = delete;
  ScopedGuardPages& operator=(const ScopedGuardPages&) = delete;

 private:
  GuardPages saved_;
};

/** `nbytes` (0 allowed) on pages of their own between two inaccessible pages, 64-byte aligned, at
 *  the end or the start of those pages as the mode says (After when the mode is Off). Null when
 *  the system has no memory left. */
void* guarded_alloc(size_t nbytes);
/** Frees a block of guarded_alloc (null is ignored); false when `p` is not one. */
bool guarded_free(void* p);
/** How many blocks of guarded_alloc are live (a cheap test before guarded_free's lookup). */
size_t guarded_blocks();

}  // namespace minitvm::runtime
