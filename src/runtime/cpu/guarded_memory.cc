// Guarded host allocations (src/runtime/cpu/guarded_memory.h).
#include "runtime/cpu/guarded_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include "minitvm/support/error.h"

namespace minitvm::runtime {

namespace {

GuardPages from_env() {
  const char* e = std::getenv("MINITVM_GUARD_PAGES");
  if (!e || !*e || std::string(e) == "0") return GuardPages::Off;
  const std::string v(e);
  if (v == "after" || v == "1") return GuardPages::After;
  if (v == "before") return GuardPages::Before;
  if (v == "alternate") return GuardPages::Alternate;
  MINITVM_USER_ERROR << "MINITVM_GUARD_PAGES='" << v << "': expected after, before, alternate or 0";
  return GuardPages::Off;
}

std::atomic<int>& mode_slot() {
  static std::atomic<int> m{static_cast<int>(from_env())};
  return m;
}

struct Mapping {
  char* base;
  size_t length;
};

struct Registry {
  std::mutex mu;
  std::unordered_map<void*, Mapping> blocks;
  std::atomic<uint64_t> count{0};
  std::atomic<size_t> live{0};
};

Registry& registry() {
  static Registry* r = new Registry();  // outlives static destructors that free arrays
  return *r;
}

}  // namespace

GuardPages guard_pages() {
  return static_cast<GuardPages>(mode_slot().load(std::memory_order_relaxed));
}

void set_guard_pages(GuardPages mode) {
  mode_slot().store(static_cast<int>(mode), std::memory_order_relaxed);
}

void* guarded_alloc(size_t nbytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  Registry& r = registry();
  GuardPages m = guard_pages();
  if (m == GuardPages::Alternate)
    m = r.count.fetch_add(1, std::memory_order_relaxed) % 2 ? GuardPages::Before
                                                            : GuardPages::After;
  const size_t data_pages = (nbytes + 63 + page - 1) / page;  // room for the 64-byte rounding
  const size_t length = (data_pages + 2) * page;
  void* mem = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(mem);
  if (mprotect(base, page, PROT_NONE) != 0 ||
      mprotect(base + (data_pages + 1) * page, page, PROT_NONE) != 0) {
    munmap(mem, length);
    return nullptr;
  }
  char* first = base + page;
  char* p = first;
  if (m != GuardPages::Before) {
    const uintptr_t end = reinterpret_cast<uintptr_t>(first + data_pages * page);
    p = reinterpret_cast<char*>((end - nbytes) & ~uintptr_t{63});
  }
  std::lock_guard<std::mutex> lock(r.mu);
  r.blocks[p] = {base, length};
  r.live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

bool guarded_free(void* p) {
  if (!p) return true;
  Registry& r = registry();
  Mapping m;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.blocks.find(p);
    if (it == r.blocks.end()) return false;
    m = it->second;
    r.blocks.erase(it);
    r.live.fetch_sub(1, std::memory_order_relaxed);
  }
  munmap(m.base, m.length);
  return true;
}

size_t guarded_blocks() {
  return registry().live.load(std::memory_order_relaxed);
}

}  // namespace minitvm::runtime
