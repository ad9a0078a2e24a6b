#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "minitvm/runtime/thread_pool.h"
#include "minitvm/runtime/workspace.h"
#include "runtime/cpu/guarded_memory.h"

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(int64_t n) : hits(static_cast<size_t>(n)) {}
};

void count_body(int64_t t, void* c) {
  static_cast<Counts*>(c)->hits[t].fetch_add(1);
}

}  // namespace

TEST(ThreadPool, EveryTaskRunsExactlyOnce) {
  for (int64_t n : {1, 2, 3, 7, 64, 1000, 100003}) {
    Counts c(n);
    ASSERT_EQ(minitvm_parallel_for(n, count_body, &c), 0);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c.hits[i].load(), 1) << "n=" << n << " task " << i;
  }
  EXPECT_EQ(minitvm_parallel_for(0, count_body, nullptr), 0);
  EXPECT_EQ(minitvm_parallel_for(-1, count_body, nullptr), -2);
  EXPECT_EQ(minitvm_parallel_for(4, nullptr, nullptr), -2);
  EXPECT_GE(minitvm::runtime::thread_pool_size(), 1);
}

TEST(ThreadPool, UsesSeveralThreadsWhenAvailable) {
  if (minitvm::runtime::thread_pool_size() < 2) GTEST_SKIP() << "one hardware thread";
  struct Seen {
    std::mutex mu;
    std::set<std::thread::id> ids;
  } seen;
  // Tasks sleep a little so that workers get a chance to take some.
  auto body = [](int64_t, void* c) {
    auto* s = static_cast<Seen*>(c);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(s->mu);
    s->ids.insert(std::this_thread::get_id());
  };
  ASSERT_EQ(minitvm_parallel_for(64, body, &seen), 0);
  EXPECT_GE(seen.ids.size(), 2u);
}

// Each thread starts on its own contiguous share of the tasks; a thread done with its share takes
// the rest of a slow thread's. Task 0 blocks its thread for 200 ms: the last task of share 0
// (1/threads of them, eight chunks) must then be run by another thread.
TEST(ThreadPool, IdleThreadsTakeOverASlowThreadsShare) {
  const int threads = minitvm::runtime::thread_pool_size();
  if (threads < 2) GTEST_SKIP() << "one hardware thread";
  const int64_t n = 1600 * threads;
  struct Ran {
    std::vector<std::thread::id> by;
    std::vector<std::atomic<int>> hits;
    explicit Ran(int64_t n) : by(size_t(n)), hits(size_t(n)) {}
  } ran(n);
  auto body = [](int64_t t, void* c) {
    auto* r = static_cast<Ran*>(c);
    if (t == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    r->by[size_t(t)] = std::this_thread::get_id();
    r->hits[size_t(t)].fetch_add(1);
  };
  ASSERT_EQ(minitvm_parallel_for(n, body, &ran), 0);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(ran.hits[size_t(i)].load(), 1) << "task " << i;
  EXPECT_NE(ran.by[size_t(n / threads - 1)], ran.by[0]);
}

TEST(ThreadPool, NestedCallsRunSerially) {
  struct Outer {
    std::vector<std::atomic<int>> cells = std::vector<std::atomic<int>>(16 * 16);
    std::atomic<int> nested_rc{0};
  } o;
  struct Inner {
    Outer* o;
    int64_t row;
  };
  auto inner = [](int64_t j, void* c) {
    auto* in = static_cast<Inner*>(c);
    in->o->cells[in->row * 16 + j].fetch_add(1);
  };
  static minitvm_parallel_body inner_fn = inner;
  auto outer = [](int64_t i, void* c) {
    auto* o = static_cast<Outer*>(c);
    Inner in{o, i};
    o->nested_rc.fetch_or(minitvm_parallel_for(16, inner_fn, &in));
  };
  ASSERT_EQ(minitvm_parallel_for(16, outer, &o), 0);
  EXPECT_EQ(o.nested_rc.load(), 0);
  for (auto& c : o.cells) ASSERT_EQ(c.load(), 1);
}

TEST(ThreadPool, ConcurrentCallersAreAllServed) {
  std::vector<std::thread> callers;
  std::vector<int> ok(4, 0);
  for (int k = 0; k < 4; ++k) {
    callers.emplace_back([k, &ok] {
      for (int rep = 0; rep < 20; ++rep) {
        Counts c(257);
        if (minitvm_parallel_for(257, count_body, &c) != 0) return;
        for (auto& h : c.hits)
          if (h.load() != 1) return;
      }
      ok[k] = 1;
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

TEST(ThreadPool, ThrowingBodyIsReportedNotPropagated) {
  Counts c(100);
  auto body = [](int64_t t, void* p) {
    static_cast<Counts*>(p)->hits[t].fetch_add(1);
    if (t == 37) throw std::runtime_error("boom");
  };
  EXPECT_EQ(minitvm_parallel_for(100, body, &c), -1);
  for (auto& h : c.hits) EXPECT_EQ(h.load(), 1);  // the other tasks still ran
}

// Kernel workspace (runtime/workspace.h): 64-byte aligned blocks that a thread gets back, best
// fit, after freeing them; a block more than twice the request is not handed out for it; each
// thread has its own blocks.
TEST(Workspace, ThreadsReuseTheirFreedBlocks) {
  if (minitvm::runtime::guard_pages() != minitvm::runtime::GuardPages::Off)
    GTEST_SKIP() << "MINITVM_GUARD_PAGES is set: every block is fresh, between guard pages";
  const int64_t before = minitvm::runtime::workspace_cached_bytes();
  void* a = minitvm_workspace_alloc(1000000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 1, 1000000);
  minitvm_workspace_free(a);
  EXPECT_EQ(minitvm::runtime::workspace_cached_bytes(), before + (1000000 + 63) / 64 * 64);
  void* b = minitvm_workspace_alloc(900000);
  EXPECT_EQ(b, a) << "the freed block fits";
  EXPECT_EQ(minitvm::runtime::workspace_cached_bytes(), before);
  void* c = minitvm_workspace_alloc(300000);  // a's block is busy; a new one
  EXPECT_NE(c, a);
  minitvm_workspace_free(b);
  void* d = minitvm_workspace_alloc(100000);  // a's block is more than twice too large
  EXPECT_NE(d, a);
  void* other = nullptr;
  std::thread([&] {
    other = minitvm_workspace_alloc(900000);
    minitvm_workspace_free(other);
  }).join();
  EXPECT_NE(other, a) << "another thread does not take this thread's free block";
  minitvm_workspace_free(c);
  minitvm_workspace_free(d);
  minitvm_workspace_free(nullptr);
  void* e = minitvm_workspace_alloc(0);
  ASSERT_NE(e, nullptr);
  minitvm_workspace_free(e);
}
