// Per-thread cache of kernel workspace blocks (minitvm/runtime/workspace.h).
#include "minitvm/runtime/workspace.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "runtime/cpu/guarded_memory.h"

namespace minitvm::runtime {

namespace {

constexpr int64_t kAlign = 64;
constexpr int64_t kMaxCachedBytes = int64_t{1} << 30;

class ThreadWorkspace {
 public:
  ~ThreadWorkspace() {
    for (auto& [size, p] : free_) std::free(p);
  }
  void* alloc(int64_t bytes) {
    if (guard_pages() != GuardPages::Off)  // uncached, each block between inaccessible pages
      return guarded_alloc(static_cast<size_t>(std::max<int64_t>(bytes, 0)));
    const int64_t size = bytes <= 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
    // Best fit among the free blocks, if it is at most twice the request.
    auto it = free_.lower_bound(size);
    if (it != free_.end() && it->first <= 2 * size) {
      void* p = it->second;
      cached_ -= it->first;
      live_[p] = it->first;
      free_.erase(it);
      return p;
    }
    void* p = std::aligned_alloc(kAlign, static_cast<size_t>(size));
    if (!p && !free_.empty()) {  // give the cached blocks back and try again
      for (auto& [s, q] : free_) std::free(q);
      free_.clear();
      cached_ = 0;
      p = std::aligned_alloc(kAlign, static_cast<size_t>(size));
    }
    if (p) live_[p] = size;
    return p;
  }
  void release(void* p) {
    if (!p || (guarded_blocks() > 0 && guarded_free(p))) return;
    auto it = live_.find(p);
    if (it == live_.end()) {  // not from this thread's alloc: the caller broke the contract
      std::free(p);
      return;
    }
    const int64_t size = it->second;
    live_.erase(it);
    if (cached_ + size > kMaxCachedBytes) {
      std::free(p);
      return;
    }
    free_.emplace(size, p);
    cached_ += size;
  }
  int64_t cached() const { return cached_; }

 private:
  std::multimap<int64_t, void*> free_;
  std::unordered_map<void*, int64_t> live_;
  int64_t cached_ = 0;
};

ThreadWorkspace& workspace() {
  thread_local ThreadWorkspace w;
  return w;
}

}  // namespace

int64_t workspace_cached_bytes() {
  return workspace().cached();
}

}  // namespace minitvm::runtime

extern "C" void* minitvm_workspace_alloc(int64_t bytes) {
  return minitvm::runtime::workspace().alloc(bytes);
}

extern "C" void minitvm_workspace_free(void* ptr) {
  minitvm::runtime::workspace().release(ptr);
}
